public import GRDB

/// The recurring items defined and not removed. Their generated occurrences are budget
/// transactions (``TransactionsProjector``), found by recurring id and month.
public struct RecurringProjector: Projector {
    public init() {}

    public let name = "recurring_items"
    public let version = 1
    public let tables = ["recurring_items"]

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE recurring_items (
                recurring_id TEXT PRIMARY KEY NOT NULL,
                payee TEXT NOT NULL,
                category TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                frequency TEXT NOT NULL,
                day_of_month INTEGER NOT NULL,
                start_month INTEGER NOT NULL,
                end_month INTEGER,
                removed INTEGER NOT NULL DEFAULT 0,
                defined_sequence INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        switch event.body {
        case .recurringDefined(let item):
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO recurring_items
                        (recurring_id, payee, category, commodity, amount, frequency, day_of_month, start_month, end_month, removed, defined_sequence)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
                    """,
                arguments: [item.recurringId, item.payee, item.category.rawValue, item.amount.commodity.code, item.amount.minorUnits,
                            item.frequency.rawValue, item.dayOfMonth, item.startMonth.ordinal, item.endMonth?.ordinal,
                            Int64(event.sequence)]
            )
        case .recurringRemoved(let removed):
            try db.execute(sql: "UPDATE recurring_items SET removed = 1 WHERE recurring_id = ?", arguments: [removed.recurringId])
        default:
            break
        }
    }
}
