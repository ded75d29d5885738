import ArgumentParser
import Foundation
import Tally

struct OverviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overview",
        abstract: "A month at a glance: balance, pots, income, expenses, latest transactions, budgets, recurring items.",
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
            converted. Income and expenses are positive; net is income minus expenses. \
            Then, as the budget app's overview screen shows them: the pots with their totals and \
            targets, the latest \(BudgetScreen.latestTransactionsCount) transactions dated by then, \
            the month's budgets with spent and remaining, and the recurring items' totals \
            (paid, due soon, upcoming) judged from that day. --format csv gives every figure of \
            the screen as a row: month, section, id, name, measure, amount, currency, the amount in \
            the base currency, the base currency, a date and a note.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The month, YYYY-MM (in the ledger's time zone; default: the month of --as-of, else this month).") var month: String?
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ReportFormatOptions

    func run() throws {
        let (month, screen) = try storeOptions.withReadingLedger { ledger in
            let month = try time.month(self.month, ledger)
            // One "today": a past month is read to its end, the month in progress to today,
            // a later month only with --include-future (its balances and flows at its end).
            let asOf = try time.monthInstant(month, ledger, refusesFuture: true)
            return (month, try ledger.budgetScreen(month: month, asOf: asOf, knownAt: try time.knownAtInstant(ledger)))
        }
        if output.chosen == .csv { return print(try BudgetScreenCSV.render(screen), terminator: "") }
        let answer = screen.overview
        let overview = answer.overview
        let net = try overview.net()
        let inBase = answer.baseCurrency == overview.income.commodity ? nil : answer.converted
        let netInBase = try inBase?.net()
        if output.chosen == .json {
            var fields: [(String, String)] = [
                ("month", EventJSON.quoted(month.description)), ("currency", EventJSON.quoted(overview.income.commodity.code)),
                ("current_balance", BudgetCLI.json(overview.currentBalance)), ("held_in_pots", BudgetCLI.json(overview.heldInPots)),
                ("income", BudgetCLI.json(overview.income)), ("expenses", BudgetCLI.json(overview.expenses)),
                ("net", BudgetCLI.json(net)),
                ("base_currency", EventJSON.quoted(answer.baseCurrency.code)),
                ("in_base", answer.converted.map { converted in
                    Output.jsonObject([
                        ("current_balance", BudgetCLI.json(converted.currentBalance)), ("held_in_pots", BudgetCLI.json(converted.heldInPots)),
                        ("income", BudgetCLI.json(converted.income)), ("expenses", BudgetCLI.json(converted.expenses)),
                        ("net", BudgetCLI.json(try? converted.net())),
                    ])
                } ?? "null"),
                ("not_converted", JSONText.array(answer.notConverted.map { EventJSON.quoted($0.code) })),
            ]
            fields += try Self.screenJSON(screen)
            print(Output.jsonObject(fields))
            return
        }
        func row(_ label: String, _ amount: Money, _ converted: Money?) -> [String] {
            [label, MoneyDisplay.amount(amount)] + (inBase == nil ? [] : [converted.map(MoneyDisplay.amount) ?? ""])
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
        try Self.printScreen(screen)
    }

    /// The screen's parts after the overview's own fields: `pots`, `latest_transactions`,
    /// `budgets` (each an object with its `items` and totals) and `recurring` (the totals per
    /// state and the items).
    static func screenJSON(_ screen: BudgetScreen) throws -> [(String, String)] {
        let totals = try screen.budgetTotals()
        let pots = screen.pots.map { pot in
            Output.jsonObject([("id", EventJSON.quoted(pot.id)), ("name", EventJSON.quoted(pot.name)), ("total", BudgetCLI.json(pot.total)),
                               ("target", BudgetCLI.json(pot.target)), ("progress_basis_points", String(pot.progressBasisPoints))])
        }
        let budgets = screen.budgets.map { budget in
            Output.jsonObject([("category", EventJSON.quoted(budget.category.rawValue)), ("maximum", BudgetCLI.json(budget.maximum)),
                               ("spent", BudgetCLI.json(budget.spent)), ("remaining", BudgetCLI.json(budget.remaining)),
                               ("over_budget", String(budget.isOverBudget))])
        }
        let recurring = screen.recurring.items.map { status in
            Output.jsonObject([("id", EventJSON.quoted(status.item.id)), ("payee", EventJSON.quoted(status.item.payee)),
                               ("amount", BudgetCLI.json(status.item.amount)), ("due", EventJSON.quoted(status.dueDate.description)),
                               ("state", EventJSON.quoted(status.state.rawValue))])
        }
        return [
            ("pots", JSONText.list(pots, context: [("total", BudgetCLI.json(screen.overview.overview.heldInPots)),
                                                   ("target", BudgetCLI.json(screen.potsTarget))])),
            ("latest_transactions", JSONText.list(screen.latestTransactions.map { BudgetCLI.json($0) },
                                                  paging: JSONPaging(page: 1, pageSize: BudgetScreen.latestTransactionsCount, totalCount: screen.latestTransactions.count),
                                                  context: [("limit", String(BudgetScreen.latestTransactionsCount))])),
            ("budgets", JSONText.list(budgets, context: [("maximum", BudgetCLI.json(totals.maximum)),
                                                         ("spent", BudgetCLI.json(totals.spent)), ("remaining", BudgetCLI.json(totals.remaining))])),
            ("recurring", JSONText.list(recurring, context: [("today", EventJSON.quoted(screen.recurring.today.description)),
                                                             ("paid", RecurringCLI.json(screen.recurring.paid)), ("due_soon", RecurringCLI.json(screen.recurring.dueSoon)),
                                                             ("upcoming", RecurringCLI.json(screen.recurring.upcoming))])),
        ]
    }

    /// The screen's parts as tables, each under its title; an empty part says so.
    static func printScreen(_ screen: BudgetScreen) throws {
        print("\nPots: \(MoneyDisplay.amount(screen.overview.overview.heldInPots)) of \(MoneyDisplay.amount(screen.potsTarget))")
        if !screen.pots.isEmpty {
            print(Output.table(["POT", "NAME", "TOTAL", "TARGET", "PROGRESS"],
                               screen.pots.map { [$0.id, $0.name, MoneyDisplay.amount($0.total), MoneyDisplay.amount($0.target), PotListCommand.percent($0.progressBasisPoints)] },
                               rightAligned: [2, 3, 4]))
        }
        print("\nLatest transactions" + (screen.latestTransactions.isEmpty ? ": none" : ""))
        if !screen.latestTransactions.isEmpty {
            print(Output.table(BudgetCLI.transactionHeader, screen.latestTransactions.map(BudgetCLI.row), rightAligned: [4]))
        }
        let totals = try screen.budgetTotals()
        print("\nBudgets" + (screen.budgets.isEmpty ? ": none" : ""))
        if !screen.budgets.isEmpty {
            print(Output.table(
                ["CATEGORY", "MAXIMUM", "SPENT", "REMAINING"],
                screen.budgets.map { [$0.category.displayName, MoneyDisplay.amount($0.maximum), MoneyDisplay.amount($0.spent),
                                      MoneyDisplay.amount($0.remaining) + ($0.isOverBudget ? " (over)" : "")] }
                    + [["total", MoneyDisplay.amount(totals.maximum), MoneyDisplay.amount(totals.spent), MoneyDisplay.amount(totals.remaining)]],
                rightAligned: [1, 2, 3]))
        }
        print("\nRecurring on \(screen.recurring.today)")
        print(RecurringCLI.totalsTable(screen.recurring))
    }
}
