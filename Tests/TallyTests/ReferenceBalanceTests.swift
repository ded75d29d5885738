import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// The reference balance (docs/domain.md §2): a reset records the untracked transfer that makes
/// the current balance plus pots equal the bank balance as of the reset, whatever is
/// already recorded for later dates.
@Suite struct ReferenceBalanceTests {
    @Test func aResetIgnoresRecurringItemsRecordedForLaterInTheMonth() throws {
        try withBudgetLedger(at: "2026-05-01T15:00:00Z") { ledger, clock in
            try ledger.setReferenceBalance(amount: usd("1000.00"))
            try ledger.createPot(id: "holiday", target: usd("500.00"))
            try ledger.addToPot(id: "holiday", amount: usd("200.00"))
            try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-900.00"),
                                       dayOfMonth: 30, startMonth: month("2026-05"))
            try ledger.defineRecurring(id: "salary", payee: "Employer", category: .general, amount: usd("2500.00"),
                                       dayOfMonth: 29, startMonth: month("2026-05"))
            clock.set("2026-05-28T15:00:00Z")
            try ledger.generateRecurring(month: month("2026-05"))

            // On the 28th the bank says 1,250.00, pots included: 250.00 more than the ledger holds then.
            let reset = try ledger.setReferenceBalance(amount: usd("1250.00"))
            guard let recorded = try #require(reset.events.first).body.as(ReferenceBalanceSet.self) else {
                Issue.record("the reset recorded \(reset.events)")
                return
            }
            #expect(recorded.adjustment == usd("250.00"))
            let untracked = try ledger.balances().first { $0.account == LedgerAccounts.untracked }?.amount
            #expect(untracked == usd("-1250.00"))

            let twentyEighth = ledger.calendar.endOfDay(day("2026-05-28"))
            let onTheDay = try ledger.budgetOverview(month: month("2026-05"), asOf: twentyEighth)
            #expect(onTheDay.currentBalance == usd("1050.00"))
            #expect(onTheDay.heldInPots == usd("200.00"))
            let monthEnd = try ledger.budgetOverview(month: month("2026-05"), asOf: ledger.calendar.endOfDay(day("2026-05-31")))
            #expect(monthEnd.currentBalance == usd("2650.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func aResetWithNothingLaterMovesTheDifference() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setReferenceBalance(amount: usd("300.00"))
            try ledger.recordTransaction(payee: "Shop", category: .shopping, amount: usd("-20.00"), date: day("2026-05-19"))
            let reset = try ledger.setReferenceBalance(amount: usd("280.00"))
            #expect(reset.events.isEmpty == false)
            #expect(try ledger.budgetOverview(month: month("2026-05")).currentBalance == usd("280.00"))
            try ledger.setReferenceBalance(amount: usd("250.00"))
            #expect(try ledger.budgetOverview(month: month("2026-05")).currentBalance == usd("250.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func aVersionOneResetReplaysAsVersionOneMeasuredIt() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.recordTransaction(payee: "Later", category: .bills, amount: usd("-40.00"), date: day("2026-05-30"))
            try ledger.appendEvents([NewEvent(effectiveAt: ledger.now, body: ReferenceBalanceSetV1(amount: usd("100.00")).upcastBody())])
            // Version 1 counted the bill dated the 30th: Current is moved to 140.00 now.
            #expect(try ledger.budgetOverview(month: month("2026-05"), asOf: ledger.calendar.endOfDay(day("2026-05-20"))).currentBalance
                    == usd("140.00"))
            try ledger.expectConsistent()
        }
    }
}
