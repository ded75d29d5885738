import Foundation
import Testing

/// The checks every read command's `--as-of` / `--known-at` story makes, run as a user would.
enum TimeTravelCLI {
    /// The recorded time of the store's last event, to the microsecond: a `--known-at` that
    /// sees everything recorded so far and nothing recorded later.
    static func lastRecordedAt(_ store: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let log = try TallyProcess.run(["log", "--json", "--store", store])
        #expect(log.status == 0, "\(log.standardError)", sourceLocation: sourceLocation)
        let last = String(log.standardOutput.split(separator: "\n").last ?? "")
        let marker = #""recorded_at":""#
        guard let start = last.range(of: marker)?.upperBound, let end = last[start...].firstIndex(of: "\"") else {
            Issue.record("no recorded_at in the last event: \(last)", sourceLocation: sourceLocation)
            return ""
        }
        return String(last[start..<end])
    }

    /// Runs `tally <arguments> --store <store>`, expecting success; its standard output.
    static func answer(_ arguments: [String], store: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let run = try TallyProcess.run(arguments + ["--store", store])
        #expect(run.status == 0, "tally \(arguments.joined(separator: " ")): \(run.standardError)", sourceLocation: sourceLocation)
        return run.standardOutput
    }

    /// The story every read command tells: each of `reads` answers once; `record` then records
    /// a backdated event that changes every one of those answers. Asked again `--known-at` the
    /// moment before, each answer is exactly the first; asked plainly, each has changed.
    static func expectKnownAtKeepsEachFirstAnswer(
        _ reads: [[String]], store: String, sourceLocation: SourceLocation = #_sourceLocation, record: () throws -> Void
    ) throws {
        let firstAnswers = try reads.map { try answer($0, store: store, sourceLocation: sourceLocation) }
        let before = try lastRecordedAt(store, sourceLocation: sourceLocation)
        try record()
        #expect(try lastRecordedAt(store, sourceLocation: sourceLocation) > before, "nothing was recorded", sourceLocation: sourceLocation)
        for (read, first) in zip(reads, firstAnswers) {
            let known = try answer(read + ["--known-at", before], store: store, sourceLocation: sourceLocation)
            #expect(known == first, "tally \(read.joined(separator: " ")) --known-at \(before)", sourceLocation: sourceLocation)
            let plain = try answer(read, store: store, sourceLocation: sourceLocation)
            #expect(plain != first, "tally \(read.joined(separator: " ")) did not see the backdated event", sourceLocation: sourceLocation)
        }
    }

    /// Every file of the store but SQLite's shared-memory index (`-shm`), which any reader
    /// rewrites and which holds no data.
    static func contents(_ directory: TemporaryDirectory, _ storeFolder: String) throws -> [String: Data] {
        try directory.snapshot(storeFolder).filter { !$0.key.hasSuffix("-shm") }
    }

    /// Bad `--as-of` and `--known-at` values (and both of `--as-of` and `legacy`, when the
    /// command has an older day option): each is refused with an error naming the option, a
    /// non-zero exit, and the store byte for byte as it was.
    static func expectBadTimesRefused(
        _ read: [String], store: String, directory: TemporaryDirectory, storeFolder: String, legacy: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var cases: [(arguments: [String], message: String)] = [
            (["--as-of", "2026-02-30"], "--as-of"),
            (["--as-of", "31/03/2026"], "--as-of"),
            (["--known-at", "noon"], "--known-at"),
            (["--known-at", "2026-03-31T25:00:00Z"], "--known-at"),
        ]
        if let legacy { cases.append(([legacy, "2026-03-31", "--as-of", "2026-03-31"], "or --as-of, not both")) }
        let before = try contents(directory, storeFolder)
        for (arguments, message) in cases {
            let run = try TallyProcess.run(read + arguments + ["--store", store])
            let command = "tally \((read + arguments).joined(separator: " "))"
            #expect(run.status != 0, "\(command) succeeded", sourceLocation: sourceLocation)
            #expect(run.standardError.contains(message), "\(command): \(run.standardError)", sourceLocation: sourceLocation)
        }
        #expect(try contents(directory, storeFolder) == before, "the store changed", sourceLocation: sourceLocation)
    }
}
