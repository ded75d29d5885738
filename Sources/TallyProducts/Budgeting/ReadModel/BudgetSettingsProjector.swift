public import TallyEngine
public import GRDB

/// Records the budget currency from the ledger's first event.
public struct BudgetSettingsProjector: Projector {
    /// The read model, as ``BudgetingFeature`` registers it; its tables are created by ``createTables(_:)``.
    public init() {}

    public let name = "budget_settings"
    public let version = 1
    public let tables = ["budget_settings"]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [LedgerCreated.self]
    }

    public func createTables(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE budget_settings (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT")
    }

    public func apply(_ event: Event, _ db: Database) throws {
        if let created = event.body.as(LedgerCreated.self) {
            try db.execute(
                sql: "INSERT OR IGNORE INTO budget_settings (key, value) VALUES ('currency', ?)",
                arguments: [created.baseCurrency.code]
            )
        }
    }

    /// The budget currency recorded from `ledger_created` (USD as known before it).
    static func currency(_ db: Database) throws -> Commodity {
        let code = try String.fetchOne(db, sql: "SELECT value FROM budget_settings WHERE key = 'currency'")
        return try Commodity.named(code ?? "USD")
    }
}
