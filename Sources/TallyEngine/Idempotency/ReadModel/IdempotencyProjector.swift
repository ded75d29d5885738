public import GRDB
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Which commands have run, by idempotency key: the keyed event's sequence number and the
/// last event it caused, so a repeated command can return its first result.
public struct IdempotencyProjector: BatchDependentProjector {
    /// Creates the projector; ``Ledger/projectors`` registers it in every ledger.
    public init() {}

    public let name = "idempotency"
    /// 2: a `WITHOUT ROWID` table keyed by the key (one B-tree fewer to keep per row).
    /// 3: no index by first sequence number: the last event a command caused is kept apart,
    /// keyed by the command's first sequence number, and only for commands that caused one.
    /// 4: keys stored as ``StoredKey`` spells them (a journal's `journal:` prefix in one byte).
    /// 5: a command's range is its own (issue 34, item 6): an event extends its cause's range
    /// only when it follows that range's last event, and ``CommandCompleted`` ends a range
    /// (`closed`); a split that a later command made no longer stretches its deposit's key.
    /// 6: keys packed in blocks once the loose rows reach an eighth of them (``PackedKeys``).
    /// 7: a dated content key stored in 16 bytes and its count (``StoredKey``), not 40 characters.
    public let version = 7
    public let tables = ["idempotency_keys", "idempotency_caused"] + PackedKeys.tables
    /// Where the loose keys end and how the blocks are cut depend on the fold's batches.
    public var batchDependentTables: [String] { ["idempotency_keys"] + PackedKeys.tables }

    /// `idempotency_keys` holds each key once (as ``StoredKey`` spells it), with the sequence number of the event that
    /// recorded it. `idempotency_caused` holds, for an event whose next event names it as
    /// its cause, the last event of the unbroken run of such events after it (a rowid table
    /// keyed by the cause's sequence number: an append, or an update in place, per caused
    /// event); `closed` once a ``CommandCompleted`` named it, which sets the run's end. A key's
    /// command runs from its first sequence number to that end, or to itself.
    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE idempotency_keys (
                key TEXT PRIMARY KEY NOT NULL,
                first_sequence INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE idempotency_caused (
                cause INTEGER PRIMARY KEY NOT NULL,
                last_sequence INTEGER NOT NULL,
                closed INTEGER NOT NULL DEFAULT 0
            ) STRICT;
            """)
        try PackedKeys.createTables(db)
    }

    /// Every key, loose or packed, with its first sequence number (the least recorded for
    /// it), as `key|sequence` with the key as stored, in key order.
    public func comparableRows(_ db: Database, schema: String) throws -> [String] {
        var first: [String: Int64] = [:]
        func note(_ key: UnsafeRawBufferPointer, _ sequence: Int64) {
            let text = StoredKey.description(ofSpelling: key)
            first[text] = min(first[text] ?? .max, sequence)
        }
        try PackedKeys.forEachKey(db, schema: schema, note)
        try RawStatement(try db.makeStatement(sql: "SELECT key, first_sequence FROM \(schema).idempotency_keys")).forEachRow(db) { row in
            note(row.text(0), try row.requiredInteger(1))
        }
        return first.map { "\($0.key)|\($0.value)" }.sorted()
    }

    public func apply(_ event: Event, _ db: Database) throws {
        try apply([event][...], db)
    }

    /// Folds a run of events with the statements prepared once for the run. The run's keys
    /// are inserted at its end, in key order, ``KeyInserts/rowsPerStatement`` to a
    /// statement (an import's batch holds thousands; ``KeyInserts`` says what that saves).
    public func apply(_ events: ArraySlice<Event>, _ db: Database) throws {
        try apply(events, db, holding: nil)
    }

    /// ``apply(_:_:)-(ArraySlice<Event>,_)`` inside a write group that holds its idempotency
    /// rows (``HeldIdempotency``; nil: written as they are folded): the keys and the runs
    /// of the group's commands are kept in memory and written once, sorted, when the group
    /// writes what it holds.
    func apply(_ events: ArraySlice<Event>, _ db: Database, holding held: HeldIdempotency?) throws {
        if let held {
            try events.withUnsafeBufferPointer { buffer in
                guard var event = buffer.baseAddress else { return }
                for _ in 0..<buffer.count {
                    try held.fold(event, db)
                    event += 1
                }
            }
            return
        }
        try apply(events, db, backlog: nil)
    }

    /// ``apply(_:_:)-(ArraySlice<Event>,_)`` in a rebuild's new file, whose keys are held in
    /// `backlog` (nil: written as loose rows at the end of the run).
    func apply(_ events: ArraySlice<Event>, _ db: Database, backlog: KeyBacklog?) throws {
        var inserts = try KeyInserts(db)
        defer { inserts.finish() }
        let runs = try CausedRuns(db)
        try events.withUnsafeBufferPointer { buffer in
            guard var event = buffer.baseAddress else { return }
            for _ in 0..<buffer.count {
                let sequence = Int64(event.pointee.sequence)
                if let key = event.pointee.idempotencyKey {
                    if let backlog {
                        try backlog.add(key, sequence: sequence, db)
                    } else {
                        inserts.add(key, firstSequence: sequence)
                    }
                }
                if let cause = event.pointee.cause {
                    try runs.note(cause: Int64(cause), sequence: sequence, completes: event.pointee.body.type.code == CommandCompleted.eventType.code)
                }
                event += 1
            }
        }
        try inserts.flush()
    }

    /// The statements that keep `idempotency_caused` as events are folded one by one.
    struct CausedRuns {
        private let db: Database
        private let started: RawStatement
        private let extended: RawStatement
        private let ended: RawStatement

        init(_ db: Database) throws {
            self.db = db
            // The event right after its cause starts the run (no row can exist yet: only that
            // event or a command's end makes one); a later one extends an open run it follows.
            started = RawStatement(try db.cachedStatement(sql: "INSERT OR IGNORE INTO idempotency_caused (cause, last_sequence) VALUES (?, ?)"))
            extended = RawStatement(try db.cachedStatement(sql: """
                UPDATE idempotency_caused SET last_sequence = ?2 WHERE cause = ?1 AND closed = 0 AND last_sequence + 1 = ?2
                """))
            ended = RawStatement(try db.cachedStatement(sql: """
                INSERT INTO idempotency_caused (cause, last_sequence, closed) VALUES (?, ?, 1)
                ON CONFLICT (cause) DO UPDATE SET last_sequence = excluded.last_sequence, closed = 1
                """))
        }

        /// Folds an event at `sequence` caused by `cause` (a ``CommandCompleted`` when
        /// `completes`): the one rule of a command's run, which ``HeldIdempotency`` keeps in
        /// memory the same way.
        func note(cause: Int64, sequence: Int64, completes: Bool) throws {
            let statement = completes ? ended : cause + 1 == sequence ? started : extended
            statement.bind(1, cause)
            statement.bind(2, sequence)
            try statement.step(db)
        }
    }

    /// The keys of a run of events, written to `idempotency_keys` when the run ends, in the
    /// order of their stored spellings, through one statement per ``rowsPerStatement`` keys
    /// (and one per key for the rest of the run). A key already stored keeps its first
    /// sequence number, and of two equal keys in a run the one added first wins: the same
    /// rows as inserting them one by one in log order.
    struct KeyInserts {
        /// Keys per statement: fewer statement runs, each short enough to stay cheap to
        /// compile and bind (keys counting up, in one transaction: 0.90 s per million one by
        /// one, 0.41 s fifty at a time, in SQLite alone on this machine).
        static let rowsPerStatement = 50
        /// `OR IGNORE`, not `ON CONFLICT (key) DO NOTHING`: the same rows (a key is never
        /// NULL), but a statement that cannot abort needs no statement journal, which
        /// inside a command's savepoint cost a multi-row insert all it saved (SQLite alone:
        /// 1.46 s per million keys one by one, 1.59 s fifty at a time with `DO NOTHING`,
        /// 1.11 s with `OR IGNORE`).
        private static let manySQL = "INSERT OR IGNORE INTO idempotency_keys (key, first_sequence) VALUES "
            + Array(repeating: "(?, ?)", count: rowsPerStatement).joined(separator: ", ")
        private let db: Database
        private let one: RawStatement
        /// Prepared once a run holds a statement's worth of keys: a command's run holds a key
        /// or two, and finding this long statement in the connection's cache hashes its text.
        private var many: RawStatement?
        /// The keys waiting, and the first sequence number of each.
        private var keys = StoredKeySpellings()
        private var sequences: [Int64] = []
        /// When the loose rows are packed (``PackedKeys/packingThreshold(packed:minimum:divisor:)``).
        private let packingDivisor: Int64

        init(_ db: Database, packingDivisor: Int64 = PackedKeys.steadyDivisor) throws {
            self.db = db
            self.packingDivisor = packingDivisor
            one = RawStatement(try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO idempotency_keys (key, first_sequence) VALUES (?, ?)"))
        }

        /// Queues a key until ``flush()``.
        mutating func add(_ key: String, firstSequence: Int64) {
            keys.append(key)
            sequences.append(firstSequence)
        }

        /// Writes the keys waiting, in key order, and empties the run.
        ///
        /// In key order because a run's keys, in log order, land all over the table's B-tree
        /// (a bank's ids counting up in decimal, `bank-1`, `bank-10`, `bank-100`, are far
        /// apart as text), while in order each insert lands beside the last: SQLite alone,
        /// a million such keys in runs of 20,000, 0.77 s in log order, 0.48 s sorted per run.
        ///
        /// Keys that would bring the loose rows to the packing threshold
        /// (``PackedKeys/packingThreshold(packed:minimum:)``, counted as if every key were new)
        /// are packed with the loose rows at once instead: inserted loose, they would be read
        /// back and deleted by the packing their own write starts. A write group of an import's
        /// batch does so for most batches.
        mutating func flush() throws {
            if keys.count >= Self.rowsPerStatement, try PackedKeys.wouldPack(adding: keys.count, divisor: packingDivisor, db) {
                var run = KeyRun()
                keys.withSpellings { spelling in
                    for index in 0..<keys.count { run.append(spelling(index), sequence: sequences[index]) }
                }
                try PackedKeys.pack(adding: run.sortedFirstOfEach(), db)
                keys.removeAll()
                sequences.removeAll(keepingCapacity: true)
                return
            }
            if keys.count >= Self.rowsPerStatement, many == nil {
                many = RawStatement(try db.cachedStatement(sql: Self.manySQL))
            }
            let many = self.many
            var inserted = 0
            try keys.withSpellings { spelling in
                // Of equal keys the first added is inserted first, and `OR IGNORE` keeps it.
                let order = keys.order()
                var next = 0
                defer { many?.clearBindings() }
                while order.count - next >= Self.rowsPerStatement, let many {
                    for row in 0..<Self.rowsPerStatement {
                        let index = order[next + row]
                        many.bindText(Int32(2 * row + 1), spelling(index))
                        many.bind(Int32(2 * row + 2), sequences[index])
                    }
                    try many.step(db)
                    inserted += db.changesCount
                    next += Self.rowsPerStatement
                }
                defer { one.clearBindings() }
                for index in order[next...] {
                    one.bindText(1, spelling(index))
                    one.bind(2, sequences[index])
                    try one.step(db)
                    inserted += db.changesCount
                }
            }
            keys.removeAll()
            sequences.removeAll(keepingCapacity: true)
            try PackedKeys.noteLoose(inserted, divisor: packingDivisor, db)
        }

        /// Unbinds whatever a failed write left bound.
        func finish() {
            one.clearBindings()
            many?.clearBindings()
        }
    }

    /// A key's first sequence number, looked up by its stored spelling.
    private static let keyLookupSQL = "SELECT first_sequence FROM idempotency_keys WHERE key = ?"

    /// The sequence range of the command that used `key`, if one did: from the event its
    /// key recorded to the last event that one caused (itself when it caused none).
    ///
    /// Asked before every keyed command is planned, so asked through the C API, one point
    /// look-up per table (a new key, the usual answer, costs one): a `Row` per question was
    /// 3.6 % of a deposit command.
    package static func range(of key: String, _ db: Database) throws -> ClosedRange<UInt64>? {
        try HeldPostings.writeHeld(db)
        return try range(of: key, db, holding: nil)
    }

    /// ``range(of:_:)`` for the write pipeline, which writes nothing: what SQLite holds, and
    /// then what the group holds (``HeldIdempotency``, nil: nothing held). A key stored
    /// before the group is found first, as the first insert of a key wins.
    static func range(of key: String, _ db: Database, holding held: HeldIdempotency?) throws -> ClosedRange<UInt64>? {
        let first: Int64
        if let stored = try storedFirstSequence(of: key, db) {
            first = stored
        } else if let held, let folded = held.firstSequence(ofKey: key) {
            first = folded
        } else {
            return nil
        }
        let last: Int64?
        if let held, first >= held.first {
            last = held.lastOfRun(causedBy: first)
        } else {
            let caused = RawStatement(try db.cachedStatement(sql: "SELECT last_sequence FROM idempotency_caused WHERE cause = ?"))
            caused.bind(1, first)
            last = try caused.integer(db)
        }
        return UInt64(first)...UInt64(last ?? first)
    }

    /// The first sequence number SQLite holds for a key, loose or packed (the lesser).
    private static func storedFirstSequence(of key: String, _ db: Database) throws -> Int64? {
        let keys = RawStatement(try db.cachedStatement(sql: keyLookupSQL))
        return try StoredKey.withSpelling(of: key) { spelling in
            let loose = try keys.integer(db, bindingText: spelling, at: 1)
            let packed = try PackedKeys.firstSequence(ofSpelling: spelling, db)
            guard let loose, let packed else { return loose ?? packed }
            return min(loose, packed)
        }
    }

    /// The first event recorded with each key, asked of a run of keys (an import's batch).
    ///
    /// An import's keys often follow one another (external ids counting up; a file imported
    /// again): the stored keys between the run's least and greatest key are then read in
    /// one range scan and matched against the run, instead of one B-tree descent per key.
    /// When that range holds more stored keys than ``rangeScanLimit(keys:)`` (keys
    /// scattered over the table, as content digests are), found by counting no further
    /// than that limit, every key is looked up on its own.
    struct UsedKeys {
        private let lookup: RawStatement
        private let range: RawStatement
        private let countInRange: RawStatement
        private let db: Database

        init(_ db: Database) throws {
            lookup = RawStatement(try db.cachedStatement(sql: keyLookupSQL))
            range = RawStatement(try db.cachedStatement(sql: "SELECT key, first_sequence FROM idempotency_keys WHERE key >= ? AND key <= ?"))
            countInRange = RawStatement(try db.cachedStatement(
                sql: "SELECT count(*) FROM (SELECT 1 FROM idempotency_keys WHERE key >= ? AND key <= ? LIMIT ?)"))
            self.db = db
        }

        /// How many stored keys a run's range may hold for the range to be read: reading a
        /// stored key out and matching it costs about what a look-up does, so past as many
        /// stored keys as the run has keys, each key is looked up instead.
        static func rangeScanLimit(keys: Int) -> Int { keys + 16 }

        /// The first event recorded with each of `keys` (nil: no command used it), in order.
        func firstSequences(of keys: [String]) throws -> [UInt64?] {
            guard !keys.isEmpty else { return [] }
            try HeldPostings.writeHeld(db)
            var spellings = StoredKeySpellings()
            for key in keys { spellings.append(key) }
            return try spellings.withSpellings { spelling in
                let loose = try looseFirstSequences(count: keys.count, spelling)
                let packed = try PackedKeys.firstSequences(count: keys.count, key: spelling, db)
                return zip(loose, packed).map { loose, packed in
                    guard let loose, let packed else { return (loose ?? packed).map(UInt64.init) }
                    return UInt64(min(loose, packed))
                }
            }
        }

        /// The loose rows' part of ``firstSequences(of:)``.
        private func looseFirstSequences(count: Int, _ spelling: (Int) -> UnsafeRawBufferPointer) throws -> [Int64?] {
            var least = 0
            var greatest = 0
            for index in 1..<count {
                let key = spelling(index)
                if StoredKeySpellings.compare(key, spelling(least)) < 0 { least = index }
                if StoredKeySpellings.compare(spelling(greatest), key) < 0 { greatest = index }
            }
            // Counted first, without reading a key out: a scattered run is found in a
            // fraction of the time its point lookups then take.
            let scanLimit = Int64(Self.rangeScanLimit(keys: count))
            countInRange.bindText(1, spelling(least))
            countInRange.bindText(2, spelling(greatest))
            countInRange.bind(3, scanLimit)
            defer { countInRange.clearBindings() }
            let inRange = try countInRange.integer(db) ?? 0
            if inRange >= scanLimit {
                return try (0..<count).map { index in try lookup.integer(db, bindingText: spelling(index), at: 1) }
            }
            guard inRange > 0 else { return Array(repeating: nil, count: count) }
            var stored: [[UInt8]: Int64] = [:]
            stored.reserveCapacity(Int(inRange))
            range.bindText(1, spelling(least))
            range.bindText(2, spelling(greatest))
            defer { range.clearBindings() }
            try range.forEachRow(db) { row in stored[Array(row.text(0))] = try row.requiredInteger(1) }
            return (0..<count).map { index in stored[Array(spelling(index))] }
        }
    }

    /// Whether a journal row was ever keyed by its content in the older form, with its payee
    /// and category in clear in the digest (`journal:row:<digest>:<n>`, not `journal:row:~…`;
    /// ``JournalCSV``): such a store keeps keying rows that way, so that its files are still
    /// recognised. One seek: every older key lies below `␁row:~`.
    static func hasLegacyContentKeys(_ db: Database) throws -> Bool {
        try HeldPostings.writeHeld(db)
        return try holdsKey(from: "\u{1}row:", below: "\u{1}row:~", db)
    }

    /// Whether a journal row was ever keyed by its content in the undated form
    /// (`journal:row:~<digest>:<n>`, not `journal:row:~:<date>…`; ``JournalCSV``): such a
    /// store keeps keying rows that way. Two seeks: the digest's first character is a
    /// base64url one, below `:` (`-`, a digit) or above `;`.
    static func hasUndatedContentKeys(_ db: Database) throws -> Bool {
        try HeldPostings.writeHeld(db)
        return try holdsKey(from: "\u{1}row:~", below: "\u{1}row:~:", db) || holdsKey(from: "\u{1}row:~;", below: "\u{1}row:\u{7F}", db)
    }

    /// Whether any journal key is stored (`journal:…`, a row of any import: every stored
    /// key from `␁` up to `␂`, and the dated content keys, from `␃` up to `␄`; ``StoredKey``).
    /// Two seeks at most.
    static func hasJournalKeys(_ db: Database) throws -> Bool {
        try HeldPostings.writeHeld(db)
        return try holdsKey(from: "\u{1}", below: "\u{2}", db) || holdsKey(from: "\u{3}", below: "\u{4}", db)
    }

    /// Whether a journal row was ever imported under its external id (`journal:<id>`, not a
    /// content key `journal:row:…`): a stored key between `␁` and `␁row:`, or after
    /// `␁row;` and before `␂` (``StoredKey``).
    static func hasJournalExternalIds(_ db: Database) throws -> Bool {
        try HeldPostings.writeHeld(db)
        return try holdsKey(from: "\u{1}", below: "\u{1}row:", db) || holdsKey(from: "\u{1}row;", below: "\u{2}", db)
    }

    /// Whether a stored key, loose or packed, lies in `from..<below` (stored spellings).
    private static func holdsKey(from: String, below: String, _ db: Database) throws -> Bool {
        let loose = RawStatement(try db.cachedStatement(sql: "SELECT 1 FROM idempotency_keys WHERE key >= ? AND key < ? LIMIT 1"))
        loose.bind(1, from)
        loose.bind(2, below)
        guard try loose.integer(db) == nil else { return true }
        var from = from
        var below = below
        return try from.withUTF8 { from in
            try below.withUTF8 { below in
                try PackedKeys.holdsKey(from: UnsafeRawBufferPointer(from), below: UnsafeRawBufferPointer(below), db)
            }
        }
    }
}

/// How the idempotency read model spells a key. An import's keys, a million to a file, all
/// begin with `journal:` (``JournalCSV``); stored, that prefix takes one byte, `0x01`, which
/// keeps a key's order among the journal's keys and 7 of its bytes (a quarter of a short
/// key). A dated content key (kept apart, in the order of its day, its bits and its count), `journal:row:~:<YYYYMMDD><16 base64url characters>:<n>`, is
/// stored as `0x03`, its day (3 bytes), the 96 bits its characters spell (12 bytes) and `n`
/// (a varint): 17 bytes where its text takes 40, and what differs from the key before it in
/// a block (``PackedKeys``) is its 12 bytes and its count, not 16 characters and two. A key
/// that itself begins with `0x01`, `0x02` or `0x03` (a log written before control characters
/// were refused) is stored behind `0x02`; every other key as it is. So each key has one
/// spelling and no two keys share one; keys are looked up, never read back.
enum StoredKey {
    private static let journalPrefix: StaticString = "journal:"
    /// The marker of a dated content key's spelling.
    static let datedMarker: UInt8 = 3
    /// What a dated content key holds after `journal:` before its date (``JournalCSV``).
    private static let datedPrefix = Array("row:~:".utf8)
    /// A dated spelling's bytes before its count: the marker, the day, the digest.
    private static let datedHeadBytes = 1 + 3 + 12
    /// Days are stored from the first day a date can name, 0001-01-01, so that they are
    /// never negative: 3 bytes hold the 3,652,059 days to 9999-12-31.
    private static let firstDay = -719_162

    /// Calls `body` with the UTF-8 bytes of the key's stored spelling (no allocation for a
    /// key kept as it is; a stack buffer otherwise).
    static func withSpelling<Result>(of key: String, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var key = key
        return try key.withUTF8 { utf8 in
            let prefix = UnsafeRawBufferPointer(start: journalPrefix.utf8Start, count: journalPrefix.utf8CodeUnitCount)
            if utf8.starts(with: prefix) {
                let rest = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[prefix.count...])
                return try withUnsafeTemporaryAllocation(byteCount: datedHeadBytes + 5, alignment: 1) { buffer in
                    if let count = packDated(rest, into: buffer) {
                        return try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                    }
                    return try spelled(marker: 1, rest, body)
                }
            }
            if let first = utf8.first, first >= 1, first <= datedMarker {
                return try spelled(marker: 2, UnsafeRawBufferPointer(utf8), body)
            }
            return try body(UnsafeRawBufferPointer(utf8))
        }
    }

    /// The stored spelling as a string (tests; a dated key's is not UTF-8, and its string is
    /// not its bytes).
    static func spelling(of key: String) -> String {
        withSpelling(of: key) { String(decoding: $0, as: UTF8.self) }
    }

    /// A spelling as text for a reader: a dated one as its marker and bytes in hex, any other
    /// as its characters, escaped (``IdempotencyProjector/comparableRows(_:schema:)``).
    static func description(ofSpelling spelling: UnsafeRawBufferPointer) -> String {
        guard spelling.first == datedMarker else { return String(decoding: spelling, as: UTF8.self).debugDescription }
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = Array("\\u{3}".utf8)
        for byte in spelling.dropFirst() { text += [hex[Int(byte >> 4)], hex[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// Writes the spelling of a dated content key (`rest`: the key after `journal:`) into
    /// `buffer`, returning its length; nil when `rest` is not one exactly as
    /// ``JournalCSV/RowKeys`` writes it (a calendar date in 8 digits, 16 base64url characters,
    /// a count from 1 without leading zeros that fits 32 bits): such a key is stored as text.
    private static func packDated(_ rest: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let dateAt = datedPrefix.count
        let digestAt = dateAt + 8
        let countAt = digestAt + 16 + 1
        guard rest.count > countAt, rest.count <= countAt + 10, rest.starts(with: datedPrefix), rest[countAt - 1] == UInt8(ascii: ":") else {
            return nil
        }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in rest[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(dateAt..<dateAt + 4), let month = number(dateAt + 4..<dateAt + 6), let day = number(dateAt + 6..<digestAt),
              let date = try? LocalDate(year: year, month: month, day: day),
              rest[countAt] != UInt8(ascii: "0"), let count = number(countAt..<rest.count), count <= Int(UInt32.max) else {
            return nil
        }
        let days = date.daysSinceEpoch - firstDay
        buffer[0] = datedMarker
        buffer[1] = UInt8(truncatingIfNeeded: days >> 16)
        buffer[2] = UInt8(truncatingIfNeeded: days >> 8)
        buffer[3] = UInt8(truncatingIfNeeded: days)
        // 16 characters of six bits: 96 bits, 12 bytes, the first character's bits first.
        var bits: UInt64 = 0
        var held = 0
        var at = 4
        for byte in rest[digestAt..<digestAt + 16] {
            guard let sextet = base64URLValue(byte) else { return nil }
            bits = bits << 6 | UInt64(sextet)
            held += 6
            while held >= 8 {
                held -= 8
                buffer[at] = UInt8(truncatingIfNeeded: bits >> UInt64(held))
                at += 1
            }
        }
        var remaining = UInt32(count)
        while remaining >= 0x80 {
            buffer[at] = UInt8(truncatingIfNeeded: remaining) | 0x80
            remaining >>= 7
            at += 1
        }
        buffer[at] = UInt8(remaining)
        return at + 1
    }

    /// The six bits a base64url character stands for; nil for any other byte.
    private static func base64URLValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }

    private static func spelled<Result>(
        marker: UInt8, _ rest: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withUnsafeTemporaryAllocation(byteCount: rest.count + 1, alignment: 1) { buffer in
            buffer[0] = marker
            if !rest.isEmpty { UnsafeMutableRawBufferPointer(rebasing: buffer[1...]).copyMemory(from: rest) }
            return try body(UnsafeRawBufferPointer(buffer))
        }
    }
}

/// A run of keys' stored spellings (``StoredKey``) end to end in one buffer, each found by
/// its place: a run's keys bound in place, without a string or an array per key.
struct StoredKeySpellings {
    private var bytes: [UInt8] = []
    private var ends: [Int] = []

    /// How many keys the run holds.
    var count: Int { ends.count }

    /// Adds a key's stored spelling.
    mutating func append(_ key: String) {
        StoredKey.withSpelling(of: key) { append(spelled: $0) }
    }

    /// Adds a stored spelling as it is.
    mutating func append(spelled spelling: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: spelling)
        ends.append(bytes.count)
    }

    /// The places of the keys by spelling, then by the order they were added: the first of
    /// equal keys added comes first.
    func order() -> [Int] {
        // A local function, not ``withSpellings(_:)``'s closure: a million keys' sort calls it
        // twenty million times, and through the closure a rebuild took 4 % longer.
        bytes.withUnsafeBytes { buffer in
            func spelling(_ index: Int) -> UnsafeRawBufferPointer {
                UnsafeRawBufferPointer(rebasing: buffer[(index == 0 ? 0 : ends[index - 1])..<ends[index]])
            }
            return (0..<count).sorted { left, right in
                switch StoredKeySpellings.compare(spelling(left), spelling(right)) {
                case ..<0: return true
                case 0: return left < right
                default: return false
                }
            }
        }
    }

    /// Empties the run, keeping its storage.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    /// How two spellings order as SQLite orders TEXT (BINARY: by their bytes, a prefix
    /// first): negative, zero or positive.
    static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let common = min(left.count, right.count)
        if common > 0, let l = left.baseAddress, let r = right.baseAddress {
            let bytes = memcmp(l, r, common)
            if bytes != 0 { return Int(bytes) }
        }
        return left.count - right.count
    }

    /// Calls `body` with a function giving the spelling of the key at a place, valid
    /// during the call.
    func withSpellings<Result>(_ body: ((Int) -> UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBytes { buffer in
            try body { index in UnsafeRawBufferPointer(rebasing: buffer[(index == 0 ? 0 : ends[index - 1])..<ends[index]]) }
        }
    }
}

extension Ledger {
    /// Whether a command that used this idempotency key has committed (a repeat of it
    /// returns its first result): one point look-up in the read models.
    ///
    /// - Throws: ``LedgerError`` when the read models cannot be read.
    public func hasCommitted(idempotencyKey key: String) throws -> Bool {
        try read { db in try IdempotencyProjector.range(of: key, db) != nil }
    }
}
