import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// A bulk `append` costs O(1) per event in date order (issue 34, item 13): an admission reads
/// no later legs of a balance when nothing is effective after the event, and still refuses a
/// backdated event that would overdraw one recorded after it.
///
/// The work is counted (``WritePipeline/admissionScans``), not timed: the timings are in
/// `Benchmarks/` ("Append: N wealth deposits").
@Suite struct BulkAppendTests {
    private func deposits(_ count: Int, from start: Instant, stepSeconds: Int64) -> [NewEvent] {
        (0..<count).flatMap { index -> [NewEvent] in
            let at = Instant(microsecondsSinceEpoch: start.microsecondsSinceEpoch + Int64(index) * stepSeconds * 1_000_000)
            return [
                NewEvent(effectiveAt: at, body: EventBody(DepositReceived(account: "main", amount: usd("100.00"), source: .bankTransfer))),
                NewEvent(effectiveAt: at, cause: .earlierInBatch(2 * index), body: EventBody(DepositSplit(
                    account: "main", spend: usd("70.00"), invest: usd("30.00"), spendWeight: 70, investWeight: 30))),
            ]
        }
    }

    @Test func depositsInDateOrderReadNoLaterLegs() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T09:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            // All on one day, a second apart: before, each admission read every leg of the day.
            let events = deposits(600, from: clock.now, stepSeconds: 1)
            let scansBefore = ledger.pipeline.admissionScans.load(ordering: .relaxed)
            try ledger.appendEvents(events)
            #expect(ledger.pipeline.admissionScans.load(ordering: .relaxed) == scansBefore,
                    "events in date order read later legs of a balance")
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend == usd("42000.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func aBackdatedWithdrawalInTheSameAppendStillCannotOverdrawALaterOne() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T09:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            let start = clock.now
            var events = deposits(3, from: start, stepSeconds: 3_600)
            let late = Instant(microsecondsSinceEpoch: start.microsecondsSinceEpoch + 4 * 3_600_000_000)
            // Spend holds 210.00 from the third deposit on; 200.00 goes at the end, then 20.00
            // backdated to before the third deposit, where Spend held 140.00: later, 10.00 short.
            events.append(NewEvent(effectiveAt: late, body: EventBody(WithdrawalMade(account: "main", amount: usd("200.00")))))
            let backdated = Instant(microsecondsSinceEpoch: start.microsecondsSinceEpoch + 3_600_000_000)
            events.append(NewEvent(effectiveAt: backdated, body: EventBody(WithdrawalMade(account: "main", amount: usd("20.00")))))
            let head = ledger.head
            #expect { try ledger.appendEvents(events) } throws: { error in
                guard let error = error as? LedgerError else { return false }
                return error.code == .insufficientFunds && error.message.contains("event 8 (withdrawal_made)")
            }
            #expect(ledger.head == head, "nothing appended")
            // Without the backdated one the same file is admissible.
            try ledger.appendEvents(Array(events.dropLast()))
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend == usd("10.00"))
            try ledger.expectConsistent()
        }
    }
}
