import ArgumentParser
import Foundation
import TallyTestSupport
import Testing
@testable import TallyCLI

/// Every `tally …` a message or a comment in the sources points at is a command that exists,
/// with options that command takes; every `--option` written anywhere in the sources is an
/// option of some command.
@Suite struct CommandMentionTests {
    /// Mentions known to be wrong in files this suite's authors may not edit, with where the
    /// fix belongs. A mention listed here that is fixed simply stops being found.
    private static let knownWrong: Set<String> = [
        // Sources/TallyProducts/Envelopes/Ledger+EnvelopeQueries.swift: there is no
        // `envelope list`; `tally envelope status` lists every envelope.
        "envelope list",
    ]

    /// Every line of every Swift source file, with where it is (`TallyCLI/…swift:12`).
    private static let sourceLines: Result<[(place: String, text: String)], any Error> = Result {
        try SourceFiles.all().flatMap { file in
            let relative = file.path.dropFirst("Sources/".count)
            return file.lines.enumerated().map { number, line in ("\(relative):\(number + 1)", String(line)) }
        }
    }

    /// `tally …` in backticks, `(tally …)` and `run tally X`.
    private static var mention: Regex<(Substring, Substring?, Substring?, Substring?)> { /`tally ([^`]*)`|\(tally ([^)]*)\)|\brun tally ([a-z][a-z-]*)/ }

    /// Every `--name` in a text (not `--` alone, not part of a longer word).
    static func optionsWritten(in text: String) -> [String] {
        text.matches(of: /(?:^|[^\w-])(--[a-z][a-z0-9-]*)/).map { String($0.output.1) }
    }

    /// What is wrong with one mention (the words after `tally`), if anything.
    static func problems(_ text: String) -> [String] {
        var words = text.split(separator: " ").map(String.init)
        let typed = words
        // A --store before the command's name is the command's own.
        var global: [String] = []
        while let first = words.first, first == "--store" || first.hasPrefix("--store=") {
            global.append("--store")
            words.removeFirst(first == "--store" ? min(2, words.count) : 1)
        }
        var command: any ParsableCommand.Type = TallyCommand.self
        var problems: [String] = []
        var path: [String] = []
        for word in words {
            let bare = word.trimmingCharacters(in: CharacterSet(charactersIn: "[]()"))
            guard bare.wholeMatch(of: /[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)*/) != nil else { break }
            let alternatives = bare.split(separator: "|").map(String.init)
            if alternatives.count > 1 {
                for alternative in alternatives where CommandLineArguments.subcommand(of: command, named: alternative) == nil {
                    problems.append("`tally \((path + [alternative]).joined(separator: " "))` is no command")
                }
                return problems
            }
            guard let next = CommandLineArguments.subcommand(of: command, named: bare) else {
                if !command.configuration.subcommands.isEmpty { problems.append("`tally \((path + [bare]).joined(separator: " "))` is no command") }
                break
            }
            command = next
            path.append(bare)
        }
        let options = CommandTree.longNames(command)
        for option in global + optionsWritten(in: typed.dropFirst(typed.count - words.count).joined(separator: " ")) where !options.contains(option) {
            problems.append("`tally \(path.joined(separator: " "))` takes no \(option)")
        }
        return problems
    }

    @Test func everyCommandMentionedExists() throws {
        var found = 0
        // Only a line holding "tally" can hold a mention: the regular expression, slow in a
        // debug build, reads those alone.
        for (place, line) in try Self.sourceLines.get() where ByteSearch.contains(line, "tally") {
            for match in line.matches(of: Self.mention) {
                let text = String(match.output.1 ?? match.output.2 ?? match.output.3 ?? "")
                found += 1
                if Self.knownWrong.contains(where: { text.hasPrefix($0) }) { continue }
                let problems = Self.problems(text)
                #expect(problems.isEmpty, "\(place): `tally \(text)`: \(problems.joined(separator: "; "))")
            }
        }
        #expect(found > 50, "only \(found) mentions found under \(SourceFiles.repository.path)/Sources")
    }

    @Test func everyOptionWrittenInTheSourcesIsAnOptionOfSomeCommand() throws {
        let options = CommandTree.leaves(TallyCommand.self).reduce(into: CommandTree.longNames(TallyCommand.self)) { $0.formUnion(CommandTree.longNames($1.1)) }
        #expect(options.contains("--store") && options.contains("--known-at") && options.contains("--version"))
        // Only a line holding "--" can hold an option.
        for (place, line) in try Self.sourceLines.get() where ByteSearch.contains(line, "--") {
            for option in Self.optionsWritten(in: line) where !options.contains(option) {
                Issue.record("\(place): \(option) is no option of any command: \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
    }

    /// The check itself: it finds what is wrong.
    @Test func theCheckFindsAMissingCommandAndAnOptionItsCommandLacks() {
        #expect(Self.problems("envelope inventory") == ["`tally envelope inventory` is no command"])
        #expect(Self.problems("tx list").isEmpty && Self.problems("--store DIR balances").isEmpty && Self.problems("reminder set|done|list").isEmpty)
        #expect(Self.problems("reminder set|undo") == ["`tally reminder undo` is no command"])
        #expect(Self.problems("pot list --month 2026-05") == ["`tally pot list` takes no --month"])
        #expect(Self.problems("--store DIR challenge templates") == ["`tally challenge templates` takes no --store"])
    }
}
