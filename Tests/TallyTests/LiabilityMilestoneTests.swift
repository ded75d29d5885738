import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, "Reminders for liabilities": a household pays down a car loan and is told at
/// each payment milestone (a quarter, half, three quarters, paid off), at the payment that
/// reached it, by the same rule at any date and as known at any time.
@Suite struct LiabilityMilestoneTests {
    @Test func payingDownALoanReachesItsMilestonesInOrder() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-01-05T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addLiability(liabilityId: "car", name: "Car loan", category: .loan, currency: .usd)
            try ledger.recordValuation(itemKind: .liability, itemId: "car", value: usd("12000.00"), source: .manual)
            for (day, owed) in [("2026-02-05", "9500.00"), ("2026-03-05", "9000.00"), ("2026-04-05", "5999.99"), ("2026-05-05", "3100.00")] {
                clock.set(day + "T12:00:00Z")
                try ledger.recordValuation(itemKind: .liability, itemId: "car", value: usd(owed), source: .bankRefresh)
            }
            let progress = try #require(try ledger.liabilityMilestones().first)
            #expect(progress.startingAmount == usd("12000.00") && progress.owed == usd("3100.00"))
            #expect(progress.paidBasisPoints == 7_416)  // 8,900 of 12,000 = 74.1666…%, rounded down
            // 25% (owe 9,000.00 or less) on 5 March; 50% (6,000.00) on 5 April, by 0.01.
            #expect(progress.milestones.map(\.percent) == [25, 50])
            #expect(progress.milestones.map { ledger.calendar.date(of: $0.reachedAt) } == [day("2026-03-05"), day("2026-04-05")])
            #expect(progress.next?.percent == 75 && progress.next?.owedAtMost == usd("3000.00") && progress.next?.leftToPay == usd("100.00"))

            let notes = try ledger.notifications(kinds: [.liabilityMilestone])
            #expect(notes.map(\.id) == ["liability_milestone:car:25", "liability_milestone:car:50"])
            #expect(notes.last?.message == "Car loan is 50% paid off: 5999.99 USD owed of 12000.00 USD at the start.", "\(notes.last?.message ?? "")")

            // Three quarters: owing 2,900.00 is within 3,000.00; paid off is next, 2,900.00 away.
            clock.set("2026-06-05T12:00:00Z")
            try ledger.recordValuation(itemKind: .liability, itemId: "car", value: usd("2900.00"), source: .bankRefresh)
            let later = try #require(try ledger.liabilityMilestones().first)
            #expect(later.milestones.map(\.percent) == [25, 50, 75])
            #expect(later.next?.percent == 100 && later.next?.owedAtMost == usd("0.00") && later.next?.leftToPay == usd("2900.00"))
            // As of April, and as known before June's payment: the answer then.
            let april = ledger.calendar.endOfDay(day("2026-04-30"))
            #expect(try ledger.liabilityMilestones(asOf: april).first?.milestones.map(\.percent) == [25, 50])
            #expect(try ledger.notifications(asOf: april, kinds: [.liabilityMilestone]).count == 2)
            try ledger.expectConsistent()
        }
    }

    @Test func aBackdatedPaymentMovesTheMilestoneToItsDay() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-01-05T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addLiability(liabilityId: "card", name: "Card", category: .creditCard, currency: .usd,
                                    effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            try ledger.recordValuation(itemKind: .liability, itemId: "card", value: usd("400.00"), source: .manual,
                                       effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            clock.set("2026-03-01T12:00:00Z")
            let before = clock.now
            try ledger.recordValuation(itemKind: .liability, itemId: "card", value: usd("200.00"), source: .manual,
                                       effectiveAt: ledger.calendar.startOfDay(day("2026-02-10")))
            let progress = try #require(try ledger.liabilityMilestones().first)
            #expect(progress.milestones.map { "\($0.percent) \(ledger.calendar.date(of: $0.reachedAt))" } == ["25 2026-02-10", "50 2026-02-10"])
            // As the ledger knew it before the payment was entered: nothing reached yet.
            #expect(try ledger.liabilityMilestones(knownAt: Instant(microsecondsSinceEpoch: before.microsecondsSinceEpoch - 1)).first?.milestones.isEmpty == true)
        }
    }
}
