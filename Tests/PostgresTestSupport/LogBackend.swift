internal import Foundation

/// Where a log under test lives: the two implementations of the log's one interface. Suites
/// that hold for every store take it as an argument (`@Test(arguments: LogBackend.allCases)`)
/// and run once on each.
public enum LogBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Segment files in the store's `log/` directory.
    case files
    /// Rows of a ledger on the test process's throwaway PostgreSQL cluster (``PostgresTestCluster``).
    case postgresql

    public var description: String { rawValue }

    /// A new ledger's location on the shared cluster for a store named `name`, or nil on files;
    /// `ownConnections` as ``PostgresTestCluster/ledgerLocation(_:ownConnections:)`` takes it.
    /// - Throws: ``PostgresTestCluster/ClusterFailure`` when the cluster cannot be started.
    public func newLocation(_ name: String = "store", ownConnections: Bool = true) throws -> String? {
        switch self {
        case .files: nil
        case .postgresql: try PostgresTestCluster.shared().ledgerLocation(name, ownConnections: ownConnections)
        }
    }
}

extension PostgresTestCluster {
    /// Everything the database holds of `ledger`, as text: its head row, a digest of every frame
    /// row and of every stored file. Equal before and after a command that must change nothing.
    public func ledgerSnapshot(_ ledger: String) throws -> String {
        let quoted = "'" + ledger.replacingOccurrences(of: "'", with: "''") + "'"
        return try sql("""
            SELECT coalesce((SELECT head_sequence || ' ' || encode(head_hash, 'hex') FROM tally_ledgers WHERE ledger = \(quoted)), 'no ledger')
              || ' frames ' || coalesce((SELECT md5(string_agg(first_sequence || ':' || md5(frame), ',' ORDER BY first_sequence))
                                         FROM tally_frames WHERE ledger = \(quoted)), '-')
              || ' files ' || coalesce((SELECT md5(string_agg(name || ':' || md5(content), ',' ORDER BY name))
                                        FROM tally_ledger_files WHERE ledger = \(quoted)), '-')
            """)
    }
}
