import ArgumentParser
import Foundation
import Tally
import TallyLog

struct AppendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "append",
        abstract: "Append events in their JSON form from an NDJSON file.",
        discussion: """
            One event object per line (see Schemas/). Every line is checked before anything \
            is written: a bad line stops the command with its line number and the store \
            stays as it was. By default the whole file is one atomic commit; with \
            --batch-size N each N events are one durable commit, and the whole file is \
            checked for admissibility before the first is appended. `seq` and \
            `recorded_at` in the input are ignored: the log assigns them.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The NDJSON file, or - for standard input.", valueName: "file"))
    var file: String

    @Option(name: .customLong("batch-size"), help: "Events per commit (0: the whole file in one commit).")
    var batchSize = 0

    func validate() throws {
        guard batchSize >= 0 else { throw ValidationError("--batch-size must be 0 or more") }
    }

    func run() throws {
        let commitEventsLimit = LogOptions().frameEventsLimit
        let events = try NDJSONInput.readEvents(from: file, limit: batchSize == 0 ? commitEventsLimit : nil)
        guard !events.isEmpty else {
            print("\(file): no events; nothing appended")
            return
        }
        let ledger = CommittedWrites.track(try Ledger.open(at: storeOptions.path, options: try storeOptions.ledgerOptions()))
        defer { try? ledger.close() }
        let size = batchSize == 0 ? events.count : batchSize
        // All or nothing across batches: the library rehearses the whole file first, and a
        // refusal names the file and line of the event.
        let results = try ledger.appendEvents(events, batchSize: size)
        let appended = results.flatMap(\.events)
        let first = appended.first?.sequence
        let last = appended.last?.sequence ?? 0
        let commits = results.count
        let skipped = events.count - appended.count
        let repeats = skipped > 0 ? "; \(skipped) already recorded (same idempotency key, same event) were skipped" : ""
        if let first {
            print("Appended \(events.count - skipped) events from \(file) in \(commits) commit\(commits == 1 ? "" : "s"): seq \(first)-\(last)\(repeats)")
        } else {
            print("\(file): nothing appended\(repeats)")
        }
        print("head \(ledger.head)")
    }
}

/// Reads an NDJSON file of events, naming the line of the first bad one.
enum NDJSONInput {
    /// - Parameter limit: the most events the file may hold (one atomic commit's worth),
    ///   checked before any line is decoded.
    static func readEvents(from path: String, limit: Int? = nil) throws -> [NewEvent] {
        let data: Data
        if path == "-" {
            data = Console.current.readInput()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ValidationError("cannot read '\(path)': no such file or not readable")
            }
            data = contents
        }
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if let limit {
            let count = lines.count { line in line.contains { !" \t\r".utf8.contains($0) } }
            guard count <= limit else {
                throw ValidationError("""
                    \(path) holds \(count) events, more than one atomic commit can hold (\(limit)); \
                    append it in several commits with --batch-size N (for example --batch-size 10000)
                    """)
            }
        }
        var events: [NewEvent] = []
        var lineNumber = 0
        for line in lines {
            lineNumber += 1
            var bytes = line
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            // The record check every event passes before the log, per line, so that a
            // refused event is named by line and field before anything is appended.
            events.append(try EventImport.event(fromLine: bytes, line: lineNumber, file: path, catalog: .standard))
        }
        return events
    }
}
