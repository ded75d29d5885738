import ArgumentParser
import Foundation
import Tally

struct BalancesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "balances",
        abstract: "Every non-zero balance by account and currency, now or as of a date; with --value, in one currency.",
        discussion: """
            --as-of DATE counts everything effective up to the end of that day in the \
            ledger's time zone; --known-at INSTANT counts only what the ledger had recorded \
            by then. --format csv prints exactly the header account,currency,balance and \
            one row per account and currency, sorted. --value CUR converts each balance into \
            CUR at the latest price or rate effective by then (a price or rate either way \
            round, or one hop through a third currency), rounded half-even to CUR's scale \
            once per account and commodity; an account's value is the sum of those. A \
            balance with no price or rate stays in its own units and its commodity is listed \
            as not converted (on standard error, or in the JSON).
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, json }

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "table, csv or json.")
    var format: Format = .table

    @Option(help: ArgumentHelp("Value every balance in this currency (e.g. EUR) at the latest prices and rates.", valueName: "currency"))
    var value: String?

    @OptionGroup var time: TimeTravelOptions

    func run() throws {
        let ledger = try Ledger.openForReading(at: storeOptions.path, options: try storeOptions.ledgerOptions())
        defer { try? ledger.close() }
        let currency = try value.map { try CLIParse.currency($0, ledger, option: "--value") }
        let asOf = try time.asOfInstant(ledger)
        if let currency {
            try printValues(try ledger.marketValues(in: currency, asOf: asOf, knownAt: try time.knownAtInstant(ledger)))
            return
        }
        let balances = try ledger.balances(asOf: asOf, knownAt: try time.knownAtInstant(ledger)).filter { !$0.amount.isZero }
        switch format {
        case .csv:
            print(BalancesCSV.render(balances), terminator: "")
        case .json:
            print(JSONText.list(balances.map(Self.jsonRow)))
        case .table:
            printTable(balances)
        }
    }

    private static func jsonRow(_ balance: AccountBalance) -> String {
        Output.jsonObject([
            ("account", EventJSON.quoted(balance.account)),
            ("currency", EventJSON.quoted(balance.amount.commodity.code)),
            ("balance", JSONText.money(balance.amount)),
        ])
    }

    private func printTable(_ balances: [AccountBalance]) {
        guard !balances.isEmpty else {
            print("no non-zero balances")
            return
        }
        print(Output.table(
            ["ACCOUNT", "CURRENCY", "BALANCE"],
            balances.map { [$0.account, $0.amount.commodity.code, MoneyDisplay.amount($0.amount)] },
            rightAligned: [2]
        ))
    }

    private func printValues(_ report: MarketValueReport) throws {
        switch format {
        case .csv:
            print(BalancesCSV.render(report.rows), terminator: "")
        case .table:
            printTable(report.rows)
        case .json:
            print(MarketValueJSON.render(report))
            return
        }
        if !report.notConverted.isEmpty {
            Output.note("not converted (no price or rate into \(report.currency.code)): \(report.notConverted.map(\.code).joined(separator: ", "))\n")
        }
    }
}

/// `balances --value CUR --format json`: a list answer whose items are the rows `--format csv`
/// prints, each with the holdings behind it and how each was converted, and the commodities
/// not converted.
enum MarketValueJSON {
    static func render(_ report: MarketValueReport) -> String {
        let rows = report.accounts.flatMap { account -> [(String, String)] in
            var rows: [(String, String)] = account.holdings.filter { $0.value == nil }.map { holding in
                (holding.units.commodity.code, Output.jsonObject([
                    ("account", EventJSON.quoted(account.account)),
                    ("currency", EventJSON.quoted(holding.units.commodity.code)),
                    ("balance", JSONText.money(holding.units)),
                    ("converted", "false"),
                ]))
            }
            if let value = account.value, !value.isZero {
                rows.append((value.commodity.code, Output.jsonObject([
                    ("account", EventJSON.quoted(account.account)),
                    ("currency", EventJSON.quoted(value.commodity.code)),
                    ("balance", JSONText.money(value)),
                    ("converted", "true"),
                    ("holdings", JSONText.array(account.holdings.filter { $0.value != nil }.map(holding))),
                ])))
            }
            return rows.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        }
        return JSONText.list(rows.map(\.1), context: [
            ("currency", EventJSON.quoted(report.currency.code)),
            ("not_converted", JSONText.array(report.notConverted.map { EventJSON.quoted($0.code) })),
        ])
    }

    private static func holding(_ holding: ValuedHolding) -> String {
        var fields: [(String, String)] = [
            ("commodity", EventJSON.quoted(holding.units.commodity.code)),
            ("units", JSONText.money(holding.units)),
            ("value", holding.value.map(JSONText.money) ?? "null"),
        ]
        guard let conversion = holding.conversion else {
            fields.append(("method", EventJSON.quoted("same")))
            return Output.jsonObject(fields)
        }
        fields.append(("method", EventJSON.quoted(conversion.method)))
        fields.append(("via", JSONText.string(conversion.via?.code)))
        fields.append(("steps", JSONText.array(conversion.steps.map { step in
            Output.jsonObject([
                ("from", EventJSON.quoted(step.from.code)),
                ("to", EventJSON.quoted(step.to.code)),
                ("kind", EventJSON.quoted(step.quote.kind.rawValue)),
                ("quote", EventJSON.quoted("1 \(step.quote.base.code) = \(step.quote.value.decimalString) \(step.quote.quote.code)")),
                ("inverted", step.isInverted ? "true" : "false"),
                ("effective_at", EventJSON.quoted(step.quote.effectiveAt.description)),
                ("recorded_at", EventJSON.quoted(step.quote.recordedAt.description)),
                ("seq", "\(step.quote.sequence)"),
            ])
        })))
        return Output.jsonObject(fields)
    }
}
