public import GRDB

/// The double-entry read model: accounts, every posting (packed per account, commodity and
/// effective day: ``PostingDays``), balances per account and commodity, bitemporal roll-up cells for point-in-time sums
/// (the `balance_rollup_*` tables), and the version of each budget transaction in force.
public struct BalancesProjector: Projector {
    /// Creates the projector; ``Ledger/projectors`` registers it in every ledger.
    public init() {}

    public let name = "balances"
    /// 7: no index of postings by effective time (the day's postings are found per account).
    /// 8: a posting names its account and commodity by the number of their `balances` row
    /// (`pair`), not by two texts, in the table and in its index.
    /// 9: postings packed per pair and effective day (`posting_days`), recorded times per
    /// change (`recorded_times`), instead of a row and an index entry per leg; roll-up cells
    /// keyed by pair number, not by two texts.
    /// 10: a leg stores its sequence number's place in the row's span (one byte) instead of
    /// the whole number (three or four bytes).
    /// 11: a leg's number, cause and event code share one byte, and a leg effective at the
    /// day's start stores no time: two bytes and the amount for a journal's leg, not six.
    /// 12: a leg whose number, cause flag, event code and time in the day are those of the
    /// leg before it in its row stores them once (one byte and the amount for a journal's
    /// leg), and each span's rows are listed in `posting_spans` instead of an index by span.
    public let version = 12
    public let tables = ["accounts", "balances", "transaction_versions"] + PostingDays.tables + BalanceRollups.tables

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE accounts (
                name TEXT PRIMARY KEY NOT NULL,
                kind TEXT NOT NULL,
                opened_sequence INTEGER NOT NULL,
                closed_sequence INTEGER,
                closed_at INTEGER
            ) STRICT;
            CREATE TABLE balances (
                pair INTEGER PRIMARY KEY,
                account TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                UNIQUE (account, commodity)
            ) STRICT;
            CREATE TABLE transaction_versions (
                transaction_id TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                account TEXT NOT NULL,
                counter_account TEXT NOT NULL,
                category TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                effective_at INTEGER NOT NULL,
                source TEXT NOT NULL,
                deleted INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                superseded_sequence INTEGER,
                superseded_at INTEGER NOT NULL,
                PRIMARY KEY (transaction_id, sequence)
            ) STRICT, WITHOUT ROWID;
            """)
        try PostingDays.createTables(db)
        try BalanceRollups.createTables(db)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        try apply([event][...], db)
    }

    /// Folds a run of events with prepared statements kept for the run, accounts opened
    /// once, and balance changes summed in memory and written once per account and commodity
    /// (before any posting rule reads a balance, so rules see every earlier event).
    ///
    public func apply(_ events: ArraySlice<Event>, _ db: Database) throws {
        try apply(events, db, holding: nil)
    }

    /// ``apply(_:_:)-(ArraySlice<Event>,_)`` inside a write group that holds its postings
    /// (``HeldPostings``, nil: none): the postings and roll-up cells are held for the group and
    /// the fold is kept from one command to the next; the balances are written at the end of
    /// every run all the same.
    func apply(_ events: ArraySlice<Event>, _ db: Database, holding held: HeldPostings?) throws {
        let fold: BalancesFold
        if let kept = held?.fold {
            fold = kept
        } else {
            fold = try BalancesFold(db, holding: held)
            held?.fold = fold
        }
        defer { fold.finish() }
        try events.withUnsafeBufferPointer { buffer in
            guard var event = buffer.baseAddress else { return }
            for _ in 0..<buffer.count {
                try fold.apply(event.pointee)
                try recordTransactionVersion(event.pointee, db)
                event += 1
            }
        }
        // A group held whole writes its balances when it writes what it holds.
        if held?.wholeGroup != true { try fold.flushBalances() }
        guard held == nil else { return }
        try fold.flushRollups()
        try fold.flushPostings()
    }

    /// `apply` never reads recorded times by time: a rebuild builds that index once at the end.
    public var indexesDeferredOnRebuild: [String] { ["recorded_times_by_time"] }

    /// Keeps every version of every transaction (``ChangesTransactionVersion``), each with the
    /// recorded interval it was in force: from its event's recorded time until the recorded
    /// time of the event that superseded it (``TransactionVersionRecords/openEnd`` while it
    /// is in force). A deletion is a version too, marked deleted. This is the one table of
    /// transaction versions: the engine's reversals read the version in force, and the
    /// products' read models join their own details to it (the budget's
    /// `budget_transaction_versions`).
    private func recordTransactionVersion(_ event: Event, _ db: Database) throws {
        let sequence = Int64(event.sequence)
        let recorded = event.recordedAt.microsecondsSinceEpoch
        let transactionId: String
        switch try PostingRules.versionChange(for: event, context: DatabasePostingContext(db: db)) {
        case .set(let version)?:
            transactionId = version.transactionId
            try db.cachedStatement(sql: """
                INSERT INTO transaction_versions
                    (transaction_id, sequence, account, counter_account, category, commodity, amount, effective_at, source, deleted,
                     recorded_at, superseded_sequence, superseded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, NULL, ?)
                """).execute(arguments: [
                    version.transactionId, sequence, version.account, version.counterAccount, version.category,
                    version.amount.commodity.code, version.amount.minorUnits, version.effectiveAt.microsecondsSinceEpoch, version.source,
                    recorded, TransactionVersionRecords.openEnd,
                ])
        case .delete(let deleted)?:
            transactionId = deleted
            try db.cachedStatement(sql: """
                INSERT INTO transaction_versions
                    (transaction_id, sequence, account, counter_account, category, commodity, amount, effective_at, source, deleted,
                     recorded_at, superseded_sequence, superseded_at)
                SELECT transaction_id, ?, account, counter_account, category, commodity, amount, effective_at, source, 1, ?, NULL, ?
                FROM transaction_versions WHERE transaction_id = ? AND superseded_sequence IS NULL AND deleted = 0 AND sequence < ?
                """).execute(arguments: [sequence, recorded, TransactionVersionRecords.openEnd, deleted, sequence])
            // Nothing in force to delete (replay never validates): no version changes.
            guard db.changesCount > 0 else { return }
        case nil:
            return
        }
        try db.cachedStatement(sql: """
            UPDATE transaction_versions SET superseded_sequence = ?, superseded_at = ?
            WHERE transaction_id = ? AND superseded_sequence IS NULL AND sequence < ?
            """).execute(arguments: [sequence, recorded, transactionId, sequence])
    }
}

/// The state of one run of ``BalancesProjector`` folding: its prepared statements, the
/// accounts it has opened, and balance changes not yet written.
///
/// Each (account, commodity) pair met in the run gets a small number on first sight, so a
/// posting hashes its two strings once; the pending balance and roll-up sums are keyed by
/// that number.
///
/// The state a posting changes is `@exclusivity(unchecked)` (docs/conventions.md, "Hot
/// paths and limits"): one thread folds at a time, and no method holds a property while it
/// calls out to code that could reach it again.
final class BalancesFold {
    let db: Database
    @exclusivity(unchecked) private var postingDays = PendingPostingDays()
    private let addToBalance: RawStatement
    private let insertAccount: Statement
    private let findPair: RawStatement
    @exclusivity(unchecked) private var knownAccounts: Set<String> = []
    @exclusivity(unchecked) private var pairNumbers: [BalancePair: Int] = [:]
    /// The pair last numbered at each of ``recentSlots`` places, chosen by a mix of its
    /// account's length and last byte: a posting's pair is found here by comparing its two
    /// strings with the ones kept, before ``pairNumbers`` hashes them (a household posts to
    /// a few dozen pairs; each leg of a journal entry hashed two strings).
    @exclusivity(unchecked) private var recentPairs: [(pair: BalancePair, number: Int)?] = Array(repeating: nil, count: recentSlots)
    private static let recentSlots = 64
    /// The `balances` row of each pair, by number: the `pair` its postings store.
    @exclusivity(unchecked) private var pairRows: [Int64] = []
    /// The summed change of each pair not yet written (nil: none since the last write).
    @exclusivity(unchecked) private var pending: [Int64?] = []
    /// The pairs with a pending change, in the order first changed.
    @exclusivity(unchecked) private var pendingPairs: [Int] = []
    @exclusivity(unchecked) private var rollups: BalanceRollups
    /// The write group's holding, which takes the legs instead of `postingDays` and `rollups`.
    private unowned let held: HeldPostings?
    /// Each pair's balance with everything folded counted (its row, then every leg), by
    /// number: kept in a group held whole (``HeldPostings/wholeGroup``), whose plans read it
    /// instead of the row; nil otherwise.
    @exclusivity(unchecked) private var running: [Int64]?
    /// Finds a pair's row and its amount (a group held whole).
    private let findPairAndAmount: RawStatement?

    init(_ db: Database, holding held: HeldPostings? = nil) throws {
        self.db = db
        self.held = held
        if held?.wholeGroup == true {
            running = []
            findPairAndAmount = RawStatement(try db.cachedStatement(sql: "SELECT pair, amount FROM balances WHERE account = ? AND commodity = ?"))
        } else {
            findPairAndAmount = nil
        }
        rollups = try BalanceRollups(db)
        addToBalance = RawStatement(try db.cachedStatement(sql: "UPDATE balances SET amount = amount + ? WHERE pair = ?"))
        insertAccount = try db.cachedStatement(sql: "INSERT INTO accounts (name, kind, opened_sequence) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING")
        findPair = RawStatement(try db.cachedStatement(sql: "SELECT pair FROM balances WHERE account = ? AND commodity = ?"))
    }

    func apply(_ event: Event) throws {
        let postings = try PostingRules.postings(for: event, context: BufferedPostingContext(fold: self))
        let sequence = Int64(event.sequence)
        let recordedAt = event.recordedAt.microsecondsSinceEpoch
        try rollups.note(sequence: sequence, recordedAt: recordedAt)
        try postingDays.note(sequence: sequence, recordedAt: recordedAt, db)
        if !postings.isEmpty {
            let eventCode = Int64(event.type.code)
            let cause = event.cause.map(Int64.init)
            for (leg, posting) in postings.enumerated() {
                let pair = try number(of: BalancePair(account: posting.account, commodity: posting.amount.commodity.code), sequence: sequence)
                let amount = posting.amount.minorUnits
                let effectiveAt = posting.effectiveAt.microsecondsSinceEpoch
                let stored = StoredLeg(sequence: sequence, leg: Int64(leg), amount: amount, effectiveAt: effectiveAt, eventCode: eventCode, cause: cause)
                try add(amount, to: pair)
                if let held {
                    held.hold(HeldLeg(pair: pairRows[pair], leg: stored, recordedAt: recordedAt))
                } else {
                    postingDays.add(stored, pair: pairRows[pair], number: pair)
                    try rollups.add(amount, pair: pair, effectiveAt: effectiveAt, recordedAt: recordedAt, pairs: pairRows)
                }
            }
        }
        // By type code first: a cast of every event's payload to each type costs the runtime a
        // lookup, and almost every event is neither.
        if let opened = event.body.as(AccountOpened.self) {
            knownAccounts.insert(opened.account)
            try db.cachedStatement(sql: "INSERT INTO accounts (name, kind, opened_sequence) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET kind = excluded.kind")
                .execute(arguments: [opened.account, opened.kind.rawValue, sequence])
        } else if let closed = event.body.as(AccountClosed.self) {
            try db.cachedStatement(sql: "UPDATE accounts SET closed_sequence = ?, closed_at = ? WHERE name = ?")
                .execute(arguments: [sequence, event.effectiveAt.microsecondsSinceEpoch, closed.account])
        }
    }

    /// The pair's number in this run; on first sight, opens its account unless the run
    /// already did, and finds its `balances` row or makes it (at zero): rows are numbered
    /// in the order pairs are first posted to, so a rebuild numbers them as the incremental
    /// fold did.
    private func number(of pair: BalancePair, sequence: Int64) throws -> Int {
        let account = pair.account.utf8
        let place = (account.count &* 31 &+ Int(account.last ?? 0) &+ pair.commodity.utf8.count) & (Self.recentSlots - 1)
        if let recent = recentPairs[place], recent.pair.account == pair.account, recent.pair.commodity == pair.commodity {
            return recent.number
        }
        let number = try numberHashing(pair, sequence: sequence)
        recentPairs[place] = (pair, number)
        return number
    }

    /// ``number(of:sequence:)`` through ``pairNumbers``.
    private func numberHashing(_ pair: BalancePair, sequence: Int64) throws -> Int {
        if let number = pairNumbers[pair] { return number }
        let row: Int64
        var amount: Int64 = 0
        if let existing = try findRow(of: pair) {
            amount = existing.amount
            // A pair's row is made after its account's, and neither is ever deleted.
            knownAccounts.insert(pair.account)
            row = existing.row
        } else {
            if knownAccounts.insert(pair.account).inserted {
                insertAccount.setUncheckedArguments([pair.account, (LedgerAccounts.kind(of: pair.account) ?? .asset).rawValue, sequence])
                try insertAccount.execute()
            }
            try db.cachedStatement(sql: "INSERT INTO balances (account, commodity, amount) VALUES (?, ?, 0)")
                .execute(arguments: [pair.account, pair.commodity])
            row = db.lastInsertedRowID
        }
        let number = pairRows.count
        pairNumbers[pair] = number
        pairRows.append(row)
        pending.append(nil)
        running?.append(amount)
        return number
    }

    /// The pair's `balances` row and its amount (the amount only in a group held whole: 0
    /// otherwise), nil when it has none.
    private func findRow(of pair: BalancePair) throws -> (row: Int64, amount: Int64)? {
        guard let findPairAndAmount else {
            findPair.bind(2, pair.commodity)
            return try findPair.integer(db, binding: pair.account, at: 1).map { ($0, 0) }
        }
        findPairAndAmount.bind(1, pair.account)
        findPairAndAmount.bind(2, pair.commodity)
        var found: (row: Int64, amount: Int64)?
        try findPairAndAmount.forEachRow(db) { columns in found = (try columns.requiredInteger(0), try columns.requiredInteger(1)) }
        return found
    }

    /// The pair's balance with everything folded counted, when this fold keeps balances (a
    /// group held whole) and has met the pair; nil otherwise.
    func runningBalance(_ pair: BalancePair) -> Int64? {
        guard let running, let number = pairNumbers[pair] else { return nil }
        return running[number]
    }

    private func add(_ amount: Int64, to pair: Int) throws {
        if running != nil {
            let (balance, overflow) = running![pair].addingReportingOverflow(amount)
            if overflow { throw HeldBalanceOverflow() }
            running![pair] = balance
        }
        guard let current = pending[pair] else {
            pending[pair] = amount
            pendingPairs.append(pair)
            return
        }
        let (sum, overflow) = current.addingReportingOverflow(amount)
        if overflow {
            // Let SQLite see the two amounts separately, exactly as the one-by-one fold does.
            try write(current, to: pair)
            pending[pair] = amount
        } else {
            pending[pair] = sum
        }
    }

    private func write(_ amount: Int64, to pair: Int) throws {
        addToBalance.bind(1, amount)
        addToBalance.bind(2, pairRows[pair])
        try addToBalance.step(db)
    }

    /// Unbinds the texts bound in place, which go with this fold.
    func finish() {
        addToBalance.clearBindings()
        findPair.clearBindings()
        findPairAndAmount?.clearBindings()
        rollups.clearBindings()
    }

    /// Writes the summed roll-up cells (at the end of a run: no rule reads them).
    func flushRollups() throws {
        try rollups.flush(pairs: pairRows)
    }

    /// Appends the run's packed postings to their rows.
    func flushPostings() throws {
        try postingDays.flush(db)
    }

    /// Writes the summed balance changes.
    func flushBalances() throws {
        for pair in pendingPairs {
            if let amount = pending[pair] { try write(amount, to: pair) }
            pending[pair] = nil
        }
        pendingPairs.removeAll(keepingCapacity: true)
    }
}

/// An account and a commodity code: the key of a balance.
struct BalancePair: Hashable {
    let account: String
    let commodity: String

    /// SQLite's order (`ORDER BY account, commodity`, bytes of UTF-8), which the answers keep.
    func precedes(_ other: BalancePair) -> Bool {
        if account != other.account { return account.utf8.lexicographicallyPrecedes(other.account.utf8) }
        return commodity.utf8.lexicographicallyPrecedes(other.commodity.utf8)
    }
}

/// Posting lookups during a run: balances are read after the run's pending changes are
/// written, so a rule sees every earlier event.
struct BufferedPostingContext: PostingContext {
    let fold: BalancesFold

    func currentVersion(of transactionId: String) throws -> TransactionVersion? {
        try DatabasePostingContext(db: fold.db).currentVersion(of: transactionId)
    }

    func balance(of account: String, in commodity: Commodity) throws -> Int64 {
        try fold.flushBalances()
        return try DatabasePostingContext(db: fold.db).balance(of: account, in: commodity)
    }

    func balances(withPrefix prefix: String) throws -> [(account: String, amount: Money)] {
        try fold.flushBalances()
        return try DatabasePostingContext(db: fold.db).balances(withPrefix: prefix)
    }
}

/// Posting lookups answered from the balances read model, as of the events folded so far (a
/// balance a group held whole has moved, from its fold: ``HeldPostings``).
struct DatabasePostingContext: PostingContext {
    let db: Database

    func currentVersion(of transactionId: String) throws -> TransactionVersion? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM transaction_versions WHERE transaction_id = ? AND superseded_sequence IS NULL AND deleted = 0"),
            arguments: [transactionId]
        ) else { return nil }
        return TransactionVersion(
            transactionId: row[BalancesColumns.transactionId], account: row[BalancesColumns.account], counterAccount: row[BalancesColumns.counterAccount],
            category: row[BalancesColumns.category],
            amount: try row.money(BalancesColumns.amount, BalancesColumns.commodity),
            effectiveAt: row.instant(BalancesColumns.effectiveAt),
            source: row[BalancesColumns.source]
        )
    }

    /// Through the C API: every plan that moves money asks it (a deposit's headroom check,
    /// a purchase's funds), and GRDB's arguments and cursor were most of the question.
    func balance(of account: String, in commodity: Commodity) throws -> Int64 {
        if let held = HeldPostings.runningBalance(db, account: account, commodity: commodity.code) { return held }
        let statement = RawStatement(try db.cachedStatement(sql: "SELECT amount FROM balances WHERE account = ? AND commodity = ?"))
        statement.bind(1, account)
        statement.bind(2, commodity.code)
        return try statement.integer(db) ?? 0
    }

    func balances(withPrefix prefix: String) throws -> [(account: String, amount: Money)] {
        try HeldPostings.writeHeld(db)
        return try Row.fetchAll(
            db.cachedStatement(sql: "SELECT account, commodity, amount FROM balances WHERE account >= ? AND account < ? ORDER BY account, commodity"),
            arguments: [prefix, prefix + "\u{10FFFF}"]
        ).map { row in
            (row[BalancesColumns.account], try row.money(BalancesColumns.amount, BalancesColumns.commodity))
        }
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum BalancesColumns {
    static let account = Column("account")
    static let amount = Column("amount")
    static let category = Column("category")
    static let cause = Column("cause")
    static let closedSequence = Column("closed_sequence")
    static let commodity = Column("commodity")
    static let counterAccount = Column("counter_account")
    static let deleted = Column("deleted")
    static let effectiveAt = Column("effective_at")
    static let eventCode = Column("event_code")
    static let firstSequence = Column("first_sequence")
    static let kind = Column("kind")
    static let name = Column("name")
    static let opening = Column("opening")
    static let pair = Column("pair")
    static let recordedAt = Column("recorded_at")
    static let recordedBlock = Column("recorded_block")
    static let sequence = Column("sequence")
    static let source = Column("source")
    static let total = Column("total")
    static let transactionId = Column("transaction_id")
}
