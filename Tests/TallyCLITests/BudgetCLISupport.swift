import Foundation
import Testing
import PostgresTestSupport
import TallyLog

/// A store for a budget CLI story, created with `tally init` (USD, New York), on either log
/// backend: a directory, or a ledger on the test cluster with its read models in a directory.
struct BudgetStore {
    let directory: TemporaryDirectory
    let backend: LogBackend
    /// `postgresql://…?ledger=…` on PostgreSQL, nil on files.
    let location: String?
    /// The store's directory on files; on PostgreSQL the directory under which its read models go.
    var path: String { directory.path + "/home" }
    /// What `--store` (and, on PostgreSQL, `--read-models`) take to name this store.
    var storeArguments: [String] {
        guard let location else { return ["--store", path] }
        return ["--store", location, "--read-models", path]
    }

    /// A new store on `backend`, made by `tally init` with `initArguments` (New York's time zone by default).
    init(on backend: LogBackend = .files, initArguments: [String] = ["--time-zone", "America/New_York"]) throws {
        directory = try TemporaryDirectory()
        self.backend = backend
        // Its command lines run in the test process (`TallyProcess.run`): the location shares
        // its connection string with the other stores', and so the process's idle connections.
        location = try backend.newLocation("cli", ownConnections: false)
        let created = try TallyProcess.run(["init"] + initArguments + storeArguments)
        #expect(created.status == 0, "\(created.standardError)")
    }

    /// Runs `tally <arguments> --store <path>`, expecting success.
    @discardableResult
    func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try TallyProcess.run(arguments + storeArguments)
        #expect(result.status == 0, "tally \(arguments.joined(separator: " ")): \(result.standardError)", sourceLocation: sourceLocation)
        return result.standardOutput
    }

    /// Every file of the store but SQLite's shared-memory index (`-shm`), which any process
    /// that merely opens the read models rewrites: it holds no data.
    /// On PostgreSQL also what the database holds of the ledger (its head, frames and files).
    func contents() throws -> [String: Data] {
        var contents = try directory.snapshot("home").filter { !$0.key.hasSuffix("-shm") }
        if let location {
            let ledger = try PostgresLogLocation(location).ledger
            contents["database"] = Data(try PostgresTestCluster.shared().ledgerSnapshot(ledger).utf8)
        }
        return contents
    }

    /// Runs a command that must be refused: non-zero exit, `message` on standard error, and
    /// the log and read models byte for byte as they were.
    func expectRefused(_ arguments: [String], _ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try contents()
        let result = try TallyProcess.run(arguments + storeArguments)
        #expect(result.status != 0, "tally \(arguments.joined(separator: " ")) succeeded", sourceLocation: sourceLocation)
        #expect(result.standardError.contains(message), "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(try contents() == before, "the store changed", sourceLocation: sourceLocation)
    }
}
