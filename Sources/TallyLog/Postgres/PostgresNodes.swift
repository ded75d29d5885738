/// The service nodes that share one database, and which of them holds a ledger now.
///
/// Each node says where it answers (its address) when it starts and every few seconds after;
/// a node asked to write a ledger whose lease another node holds sends the request there.
///
/// ```swift
/// let nodes = try PostgresNodes(server: location)
/// try nodes.announce(node: "node-a", address: "http://10.0.0.5:8080")
/// if let holder = try nodes.holder(of: location), holder.node != "node-a" { redirect(to: holder.address) }
/// ```
public final class PostgresNodes: Sendable {
    private let source: PostgresLogReader.Source
    private let server: String

    /// Connects to the database `location` names (its ledger is not used), creating the tables when missing.
    public init(server location: PostgresLogLocation) throws {
        let connection = try PostgresConnection(conninfo: location.connectionString, displayName: location.server)
        try PostgresLogSchema.migrate(connection)
        source = PostgresLogReader.Source(connection)
        server = location.server
    }

    /// Records (or refreshes) that `node` answers at `address`.
    public func announce(node: String, address: String) throws {
        try run(
            """
            INSERT INTO tally_nodes (node, address, seen_at) VALUES ($1, $2, now())
            ON CONFLICT (node) DO UPDATE SET address = EXCLUDED.address, seen_at = now()
            """, [.text(node), .text(address)])
    }

    /// The node holding the ledger at `location` under a lease that has not run out, with the
    /// address it announced (nil when it announced none); nil when nobody holds it.
    public func holder(of location: PostgresLogLocation) throws -> (node: String, address: String?)? {
        let rows = try run(
            """
            SELECT l.owner, n.address FROM tally_ledgers l LEFT JOIN tally_nodes n ON n.node = l.owner
            WHERE l.ledger = $1 AND l.owner IS NOT NULL AND l.lease_until > now()
            """, [.text(location.ledger)])
        guard rows.count == 1 else { return nil }
        return (rows.text(0, 0), rows.isNull(0, 1) ? nil : rows.text(0, 1))
    }

    /// Whether the database holds a ledger of this name (with its first event).
    public func exists(_ location: PostgresLogLocation) throws -> Bool {
        try run("SELECT 1 FROM tally_ledgers WHERE ledger = $1 AND head_sequence > 0", [.text(location.ledger)]).count == 1
    }

    @discardableResult
    private func run(_ sql: String, _ parameters: [PostgresConnection.Value]) throws -> PostgresConnection.Rows {
        try source.query(sql, parameters)
    }
}
