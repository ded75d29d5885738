import Foundation
import Testing

/// `tally serve` as a process: it listens on the port asked (0: a free one, printed), makes
/// and prints an admin key once when none is given, and stops cleanly on SIGTERM.
@Suite struct ServeCommandTests {
    /// Starts `tally serve`, waits for its "listening on" line, sends SIGTERM, returns its
    /// exit status and standard output.
    static func serveUntilListening(data: String, environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = TallyProcess.executable
        process.arguments = ["serve", "--data", data, "--port", "0", "--log-level", "warning"]
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "TALLY_ADMIN_KEY")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        var text = ""
        // Read until the server says where it listens (or its output ends): each read
        // returns what the process has written so far, blocking until it writes more.
        while !text.contains("listening on http://127.0.0.1:") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        kill(process.processIdentifier, SIGTERM)
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func theFirstStartPrintsAnAdminKeyOnceAndSIGTERMStopsIt() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let first = try Self.serveUntilListening(data: data)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("admin key (shown once"))
        let key = try #require(first.output.firstMatch(of: /tally_admin_[0-9a-f]{64}/).map { String($0.output) })
        let stored = try String(contentsOfFile: data + "/keys.json", encoding: .utf8)
        #expect(!stored.contains(key), "only the key's hash is kept")
        let mode = try FileManager.default.attributesOfItem(atPath: data + "/keys.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let second = try Self.serveUntilListening(data: data)
        #expect(second.status == 0)
        #expect(second.output.contains("listening on http://127.0.0.1:"))
        #expect(!second.output.contains("admin key"), "printed once, at the first start")
    }

    @Test func anAdminKeyFromTheEnvironmentIsUsedAndNeverPrinted() throws {
        let directory = try TemporaryDirectory()
        let run = try Self.serveUntilListening(data: directory.path + "/data", environment: ["TALLY_ADMIN_KEY": "an-admin-key-of-my-own-choosing"])
        #expect(run.status == 0)
        #expect(!run.output.contains("admin key"))
        #expect(!run.output.contains("an-admin-key-of-my-own-choosing"))
    }

    @Test func aPortOutOfRangeIsRefused() throws {
        let directory = try TemporaryDirectory()
        let run = try TallyProcess.run(["serve", "--data", directory.path, "--port", "70000"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("--port 70000 is not a TCP port"))
    }

    @Test func withoutTheServerExecutableServeSaysHowToBuildIt() throws {
        // A tally installed alone: no tally-serve beside it, none on PATH.
        let directory = try TemporaryDirectory()
        let lonely = directory.url.appendingPathComponent("tally")
        // A hard link, not a copy: a copy holds the new file open for writing, and a process
        // another test starts meanwhile can inherit that descriptor, so that running the copy
        // fails with "Text file busy" (seen under the whole suite's load). A link opens
        // nothing for writing; the binary finds itself by the path it was started through.
        do {
            try FileManager.default.linkItem(at: TallyProcess.executable, to: lonely)
        } catch {
            try FileManager.default.copyItem(at: TallyProcess.executable, to: lonely)  // another file system
        }
        let process = Process()
        process.executableURL = lonely
        process.arguments = ["serve", "--data", directory.path + "/data"]
        process.environment = ["PATH": directory.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(message.contains("tally serve runs the tally-serve executable, which is neither beside tally nor on PATH"))
        #expect(message.contains("`swift build` builds both"))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/data"))
    }
}
