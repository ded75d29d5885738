import ArgumentParser
import Foundation
import Tally
import TallyLog
import TallyTestSupport
import Testing
@testable import TallyCLI
@testable import TallyServe

/// How `tally` reads its arguments before ArgumentParser does: a `--store` before the
/// command's name, negative amounts without `--`. In process, against the real command tree.
@Suite struct CommandLineArgumentsTests {
    /// What ArgumentParser makes of what a user typed, after `tally`'s own reading.
    private func parse(_ arguments: [String]) throws -> any ParsableCommand {
        try TallyCommand.parseAsRoot(CommandLineArguments.normalized(arguments))
    }

    @Test func aStoreBeforeTheCommandMovesToAfterItsName() throws {
        #expect(try CommandLineArguments.normalized(["--store", "/tmp/home", "balances"]) == ["balances", "--store", "/tmp/home"])
        #expect(try CommandLineArguments.normalized(["--store=/tmp/home", "balances", "--json"]) == ["balances", "--store", "/tmp/home", "--json"])
        #expect(try CommandLineArguments.normalized(["--store", "/tmp/home", "asset", "value", "home", "5.00"])
            == ["asset", "value", "--store", "/tmp/home", "home", "5.00"])
        #expect(try CommandLineArguments.normalized(["asset", "--store", "/tmp/home", "value", "home", "5.00"])
            == ["asset", "value", "--store", "/tmp/home", "home", "5.00"])
        // A command line with nothing to change is passed on as typed.
        #expect(try CommandLineArguments.normalized(["balances", "--store", "/tmp/home"]) == ["balances", "--store", "/tmp/home"])
        #expect(try CommandLineArguments.normalized(["--version"]) == ["--version"])
    }

    /// Every command that works on a store takes `--store` before its name, and reads the same
    /// directory as with `--store` after it; every other command refuses it by name.
    @Test func everyCommandThatTakesAStoreTakesItFirst() throws {
        var checked = 0
        for (path, command) in CommandTree.leaves(TallyCommand.self) {
            let takesStore = CommandTree.longNames(command).contains("--store")
            if takesStore {
                #expect(try CommandLineArguments.normalized(["--store", "/tmp/s p"] + path) == path + ["--store", "/tmp/s p"], "\(path)")
                checked += 1
            } else {
                #expect(throws: ValidationError.self, "\(path)") { try CommandLineArguments.normalized(["--store", "/tmp/s"] + path) }
            }
        }
        #expect(checked > 60, "only \(checked) commands take a store")
    }

    @Test func aStoreGivenTwiceWithDifferentDirectoriesIsRefusedNamingBoth() throws {
        for arguments in [
            ["--store", "/tmp/a", "balances", "--store", "/tmp/b"],
            ["--store=/tmp/a", "--store", "/tmp/b", "balances"],
            ["balances", "--store", "/tmp/a", "--store=/tmp/b"],
        ] {
            let error = #expect(throws: ValidationError.self, "\(arguments)") { try CommandLineArguments.normalized(arguments) }
            #expect(error?.message.contains("'/tmp/a'") == true && error?.message.contains("'/tmp/b'") == true, "\(String(describing: error))")
        }
        // The same directory twice is one store.
        let same = try parse(["--store", "/tmp/a", "balances", "--store", "/tmp/a"])
        #expect((same as? BalancesCommand)?.storeOptions.store == "/tmp/a")
    }

    @Test func negativeNumbersAreValuesAndFlagsStayFlags() throws {
        #expect(CommandLineArguments.isNumber("-5") && CommandLineArguments.isNumber("-12.40") && CommandLineArguments.isNumber("-.5"))
        #expect(!CommandLineArguments.isNumber("-") && !CommandLineArguments.isNumber("--") && !CommandLineArguments.isNumber("-h")
            && !CommandLineArguments.isNumber("--json") && !CommandLineArguments.isNumber("-.") && !CommandLineArguments.isNumber("5"))
        #expect(try CommandLineArguments.normalized(["reference", "set", "-50.00", "--json"]) == ["reference", "set", "--json", "--", "-50.00"])
        #expect(try CommandLineArguments.normalized(["envelope", "fund", "food", "--amount", "-5"]) == ["envelope", "fund", "food", "--amount=-5"])
        // A line with its own `--` is the user's: left as typed.
        #expect(try CommandLineArguments.normalized(["reference", "set", "--", "-50.00"]) == ["reference", "set", "--", "-50.00"])
        let reference = try #require(try parse(["reference", "set", "-50.00", "--json"]) as? ReferenceSetCommand)
        #expect(reference.amount == "-50.00" && reference.json)
        #expect(throws: (any Error).self) { try parse(["reference", "set", "-50.00", "-x"]) }
    }

    /// `asset value ID AMOUNT` with a negative amount, its options in every order and the store
    /// before or after the command's name: each reads the same values.
    @Test func everyOrderOfANegativeAmountAndItsOptionsReadsTheSame() throws {
        let seed = TestSeed.value(default: 0x5107_E0DE)
        var random = SplitMix64(seed: seed)
        let groups: [[String]] = [["home"], [], ["--date", "2026-05-25"], ["--source", "manual"], ["--idempotency-key", "k-1"]]
        var count = 0
        for permutation in Self.permutations(Array(groups.indices)) where permutation.firstIndex(of: 0)! < permutation.firstIndex(of: 1)! {
            let cents = Int.random(in: 1...999_999, using: &random)
            let amount = "-\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)"
            var words = groups
            words[1] = [amount]
            let body = permutation.flatMap { words[$0] }
            for arguments in [["asset", "value"] + body + ["--store", "/tmp/s"], ["--store", "/tmp/s", "asset", "value"] + body] {
                let parsed = try #require(try parse(arguments) as? AssetCommand.Value, "\(arguments) (seed \(seed))")
                #expect(parsed.id == "home" && parsed.amount == amount && parsed.date == "2026-05-25" && parsed.source == "manual"
                    && parsed.idempotency.idempotencyKey == "k-1" && parsed.storeOptions.store == "/tmp/s", "\(arguments) (seed \(seed))")
                count += 1
            }
        }
        #expect(count == 120)
    }

    private static func permutations(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }
}

/// The command tree as ArgumentParser describes it (`_dumpHelp()`): names and options.
enum CommandTree {
    /// Every command that runs (no subcommands), with the words that name it.
    static func leaves(_ command: any ParsableCommand.Type, path: [String] = []) -> [([String], any ParsableCommand.Type)] {
        let subcommands = command.configuration.subcommands
        guard !subcommands.isEmpty else { return [(path, command)] }
        return subcommands.flatMap { leaves($0, path: path + [$0._commandName]) }
    }

    /// The command `words` name, following subcommands as far as the words go, and how many
    /// words that took.
    static func command(_ words: [String], from root: any ParsableCommand.Type = TallyCommand.self) -> (any ParsableCommand.Type, Int) {
        var command = root
        var used = 0
        for word in words {
            guard let next = CommandLineArguments.subcommand(of: command, named: word) else { break }
            command = next
            used += 1
        }
        return (command, used)
    }

    /// The `--long` names a command takes (its default subcommand's when it has one).
    static func longNames(_ command: any ParsableCommand.Type) -> Set<String> {
        // `tally serve` hands its arguments to tally-serve: its options are that command's.
        if ObjectIdentifier(command) == ObjectIdentifier(TallyCLI.ServeCommand.self) { return longNames(TallyServe.ServeCommand.self) }
        let command = command.configuration.defaultSubcommand ?? command
        struct Dump: Decodable {
            struct Name: Decodable { let kind: String; let name: String }
            struct Argument: Decodable { let names: [Name]? }
            struct Command: Decodable { let arguments: [Argument]? }
            let command: Command
        }
        guard let dump = try? JSONDecoder().decode(Dump.self, from: Data(command._dumpHelp().utf8)) else { return [] }
        let names: [Dump.Name] = (dump.command.arguments ?? []).flatMap { argument in argument.names ?? [] }
        return Set(names.filter { $0.kind == "long" }.map { name in "--\(name.name)" })
    }
}
