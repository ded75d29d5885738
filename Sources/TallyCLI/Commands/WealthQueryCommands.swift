import ArgumentParser
import Foundation
import Tally

struct WealthSummaryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Spend, Invest and total per currency, the status and the settings, now or as of a day."
    )

    @OptionGroup var options: WealthOptions

    @OptionGroup var time: TimeTravelOptions

    func run() throws {
        try options.withReadingLedger { ledger in
            let summary = try ledger.wealthSummary(account: options.account, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
            if options.json {
                let balances = summary.balances.map { balance in
                    Output.jsonObject([
                        ("currency", EventJSON.quoted(balance.commodity.code)),
                        ("wallet", JSONText.money(balance.wallet)), ("spend", JSONText.money(balance.spend)),
                        ("invest", JSONText.money(balance.invest)), ("total", JSONText.money(balance.total)),
                        ("round_up_increment", balance.roundUpIncrement.map(JSONText.money) ?? "null"),
                        ("round_ups_skipped", String(summary.roundUpsEnabled && balance.roundUpIncrement == nil)),
                    ])
                }
                print(Output.jsonObject([
                    ("account", EventJSON.quoted(summary.account)),
                    ("status", EventJSON.quoted(summary.status.rawValue)),
                    ("split_rule", Output.jsonObject([
                        ("spend_weight", String(summary.splitRule.spendWeight)), ("invest_weight", String(summary.splitRule.investWeight)),
                    ])),
                    ("round_ups", String(summary.roundUpsEnabled)),
                    ("card_frozen", String(summary.cardFrozen)),
                    ("unsplit_deposits", String(summary.unsplitDepositCount)),
                    ("balances", "[" + balances.joined(separator: ",") + "]"),
                ]))
                return
            }
            print("Wealth account \(Output.visible(summary.account))\(time.asOf.map { " as of \($0)" } ?? ""): \(summary.status.rawValue)")
            print("split \(summary.splitRule) (Spend/Invest), round-ups \(summary.roundUpsEnabled ? "on" : "off"), card \(summary.cardFrozen ? "frozen" : "active")"
                  + (summary.unsplitDepositCount > 0 ? ", \(summary.unsplitDepositCount) deposit(s) waiting to be split" : ""))
            guard !summary.balances.isEmpty else { return }
            let rows = summary.balances.map { balance in
                [balance.commodity.code, MoneyDisplay.amount(balance.spend), MoneyDisplay.amount(balance.invest),
                 MoneyDisplay.amount(balance.wallet), MoneyDisplay.amount(balance.total)]
            }
            print(Output.table(["CURRENCY", "SPEND", "INVEST", "WALLET", "TOTAL"], rows, rightAligned: [1, 2, 3, 4]))
            if summary.roundUpsEnabled {
                for balance in summary.balances where balance.roundUpIncrement == nil { print(WealthCLI.roundUpsSkippedNote(balance.commodity)) }
            }
        }
    }
}

struct WealthHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "The account's money events, newest first: all, or those touching Spend, Invest, or deposits."
    )

    enum Filter: String, ExpressibleByArgument, CaseIterable {
        case all, spend, invest, deposits
    }

    @OptionGroup var options: WealthOptions

    @Option(help: "all, spend, invest or deposits.")
    var filter: Filter = .all

    @Option(help: "The page, from 1.")
    var page = 1

    @Option(name: .customLong("page-size"), help: "Rows per page (1-500). Default: the page_size setting in force (`tally settings`).")
    var pageSize: Int?

    @OptionGroup var time: TimeTravelOptions

    func run() throws {
        try options.withReadingLedger { ledger in
            let result = try ledger.wealthHistory(
                account: options.account, filter: WealthHistoryFilter(rawValue: filter.rawValue) ?? .all, page: page, pageSize: pageSize,
                asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
            if options.json {
                let entries = result.entries.map { entry in
                    var fields: [(String, String)] = [
                        ("seq", String(entry.sequence)),
                        ("effective_at", EventJSON.quoted(entry.effectiveAt.description)),
                        ("recorded_at", EventJSON.quoted(entry.recordedAt.description)),
                        ("kind", EventJSON.quoted(entry.kind.rawValue)),
                        ("amount", JSONText.money(entry.amount)),
                        ("spend_change", JSONText.money(entry.spendChange)),
                        ("invest_change", JSONText.money(entry.investChange)),
                    ]
                    if let cause = entry.cause { fields.append(("cause", String(cause))) }
                    if let detail = entry.detail { fields.append(("detail", EventJSON.quoted(detail))) }
                    if let reverses = entry.reverses { fields.append(("reverses", String(reverses))) }
                    if let reversedBy = entry.reversedBy { fields.append(("reversed_by", String(reversedBy))) }
                    return Output.jsonObject(fields)
                }
                return print(JSONText.list(entries, paging: JSONPaging(page: result.page, pageSize: result.pageSize, totalCount: result.totalCount),
                                           context: [("account", EventJSON.quoted(options.account)), ("filter", EventJSON.quoted(filter.rawValue))]))
            }
            func signed(_ money: Money) -> String {
                money.isZero ? "" : (money.isPositive ? "+" : "") + MoneyDisplay.amount(money)
            }
            let rows = result.entries.map { entry in
                [String(entry.sequence), ledger.calendar.date(of: entry.effectiveAt).description, entry.kind.rawValue,
                 MoneyDisplay.amount(entry.amount), entry.amount.commodity.code, signed(entry.spendChange), signed(entry.investChange),
                 entry.cause.map(String.init) ?? "", WealthCLI.detail(entry)]
            }
            if !rows.isEmpty {
                print(Output.table(["SEQ", "DATE", "KIND", "AMOUNT", "CUR", "SPEND", "INVEST", "CAUSE", "DETAIL"], rows, rightAligned: [0, 3, 5, 6, 7]))
            }
            let page = try ListPage(page: result.page, pageSize: result.pageSize, totalCount: result.totalCount)
            print("\(ListFooter.table(page)), filter \(filter.rawValue)")
        }
    }
}

struct WealthRoundUpsTotalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "round-ups-total",
        abstract: "The round-ups moved to Invest in a month (the ledger's time zone), per currency.",
        discussion: "With --as-of, only the round-ups effective by the end of that day count."
    )

    @OptionGroup var options: WealthOptions

    @Option(help: ArgumentHelp("The month, YYYY-MM, in the ledger's time zone (default: the --as-of day's month, else this month).", valueName: "month"))
    var month: String?

    @OptionGroup var time: TimeTravelOptions

    func run() throws {
        try options.withReadingLedger { ledger in
            let chosen: Month
            if let month {
                guard let parsed = try? Month(parsing: month) else {
                    throw ValidationError("--month '\(month)' is not a month; write YYYY-MM, e.g. 2026-05")
                }
                chosen = parsed
            } else {
                chosen = try time.asOfDateOrToday(ledger).month
            }
            let totals = try ledger.roundUpTotal(account: options.account, month: chosen, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
            if options.json {
                print(Output.jsonObject([
                    ("account", EventJSON.quoted(options.account)), ("month", EventJSON.quoted(chosen.description)),
                    ("totals", "[" + totals.map(JSONText.money).joined(separator: ",") + "]"),
                ]))
                return
            }
            print("Round-ups in \(chosen): " + (totals.isEmpty ? "none" : totals.map(\.description).joined(separator: ", ")))
        }
    }
}
