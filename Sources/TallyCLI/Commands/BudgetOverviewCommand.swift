import ArgumentParser
import Foundation
import Tally

struct OverviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overview",
        abstract: "A month at a glance: current balance, held in pots, income, expenses.",
        discussion: """
            Balances are at the end of the month, or now (or --known-at) for the month in progress; \
            with --as-of, at the end of that day, and income and expenses up to it.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The month, YYYY-MM (default: the month of --as-of).") var month: String?
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "One JSON object.") var json = false

    func run() throws {
        let month = try time.month(month)
        let overview = try storeOptions.withReadingLedger { ledger in
            try ledger.budgetOverview(month: month, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
        }
        let net = try overview.net()
        if json {
            print(Output.jsonObject([
                ("month", EventJSON.quoted(month.description)), ("currency", EventJSON.quoted(overview.income.commodity.code)),
                ("current_balance", BudgetCLI.json(overview.currentBalance)), ("held_in_pots", BudgetCLI.json(overview.heldInPots)),
                ("income", BudgetCLI.json(overview.income)), ("expenses", BudgetCLI.json(overview.expenses)),
                ("net", BudgetCLI.json(net)),
            ]))
            return
        }
        print(Output.table(["\(month)", overview.income.commodity.code], [
            ["current balance", overview.currentBalance.decimalString],
            ["held in pots", overview.heldInPots.decimalString],
            ["income", overview.income.decimalString],
            ["expenses", overview.expenses.decimalString],
            ["net", net.decimalString],
        ], rightAligned: [1]))
    }
}
