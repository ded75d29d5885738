import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 15, wrong today 1, for pots: a withdrawal needs that much in the pot at its own
/// time and at every later time the pot changes. A household imported next month's planned
/// pot moves (a withdrawal of 90.00 on 10 June, a refill of 100.00 on 20 June); today's
/// withdrawal of 20.00 fits the pot's total at the end, but would leave it at -10.00 on
/// 10 June: refused, naming that day.
@Suite struct PotEffectiveDateTests {
    @Test func aWithdrawalThatALaterPlannedWithdrawalNeedsIsRefusedNamingTheDay() throws {
        try withBudgetLedger { ledger, _ in
            try ledger.setReferenceBalance(amount: usd("1000.00"))
            try ledger.createPot(id: "holiday", name: "Holiday", target: usd("500.00"))
            try ledger.addToPot(id: "holiday", amount: usd("100.00"))
            let june10 = ledger.calendar.startOfDay(day("2026-06-10"))
            let june20 = ledger.calendar.startOfDay(day("2026-06-20"))
            try ledger.appendEvents([
                NewEvent(effectiveAt: june10, body: EventBody(PotWithdrawn(potId: "holiday", amount: usd("90.00")))),
                NewEvent(effectiveAt: june20, body: EventBody(PotFunded(potId: "holiday", amount: usd("100.00")))),
            ])
            #expect(try ledger.pot(id: "holiday")?.total == usd("110.00"))
            let head = ledger.head
            #expect { try ledger.withdrawFromPot(id: "holiday", amount: usd("20.00")) } throws: { error in
                guard let error = error as? LedgerError else { return false }
                return error.code == .insufficientFunds && error.message.contains("2026-06-10")
            }
            #expect(ledger.head == head)
            // What the pot can spare through 10 June, it gives.
            try ledger.withdrawFromPot(id: "holiday", amount: usd("10.00"))
            #expect(try ledger.pot(id: "holiday")?.total == usd("100.00"))
            try ledger.expectConsistent()
        }
    }
}
