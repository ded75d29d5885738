import Foundation
import Testing

/// A store for a budget CLI story, created with `tally init` (USD, New York).
struct BudgetStore {
    let directory: TemporaryDirectory
    var path: String { directory.path + "/home" }

    init() throws {
        directory = try TemporaryDirectory()
        let created = try TallyProcess.run(["init", "--store", directory.path + "/home", "--time-zone", "America/New_York"])
        #expect(created.status == 0, "\(created.standardError)")
    }

    /// Runs `tally <arguments> --store <path>`, expecting success.
    @discardableResult
    func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try TallyProcess.run(arguments + ["--store", path])
        #expect(result.status == 0, "tally \(arguments.joined(separator: " ")): \(result.standardError)", sourceLocation: sourceLocation)
        return result.standardOutput
    }

    /// Every file of the store but SQLite's shared-memory index (`-shm`), which any process
    /// that merely opens the read models rewrites: it holds no data.
    func contents() throws -> [String: Data] {
        try directory.snapshot("home").filter { !$0.key.hasSuffix("-shm") }
    }

    /// Runs a command that must be refused: non-zero exit, `message` on standard error, and
    /// the log and read models byte for byte as they were.
    func expectRefused(_ arguments: [String], _ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try contents()
        let result = try TallyProcess.run(arguments + ["--store", path])
        #expect(result.status != 0, "tally \(arguments.joined(separator: " ")) succeeded", sourceLocation: sourceLocation)
        #expect(result.standardError.contains(message), "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(try contents() == before, "the store changed", sourceLocation: sourceLocation)
    }
}
