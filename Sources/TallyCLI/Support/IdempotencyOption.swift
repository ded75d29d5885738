import ArgumentParser
import Foundation
import Tally
import TallyLog

/// `--idempotency-key KEY`, which every command that records events takes: run again with the
/// same key and the same input, the command records nothing and prints what its first run
/// recorded; with other input it is refused (exit 1, the message naming the key).
struct IdempotencyOptions: ParsableArguments {
    @Option(
        name: .customLong("idempotency-key"),
        help: ArgumentHelp(
            "A key for this command: a retry with the same key and input records nothing and prints what the first run recorded; with other input it is refused.",
            valueName: "key"
        )
    )
    var idempotencyKey: String?

    /// Refuses a key the log could not hold, naming the option.
    func validate() throws {
        guard let key = idempotencyKey else { return }
        guard !key.isEmpty, key.utf8.count <= LogFormat.idempotencyKeyBytesMax else {
            throw ValidationError("--idempotency-key must hold 1 to \(LogFormat.idempotencyKeyBytesMax) bytes")
        }
        guard !key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError("--idempotency-key must not contain control characters (newlines, tabs, NUL)")
        }
    }
}

/// How the commands tell a repeat of an idempotency key from a command that ran.
enum RepeatReport {
    /// `already applied with this idempotency key: the first run recorded seq 12-14; nothing appended`.
    static func alreadyApplied(_ result: Ledger.CommandResult) -> String {
        let recorded = CommandOutput.sequenceRange(result).map { "the first run recorded \($0)" } ?? "the first run recorded nothing"
        return "already applied with this idempotency key: \(recorded); nothing appended"
    }

    /// Prints what a command recorded, one event a line; for a repeat, says so and lists the
    /// events the first run recorded.
    static func printRecorded(_ result: Ledger.CommandResult) {
        guard result.wasAlreadyApplied else { return CommandOutput.printRecorded(result) }
        print(alreadyApplied(result))
        for event in result.events {
            print("  seq \(event.sequence): \(event.type.name) \(event.entity)")
        }
    }
}
