import ArgumentParser
import Foundation
import Tally
import TallyLog

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every checksum, the hash chain and every payload; print the head digest.",
        discussion: """
            Keep the printed digest (SEQ:HASH) somewhere else; later, `tally verify --expect \
            SEQ:HASH` proves that no event up to SEQ was altered since. Exits 1 when anything \
            is wrong.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("A digest kept earlier; fails unless the log still hashes to it.", valueName: "seq:hash"))
    var expect: String?

    @Flag(help: "Print the result as one JSON object.")
    var json = false

    func run() throws {
        let expected: LogDigest?
        do {
            expected = try expect.map { try LogDigest(parsing: $0) }
        } catch {
            throw ValidationError("--expect '\(expect ?? "")' is not a digest SEQ:HASH (64 hex digits): \(error)")
        }
        let result = try StoreVerifier.verify(at: storeOptions.path, expect: expected)
        let log = result.log
        var problems = log.problems.map(\.description) + result.undecodableEvents + (result.readModels?.problems ?? [])
        switch (log.expectation, expected) {
        case (.mismatched(let recomputed)?, let expected?):
            problems.append("event \(expected.sequence) does not hash to the expected digest: the log holds \(LogDigest(sequence: expected.sequence, hash: recomputed)), expected \(expected); history up to \(expected.sequence) was altered")
        case (.logShorter(let head)?, let expected?):
            problems.append("the log ends at \(head), before the expected digest's event \(expected.sequence): events were removed")
        default:
            break
        }
        if json {
            print(Output.jsonObject([
                ("ok", result.isIntact ? "true" : "false"),
                ("events", String(log.events)),
                ("segments", String(log.segments)),
                ("frames", String(log.frames)),
                ("head", EventJSON.quoted(log.head.description)),
                ("expectation_met", log.expectation.map { $0 == .matched ? "true" : "false" } ?? "null"),
                ("problems", "[" + problems.map(EventJSON.quoted).joined(separator: ",") + "]"),
            ]))
        } else {
            if problems.isEmpty {
                print("ok: \(log.events) events in \(log.segments) segment\(log.segments == 1 ? "" : "s") (\(log.frames) frames): checksums, hash chain and payloads intact")
                if let expected { print("expected digest \(expected) matches") }
                if let readModels = result.readModels {
                    print("read models at the log head; books balance; \(readModels.assertionsChecked) balance assertion(s) hold")
                }
            } else {
                for problem in problems { Output.error(problem) }
            }
            print("head \(log.head)")
        }
        if !result.isIntact { throw ExitCode.failure }
    }
}
