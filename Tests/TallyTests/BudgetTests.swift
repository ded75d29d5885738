import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

@Suite struct BudgetTests {
    @Test func aBudgetShowsSpentRemainingAndTheThreeLatestTransactions() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setBudget(category: .groceries, month: month("2026-05"), maximum: usd("400.00"))
            try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-50.00"), date: day("2026-05-02"))
            try ledger.recordTransaction(payee: "Bakery", category: .groceries, amount: usd("-12.25"), date: day("2026-05-09"))
            try ledger.recordTransaction(payee: "Grocer", category: .groceries, amount: usd("-80.10"), date: day("2026-05-04"))
            try ledger.recordTransaction(payee: "Deli", category: .groceries, amount: usd("-7.65"), date: day("2026-05-12"))
            try ledger.recordTransaction(payee: "Cinema", category: .entertainment, amount: usd("-20.00"), date: day("2026-05-12"))
            try ledger.recordTransaction(payee: "April shop", category: .groceries, amount: usd("-99.00"), date: day("2026-04-30"))

            let budgets = try ledger.budgets(month: month("2026-05"))
            #expect(budgets.count == 1)
            let groceries = try #require(budgets.first)
            #expect(groceries.maximum == usd("400.00"))
            #expect(groceries.spent == usd("150.00"))
            #expect(groceries.remaining == usd("250.00"))
            #expect(!groceries.isOverBudget)
            #expect(groceries.latestTransactions.map(\.payee) == ["Deli", "Bakery", "Grocer"])
            try ledger.expectConsistent()
        }
    }

    @Test func spendingPastTheMaximumLeavesANegativeRemainder() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setBudget(category: .lifestyle, month: month("2026-05"), maximum: usd("50.00"))
            try ledger.recordTransaction(payee: "Concert", category: .lifestyle, amount: usd("-75.00"), date: day("2026-05-10"))
            // A refund is income in the category, not less spending.
            try ledger.recordTransaction(payee: "Refund", category: .lifestyle, amount: usd("10.00"), date: day("2026-05-11"))
            let budget = try #require(try ledger.budgets(month: month("2026-05")).first)
            #expect(budget.spent == usd("75.00"))
            #expect(budget.remaining == usd("-25.00"))
            #expect(budget.isOverBudget)
            try ledger.expectConsistent()
        }
    }

    @Test func settingABudgetAgainReplacesItsMaximumAndDeletingTouchesNoTransaction() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setBudget(category: .transportation, month: month("2026-05"), maximum: usd("60.00"))
            try ledger.setBudget(category: .transportation, month: month("2026-05"), maximum: usd("90.00"))
            try ledger.recordTransaction(payee: "Metro", category: .transportation, amount: usd("-33.00"), date: day("2026-05-06"))
            #expect(try ledger.budgets(month: month("2026-05")).map(\.maximum) == [usd("90.00")])
            let balancesBefore = try ledger.balances()
            try ledger.deleteBudget(category: .transportation, month: month("2026-05"))
            #expect(try ledger.budgets(month: month("2026-05")).isEmpty)
            #expect(try ledger.transactions().totalCount == 1)
            #expect(try ledger.balances() == balancesBefore)
            try expectRefusal(.notFound, by: ledger) { try ledger.deleteBudget(category: .transportation, month: month("2026-05")) }
            try expectRefusal(.invalidArgument, by: ledger) {
                try ledger.setBudget(category: .bills, month: month("2026-05"), maximum: usd("0.00"))
            }
            try ledger.expectConsistent()
        }
    }

    @Test func theOverviewSumsTheMonthsIncomeAndExpenses() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setReferenceBalance(amount: usd("500.00"))
            try ledger.recordTransaction(payee: "Salary", category: .general, amount: usd("2000.00"), date: day("2026-05-01"))
            try ledger.recordTransaction(payee: "Rent", category: .bills, amount: usd("-900.00"), date: day("2026-05-02"))
            try ledger.recordTransaction(payee: "Lunch", category: .diningOut, amount: usd("-14.30"), date: day("2026-05-15"))
            let may = try ledger.budgetOverview(month: month("2026-05"))
            #expect(may.income == usd("2000.00"))
            #expect(may.expenses == usd("914.30"))
            #expect(try may.net() == usd("1085.70"))
            // The bank's 500.00 of the 20th already held what is dated before it (the reference rule).
            #expect(may.currentBalance == usd("500.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func aPastMonthsViewIsUnchangedByLaterMonths() throws {
        try withBudgetLedger(at: "2026-04-25T16:00:00Z") { ledger, clock in
            try ledger.setReferenceBalance(amount: usd("1000.00"))
            try ledger.setBudget(category: .groceries, month: month("2026-04"), maximum: usd("300.00"))
            try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-40.00"), date: day("2026-04-10"))
            try ledger.recordTransaction(payee: "Salary", category: .general, amount: usd("1500.00"), date: day("2026-04-24"))
            try ledger.createPot(id: "rainy-day", target: usd("1000.00"))
            try ledger.addToPot(id: "rainy-day", amount: usd("200.00"))
            clock.set("2026-05-01T16:00:00Z")
            let aprilOverview = try ledger.budgetOverview(month: month("2026-04"))
            let aprilBudgets = try ledger.budgets(month: month("2026-04"))
            let aprilList = try ledger.transactions(TransactionQuery(month: month("2026-04")))

            // May and June happen.
            try ledger.setBudget(category: .groceries, month: month("2026-05"), maximum: usd("250.00"))
            try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-70.00"), date: day("2026-05-03"))
            try ledger.addToPot(id: "rainy-day", amount: usd("100.00"))
            clock.set("2026-06-02T16:00:00Z")
            try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-55.00"), date: day("2026-06-01"))
            try ledger.withdrawFromPot(id: "rainy-day", amount: usd("300.00"))

            #expect(try ledger.budgetOverview(month: month("2026-04")) == aprilOverview)
            #expect(try ledger.budgets(month: month("2026-04")) == aprilBudgets)
            #expect(try ledger.transactions(TransactionQuery(month: month("2026-04"))) == aprilList)
            // The bank's 1,000.00 of the 25th already held the groceries and salary dated before it; 200.00 went to the pot.
            #expect(aprilOverview.currentBalance == usd("800.00"))
            #expect(aprilOverview.heldInPots == usd("200.00"))
            #expect(aprilBudgets.first?.spent == usd("40.00"))
            try ledger.expectConsistent()
        }
    }
}
