import GRDB

// Sub-linear point-in-time balances (docs/architecture.md "Time travel and audit"): bitemporal
// roll-up cells that the balances fold keeps beside the postings, and the query that
// answers "every balance as of D, as known at K" from a bounded number of rows.
//
// Every posting lands in two cells, keyed by its effective bucket and its recorded block:
//
//   balance_rollup_blocks  (effective block of 32 UTC days, pair, recorded block)
//   balance_rollup_days    (effective UTC day,             pair, recorded block)
//
// (a pair is an account and commodity, by the number of its `balances` row)
//
// and the first event of every recorded block is marked (balance_rollup_recorded), so the
// postings recorded in one block are a contiguous run of sequence numbers (recorded times
// never decrease in log order). A question (D, K) is cut into disjoint parts:
//
//   recorded before K's block ─┬─ effective before D's block        → block cells
//                              ├─ effective in D's block, before D's day → day cells
//                              └─ effective on D's day, up to D      → D's row of packed postings
//                                                                      per account and commodity
//   recorded in K's block      → nothing when K precedes the block's first event, the block's
//                                cells when K follows its last, else the shorter side of K in
//                                packed postings found by span (`posting_spans`): the
//                                run up to K added, or the block's cells less the run after K
//
// Without K, the recorded conditions fall away: block cells, day cells, one day of postings.
// The scan over every posting (`BalanceQueries.scannedBalances`) stays as the test oracle.

/// The buckets of the roll-ups: UTC days and blocks of 32 of them, for effective and
/// recorded time alike. Fixed widths, not calendar months, so the fold needs no time zone;
/// a question at any instant in any zone is answered exactly, because the partial day
/// (or recorded block) around it is summed from the postings themselves.
enum RollupBuckets {
    /// One UTC day in microseconds.
    static let dayMicroseconds: Int64 = 86_400_000_000
    /// Days in one block.
    static let daysPerBlock: Int64 = 32

    /// The UTC day of an instant (days since the epoch, rounded down).
    static func day(_ microseconds: Int64) -> Int64 { floorDivision(microseconds, dayMicroseconds) }
    /// The block of a day.
    static func block(ofDay day: Int64) -> Int64 { floorDivision(day, daysPerBlock) }
    /// The block of an instant.
    static func block(_ microseconds: Int64) -> Int64 { block(ofDay: day(microseconds)) }
    /// The first microsecond of a block.
    static func start(ofBlock block: Int64) -> Int64 { block * daysPerBlock * dayMicroseconds }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && value < 0) ? quotient - 1 : quotient
    }
}

/// The roll-up tables' schema and the cells a fold has summed but not yet written.
struct BalanceRollups {
    /// The tables, owned by ``BalancesProjector``.
    static let tables = ["balance_rollup_blocks", "balance_rollup_days", "balance_rollup_recorded"]

    static func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE balance_rollup_blocks (
                block INTEGER NOT NULL,
                pair INTEGER NOT NULL,
                recorded_block INTEGER NOT NULL,
                amount INTEGER NOT NULL,
                PRIMARY KEY (block, pair, recorded_block)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE balance_rollup_days (
                day INTEGER NOT NULL,
                pair INTEGER NOT NULL,
                recorded_block INTEGER NOT NULL,
                amount INTEGER NOT NULL,
                PRIMARY KEY (day, pair, recorded_block)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE balance_rollup_recorded (
                recorded_block INTEGER PRIMARY KEY NOT NULL,
                first_sequence INTEGER NOT NULL
            ) STRICT;
            """)
    }

    private struct Cell: Hashable {
        /// False: a block cell; true: a day cell.
        let isDay: Bool
        let bucket: Int64
        /// The (account, commodity) pair's number in the fold's run (``BalancesFold``).
        let pair: Int
        let recordedBlock: Int64
    }

    private let db: Database
    private let upsertBlock: RawStatement
    private let upsertDay: RawStatement
    private let markRecorded: Statement
    private var pending: [Cell: Int64] = [:]
    private var lastRecordedBlock: Int64?

    /// The cell a pair's postings are landing in now, summed before it joins `pending`:
    /// postings come mostly in time order, so most of them add here without hashing a cell.
    private struct OpenCell {
        let bucket: Int64
        let recordedBlock: Int64
        var amount: Int64
    }
    /// By pair number: the open day cell and the open block cell.
    private var openDays: [OpenCell?] = []
    private var openBlocks: [OpenCell?] = []

    init(_ db: Database) throws {
        self.db = db
        upsertBlock = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO balance_rollup_blocks (block, pair, recorded_block, amount) VALUES (?, ?, ?, ?)
            ON CONFLICT (block, pair, recorded_block) DO UPDATE SET amount = amount + excluded.amount
            """))
        upsertDay = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO balance_rollup_days (day, pair, recorded_block, amount) VALUES (?, ?, ?, ?)
            ON CONFLICT (day, pair, recorded_block) DO UPDATE SET amount = amount + excluded.amount
            """))
        markRecorded = try db.cachedStatement(sql: "INSERT OR IGNORE INTO balance_rollup_recorded (recorded_block, first_sequence) VALUES (?, ?)")
    }

    /// Marks the first event of each recorded block (every event, with postings or not).
    mutating func note(sequence: Int64, recordedAt: Int64) throws {
        let block = RollupBuckets.block(recordedAt)
        guard block != lastRecordedBlock else { return }
        lastRecordedBlock = block
        markRecorded.setUncheckedArguments([block, sequence])
        try markRecorded.execute()
    }

    /// Adds one posting of the pair numbered `pair` (its `balances` row in `pairs`) to its block cell and its
    /// day cell.
    mutating func add(_ amount: Int64, pair: Int, effectiveAt: Int64, recordedAt: Int64, pairs: [Int64]) throws {
        let day = RollupBuckets.day(effectiveAt)
        let recordedBlock = RollupBuckets.block(recordedAt)
        while openDays.count <= pair {
            openDays.append(nil)
            openBlocks.append(nil)
        }
        try add(amount, isDay: false, bucket: RollupBuckets.block(ofDay: day), pair: pair, recordedBlock: recordedBlock, pairs)
        try add(amount, isDay: true, bucket: day, pair: pair, recordedBlock: recordedBlock, pairs)
    }

    /// Adds to the pair's open cell when the posting lands in it; otherwise the open cell
    /// joins `pending` and this one opens.
    private mutating func add(_ amount: Int64, isDay: Bool, bucket: Int64, pair: Int, recordedBlock: Int64, _ pairs: [Int64]) throws {
        let open = isDay ? openDays[pair] : openBlocks[pair]
        var next = OpenCell(bucket: bucket, recordedBlock: recordedBlock, amount: amount)
        if let open {
            let (sum, overflow) = open.amount.addingReportingOverflow(amount)
            if open.bucket == bucket && open.recordedBlock == recordedBlock && !overflow {
                next.amount = sum
            } else {
                try add(open.amount, to: Cell(isDay: isDay, bucket: open.bucket, pair: pair, recordedBlock: open.recordedBlock), pairs)
            }
        }
        if isDay { openDays[pair] = next } else { openBlocks[pair] = next }
    }

    private mutating func add(_ amount: Int64, to cell: Cell, _ pairs: [Int64]) throws {
        let current = pending[cell] ?? 0
        let (sum, overflow) = current.addingReportingOverflow(amount)
        if overflow {
            try write(current, to: cell, pairs)
            pending[cell] = amount
        } else {
            pending[cell] = sum
        }
    }

    private func write(_ amount: Int64, to cell: Cell, _ pairs: [Int64]) throws {
        let statement = cell.isDay ? upsertDay : upsertBlock
        statement.bind(1, cell.bucket)
        statement.bind(2, pairs[cell.pair])
        statement.bind(3, cell.recordedBlock)
        statement.bind(4, amount)
        try statement.step(db)
    }

    /// Unbinds the texts bound in place.
    func clearBindings() {
        upsertBlock.clearBindings()
        upsertDay.clearBindings()
    }

    /// Writes the summed cells; `pairs` holds each pair's `balances` row, by number.
    mutating func flush(pairs: [Int64]) throws {
        for pair in openDays.indices {
            if let open = openDays[pair] {
                try add(open.amount, to: Cell(isDay: true, bucket: open.bucket, pair: pair, recordedBlock: open.recordedBlock), pairs)
            }
            if let open = openBlocks[pair] {
                try add(open.amount, to: Cell(isDay: false, bucket: open.bucket, pair: pair, recordedBlock: open.recordedBlock), pairs)
            }
            openDays[pair] = nil
            openBlocks[pair] = nil
        }
        // Zero sums are written too: a cell exists once any posting touched it, whatever the batches.
        for (cell, amount) in pending { try write(amount, to: cell, pairs) }
        pending.removeAll(keepingCapacity: true)
    }

    /// Every account's balance per commodity from postings effective at or before `asOf`
    /// and recorded at or before `knownAt` (either absent: no bound), not zero, by account
    /// then commodity: a bounded number of cells plus one day of packed postings, and with
    /// `knownAt` inside a recorded block that holds postings on both sides of it, the
    /// postings recorded in that block.
    static func balances(_ db: Database, asOf: Int64, knownAt: Int64?) throws -> [AccountBalance] {
        try BalanceQueries.accountBalances(sums(db, asOf: asOf, knownAt: knownAt), db)
    }

    /// ``balances(_:asOf:knownAt:)`` as sums per account and commodity (zeros included), of
    /// the accounts `includes` selects (all when nil); `knownAt` `Int64.max` is no bound.
    static func sums(_ db: Database, asOf: Int64, knownAt: Int64?, of includes: ((String) -> Bool)? = nil) throws -> [BalancePair: Int64] {
        try HeldPostings.writeHeld(db)
        let texts = try pairTexts(db)
        var sums = PairSums(texts: texts, wanted: includes.map { includes in Set(texts.filter { includes($0.value.account) }.keys) })
        // The day whose legs are read one by one: asOf's, or the next when asOf is its day's
        // last microsecond (an end of day in UTC), so that the whole day counts from its cells.
        let day = RollupBuckets.day(asOf < Int64.max ? asOf + 1 : asOf)
        let cut = try knownAt.flatMap { $0 == Int64.max ? nil : try recordedCut(knownAt: $0, db) } ?? RecordedCut()
        try sums.addCells(beforeDay: day, recordedBefore: cut.cellBound, db)
        if RollupBuckets.day(asOf) == day {
            // The day's postings up to `asOf`, recorded before the first block left out.
            let dayBound = cut.cellBound == Int64.max
                ? Int64.max
                : try PostingDays.sequenceBound(recordedThrough: RollupBuckets.start(ofBlock: cut.cellBound) - 1, db)
            try sums.addLegs(onDay: day, db) { leg in leg.effectiveAt <= asOf && leg.sequence < dayBound }
        }
        // The run of K's block on either side of K, effective by `asOf` (on `day` or before it).
        if let run = cut.run {
            try PostingDays.forEachLeg(inSequences: run.from..<run.to, throughDay: day, db) { pair, leg in
                guard leg.effectiveAt <= asOf else { return }
                try sums.addLeg(pair, leg.amount, negated: run.negated)
            }
        }
        return sums.byPair()
    }

    /// Where a known-at instant K cuts the roll-ups: the cells of whole recorded blocks before
    /// `cellBound` count, and `run` is a run of sequence numbers `[from, to)` whose legs are
    /// added or taken away. Without K every cell counts.
    struct RecordedCut {
        var cellBound = Int64.max
        var run: (from: Int64, to: Int64, negated: Bool)?
    }

    /// The postings recorded in K's block are one run of sequence numbers from the block's
    /// first; those recorded after K start at `split`. K before the run: the block counts for
    /// nothing; K after it: the block counts whole; else the shorter side is summed from the
    /// packed postings (found by span): the run up to K on top of the older blocks' cells, or
    /// the cells up to K's block less the run after K (a bulk load recorded in one block costs
    /// nothing when K follows it).
    private static func recordedCut(knownAt: Int64, _ db: Database) throws -> RecordedCut {
        let recordedBlock = RollupBuckets.block(knownAt)
        let marks = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT recorded_block, first_sequence FROM balance_rollup_recorded
            WHERE recorded_block >= ? ORDER BY recorded_block LIMIT 2
            """), arguments: [recordedBlock])
        var cut = RecordedCut(cellBound: recordedBlock)
        guard let mark = marks.first, mark[BalancesColumns.recordedBlock] as Int64 == recordedBlock else { return cut }
        let first: Int64 = mark[BalancesColumns.firstSequence]
        let next: Int64 = marks.count > 1 ? marks[1][BalancesColumns.firstSequence] : Int64.max
        let split = try PostingDays.sequenceBound(recordedThrough: knownAt, db)
        if split >= next {
            cut.cellBound = recordedBlock + 1
        } else if split > first {
            // `sequenceEnd` bounds every stored posting's sequence: at or below `split`,
            // nothing in the block was recorded after K (a ledger whose latest events post
            // nothing), and the block counts whole.
            let end = min(next, try PostingDays.sequenceEnd(db))
            if end <= split {
                cut.cellBound = recordedBlock + 1
            } else if end - split < split - first {
                cut.cellBound = recordedBlock + 1
                cut.run = (split, end, true)
            } else {
                cut.run = (first, split, false)
            }
        }
        return cut
    }

    /// The account and commodity of every `balances` row, by row number.
    static func pairTexts(_ db: Database) throws -> [Int64: BalancePair] {
        var texts: [Int64: BalancePair] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT pair, account, commodity FROM balances")) {
            texts[row[BalancesColumns.pair]] = BalancePair(account: row[BalancesColumns.account], commodity: row[BalancesColumns.commodity])
        }
        return texts
    }
}

/// Sums per (account, commodity) pair by the pair's `balances` row number, of the pairs
/// wanted (all when nil): a number is hashed per leg, not two texts.
private struct PairSums {
    let texts: [Int64: BalancePair]
    let wanted: Set<Int64>?
    private var sums: [Int64: Int64] = [:]

    init(texts: [Int64: BalancePair], wanted: Set<Int64>?) {
        self.texts = texts
        self.wanted = wanted
    }

    /// The cells of effective days before `day` (whole blocks before its block, then its
    /// block's days) recorded in blocks before `recordedBefore`.
    mutating func addCells(beforeDay day: Int64, recordedBefore cellBound: Int64, _ db: Database) throws {
        let block = RollupBuckets.block(ofDay: day)
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT pair, SUM(amount) AS amount FROM (
                SELECT pair, amount FROM balance_rollup_blocks WHERE block < ? AND recorded_block < ?
                UNION ALL
                SELECT pair, amount FROM balance_rollup_days WHERE day >= ? AND day < ? AND recorded_block < ?
            ) GROUP BY pair
            """), arguments: [block, cellBound, block * RollupBuckets.daysPerBlock, day, cellBound]) {
            let pair: Int64 = row[BalancesColumns.pair]
            guard texts[pair] != nil else {
                throw LedgerError(.inconsistentLog, "the balances read model has roll-up cells of a pair it has no balance row for; run `tally rebuild`")
            }
            try add(pair, row[BalancesColumns.amount])
        }
    }

    /// The legs effective on `day` that pass `counts`: only the wanted pairs' rows when some
    /// are wanted, else every pair's.
    mutating func addLegs(onDay day: Int64, _ db: Database, where counts: (StoredLeg) -> Bool) throws {
        if let wanted {
            for pair in wanted.sorted() {
                try PostingDays.forEachLeg(ofPair: pair, fromDay: day, throughDay: day, db, { (leg: StoredLeg) throws -> Void in
                    if counts(leg) { try add(pair, leg.amount) }
                })
            }
        } else {
            try PostingDays.forEachLeg(onDay: day, db) { pair, leg in
                if counts(leg) { try addLeg(pair, leg.amount) }
            }
        }
    }

    /// One leg's amount, unless its pair is not wanted or has no `balances` row.
    mutating func addLeg(_ pair: Int64, _ amount: Int64, negated: Bool = false) throws {
        guard texts[pair] != nil else { return }
        try add(pair, amount, negated: negated)
    }

    private mutating func add(_ pair: Int64, _ amount: Int64, negated: Bool = false) throws {
        if let wanted, !wanted.contains(pair) { return }
        let current = sums[pair] ?? 0
        let (result, overflow) = negated ? current.subtractingReportingOverflow(amount) : current.addingReportingOverflow(amount)
        guard !overflow else {
            let text = texts[pair]
            throw MoneyError.overflowing("the balance of \(text?.account ?? "pair \(pair)") in \(text?.commodity ?? "?")")
        }
        sums[pair] = result
    }

    func byPair() -> [BalancePair: Int64] {
        var answer: [BalancePair: Int64] = [:]
        answer.reserveCapacity(sums.count)
        for (pair, amount) in sums { if let text = texts[pair] { answer[text] = amount } }
        return answer
    }
}
