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
    public let version = 3
    public let tables = ["idempotency_keys", "idempotency_caused"]

    /// `idempotency_keys` holds each key once, with the sequence number of the event that
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
                    try insert.step(db, binding: key, at: 1)
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
            """), arguments: [key]) else {
            return nil
        }
        return row.sequence(IdempotencyColumns.firstSequence)...row.sequence(IdempotencyColumns.lastSequence)
    }

    /// The first event recorded with `key`, if a command used it (a prepared statement kept
    /// per connection: imports ask once per row).
    static func firstSequence(of key: String, _ db: Database) throws -> UInt64? {
        try RawStatement(db.cachedStatement(sql: "SELECT first_sequence FROM idempotency_keys WHERE key = ?"))
            .integer(db, binding: key, at: 1).map(UInt64.init)
    }

    /// Whether a journal row was ever imported under its external id (`journal:<id>`, not a
    /// content key `journal:row:…`).
    static func hasJournalExternalIds(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: """
            SELECT 1 FROM idempotency_keys
            WHERE (key >= 'journal:' AND key < 'journal:row:') OR (key >= 'journal:row;' AND key < 'journal;')
            LIMIT 1
            """) != nil
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum IdempotencyColumns {
    static let firstSequence = Column("first_sequence")
    static let lastSequence = Column("last_sequence")
}
