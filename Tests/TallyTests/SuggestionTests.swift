import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

@Suite struct SuggestionTests {
    @Test func aBudgetIsSuggestedFromTheAverageOfRecentCompleteMonthsPlusAMargin() throws {
        try withBudgetLedger(at: "2026-07-10T16:00:00Z") { ledger, _ in
            // Groceries: 300, 360 and 330 in March, April and May; nothing in June.
            for (date, amount) in [("2026-03-04", "-300.00"), ("2026-04-09", "-360.00"), ("2026-05-15", "-330.00")] {
                try ledger.recordTransaction(payee: "Green Grocer", category: .groceries, amount: usd(amount), date: day(date))
            }
            try ledger.recordTransaction(payee: "Cinema", category: .entertainment, amount: usd("-40.00"), date: day("2026-06-20"))
            try ledger.recordTransaction(payee: "Acme", category: .general, amount: usd("3200.00"), date: day("2026-06-25"))
            let suggestions = try ledger.suggestedBudgets(for: month("2026-07"))
            let groceries = try #require(suggestions.first { $0.category == .groceries })
            #expect(groceries.months.map(\.description) == ["2026-03", "2026-04", "2026-05", "2026-06"])
            #expect(groceries.averageSpend == usd("247.50"))           // 990 / 4
            #expect(groceries.suggestedMaximum == usd("273.00"))       // 272.25 rounded up to a whole unit
            #expect(suggestions.first { $0.category == .entertainment }?.averageSpend == usd("10.00"))
            #expect(suggestions.allSatisfy { $0.category != .general }, "income is not spend")
            // Only complete months before the one asked about count, and at most six.
            #expect(try ledger.suggestedBudgets(for: month("2026-05")).isEmpty, "two months of history are not enough")
            try ledger.expectConsistent()
        }
    }

    @Test func aMonthlyBillIsProposedButNothingIsRecorded() throws {
        try withBudgetLedger(at: "2026-07-10T16:00:00Z") { ledger, _ in
            for (date, amount) in [("2026-03-12", "-15.49"), ("2026-04-12", "-15.49"), ("2026-05-13", "-15.99"), ("2026-06-12", "-15.99")] {
                try ledger.recordTransaction(payee: "StreamFlix", category: .entertainment, amount: usd(amount), date: day(date))
            }
            // Same payee, but irregular: not proposed.
            for date in ["2026-03-01", "2026-03-05", "2026-05-20"] {
                try ledger.recordTransaction(payee: "Corner Deli", category: .diningOut, amount: usd("-8.00"), date: day(date))
            }
            // Monthly but the amount swings by more than 10%: not proposed.
            for (date, amount) in [("2026-03-02", "-60.00"), ("2026-04-02", "-90.00"), ("2026-05-02", "-61.00")] {
                try ledger.recordTransaction(payee: "City Power", category: .bills, amount: usd(amount), date: day(date))
            }
            let head = ledger.head
            let proposals = try ledger.proposedRecurringItems(through: day("2026-07-10"))
            #expect(proposals.map(\.payee) == ["StreamFlix"])
            #expect(proposals.first?.amount == usd("-15.99"))
            #expect(proposals.first?.dayOfMonth == 12)
            #expect(proposals.first?.category == .entertainment)
            #expect(ledger.head == head, "proposing records nothing")
            // Once accepted, it is no longer proposed.
            try ledger.defineRecurring(id: "streaming", payee: "StreamFlix", category: .entertainment, amount: usd("-15.99"),
                                       dayOfMonth: 12, startMonth: month("2026-07"))
            #expect(try ledger.proposedRecurringItems(through: day("2026-07-10")).isEmpty)
            try ledger.expectConsistent()
        }
    }
}
