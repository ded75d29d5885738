public import TallyEngine
public import GRDB

/// The recurring items: one row per item's life, from its definition to its removal, each
/// with its effective and recorded instants (``BudgetTime/openEnd`` while it lives), so
/// that "as of" and "as known at" read indexed rows. Their generated occurrences are budget
/// transactions (``TransactionsProjector``), found by recurring id and month.
public struct RecurringProjector: Projector {
    /// The read model, as ``BudgetingFeature`` registers it; its tables are created by ``createTables(_:)``.
    public init() {}

    public let name = "recurring_items"
    public let version = 2
    public let tables = ["recurring_items"]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [RecurringDefined.self, RecurringRemoved.self]
    }

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE recurring_items (
                recurring_id TEXT NOT NULL,
                defined_sequence INTEGER NOT NULL,
                payee TEXT NOT NULL,
                category TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                frequency TEXT NOT NULL,
                day_of_month INTEGER NOT NULL,
                start_month INTEGER NOT NULL,
                end_month INTEGER,
                created_at INTEGER NOT NULL,
                created_recorded_at INTEGER NOT NULL,
                ended_at INTEGER NOT NULL,
                ended_recorded_at INTEGER NOT NULL,
                PRIMARY KEY (recurring_id, defined_sequence)
            ) STRICT, WITHOUT ROWID;
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        switch event.body.payload {
        case let item as RecurringDefined:
            try end(item.recurringId, event, db)
            try db.cachedStatement(sql: """
                    INSERT INTO recurring_items
                        (recurring_id, defined_sequence, payee, category, commodity, amount, frequency, day_of_month, start_month,
                         end_month, created_at, created_recorded_at, ended_at, ended_recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [
                        item.recurringId, event.rowSequence, item.payee, item.category.rawValue, item.amount.commodity.code,
                        item.amount.minorUnits, item.frequency.rawValue, item.dayOfMonth, item.startMonth.ordinal,
                        item.endMonth?.ordinal, event.rowEffectiveAt,
                        event.rowRecordedAt, BudgetTime.openEnd, BudgetTime.openEnd,
                    ])
        case let removed as RecurringRemoved:
            try end(removed.recurringId, event, db)
        default:
            throw eventNotFolded(event)
        }
    }

    /// Ends the item's life in progress at the event's times.
    private func end(_ id: String, _ event: Event, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE recurring_items SET ended_at = ?, ended_recorded_at = ? WHERE recurring_id = ? AND ended_recorded_at = ?")
            .execute(arguments: [event.rowEffectiveAt, event.rowRecordedAt, id, BudgetTime.openEnd])
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum RecurringColumns {
    static let amount = Column("amount")
    static let category = Column("category")
    static let commodity = Column("commodity")
    static let dayOfMonth = Column("day_of_month")
    static let endMonth = Column("end_month")
    static let frequency = Column("frequency")
    static let payee = Column("payee")
    static let recurringId = Column("recurring_id")
    static let startMonth = Column("start_month")
}
