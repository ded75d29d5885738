public import GRDB

/// Which commands have run, by idempotency key: the keyed event's sequence number and the
/// last event it caused, so a repeated command can return its first result.
public struct IdempotencyProjector: Projector {
    /// Creates the projector; ``Ledger/projectors`` registers it in every ledger.
    public init() {}

    public let name = "idempotency"
    /// 2: a `WITHOUT ROWID` table keyed by the key (one B-tree fewer to keep per row).
    public let version = 2
    public let tables = ["idempotency_keys"]

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE idempotency_keys (
                key TEXT PRIMARY KEY NOT NULL,
                first_sequence INTEGER NOT NULL,
                last_sequence INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX idempotency_by_first ON idempotency_keys (first_sequence);
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        if let key = event.idempotencyKey {
            try db.cachedStatement(
                sql: "INSERT INTO idempotency_keys (key, first_sequence, last_sequence) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING"
            ).execute(arguments: [key, Int64(event.sequence), Int64(event.sequence)])
        }
        if let cause = event.cause {
            try db.cachedStatement(
                sql: "UPDATE idempotency_keys SET last_sequence = MAX(last_sequence, ?) WHERE first_sequence = ?"
            ).execute(arguments: [Int64(event.sequence), Int64(cause)])
        }
    }

    /// Folds a run of events with the insert prepared once for the run.
    public func apply(_ events: ArraySlice<Event>, _ db: Database) throws {
        let insert = RawStatement(try db.cachedStatement(
            sql: "INSERT INTO idempotency_keys (key, first_sequence, last_sequence) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING"))
        try events.withUnsafeBufferPointer { buffer in
            guard var event = buffer.baseAddress else { return }
            for _ in 0..<buffer.count {
                let sequence = Int64(event.pointee.sequence)
                if let key = event.pointee.idempotencyKey {
                    insert.bind(2, sequence)
                    insert.bind(3, sequence)
                    try insert.step(db, binding: key, at: 1)
                }
                if let cause = event.pointee.cause {
                    try db.cachedStatement(
                        sql: "UPDATE idempotency_keys SET last_sequence = MAX(last_sequence, ?) WHERE first_sequence = ?"
                    ).execute(arguments: [sequence, Int64(cause)])
                }
                event += 1
            }
        }
    }

    /// The sequence range of the command that used `key`, if one did.
    package static func range(of key: String, _ db: Database) throws -> ClosedRange<UInt64>? {
        guard let row = try Row.fetchOne(db, sql: "SELECT first_sequence, last_sequence FROM idempotency_keys WHERE key = ?", arguments: [key]) else {
            return nil
        }
        return row.sequence(IdempotencyColumns.firstSequence)...row.sequence(IdempotencyColumns.lastSequence)
    }

    /// The first event recorded with `key`, if a command used it (a prepared statement kept
    /// per connection: imports ask once per row).
    static func firstSequence(of key: String, _ db: Database) throws -> UInt64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT first_sequence FROM idempotency_keys WHERE key = ?"), arguments: [key]).map(UInt64.init)
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
