public import GRDB

/// The savings pots that exist: name and target. A pot's total is its account's balance
/// (`Budget:Pots:<id>`) in the balances read model.
public struct PotsProjector: Projector {
    public init() {}

    public let name = "budget_pots"
    public let version = 1
    public let tables = ["budget_pots"]

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE budget_pots (
                pot_id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                commodity TEXT NOT NULL,
                target INTEGER NOT NULL,
                created_sequence INTEGER NOT NULL,
                deleted INTEGER NOT NULL DEFAULT 0
            ) STRICT, WITHOUT ROWID;
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        switch event.body {
        case .potCreated(let pot):
            try db.execute(
                sql: "INSERT OR REPLACE INTO budget_pots (pot_id, name, commodity, target, created_sequence, deleted) VALUES (?, ?, ?, ?, ?, 0)",
                arguments: [pot.potId, pot.name, pot.target.commodity.code, pot.target.minorUnits, Int64(event.sequence)]
            )
        case .potDeleted(let deleted):
            try db.execute(sql: "UPDATE budget_pots SET deleted = 1 WHERE pot_id = ?", arguments: [deleted.potId])
        default:
            break
        }
    }
}
