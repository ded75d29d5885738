public import TallyEngine
public import GRDB

/// The savings pots: one row per pot's life, from its creation to its deletion, each
/// with its effective and recorded instants (``BudgetTime/openEnd`` while it lives), so
/// that "as of" and "as known at" read indexed rows; a pot id used again after a deletion
/// starts a new life. A pot's total is its account's balance (`Budget:Pots:<id>`) in the
/// balances read model.
public struct PotsProjector: Projector {
    /// The read model, as ``BudgetingFeature`` registers it; its tables are created by ``createTables(_:)``.
    public init() {}

    public let name = "budget_pots"
    public let version = 2
    public let tables = ["budget_pots"]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [PotCreated.self, PotDeleted.self]
    }

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE budget_pots (
                pot_id TEXT NOT NULL,
                created_sequence INTEGER NOT NULL,
                name TEXT NOT NULL,
                commodity TEXT NOT NULL,
                target INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                created_recorded_at INTEGER NOT NULL,
                ended_at INTEGER NOT NULL,
                ended_recorded_at INTEGER NOT NULL,
                PRIMARY KEY (pot_id, created_sequence)
            ) STRICT, WITHOUT ROWID;
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        switch event.body.payload {
        case let pot as PotCreated:
            try end(pot.potId, event, db)
            try db.cachedStatement(sql: """
                    INSERT INTO budget_pots (pot_id, created_sequence, name, commodity, target, created_at, created_recorded_at,
                                             ended_at, ended_recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [
                        pot.potId, event.rowSequence, pot.name, pot.target.commodity.code, pot.target.minorUnits,
                        event.rowEffectiveAt, event.rowRecordedAt,
                        BudgetTime.openEnd, BudgetTime.openEnd,
                    ])
        case let deleted as PotDeleted:
            try end(deleted.potId, event, db)
        default:
            throw eventNotFolded(event)
        }
    }

    /// Ends the pot's life in progress at the event's times.
    private func end(_ id: String, _ event: Event, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE budget_pots SET ended_at = ?, ended_recorded_at = ? WHERE pot_id = ? AND ended_recorded_at = ?")
            .execute(arguments: [event.rowEffectiveAt, event.rowRecordedAt, id, BudgetTime.openEnd])
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum PotColumns {
    static let commodity = Column("commodity")
    static let name = Column("name")
    static let potId = Column("pot_id")
    static let target = Column("target")
}
