import ArgumentParser
import Foundation
import Tally

struct OverviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overview",
        abstract: "A month at a glance: current balance, held in pots, income, expenses.",
        discussion: """
            Balances are at the end of the month, or today (or --known-at) for the month in progress; \
            with --as-of, at the end of that day, and income and expenses up to it. A month in \
            progress counts what is dated up to today: `overview --month` of this month equals \
            `overview --as-of` today; --include-future counts the rest of the month.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The month, YYYY-MM (default: the month of --as-of).") var month: String?
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "One JSON object.") var json = false

    func run() throws {
        let month = try time.month(month)
        let overview = try storeOptions.withReadingLedger { ledger in
            // Today bounds only the month in progress: a past month is read to its end, a later one as asked.
            let today = ledger.calendar.date(of: ledger.now)
            let asOf = try time.asOfDate() == nil && today.month != month ? nil : try time.asOfInstant(ledger)
            return try ledger.budgetOverview(month: month, asOf: asOf, knownAt: try time.knownAtInstant(ledger))
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
