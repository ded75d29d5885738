public import GRDB

/// The monthly budgets: one maximum per (category, month).
public struct BudgetsProjector: Projector {
    public init() {}

    public let name = "budgets"
    public let version = 1
    public let tables = ["budgets"]

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE budgets (
                month INTEGER NOT NULL,
                category TEXT NOT NULL,
                commodity TEXT NOT NULL,
                maximum INTEGER NOT NULL,
                set_sequence INTEGER NOT NULL,
                PRIMARY KEY (month, category)
            ) STRICT, WITHOUT ROWID;
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        switch event.body {
        case .budgetSet(let budget):
            try db.execute(
                sql: "INSERT OR REPLACE INTO budgets (month, category, commodity, maximum, set_sequence) VALUES (?, ?, ?, ?, ?)",
                arguments: [budget.month.ordinal, budget.category.rawValue, budget.maximum.commodity.code,
                            budget.maximum.minorUnits, Int64(event.sequence)]
            )
        case .budgetDeleted(let deleted):
            try db.execute(sql: "DELETE FROM budgets WHERE month = ? AND category = ?",
                           arguments: [deleted.month.ordinal, deleted.category.rawValue])
        default:
            break
        }
    }
}
