import ArgumentParser
import Foundation
import Synchronization

/// What `tally` does to its arguments before ArgumentParser reads them, so that two things
/// work as people type them:
///
/// - **A global `--store`.** `tally --store DIR balances` means `tally balances --store DIR`
///   (as `git -C DIR` and `hledger -f FILE` come first): a `--store DIR` or `--store=DIR`
///   typed before the subcommand's name moves to just after it, when that command works on
///   a store. Two `--store`s naming different directories are refused, naming both.
/// - **Negative amounts without `--`.** A word such as `-5` or `-12.40` is a number, never a
///   flag (no flag of `tally` starts with a digit). After an option that takes a value it
///   becomes that option's value (`--amount -5` reads as `--amount=-5`); as a positional
///   argument it and the positional words after it move behind a `--` terminator, in order
///   (`tally reference set -50.00 --json` reads as `tally reference set --json -- -50.00`).
///   A command line that has its own `--` is left as typed.
///
/// ```swift
/// try CommandLineArguments.normalized(["--store", "/tmp/home", "balances"])
/// // ["balances", "--store", "/tmp/home"]
/// ```
enum CommandLineArguments {
    /// The arguments ArgumentParser should read for what was typed.
    /// - Throws: `ValidationError` for a `--store` given twice with different directories, or
    ///   given before a command that takes no store.
    static func normalized(_ arguments: [String], root: any ParsableCommand.Type = TallyCommand.self) throws -> [String] {
        let terminator = arguments.firstIndex(of: "--") ?? arguments.endIndex
        var words = Array(arguments[..<terminator])
        let rest = Array(arguments[terminator...])

        // The subcommand path, taking out every --store typed among its names.
        var command = root
        var path: [String] = []
        var global: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == "--store", index + 1 < words.count {
                global.append(words[index + 1])
                words.removeSubrange(index...(index + 1))
            } else if word.hasPrefix("--store=") {
                global.append(String(word.dropFirst("--store=".count)))
                words.remove(at: index)
            } else if let subcommand = subcommand(of: command, named: word) {
                command = subcommand
                path.append(word)
                index += 1
            } else {
                break
            }
        }
        let leaf = command.configuration.defaultSubcommand ?? command
        let tail = words[index...]
        guard !global.isEmpty || tail.contains(where: isNumber) || tail.filter(isStore).count > 1 else { return arguments }
        let shape = CommandShape.of(leaf)
        if let first = global.first {
            guard shape.takesStore else {
                throw ValidationError(
                    "--store: `\((["tally"] + path).joined(separator: " "))` works on no store; put --store before a command that does, e.g. `tally --store \(first) balances`")
            }
        }
        var (read, positionals, stores) = shape.read(Array(tail))
        stores = global + stores
        if let other = stores.first(where: { $0 != stores[0] }) {
            throw ValidationError("--store given twice, '\(stores[0])' and '\(other)': give one store directory")
        }
        let head = Array(words[..<index]) + (global.isEmpty || stores.count > global.count ? [] : ["--store", global[0]])
        guard rest.isEmpty, let firstNumber = positionals.first(where: { isNumber(read[$0]) }) else {
            return head + read + rest
        }
        let moved = positionals.filter { $0 >= firstNumber }
        let kept = read.indices.filter { !moved.contains($0) }.map { read[$0] }
        return head + kept + ["--"] + moved.map { read[$0] }
    }

    /// A word that is a number with a minus sign: `-5`, `-12.40`, `-.5` (and malformed ones
    /// such as `-1.2.3`, left for the amount's parser to refuse by name).
    static func isNumber(_ word: String) -> Bool {
        guard word.count >= 2, word.first == "-" else { return false }
        let body = word.dropFirst()
        return body.contains(where: \.isNumber) && body.allSatisfy { $0.isNumber || $0 == "." }
    }

    private static func isStore(_ word: String) -> Bool { word == "--store" || word.hasPrefix("--store=") }

    /// The subcommand of `command` called `name` (by its name or an alias).
    static func subcommand(of command: any ParsableCommand.Type, named name: String) -> (any ParsableCommand.Type)? {
        command.configuration.subcommands.first { $0._commandName == name || $0.configuration.aliases.contains(name) }
    }
}

/// Which names of one command take a value, read from ArgumentParser's description of it.
private struct CommandShape: Sendable {
    private(set) var takesStore = false
    private var valued: Set<String> = []

    /// Each command's shape, read once per process: a command's declaration does not change,
    /// and reading it dumps the command's whole help as JSON and decodes it again (in a debug
    /// build, with ArgumentParser's check of the declaration each time), while a process that
    /// runs many command lines (the test suite, `TallyCommand.execute`) would otherwise read
    /// it for each.
    private static let known = Mutex<[ObjectIdentifier: CommandShape]>([:])

    /// The shape of `command`, read on first use.
    static func of(_ command: any ParsableCommand.Type) -> CommandShape {
        let key = ObjectIdentifier(command)
        if let shape = known.withLock({ $0[key] }) { return shape }
        let shape = CommandShape(command)
        known.withLock { $0[key] = shape }
        return shape
    }

    private init(_ command: any ParsableCommand.Type) {
        guard let data = command._dumpHelp().data(using: .utf8),
              let dump = try? JSONDecoder().decode(Dump.self, from: data) else { return }
        for argument in dump.command.arguments ?? [] where argument.kind == "option" {
            for name in argument.names ?? [] {
                let spelled = name.kind == "short" ? "-\(name.name)" : name.kind == "long" ? "--\(name.name)" : "-\(name.name)"
                valued.insert(spelled)
                if spelled == "--store" { takesStore = true }
            }
        }
    }

    /// A command's words as ArgumentParser should read them, in the order typed, with a
    /// negative number joined to the option before it (`--amount=-5`); the indices of the
    /// positional words among them; the directory of every `--store`.
    func read(_ words: [String]) -> (words: [String], positionals: [Int], stores: [String]) {
        var read: [String] = []
        var positionals: [Int] = []
        var stores: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if let equals = word.firstIndex(of: "="), word.hasPrefix("-"), valued.contains(String(word[..<equals])) {
                if word[..<equals] == "--store" { stores.append(String(word[word.index(after: equals)...])) }
                read.append(word)
            } else if valued.contains(word), index + 1 < words.count {
                let value = words[index + 1]
                if word == "--store" { stores.append(value) }
                read += CommandLineArguments.isNumber(value) ? ["\(word)=\(value)"] : [word, value]
                index += 1
            } else if word.hasPrefix("-") && word.count > 1 && !CommandLineArguments.isNumber(word) {
                read.append(word)
            } else {
                positionals.append(read.count)
                read.append(word)
            }
            index += 1
        }
        return (read, positionals, stores)
    }

    private struct Dump: Decodable {
        let command: Command
    }

    private struct Command: Decodable {
        let arguments: [Argument]?
    }

    private struct Argument: Decodable {
        let kind: String
        let names: [Name]?
    }

    private struct Name: Decodable {
        let kind: String
        let name: String
    }
}
