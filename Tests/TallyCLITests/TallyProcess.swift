import Foundation
import Testing

/// Runs the real `tally` executable, as a user would, and captures what it printed.
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

    @discardableResult
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> TallyRun {
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
