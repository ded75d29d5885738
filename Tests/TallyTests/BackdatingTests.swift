import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// A correction recorded today for last March changes "as of March" from the moment it is
/// recorded, and never what the ledger said about March at earlier instants.
struct BackdatingTests {
    @Test func aCorrectionRecordedTodayForLastMarchChangesMarchFromNowOnOnly() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-10T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock, timeZone: "Europe/London")
            defer { try? ledger.close() }
            try ledger.appendEvents([NewEvent(effectiveAt: clock.now, body: EventBody(
                JournalEntryPosted(account: "Assets:Bank", counterAccount: "Income:Salary", amount: usd("1000.00"))))])
            let groceries = try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-50.00"), date: day("2026-03-15"))
            let endOfMarch = ledger.calendar.endOfDay(day("2026-03-31"))
            let firstOfApril = try Instant(parsing: "2026-04-01T00:00:00Z")

            // Today, 5 April: a bank fee of 20 March found late, and the March groceries were 80, not 50.
            clock.set("2026-04-05T09:00:00Z")
            let correction = try ledger.appendEvents([NewEvent(
                effectiveAt: ledger.calendar.startOfDay(day("2026-03-20")),
                body: EventBody(JournalEntryPosted(account: "Assets:Bank", counterAccount: "Expenses:Fees", amount: usd("-200.00"))))])
            try ledger.amendTransaction(id: groceries.transactionId!, amount: usd("-80.00"))
            let justBefore = Instant(microsecondsSinceEpoch: correction.events[0].recordedAt.microsecondsSinceEpoch - 1)

            func balance(_ account: String, knownAt: Instant?) throws -> Money? {
                try ledger.balances(asOf: endOfMarch, knownAt: knownAt).first { $0.account == account }?.amount
            }
            // From now on, March shows the corrections…
            #expect(try balance("Assets:Bank", knownAt: nil) == usd("800.00"))
            #expect(try balance("Expenses:Fees", knownAt: nil) == usd("200.00"))
            #expect(try balance("Expenses:Groceries", knownAt: nil) == usd("80.00"))
            // …and what the ledger said about March before it learned of them is unchanged.
            for earlier in [firstOfApril, justBefore] {
                #expect(try balance("Assets:Bank", knownAt: earlier) == usd("1000.00"))
                #expect(try balance("Expenses:Fees", knownAt: earlier) == nil)
                #expect(try balance("Expenses:Groceries", knownAt: earlier) == usd("50.00"))
            }
            // The replay of the log says the same, both ways.
            #expect(try ledger.replay(until: endOfMarch).balances == ledger.balances(asOf: endOfMarch))
            #expect(try ledger.replay(until: endOfMarch, knownAt: firstOfApril).balances == ledger.balances(asOf: endOfMarch, knownAt: firstOfApril))
            // The amendment's reversal is dated 15 March, so even "as known now, as of 16 March" shows 80.
            #expect(try ledger.balances(asOf: ledger.calendar.endOfDay(day("2026-03-16"))).first { $0.account == "Expenses:Groceries" }?.amount == usd("80.00"))
            try ledger.expectConsistent()
        }
    }
}
