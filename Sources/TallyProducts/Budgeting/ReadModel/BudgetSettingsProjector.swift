public import TallyEngine
public import GRDB

/// Records the budget currency from the ledger's first event, and when each reference
/// balance was set (`budget_references`: the commands reconcile older changes with them).
public struct BudgetSettingsProjector: Projector {
    /// The read model, as ``BudgetingFeature`` registers it; its tables are created by ``createTables(_:)``.
    public init() {}

    public let name = "budget_settings"
    public let version = 2
    public let tables = ["budget_settings", "budget_references"]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [LedgerCreated.self, ReferenceBalanceSet.self]
    }

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE budget_settings (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT;
            CREATE TABLE budget_references (
                sequence INTEGER PRIMARY KEY NOT NULL,
                effective_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX budget_references_by_time ON budget_references (effective_at, sequence);
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        if let created = event.body.as(LedgerCreated.self) {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO budget_settings (key, value) VALUES ('currency', ?)")
                .execute(arguments: [created.baseCurrency.code])
        } else if event.body.is(ReferenceBalanceSet.self) {
            try db.cachedStatement(sql: "INSERT INTO budget_references (sequence, effective_at) VALUES (?, ?)")
                .execute(arguments: [event.rowSequence, event.rowEffectiveAt])
        }
    }

    /// The first reference balance (in effective order) that holds a change of the current
    /// balance dated `at`: one on a later day, or one later the same day recorded after the
    /// version the change concerns (`recordedBy`: its sequence number; nil for a change
    /// recorded now, which a reference of its own day does not hold).
    static func firstReference(holding at: Instant, dayEnd: Instant, recordedBy version: UInt64?, _ db: Database) throws -> (sequence: UInt64, effectiveAt: Instant)? {
        try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT sequence, effective_at FROM budget_references
                WHERE effective_at > ? OR (effective_at > ? AND sequence > ?)
                ORDER BY effective_at, sequence LIMIT 1
                """),
            arguments: [dayEnd.microsecondsSinceEpoch, at.microsecondsSinceEpoch, version.map { Int64($0) } ?? Int64.max]
        ).map { row in (row.sequence(BudgetSettingsColumns.sequence), row.instant(BudgetSettingsColumns.effectiveAt)) }
    }

    /// The budget currency recorded from `ledger_created` (USD as known before it).
    static func currency(_ db: Database) throws -> Commodity {
        let code = try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM budget_settings WHERE key = 'currency'"))
        return try Commodity.named(code ?? "USD")
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum BudgetSettingsColumns {
    static let effectiveAt = Column("effective_at")
    static let sequence = Column("sequence")
}
