internal import Foundation
import Synchronization

/// A throwaway PostgreSQL cluster of one test's own, for what a test must not do to the shared
/// one: change server settings, kill the server, add a standby and promote it. Made by
/// `scripts/postgres/cluster.sh` in a temporary directory; ``stop()`` (or the end of the
/// process) removes it.
public final class PostgresPrivateCluster: Sendable {
    /// The server's URL: `postgresql://tally@127.0.0.1:PORT/postgres`.
    public let serverURL: String
    /// The cluster's directory.
    public let directory: String

    private init(serverURL: String, directory: String) {
        self.serverURL = serverURL
        self.directory = directory
    }

    /// Starts a new cluster.
    /// - Throws: ``PostgresTestCluster/ClusterFailure`` with the script's output.
    public static func start(_ name: String) throws -> PostgresPrivateCluster {
        let directory = "/tmp/tally-pg-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))"
        return PostgresPrivateCluster(serverURL: try url(from: run(["start", directory])), directory: directory)
    }

    private static let suites = Mutex<[String: Result<PostgresPrivateCluster, PostgresTestCluster.ClusterFailure>]>([:])

    /// The cluster of a suite whose tests take turns (`.serialized`) on one server of their own:
    /// started on first use, stopped when the process exits.
    public static func forSuite(_ name: String) throws -> PostgresPrivateCluster {
        try suites.withLock { suites in
            if let started = suites[name] { return try started.get() }
            let result = Result { try start(name) }.mapError { $0 as? PostgresTestCluster.ClusterFailure ?? .init(description: "\($0)") }
            if suites.isEmpty { atexit { PostgresPrivateCluster.stopSuites() } }
            suites[name] = result
            return try result.get()
        }
    }

    private static func stopSuites() {
        let clusters = suites.withLock { $0.values.compactMap { try? $0.get() } }
        for cluster in clusters { cluster.stop() }
    }

    /// Starts a streaming standby of this cluster, which this one then waits for at every commit
    /// (synchronous replication).
    public func standby() throws -> PostgresPrivateCluster {
        let directory = self.directory + "-standby"
        return PostgresPrivateCluster(serverURL: try Self.url(from: Self.run(["standby", self.directory, directory])), directory: directory)
    }

    /// The port the server listens on.
    public var port: String { String(serverURL.split(separator: ":").last!.prefix { $0 != "/" }) }

    /// Kills the server with SIGKILL (a crash).
    public func kill() throws { try Self.run(["kill", directory]) }
    /// Makes a standby the primary.
    public func promote() throws { try Self.run(["promote", directory]) }
    /// Stops the server and removes its directory.
    public func stop() { _ = try? Self.run(["stop", directory]) }

    /// Runs SQL on this server, on a connection of its own (the server may have been killed,
    /// restarted or promoted since the last statement), and returns its rows as `psql -A -t`
    /// prints them.
    @discardableResult
    public func sql(_ sql: String) throws -> String {
        try SQLSession.runOnce(sql, url: serverURL)
    }

    private static func url(from output: String) throws -> String {
        guard let url = output.split(separator: "\n").last.map(String.init), url.hasPrefix("postgresql://") else {
            throw PostgresTestCluster.ClusterFailure(description: "the cluster script printed no URL: \(output)")
        }
        return url
    }

    @discardableResult
    private static func run(_ arguments: [String]) throws -> String {
        let (status, printed) = try PostgresTestCluster.spawn("/bin/bash", [PostgresTestCluster.script] + arguments)
        guard status == 0 else {
            throw PostgresTestCluster.ClusterFailure(description: "cluster.sh \(arguments.joined(separator: " ")) failed (status \(status)): \(printed)")
        }
        return printed
    }
}
