import ArgumentParser
import Foundation
import Tally

/// `tally replay --until DATE (or --as-of DATE) [--known-at INSTANT] [--json]`.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Fold the log from its first event into fresh state and print what was true at a date.",
        discussion: """
            The reference answer: the store's read models are not used. --until DATE (or --as-of DATE) answers \
            for the end of that day in the ledger's time zone; --known-at INSTANT folds only \
            the events recorded by then (RFC 3339, or a day meaning its end in the ledger's time zone). \
            Prints balances, pots, the budgets of DATE's month and net worth.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("Answer for the end of this day in the ledger's time zone (YYYY-MM-DD); --as-of is the same.", valueName: "date"))
    var until: String?

    @OptionGroup var time: TimeTravelOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws { _ = try day(.utc) }

    /// `--until` or `--as-of`: one of them, not both (an instant's day in `calendar`).
    private func day(_ calendar: LedgerCalendar) throws -> LocalDate {
        guard let date = try time.day(until, option: "--until", calendar: calendar) else {
            throw ValidationError("give the day to answer for: --until DATE or --as-of DATE (YYYY-MM-DD)")
        }
        return date
    }

    func run() throws {
        let calendar = try EventStoreReader.open(at: storeOptions.path, options: try storeOptions.ledgerOptions()).ledgerCalendar()
        let date = try day(calendar)
        let known = try time.knownAtInstant(calendar: calendar)
        let result = try Replay.run(at: storeOptions.path, key: try storeOptions.key(), until: calendar.endOfDay(date), knownAt: known)
        print(json ? ReplayOutput.json(result, date: date) : ReplayOutput.text(result, date: date))
    }
}

/// How `tally replay` prints a ``ReplayResult``.
enum ReplayOutput {
    static func text(_ result: ReplayResult, date: LocalDate) -> String {
        var lines: [String] = []
        let known = result.point.knownAt.map { " as known at \($0)" } ?? ""
        lines.append("Replayed \(result.eventsFolded) events: the end of \(date)\(known)")
        lines.append("")
        lines.append("Balances")
        lines.append(result.balances.isEmpty ? "no non-zero balances" : Output.table(
            ["ACCOUNT", "CURRENCY", "BALANCE"],
            result.balances.map { [$0.account, $0.amount.commodity.code, MoneyDisplay.amount($0.amount)] }, rightAligned: [2]))
        lines.append("")
        lines.append("Pots")
        lines.append(result.pots.isEmpty ? "no pots" : Output.table(
            ["POT", "NAME", "TOTAL", "TARGET", "CURRENCY"],
            result.pots.map { [$0.id, $0.name, MoneyDisplay.amount($0.total), MoneyDisplay.amount($0.target), $0.target.commodity.code] },
            rightAligned: [2, 3]))
        lines.append("")
        lines.append("Budgets \(result.month)")
        lines.append(result.budgets.isEmpty ? "no budgets" : Output.table(
            ["CATEGORY", "MAXIMUM", "SPENT", "REMAINING", "CURRENCY"],
            result.budgets.map { [$0.category.displayName, MoneyDisplay.amount($0.maximum), MoneyDisplay.amount($0.spent),
                                  MoneyDisplay.amount($0.remaining), $0.maximum.commodity.code] },
            rightAligned: [1, 2, 3]))
        lines.append("")
        let report = result.netWorth
        lines.append("Net worth \(MoneyDisplay.amount(report.netWorth)) \(report.baseCurrency.code)"
            + " (assets \(MoneyDisplay.amount(report.assets)), liabilities \(MoneyDisplay.amount(report.liabilities)))"
            + (report.isComplete ? "" : "; \(report.excluded.count) item(s) excluded"))
        return lines.joined(separator: "\n")
    }

    static func json(_ result: ReplayResult, date: LocalDate) -> String {
        let report = result.netWorth
        return Output.jsonObject([
            ("until", EventJSON.quoted("\(date)")),
            ("known_at", result.point.knownAt.map { EventJSON.quoted("\($0)") } ?? "null"),
            ("events_folded", String(result.eventsFolded)),
            ("balances", JSONText.array(result.balances.map { balance in
                Output.jsonObject([("account", EventJSON.quoted(balance.account)), ("amount", JSONText.money(balance.amount))])
            })),
            ("pots", JSONText.array(result.pots.map { pot in
                Output.jsonObject([("id", EventJSON.quoted(pot.id)), ("name", EventJSON.quoted(pot.name)),
                                   ("total", JSONText.money(pot.total)), ("target", JSONText.money(pot.target))])
            })),
            ("budgets_month", EventJSON.quoted("\(result.month)")),
            ("budgets", JSONText.array(result.budgets.map { budget in
                Output.jsonObject([("category", EventJSON.quoted(budget.category.rawValue)), ("maximum", JSONText.money(budget.maximum)),
                                   ("spent", JSONText.money(budget.spent)), ("remaining", JSONText.money(budget.remaining))])
            })),
            ("net_worth", Output.jsonObject([
                ("base_currency", EventJSON.quoted(report.baseCurrency.code)), ("assets", JSONText.money(report.assets)),
                ("liabilities", JSONText.money(report.liabilities)), ("net_worth", JSONText.money(report.netWorth)),
                ("excluded", String(report.excluded.count)),
            ])),
        ])
    }
}
