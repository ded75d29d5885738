import Foundation
import Testing

/// Issue 32, "every report in every format": every JSON answer of `tally` follows one
/// convention (docs/cli.md, "JSON output"): one object; money `{amount, currency}`; a list
/// one object with `items` and `paging`. The walk reads the commands from the real `tally`'s
/// description of itself, so a command added with `--json` that the walk does not know fails
/// here until it is classified, and each is run over a demo household.
@Suite struct JSONConventionCommandTests {
    /// What a command's JSON is.
    enum Shape {
        /// One row per item: `{…, "items":[…], "paging":{…}}`.
        case list
        /// One object (a report, a screen, one item).
        case answer
        /// It records: `{"already_applied":…,"events":[…]}` (checked on a sample below).
        case records
        /// `tally log --json`: the events as NDJSON, the form `tally append` reads (the one exception).
        case events
    }

    /// A command of the walk: its shape and the arguments of each run (`TX` is replaced by a
    /// transaction id of the household).
    struct Walk {
        let shape: Shape
        let runs: [[String]]
        /// Whether it works on a store (`challenge templates` does not).
        let usesStore: Bool

        init(_ shape: Shape, _ runs: [[String]] = [[]], usesStore: Bool = true) {
            self.shape = shape
            self.runs = runs
            self.usesStore = usesStore
        }
    }

    /// The commands that record, each printing `{"already_applied":…,"events":[…]}` through
    /// one renderer (`CommandOutput.json`), which the story below runs.
    static let recording = [
        "tx add", "tx import-bank", "tx amend", "tx delete", "tx recategorise", "bank connect", "bank consent", "bank disconnect",
        "reference set", "pot create", "pot add", "pot withdraw", "pot delete", "budget set", "budget delete",
        "recurring define", "recurring remove", "recurring generate", "wealth deposit", "wealth purchase", "wealth withdraw",
        "wealth amend", "wealth reverse", "wealth split-rule", "wealth round-ups", "wealth round-up-increment", "wealth pause",
        "wealth resume", "wealth freeze", "wealth unfreeze", "settings set", "commodity declare",
    ]

    /// Every command that prints JSON, by its path under `tally`.
    static let walks: [String: Walk] = Dictionary(uniqueKeysWithValues: recording.map { ($0, Walk(.records, [])) }).merging([
        "log": Walk(.events),
        "verify": Walk(.answer),
        "stats": Walk(.answer),
        "settings show": Walk(.answer, [[], ["--wealth-account", "main"]]),
        "balances": Walk(.list, [[], ["--value", "USD"], ["--value", "EUR", "--as-of", "2024-02-15"]]),
        "account list": Walk(.list),
        "rates": Walk(.list, [[], ["--history"]]),
        "asset list": Walk(.list),
        "liability list": Walk(.list),
        "liability milestones": Walk(.list),
        "envelope list": Walk(.list),
        "challenge list": Walk(.list),
        "pot list": Walk(.list),
        "pot show": Walk(.answer, [["holiday"]]),
        "recurring list": Walk(.list),
        "recurring bills": Walk(.list),
        "recurring status": Walk(.answer, [[], ["--month", "2024-02", "--today", "2024-02-20"]]),
        "bank list": Walk(.list),
        "reminder list": Walk(.list),
        "notifications": Walk(.list),
        "tx list": Walk(.list, [[], ["--page-size", "3", "--page", "2"], ["--month", "2024-02"]]),
        "tx show": Walk(.answer, [["TX"]]),
        "tx history": Walk(.list, [["TX"]]),
        "budget show": Walk(.list, [[], ["--month", "2024-02"]]),
        "overview": Walk(.answer, [[], ["--month", "2024-02"]]),
        "envelope status": Walk(.answer, [[], ["groceries"]]),
        "envelope spending": Walk(.list, [["--from", "2024-01-01"]]),
        "envelope total": Walk(.list),
        "challenge templates": Walk(.list, usesStore: false),
        "challenge progress": Walk(.list),
        "networth show": Walk(.answer, [[], ["--as-of", "2024-02-15"]]),
        "networth change": Walk(.answer),
        "networth series": Walk(.list, [["--from", "2024-01", "--to", "2024-03"]]),
        "xray": Walk(.answer),
        "chart": Walk(.answer, [["networth", "--from", "2024-01-01", "--to", "2024-03-31"], ["spending", "--to", "2024-02-29"], ["allocation"]]),
        "suggest budgets": Walk(.list, [["--month", "2024-04"]]),
        "suggest recurring": Walk(.list),
        "what-if": Walk(.answer, [["--goal", "10000.00"]]),
        "wealth summary": Walk(.answer),
        "wealth history": Walk(.list, [[], ["--page-size", "2"]]),
        "wealth round-ups-total": Walk(.answer, [["--month", "2024-02"]]),
        "audit": Walk(.list, [["Wealth:main:Invest"], ["pot:holiday"], ["envelope:groceries"]]),
        "replay": Walk(.answer, [["--until", "2024-02-15"]]),
    ]) { _, read in read }

    @Test func everyCommandThatPrintsJSONFollowsTheOneConvention() throws {
        // A demo household of three months: every product in use.
        let directory = try TemporaryDirectory()
        let store = directory.path + "/demo"
        let made = try TallyProcess.run(["demo", "--store", store, "--months", "3"])
        try #require(made.status == 0, "the demo failed: \(made.standardError)")
        let commands = try JSONCommands.all()
        #expect(commands.count > 60, "the walk found the commands that print JSON: \(commands.count)")
        let unknown = commands.filter { Self.walks[$0.path] == nil }
        #expect(unknown.isEmpty, "commands print JSON that the convention walk does not know; add each to `walks`: \(unknown.map(\.path))")
        for known in Self.walks.keys where !commands.contains(where: { $0.path == known }) {
            Issue.record("the walk names '\(known)', which tally no longer has or which prints no JSON")
        }
        let transaction = try Self.firstTransactionId(store)
        var runs = 0
        for command in commands {
            guard let walk = Self.walks[command.path], walk.shape != .records else { continue }
            for arguments in walk.runs {
                let words = command.path.split(separator: " ").map(String.init) + arguments.map { $0 == "TX" ? transaction : $0 }
                    + (walk.usesStore ? ["--store", store] : [])
                let line = words + (command.takesJSONFlag ? ["--json"] : ["--format", "json"])
                let run = try TallyProcess.run(line)
                runs += 1
                #expect(run.status == 0, "tally \(line.joined(separator: " ")): \(run.standardError)")
                guard run.status == 0 else { continue }
                for problem in JSONConvention.problems(run.standardOutput, shape: walk.shape) {
                    Issue.record("tally \(line.joined(separator: " ")): \(problem)")
                }
                // The same run as a table: every column has a heading (a table without one traps).
                let table = try TallyProcess.run(words)
                #expect(table.status == 0, "tally \(command.path) as a table: \(table.standardError)")
            }
        }
        #expect(runs > 50, "the walk ran the commands: \(runs)")
    }

    @Test func aCommandThatRecordsPrintsItsEventsInOneObjectWithMoneyAsAmountAndCurrency() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home"
        #expect(try TallyProcess.run(["init", "--store", store, "--base-currency", "GBP"]).status == 0)
        for line in [["wealth", "deposit", "100.00", "--currency", "GBP", "--dry-run"],
                     ["wealth", "deposit", "100.00", "--currency", "GBP", "--idempotency-key", "d1"],
                     ["wealth", "deposit", "100.00", "--currency", "GBP", "--idempotency-key", "d1"],
                     ["pot", "create", "holiday", "--name", "Holiday", "--target", "1500.00"],
                     ["settings", "set", "due-soon-days", "7"], ["settings", "set", "due-soon-days", "7"]] {
            let run = try TallyProcess.run(line + ["--store", store, "--json"])
            #expect(run.status == 0, "tally \(line.joined(separator: " ")): \(run.standardError)")
            #expect(run.standardOutput.contains("\"events\":["), "tally \(line.joined(separator: " ")): \(run.standardOutput)")
            for problem in JSONConvention.problems(run.standardOutput, shape: .records) {
                Issue.record("tally \(line.joined(separator: " ")): \(problem)")
            }
        }
    }

    /// The checks themselves fail on each way of breaking the convention.
    @Test func theChecksFindEveryBreach() {
        let breaches: [(String, Shape)] = [
            ("[{\"a\":1}]", .answer),                                                               // a top-level array
            ("{\"a\":1}\n{\"a\":2}\n", .list),                                                     // one object a line
            ("{\"balance\":\"12.00\",\"currency\":\"USD\"}", .answer),                            // money as a bare string
            ("{\"amount\":\"12.00\",\"currency\":\"USD\",\"id\":\"x\"}", .answer),              // amount beside other fields
            ("{\"total\":\"1,200.00 USD\"}", .answer),                                            // money as display text
            ("{\"total\":12.5}", .answer),                                                          // a float
            ("{\"transactions\":[{\"id\":\"a\"}],\"page\":1}", .list),                            // a list without items
            ("{\"items\":[{\"id\":\"a\"}]}", .answer),                                              // items without paging
            ("{\"items\":[{\"id\":\"a\"}],\"paging\":{\"page\":1,\"page_size\":1,\"page_count\":1,\"total_count\":0}}", .list),
        ]
        for (text, shape) in breaches {
            #expect(!JSONConvention.problems(text, shape: shape).isEmpty, "not found: \(text)")
        }
        let good = "{\"items\":[{\"balance\":{\"amount\":\"-3.10\",\"currency\":\"USD\"},\"rate\":\"1.0825\"}],"
            + "\"paging\":{\"page\":1,\"page_size\":1,\"page_count\":1,\"total_count\":1}}"
        #expect(JSONConvention.problems(good, shape: .list).isEmpty, "\(JSONConvention.problems(good, shape: .list))")
    }

    private static func firstTransactionId(_ store: String) throws -> String {
        let run = try TallyProcess.run(["tx", "list", "--store", store, "--json", "--page-size", "1"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run.standardOutput)")
        let items = try #require(object["items"] as? [[String: Any]])
        return try #require(items.first?["id"] as? String, "the demo household has budget transactions")
    }
}

/// The commands `tally --experimental-dump-help` describes with `--json` or a `--format` that takes json.
private enum JSONCommands {
    struct Command {
        let path: String
        let takesJSONFlag: Bool
    }

    private struct Dump: Decodable { let command: Node }
    private struct Node: Decodable {
        let commandName: String
        let arguments: [Argument]?
        let subcommands: [Node]?
    }
    private struct Argument: Decodable {
        let names: [Name]?
        let allValues: [String]?
        let allValueStrings: [String]?
    }
    private struct Name: Decodable {
        let kind: String
        let name: String
    }

    static func all() throws -> [Command] {
        let run = try TallyProcess.run(["--experimental-dump-help"])
        let dump = try JSONDecoder().decode(Dump.self, from: Data(run.standardOutput.utf8))
        var commands: [Command] = []
        func walk(_ node: Node, _ path: [String]) {
            let arguments = node.arguments ?? []
            func long(_ argument: Argument) -> [String] { (argument.names ?? []).filter { $0.kind == "long" }.map(\.name) }
            let flag = arguments.contains { long($0).contains("json") }
            let format = arguments.contains { long($0).contains("format") && ($0.allValues ?? $0.allValueStrings ?? []).contains("json") }
            if !path.isEmpty, flag || format { commands.append(Command(path: path.joined(separator: " "), takesJSONFlag: flag)) }
            for sub in node.subcommands ?? [] where sub.commandName != "help" { walk(sub, path + [sub.commandName]) }
        }
        walk(dump.command, [])
        return commands
    }
}

/// The convention of docs/cli.md, "JSON output", as checks on a command's standard output.
enum JSONConvention {
    /// Exact decimals that are not amounts: a rate, a price per unit as recorded.
    static let decimalKeys: Set<String> = ["rate", "spend_weight", "invest_weight"]

    static func problems(_ output: String, shape: JSONConventionCommandTests.Shape) -> [String] {
        if shape == .events {
            return output.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any] ? nil : "an event line is not one JSON object: \(line.prefix(80))"
            }
        }
        guard let value = try? JSONSerialization.jsonObject(with: Data(output.utf8)), let object = value as? [String: Any] else {
            return ["standard output is not exactly one JSON object: \(output.prefix(120))"]
        }
        var problems: [String] = []
        walk(object, path: "$", into: &problems)
        if shape == .list, object["items"] == nil { problems.append("a list answer has no top-level items (keys: \(object.keys.sorted()))") }
        if shape == .records, object["events"] == nil { problems.append("a command's answer has no events") }
        return problems
    }

    private static func isDecimal(_ text: String) -> Bool {
        text.range(of: #"^-?[0-9]+\.[0-9]+$"#, options: .regularExpression) != nil
    }

    private static func isDisplayedMoney(_ text: String) -> Bool {
        text.range(of: #"^[+-]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?( [A-Z][A-Z0-9]{2,})?$"#, options: .regularExpression) != nil
            || text.range(of: #"^[+-]?[0-9]+(\.[0-9]+)? [A-Z][A-Z0-9]{2,}$"#, options: .regularExpression) != nil
    }

    private static func walk(_ value: Any, path: String, key: String? = nil, into problems: inout [String]) {
        // Shared with other readers, as docs/cli.md, "JSON output" says: a notification's
        // `figures` (its webhook's form) and a chart's series `values` (the dashboard's).
        if key == "figures" || key == "values" { return }
        switch value {
        case let object as [String: Any]:
            if let amount = object["amount"] as? String {
                if Set(object.keys) != ["amount", "currency"] || !(object["currency"] is String) {
                    problems.append("\(path): an amount beside other fields (\(object.keys.sorted())); money is {amount, currency}")
                } else if !isDecimal(amount) && amount.range(of: #"^-?[0-9]+$"#, options: .regularExpression) == nil {
                    problems.append("\(path).amount: '\(amount)' is not a plain decimal")
                }
                return
            }
            if object["items"] != nil {
                check(paging: object["paging"], items: object["items"], path: path, into: &problems)
            }
            for (name, child) in object { walk(child, path: path + "." + name, key: name, into: &problems) }
        case let array as [Any]:
            for (index, child) in array.enumerated() { walk(child, path: "\(path)[\(index)]", key: key, into: &problems) }
        case let text as String:
            if isDisplayedMoney(text) { problems.append("\(path): money as display text '\(text)'; money is {amount, currency}") }
            if isDecimal(text), !decimalKeys.contains(key ?? "") {
                problems.append("\(path): a bare decimal '\(text)'; money is {amount, currency} (or name the key a rate)")
            }
        case let number as NSNumber:
            let text = number.stringValue
            if text.contains(".") || text.contains("e") { problems.append("\(path): a JSON number with a fraction (\(text)); amounts are decimal strings") }
        default:
            break
        }
    }

    private static func check(paging: Any?, items: Any?, path: String, into problems: inout [String]) {
        guard let items = items as? [Any] else { return problems.append("\(path).items is not an array") }
        guard let paging = paging as? [String: Any] else { return problems.append("\(path): items without paging") }
        func integer(_ name: String) -> Int? { (paging[name] as? NSNumber).flatMap { $0.stringValue.contains(".") ? nil : $0.intValue } }
        guard let page = integer("page"), let size = integer("page_size"), let pages = integer("page_count"), let total = integer("total_count"),
              Set(paging.keys) == ["page", "page_size", "page_count", "total_count"] else {
            return problems.append("\(path).paging is not {page, page_size, page_count, total_count}: \(paging)")
        }
        if page < 1 || pages < 1 || size < 0 || total < items.count || items.count > max(size, 0) && size > 0 {
            problems.append("\(path).paging does not fit its \(items.count) items: \(paging)")
        }
    }
}
