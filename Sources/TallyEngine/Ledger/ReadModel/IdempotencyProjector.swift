public import GRDB

/// Which commands have run, by idempotency key: the keyed event's sequence number and the
/// last event it caused, so a repeated command can return its first result.
public struct IdempotencyProjector: Projector {
    /// Creates the projector; ``Ledger/projectors`` registers it in every ledger.
    public init() {}

    public let name = "idempotency"
    /// 2: a `WITHOUT ROWID` table keyed by the key (one B-tree fewer to keep per row).
    /// 3: no index by first sequence number: the last event a command caused is kept apart,
    /// keyed by the command's first sequence number, and only for commands that caused one.
    /// 4: keys stored as ``StoredKey`` spells them (a journal's `journal:` prefix in one byte).
    public let version = 4
    public let tables = ["idempotency_keys", "idempotency_caused"]

    /// `idempotency_keys` holds each key once (as ``StoredKey`` spells it), with the sequence number of the event that
    /// recorded it. `idempotency_caused` holds, for an event that later events name as their
    /// cause, the last of them (a rowid table keyed by the cause's sequence number: an
    /// append, or an update in place, per caused event). A key's command runs from its first
    /// sequence number to the last event it caused, or to itself when it caused none.
    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE idempotency_keys (
                key TEXT PRIMARY KEY NOT NULL,
                first_sequence INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE idempotency_caused (
                cause INTEGER PRIMARY KEY NOT NULL,
                last_sequence INTEGER NOT NULL
            ) STRICT;
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        try apply([event][...], db)
    }

    /// Folds a run of events with the statements prepared once for the run.
    public func apply(_ events: ArraySlice<Event>, _ db: Database) throws {
        let insert = RawStatement(try db.cachedStatement(
            sql: "INSERT INTO idempotency_keys (key, first_sequence) VALUES (?, ?) ON CONFLICT (key) DO NOTHING"))
        let caused = try db.cachedStatement(sql: """
            INSERT INTO idempotency_caused (cause, last_sequence) VALUES (?, ?)
            ON CONFLICT (cause) DO UPDATE SET last_sequence = MAX(last_sequence, excluded.last_sequence)
            """)
        try events.withUnsafeBufferPointer { buffer in
            guard var event = buffer.baseAddress else { return }
            for _ in 0..<buffer.count {
                let sequence = Int64(event.pointee.sequence)
                if let key = event.pointee.idempotencyKey {
                    insert.bind(2, sequence)
                    try StoredKey.withSpelling(of: key) { try insert.step(db, bindingText: $0, at: 1) }
                }
                if let cause = event.pointee.cause {
                    try caused.execute(arguments: [Int64(cause), sequence])
                }
                event += 1
            }
        }
    }

    /// The sequence range of the command that used `key`, if one did.
    package static func range(of key: String, _ db: Database) throws -> ClosedRange<UInt64>? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT k.first_sequence, COALESCE(c.last_sequence, k.first_sequence) AS last_sequence
            FROM idempotency_keys k LEFT JOIN idempotency_caused c ON c.cause = k.first_sequence
            WHERE k.key = ?
            """), arguments: [StoredKey.spelling(of: key)]) else {
            return nil
        }
        return row.sequence(IdempotencyColumns.firstSequence)...row.sequence(IdempotencyColumns.lastSequence)
    }

    /// The first event recorded with each key, asked of a run of keys (an import's batch,
    /// once per row) with the statement looked up once for the run instead of once per key.
    struct UsedKeys {
        private let lookup: RawStatement
        private let db: Database

        init(_ db: Database) throws {
            lookup = RawStatement(try db.cachedStatement(sql: "SELECT first_sequence FROM idempotency_keys WHERE key = ?"))
            self.db = db
        }

        /// The first event recorded with `key`, if a command used it.
        func firstSequence(of key: String) throws -> UInt64? {
            try StoredKey.withSpelling(of: key) { try lookup.integer(db, bindingText: $0, at: 1) }.map(UInt64.init)
        }
    }

    /// Whether a journal row was ever imported under its external id (`journal:<id>`, not a
    /// content key `journal:row:…`): a stored key between `␁` and `␁row:`, or after
    /// `␁row;` and before `␂` (``StoredKey``).
    static func hasJournalExternalIds(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: """
            SELECT 1 FROM idempotency_keys
            WHERE (key >= char(1) AND key < char(1) || 'row:') OR (key >= char(1) || 'row;' AND key < char(2))
            LIMIT 1
            """) != nil
    }
}

/// How the idempotency read model spells a key. An import's keys, a million to a file, all
/// begin with `journal:` (``JournalCSV``); stored, that prefix takes one byte, `0x01`, which
/// keeps a key's order among the journal's keys and 7 of its bytes (a quarter of a short
/// key). A key that itself begins with `0x01` or `0x02` (a log written before control
/// characters were refused) is stored behind `0x02`; every other key as it is. So each key
/// has one spelling and no two keys share one; keys are looked up, never read back.
enum StoredKey {
    private static let journalPrefix: StaticString = "journal:"

    /// Calls `body` with the UTF-8 bytes of the key's stored spelling (no allocation for a
    /// key kept as it is; a stack buffer otherwise).
    static func withSpelling<Result>(of key: String, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var key = key
        return try key.withUTF8 { utf8 in
            let prefix = UnsafeRawBufferPointer(start: journalPrefix.utf8Start, count: journalPrefix.utf8CodeUnitCount)
            if utf8.starts(with: prefix) {
                return try spelled(marker: 1, UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[prefix.count...]), body)
            }
            if let first = utf8.first, first == 1 || first == 2 {
                return try spelled(marker: 2, UnsafeRawBufferPointer(utf8), body)
            }
            return try body(UnsafeRawBufferPointer(utf8))
        }
    }

    /// The stored spelling as a string (for statements bound through GRDB's arguments).
    static func spelling(of key: String) -> String {
        withSpelling(of: key) { String(decoding: $0, as: UTF8.self) }
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

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum IdempotencyColumns {
    static let firstSequence = Column("first_sequence")
    static let lastSequence = Column("last_sequence")
}
