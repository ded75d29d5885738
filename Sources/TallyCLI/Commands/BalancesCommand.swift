import ArgumentParser
import Foundation
import Tally

struct BalancesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "balances",
        abstract: "Every non-zero balance by account and currency, now or as of a date.",
        discussion: """
            --as-of DATE counts everything effective up to the end of that day in the \
            ledger's time zone; --known-at INSTANT counts only what the ledger had recorded \
            by then. --format csv prints exactly the header account,currency,balance and \
            one row per account and currency, sorted.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, json }

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "table, csv or json.")
    var format: Format = .table

    @OptionGroup var time: TimeTravelOptions

    func run() throws {
        let ledger = try Ledger.openForReading(at: storeOptions.path)
        defer { try? ledger.close() }
        let balances = try ledger.balances(asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant())
            .filter { !$0.amount.isZero }
        switch format {
        case .csv:
            print(BalancesCSV.render(balances), terminator: "")
        case .json:
            let objects = balances.map { balance in
                Output.jsonObject([
                    ("account", EventJSON.quoted(balance.account)),
                    ("currency", EventJSON.quoted(balance.amount.commodity.code)),
                    ("balance", EventJSON.quoted(balance.amount.decimalString)),
                ])
            }
            print("[" + objects.joined(separator: ",") + "]")
        case .table:
            guard !balances.isEmpty else {
                print("no non-zero balances")
                return
            }
            print(Output.table(
                ["ACCOUNT", "CURRENCY", "BALANCE"],
                balances.map { [$0.account, $0.amount.commodity.code, $0.amount.decimalString] },
                rightAligned: [2]
            ))
        }
    }
}
