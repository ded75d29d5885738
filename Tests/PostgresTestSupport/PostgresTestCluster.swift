internal import Foundation
import Synchronization

/// A private, throwaway PostgreSQL cluster for one test process: made by `initdb` in a
/// temporary directory (as the `postgres` user when the tests run as root), started on a free
/// loopback port on first use, stopped and removed when the process exits. The real server,
/// never a mock. Tests share it and keep out of each other's way by using a ledger of their
/// own (``ledgerLocation(_:)``).
public final class PostgresTestCluster: Sendable {
    /// The server's URL, without a ledger: `postgresql://tally@127.0.0.1:PORT/postgres`.
    public let serverURL: String
    /// The cluster's directory (data, socket, server log).
    public let directory: String

    private static let started = Mutex<Result<PostgresTestCluster, ClusterFailure>?>(nil)

    /// Why the cluster could not be started.
    public struct ClusterFailure: Error, CustomStringConvertible {
        public let description: String
    }

    private let session: SQLSession

    private init(serverURL: String, directory: String) {
        self.serverURL = serverURL
        self.directory = directory
        self.session = SQLSession(url: serverURL)
    }

    /// The process's cluster, started on first use.
    /// - Throws: ``ClusterFailure`` with the script's output when PostgreSQL is missing or does not start.
    public static func shared() throws -> PostgresTestCluster {
        try started.withLock { started in
            if let started { return try started.get() }
            let result = Result { try start() }.mapError { $0 as? ClusterFailure ?? ClusterFailure(description: "\($0)") }
            started = result
            if case .success = result { atexit { PostgresTestCluster.stopShared() } }
            return try result.get()
        }
    }

    private static func stopShared() {
        let cluster = started.withLock { try? $0?.get() }
        guard let cluster else { return }
        _ = try? run(["stop", cluster.directory])
    }

    /// The repository's `scripts/postgres/cluster.sh`.
    public static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/postgres/cluster.sh").path
    }

    private static func start() throws -> PostgresTestCluster {
        let directory = "/tmp/tally-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
        let output = try run(["start", directory])
        guard let url = output.split(separator: "\n").last.map(String.init), url.hasPrefix("postgresql://") else {
            throw ClusterFailure(description: "the cluster script printed no URL: \(output)")
        }
        return PostgresTestCluster(serverURL: url, directory: directory)
    }

    /// Runs the cluster script and returns what it printed.
    @discardableResult
    private static func run(_ arguments: [String]) throws -> String {
        let (status, printed) = try spawn("/bin/bash", [script] + arguments)
        guard status == 0 else {
            throw ClusterFailure(description: "cluster.sh \(arguments.joined(separator: " ")) failed (status \(status)): \(printed)")
        }
        return printed
    }

    /// Runs a program and returns its wait status and what it printed. Spawned and waited for
    /// with `posix_spawn` and `waitpid`, its output through a file: a server it starts outlives it.
    public static func spawn(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        let output = "/tmp/tally-pg-spawn-\(getpid())-\(UUID().uuidString.prefix(8)).out"
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = [executable] + arguments
        var pointers = argv.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, &pointers, environ)
        guard spawned == 0 else { throw ClusterFailure(description: "cannot run \(executable): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    /// A new ledger's location on this cluster, unique to the caller: `postgresql://…?ledger=NAME-RANDOM`,
    /// with libpq's `application_name` set to the ledger's name (so a test can end its connections
    /// alone) unless `ownConnections` is false. A process keeps a commit notifier and a few idle
    /// connections per connection string: locations without a name of their own share them, as
    /// an application's ledgers on one server do.
    public func ledgerLocation(_ name: String, ownConnections: Bool = true) -> String {
        let ledger = "\(name)-\(UUID().uuidString.prefix(8).lowercased())"
        return "\(serverURL)?ledger=\(ledger)" + (ownConnections ? "&application_name=\(ledger)" : "")
    }

    /// Runs SQL on the server (for what a test does behind Tally's back: damage a row, end a
    /// connection, read a ledger's rows) and returns its rows as `psql -A -t` prints them
    /// (``SQLSession``: one connection of the test process, kept).
    @discardableResult
    public func sql(_ sql: String) throws -> String {
        try session.run(sql)
    }
}
