import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// "As of a date" is the whole of that day in the ledger's time zone, and an audit's
/// running balance ends where `balances` does.
struct TimeTravelTests {
    /// London is on summer time (UTC+1) from 29 March 2026: 23:30 on 31 March is 22:30 UTC,
    /// and 00:30 on 1 April is 23:30 UTC on 31 March — a UTC day would get both wrong.
    @Test func anEventAt2330LocalOn31MarchCountsAsOf31MarchInLondon() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-04-02T10:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock, baseCurrency: .gbp, timeZone: "Europe/London")
            defer { try? ledger.close() }
            func entry(_ at: String, _ amount: String) throws -> NewEvent {
                NewEvent(effectiveAt: try Instant(parsing: at), body: EventBody(
                    JournalEntryPosted(account: "Assets:Bank", counterAccount: "Income:Salary", amount: gbp(amount))))
            }
            try ledger.appendEvents([try entry("2026-03-31T22:30:00Z", "10.00"), try entry("2026-03-31T23:30:00Z", "5.00")])
            let march31 = ledger.calendar.endOfDay(day("2026-03-31"))
            let march30 = ledger.calendar.endOfDay(day("2026-03-30"))
            let april1 = ledger.calendar.endOfDay(day("2026-04-01"))
            func bank(_ asOf: Instant) throws -> Money? { try ledger.balances(asOf: asOf).first { $0.account == "Assets:Bank" }?.amount }
            #expect(try bank(march30) == nil)
            #expect(try bank(march31) == gbp("10.00"))
            #expect(try bank(april1) == gbp("15.00"))
            #expect(try ledger.replay(until: march31).balances.first { $0.account == "Assets:Bank" }?.amount == gbp("10.00"))
            try ledger.expectConsistent()
        }
    }

    /// New York: 23:30 on 31 March is 03:30 UTC on 1 April, and still counts for 31 March.
    @Test func anEventAt2330LocalOn31MarchCountsAsOf31MarchInNewYork() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-04-02T10:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock, timeZone: "America/New_York")
            defer { try? ledger.close() }
            try ledger.appendEvents([NewEvent(effectiveAt: try Instant(parsing: "2026-04-01T03:30:00Z"), body: EventBody(
                JournalEntryPosted(account: "Assets:Bank", counterAccount: "Income:Salary", amount: usd("7.00"))))])
            #expect(try ledger.balances(asOf: ledger.calendar.endOfDay(day("2026-03-31"))).first { $0.account == "Assets:Bank" }?.amount == usd("7.00"))
            #expect(try ledger.balances(asOf: ledger.calendar.endOfDay(day("2026-03-30"))).isEmpty)
            try ledger.expectConsistent()
        }
    }

    /// An amended transaction and a pot: each audit's last running balance is the balance
    /// `balances` prints, per account, now and as of a past day.
    @Test func anAuditsRunningBalanceEndsAtTheBalanceThatBalancesPrints() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T09:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            try ledger.setReferenceBalance(amount: usd("1000.00"))
            let rent = try ledger.recordTransaction(payee: "Landlord", category: .bills, amount: usd("-600.00"), date: day("2026-05-01"))
            try ledger.createPot(id: "holiday", target: usd("500.00"))
            clock.advance(seconds: 86_400)
            try ledger.addToPot(id: "holiday", amount: usd("150.00"))
            clock.advance(seconds: 86_400)
            try ledger.amendTransaction(id: rent.transactionId!, amount: usd("-650.00"))
            try ledger.withdrawFromPot(id: "holiday", amount: usd("25.00"))
            for asOf in [nil, ledger.calendar.endOfDay(day("2026-05-02"))] as [Instant?] {
                let balances = try ledger.balances(asOf: asOf)
                for account in ["Budget:Current", "Expenses:Bills", LedgerAccounts.pot("holiday")] {
                    let audit = try ledger.audit(account: account, through: asOf.map(ledger.calendar.date(of:)))
                    let printed = balances.first { $0.account == account }?.amount
                    #expect(audit.last?.balance == printed, "\(account) as of \(String(describing: asOf))")
                }
            }
            #expect(try ledger.audit(account: "Expenses:Bills").count == 3, "the original, its reversal and the amended version")
            #expect(try ledger.pots().first?.total == usd("125.00"))
            try ledger.expectConsistent()
        }
    }
}
