import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, "Budget overview": the budget app's overview screen in one answer: balance,
/// income and expenses, the pots, the latest five transactions, each budget's spent and
/// remaining, and the recurring summary, each part the same as its own query at the same
/// point.
@Suite struct BudgetScreenTests {
    @Test func theOverviewScreenShowsEveryPartOfTheMonth() throws {
        try withBudgetLedger { ledger, _ in
            let may = try Month(parsing: "2026-05")
            try ledger.setReferenceBalance(amount: usd("1000.00"))
            try ledger.createPot(id: "holiday", name: "Holiday", target: usd("1500.00"))
            try ledger.addToPot(id: "holiday", amount: usd("300.00"))
            try ledger.setBudget(category: .groceries, month: may, maximum: usd("400.00"))
            try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-900.00"), dayOfMonth: 2, startMonth: may)
            try ledger.defineRecurring(id: "gym", payee: "Gym", category: .personalCare, amount: usd("-30.00"), dayOfMonth: 28, startMonth: may)
            try ledger.recordTransaction(payee: "Employer", category: .general, amount: usd("2000.00"), date: day("2026-05-01"))
            try ledger.recordTransaction(payee: "Landlord", category: .bills, amount: usd("-900.00"), date: day("2026-05-02"), recurring: true)
            for (index, date) in ["2026-05-04", "2026-05-08", "2026-05-11", "2026-05-15", "2026-05-19"].enumerated() {
                try ledger.recordTransaction(payee: "Market \(index)", category: .groceries, amount: usd("-50.00"), date: day(date))
            }
            let asOf = ledger.calendar.endOfDay(day("2026-05-20"))
            let screen = try ledger.budgetScreen(month: may, asOf: asOf)

            #expect(screen.overview == (try ledger.budgetOverviewInBase(month: may, asOf: asOf)))
            #expect(screen.overview.overview.income == usd("2000.00") && screen.overview.overview.expenses == usd("1150.00"))
            #expect(screen.pots.map(\.name) == ["Holiday"] && screen.overview.overview.heldInPots == usd("300.00") && screen.potsTarget == usd("1500.00"))
            // The latest five, newest first: the five groceries; the rent and the salary are older.
            #expect(screen.latestTransactions.map(\.payee) == ["Market 4", "Market 3", "Market 2", "Market 1", "Market 0"])
            let groceries = try #require(screen.budgets.first)
            #expect(groceries.spent == usd("250.00") && groceries.remaining == usd("150.00"))
            let totals = try screen.budgetTotals()
            #expect(totals.maximum == usd("400.00") && totals.spent == usd("250.00") && totals.remaining == usd("150.00"))
            // Recurring judged on the 20th: rent paid on the 2nd, the gym due on the 28th.
            #expect(screen.recurring == (try ledger.recurringStatus(month: may, today: day("2026-05-20"))))
            #expect(screen.recurring.paid.bills == usd("900.00"))
            #expect(screen.recurring.items.first { $0.item.id == "gym" }?.state != .paid)
        }
    }

    @Test func aPastMonthIsReadAtItsEnd() throws {
        try withBudgetLedger { ledger, _ in
            let april = try Month(parsing: "2026-04")
            try ledger.recordTransaction(payee: "Cafe", category: .diningOut, amount: usd("-4.50"), date: day("2026-04-30"))
            try ledger.recordTransaction(payee: "Cafe", category: .diningOut, amount: usd("-5.50"), date: day("2026-05-01"))
            let screen = try ledger.budgetScreen(month: april)
            #expect(screen.asOf == ledger.calendar.endOfDay(day("2026-04-30")))
            // Only what is dated by the end of April: May's coffee is not among the latest.
            #expect(screen.latestTransactions.map(\.amount) == [usd("-4.50")])
            #expect(screen.recurring.today == day("2026-04-30"))
        }
    }
}
