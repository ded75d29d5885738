import ArgumentParser
import Foundation
import Tally

struct OverviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overview",
        abstract: "A month at a glance: current balance, held in pots, income, expenses.",
        discussion: """
            Without --month or --as-of: this month, as of today in the ledger's time zone. \
            Balances are at the end of the month, or today for the month in progress; \
            with --as-of, at the end of that day, and income and expenses up to it. A month in \
            progress counts what is dated up to today: `overview --month` of this month equals \
            `overview --as-of` today; --include-future counts the rest of the month and gives \
            the balances at its end. A month after today's is refused without --include-future. \
            The budget keeps its books in the currency the ledger was created with; when the base \
            currency is another (`tally base-currency`), a column gives each amount in it at the \
            FX rate in force then, and with no rate the budget currency is listed as not \
            converted. Income and expenses are positive; net is income minus expenses.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The month, YYYY-MM (in the ledger's time zone; default: the month of --as-of, else this month).") var month: String?
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "One JSON object.") var json = false

    func run() throws {
        let (month, answer) = try storeOptions.withReadingLedger { ledger in
            let month = try time.month(self.month, ledger)
            // One "today": a past month is read to its end, the month in progress to today,
            // a later month only with --include-future (its balances and flows at its end).
            let asOf = try time.monthInstant(month, ledger, refusesFuture: true)
            return (month, try ledger.budgetOverviewInBase(month: month, asOf: asOf, knownAt: try time.knownAtInstant(ledger)))
        }
        let overview = answer.overview
        let net = try overview.net()
        let inBase = answer.baseCurrency == overview.income.commodity ? nil : answer.converted
        let netInBase = try inBase?.net()
        if json {
            print(Output.jsonObject([
                ("month", EventJSON.quoted(month.description)), ("currency", EventJSON.quoted(overview.income.commodity.code)),
                ("current_balance", BudgetCLI.json(overview.currentBalance)), ("held_in_pots", BudgetCLI.json(overview.heldInPots)),
                ("income", BudgetCLI.json(overview.income)), ("expenses", BudgetCLI.json(overview.expenses)),
                ("net", BudgetCLI.json(net)),
                ("base_currency", EventJSON.quoted(answer.baseCurrency.code)),
                ("in_base", answer.converted.map { converted in
                    Output.jsonObject([
                        ("current_balance", BudgetCLI.json(converted.currentBalance)), ("held_in_pots", BudgetCLI.json(converted.heldInPots)),
                        ("income", BudgetCLI.json(converted.income)), ("expenses", BudgetCLI.json(converted.expenses)),
                        ("net", (try? converted.net()).map(BudgetCLI.json) ?? "null"),
                    ])
                } ?? "null"),
                ("not_converted", JSONText.array(answer.notConverted.map { EventJSON.quoted($0.code) })),
            ]))
            return
        }
        func row(_ label: String, _ amount: Money, _ converted: Money?) -> [String] {
            [label, amount.decimalString] + (inBase == nil ? [] : [converted?.decimalString ?? ""])
        }
        print(Output.table(["\(month)", overview.income.commodity.code] + (inBase == nil ? [] : [answer.baseCurrency.code]), [
            row("current balance", overview.currentBalance, inBase?.currentBalance),
            row("held in pots", overview.heldInPots, inBase?.heldInPots),
            row("income", overview.income, inBase?.income),
            row("expenses", overview.expenses, inBase?.expenses),
            row("net", net, netInBase),
        ], rightAligned: [1, 2]))
        if !answer.notConverted.isEmpty {
            print("not converted (no rate into \(answer.baseCurrency.code)): \(answer.notConverted.map(\.code).joined(separator: ", "))")
        }
    }
}
