import Foundation
import Synchronization
import Testing
@testable import TallyCLI

/// What one run of `tally` returned and printed.
struct TallyRun {
    let status: Int32
    let standardOutput: String
    let standardError: String
}

enum TallyProcess {
    /// The `tally` binary built next to this test bundle.
    static let executable: URL = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("tally")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/tally")
    }()

    /// Every run starts the executable when `TALLY_TEST_PROCESSES=1` (for a run of the suite
    /// that exercises the process around each command line too).
    static let alwaysStartsProcesses = ProcessInfo.processInfo.environment["TALLY_TEST_PROCESSES"] == "1"

    /// The commands that need a process of their own: `serve` starts `tally-serve` from beside
    /// the executable, `follow` waits for a signal, `demo` names the program it was started as.
    static let processOnlyCommands: Set<String> = ["serve", "follow", "demo"]

    /// Whether a command line names a store on PostgreSQL with a connection string of its own
    /// (libpq's `application_name`, which tests that end a ledger's connections set). Such a
    /// line starts the executable: a process keeps, per connection string, a thread and a
    /// connection that send commit notices and a few idle connections for its next command, so
    /// in this process one set per test would add up to more connections than the test
    /// cluster takes.
    static func namesAStoreWithConnectionsOfItsOwn(_ text: String) -> Bool {
        (text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")) && text.contains("application_name=")
    }

    /// The environment variables `tally`'s command layer reads through its console; a run that
    /// sets another (one the engine reads, such as `TALLY_READ_MODELS`) starts the executable.
    static let consoleVariables: Set<String> = ["TALLY_STORE", "TALLY_KEY_FILE", "TALLY_WAIT", "COLUMNS"]

    /// Runs `tally` with `arguments`, `input` on its standard input and `environment` over the
    /// test's own (without `TALLY_STORE`), and returns its status and what it printed.
    ///
    /// The command line runs in this process (``TallyCommand/execute(_:)``, the function the
    /// executable's `main` calls, with a console of buffers) unless it needs a process of its
    /// own (``processOnlyCommands``, a store on PostgreSQL with connections of its own, an
    /// environment variable outside ``consoleVariables``, or `TALLY_TEST_PROCESSES=1`):
    /// starting the debug executable costs about 20 ms of CPU before it reads its arguments,
    /// and the suite runs `tally` several thousand times.
    /// `InProcessRunTests` checks that both ways answer alike.
    @discardableResult
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> TallyRun {
        if alwaysStartsProcesses || arguments.contains(where: processOnlyCommands.contains)
            || arguments.contains(where: namesAStoreWithConnectionsOfItsOwn)
            || !Set(environment.keys).isSubset(of: consoleVariables)
            || environment.values.contains(where: namesAStoreWithConnectionsOfItsOwn) {
            return try runProcess(arguments, input: input, environment: environment)
        }
        return runInProcess(arguments, input: input, environment: environment)
    }

    /// The command line run by ``TallyCommand/execute(_:)`` in this process, on a console of
    /// buffers.
    static func runInProcess(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) -> TallyRun {
        var variables = ProcessInfo.processInfo.environment
        variables.removeValue(forKey: "TALLY_STORE")
        for (key, value) in environment { variables[key] = value }
        let output = Mutex("")
        let errors = Mutex("")
        let console = Console(
            writeOutput: { text in output.withLock { $0 += text } },
            writeError: { text in errors.withLock { $0 += text } },
            readInput: { Data((input ?? "").utf8) },
            environment: variables,
            errorIsTerminal: false
        )
        let status = Console.$current.withValue(console) { TallyCommand.execute(arguments) }
        return TallyRun(status: status, standardOutput: output.withLock { $0 }, standardError: errors.withLock { $0 })
    }

    /// The command line run by the `tally` executable, in a process of its own.
    @discardableResult
    static func runProcess(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> TallyRun {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "TALLY_STORE")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let inputPipe = Pipe()
        process.standardInput = inputPipe
        try process.run()
        if let input { inputPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inputPipe.fileHandleForWriting.close()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return TallyRun(
            status: process.terminationStatus,
            standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self)
        )
    }
}

/// A fresh directory for one test, removed when the test ends.
final class TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tally-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String, _ contents: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every file under the directory with its bytes, to prove a failed command changed nothing.
    func snapshot(_ subpath: String) throws -> [String: Data] {
        let root = url.appendingPathComponent(subpath)
        var result: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return result }
        while let relative = enumerator.nextObject() as? String {
            let full = root.appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            // SQLite's `-shm` is the WAL's shared-memory index, rewritten by every connection
            // that opens the database and rebuilt from the WAL when missing: no store content.
            if relative.hasSuffix("-shm") { continue }
            if FileManager.default.fileExists(atPath: full.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[relative] = try Data(contentsOf: full)
            }
        }
        return result
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
