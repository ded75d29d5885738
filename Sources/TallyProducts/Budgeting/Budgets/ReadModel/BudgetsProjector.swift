public import TallyEngine
public import GRDB

/// The monthly budgets: one maximum per (category, month), with every version the ledger
/// held and the recorded interval it held it (`recorded_at` to `superseded_at`, the end
/// ``BudgetTime/openEnd`` while in force), so "as known at" reads indexed rows.
public struct BudgetsProjector: Projector {
    /// The read model, as ``BudgetingFeature`` registers it; its tables are created by ``createTables(_:)``.
    public init() {}

    public let name = "budgets"
    public let version = 2
    public let tables = ["budgets"]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [BudgetSet.self, BudgetDeleted.self]
    }

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE budgets (
                month INTEGER NOT NULL,
                category TEXT NOT NULL,
                set_sequence INTEGER NOT NULL,
                commodity TEXT NOT NULL,
                maximum INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                superseded_at INTEGER NOT NULL,
                PRIMARY KEY (month, category, set_sequence)
            ) STRICT, WITHOUT ROWID;
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        switch event.body.payload {
        case let budget as BudgetSet:
            try close(month: budget.month, category: budget.category, event, db)
            try db.cachedStatement(sql: """
                    INSERT INTO budgets (month, category, set_sequence, commodity, maximum, recorded_at, superseded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [
                        budget.month.ordinal, budget.category.rawValue, event.rowSequence, budget.maximum.commodity.code,
                        budget.maximum.minorUnits, event.rowRecordedAt, BudgetTime.openEnd,
                    ])
        case let deleted as BudgetDeleted:
            try close(month: deleted.month, category: deleted.category, event, db)
        default:
            throw eventNotFolded(event)
        }
    }

    /// Ends the version in force, as of the event's recorded time.
    private func close(month: Month, category: BudgetCategory, _ event: Event, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE budgets SET superseded_at = ? WHERE month = ? AND category = ? AND superseded_at = ?")
            .execute(arguments: [event.rowRecordedAt, month.ordinal, category.rawValue, BudgetTime.openEnd])
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum BudgetColumns {
    static let expenses = Column("expenses")
    static let income = Column("income")
    static let category = Column("category")
    static let commodity = Column("commodity")
    static let maximum = Column("maximum")
}
