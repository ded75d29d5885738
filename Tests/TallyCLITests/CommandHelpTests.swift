import Foundation
import Testing

/// Issue 15, "done means": the `--help` of every command says what its day options mean
/// (a day in the ledger's time zone) and the sign convention of every amount it takes.
/// Read from the real `tally`'s description of itself, so a new command that forgets is found.
@Suite struct CommandHelpTests {
    /// One option or argument of one command, as `tally --experimental-dump-help` gives it.
    private struct Entry {
        let command: String
        let names: [String]
        let help: String
    }

    private struct Dump: Decodable { let command: Command }
    private struct Command: Decodable {
        let commandName: String
        let arguments: [Argument]?
        let subcommands: [Command]?
    }
    private struct Argument: Decodable {
        let names: [Name]?
        let valueName: String?
        let abstract: String?
        let discussion: String?
    }
    private struct Name: Decodable {
        let kind: String
        let name: String
    }

    private static func entries() throws -> [Entry] {
        let run = try TallyProcess.run(["--experimental-dump-help"])
        #expect(run.status == 0, "\(run.standardError)")
        let dump = try JSONDecoder().decode(Dump.self, from: Data(run.standardOutput.utf8))
        var entries: [Entry] = []
        func walk(_ command: Command, _ path: [String]) {
            for argument in command.arguments ?? [] {
                let names = (argument.names ?? []).filter { $0.kind == "long" }.map(\.name) + [argument.valueName].compactMap { $0 }
                entries.append(Entry(command: path.joined(separator: " "), names: names,
                                     help: (argument.abstract ?? "") + " " + (argument.discussion ?? "")))
            }
            for sub in command.subcommands ?? [] { walk(sub, path + [sub.commandName]) }
        }
        walk(dump.command, ["tally"])
        return entries
    }

    /// Options named like a day or a month whose value is something else, with the reason.
    private static let notDays: Set<String> = [
        "tally log --from", "tally log --to",                            // sequence numbers
        "tally envelope transfer --from", "tally envelope transfer --to", // accounts
        "tally challenge step --from",                                   // an account
        "tally reminder list --due",                                     // a flag
        "tally price --at", "tally fx --at",                             // hidden old names of --date, which say it
        "tally notifications --since",                                   // a notification's id
    ]

    @Test func everyDayOptionSaysItIsADayInTheLedgersTimeZone() throws {
        let dayNames: Set<String> = ["date", "from", "to", "start", "end", "due", "today", "through", "as-of", "known-at", "since", "until", "month", "first-month", "at"]
        var checked = 0
        for entry in try Self.entries() {
            for name in entry.names where dayNames.contains(name) && !Self.notDays.contains("\(entry.command) --\(name)") {
                checked += 1
                #expect(entry.help.contains("time zone"), "\(entry.command) --\(name): \(entry.help)")
            }
        }
        #expect(checked > 60, "the walk found the day options: \(checked)")
    }

    @Test func everyAmountSaysItsSign() throws {
        let amountNames: Set<String> = ["amount", "opening", "budget", "target", "unit", "received", "cost", "rate", "maximum"]
        let words = ["positive", "negative", "signed", "above zero", "owed", "more than zero"]
        var checked = 0
        // `audit TARGET` names an account, not an amount.
        for entry in try Self.entries() where entry.names.contains(where: amountNames.contains) && entry.command != "tally audit" {
            checked += 1
            #expect(words.contains(where: entry.help.lowercased().contains), "\(entry.command) \(entry.names): \(entry.help)")
        }
        #expect(checked > 20, "the walk found the amounts: \(checked)")
    }
}
