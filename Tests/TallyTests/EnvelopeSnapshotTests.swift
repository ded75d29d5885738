import Foundation
import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

/// Envelope answers resume from compressed snapshots of every envelope's interval fold.
/// Whatever the interval, every answer equals a fold of the whole log from scratch, as
/// known at any instant, through backdated events, amendments and deletions.
@Suite struct EnvelopeSnapshotTests {
    @Test func boundariesFallOnTheIntervalsDaysWhereverTheRangeStarts() throws {
        let monthly = SnapshotInterval.months(1).boundaries(after: nil, from: day("2026-01-15"), through: day("2026-04-29"))
        #expect(monthly == [day("2026-01-31"), day("2026-02-28"), day("2026-03-31")])
        let quarterly = SnapshotInterval.months(3).boundaries(after: nil, from: day("2025-11-02"), through: day("2026-09-30"))
        #expect(quarterly == [day("2025-12-31"), day("2026-03-31"), day("2026-06-30"), day("2026-09-30")])
        let weekly = SnapshotInterval.days(7).boundaries(after: day("2026-03-01"), from: day("2026-01-01"), through: day("2026-03-31"))
        #expect(weekly.count == 4 && weekly.allSatisfy { ($0.daysSinceEpoch + 1) % 7 == 0 } && weekly.first! > day("2026-03-01"))
        #expect(SnapshotInterval.never.boundaries(after: nil, from: day("2026-01-01"), through: day("2026-12-31")).isEmpty)
        #expect(SnapshotInterval.days(1).boundaries(after: day("2026-03-31"), from: day("2026-01-01"), through: day("2026-03-31")).isEmpty)
    }

    @Test func snapshotsAreTakenCompressedAndRetiredByABackdatedExpense() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-01-05T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock, snapshotInterval: .days(7))
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("5000.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            for index in 0..<12 {
                try ledger.createEnvelope("e\(index)", name: "Envelope \(index)", interval: .weekly, budgeted: usd("50.00"), startDate: day("2026-01-01"))
            }
            for week in 0..<20 {
                clock.set("2026-01-05T12:00:00Z")
                clock.advance(seconds: Int64(week) * 7 * 86_400)
                try ledger.recordEnvelopeTransaction("w\(week)", account: "Assets:Bank", amount: usd("-12.00"), envelope: "e\(week % 12)",
                                                     effectiveAt: ledger.calendar.startOfDay(day("2026-01-05").adding(days: week * 7)))
            }
            let table = EnvelopesProjector.snapshots
            let before = try ledger.read { db in try table.statistics(db) }
            #expect(before.current >= 18, "a snapshot every 7 days from the first start")
            #expect(before.count == before.current, "nothing backdated yet: none retired")
            #expect(before.storedBytes < before.stateBytes, "twelve envelopes' state compresses: \(before)")

            let knownBefore = clock.now
            let statusBefore = try ledger.envelopeStatus("e0", asOf: ledger.calendar.endOfDay(day("2026-05-20")))
            clock.advance(seconds: 3_600)
            try ledger.recordEnvelopeTransaction("late", account: "Assets:Bank", amount: usd("-30.00"), envelope: "e0", effectiveAt: ledger.calendar.startOfDay(day("2026-02-02")))
            let after = try ledger.read { db in try table.statistics(db) }
            #expect(after.count > before.count, "new snapshots from 2 February on")
            #expect(after.count - after.current >= 14, "the backdated expense retired every snapshot from 2 February on: \(after)")
            #expect(try ledger.envelopeStatus("e0", asOf: ledger.calendar.endOfDay(day("2026-05-20")), knownAt: knownBefore) == statusBefore)
            #expect(try ledger.envelopeStatus("e0", asOf: ledger.calendar.endOfDay(day("2026-05-20"))).carriedIn != statusBefore.carriedIn,
                    "the February expense carried forward into May")
            try ledger.expectAnswersMatchReplay(on: day("2026-05-20"), knownAt: knownBefore)
            try ledger.expectAnswersMatchReplay(on: day("2026-05-20"))
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func anAmendedOrDeletedEnvelopeExpenseCountsAsItsLatestVersionOnItsDate() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-04-10T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("2000.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-03-01")))
            try ledger.createEnvelope("groceries", name: "Groceries", interval: .monthly, budgeted: usd("400.00"), startDate: day("2026-03-01"))
            try ledger.recordEnvelopeTransaction("shop-1", account: "Assets:Bank", amount: usd("-120.00"), envelope: "groceries", effectiveAt: ledger.calendar.startOfDay(day("2026-03-10")))
            try ledger.recordEnvelopeTransaction("shop-2", account: "Assets:Bank", amount: usd("-80.00"), envelope: "groceries", effectiveAt: ledger.calendar.startOfDay(day("2026-03-12")))
            let firstVersion = clock.now
            #expect(try ledger.envelopeStatus("groceries", asOf: ledger.calendar.endOfDay(day("2026-03-31"))).spent == usd("200.00"))

            clock.set("2026-04-12T09:00:00Z")
            try ledger.appendEvents([
                NewEvent(effectiveAt: ledger.calendar.startOfDay(day("2026-03-10")), body: EventBody(TransactionAmended(
                    transactionId: "shop-1", payee: "", category: .general, amount: usd("-150.00"), recurring: false))),
                NewEvent(effectiveAt: clock.now, body: EventBody(TransactionDeleted(transactionId: "shop-2"))),
            ])
            let march = try ledger.envelopeStatus("groceries", asOf: ledger.calendar.endOfDay(day("2026-03-31")))
            #expect(march.spent == usd("150.00"), "the amended 150.00 replaces 120.00, the deleted 80.00 is gone")
            #expect(try ledger.envelopeStatus("groceries", asOf: ledger.calendar.endOfDay(day("2026-04-30"))).carriedIn == usd("250.00"))
            #expect(try ledger.envelopeStatus("groceries", asOf: ledger.calendar.endOfDay(day("2026-03-31")), knownAt: firstVersion).spent == usd("200.00"))
            let spending = try ledger.envelopeSpending(from: day("2026-03-01"), through: day("2026-03-31"))
            #expect(spending.map(\.transactionCount) == [1] && spending.map(\.spent) == [usd("150.00")])
            #expect(try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-03-31"))).total == usd("1850.00"))
            try ledger.expectAnswersMatchReplay(on: day("2026-03-31"))
            try ledger.expectAnswersMatchReplay(on: day("2026-03-31"), knownAt: firstVersion)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aStoreReopenedWithAnotherIntervalKeepsEveryAnswer() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-01-02T12:00:00Z")
            var ledger = try Ledger.forTesting(at: root, clock: clock, snapshotInterval: .days(3))
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("3000.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            try ledger.createEnvelope("fun", name: "Fun", interval: .weekly, budgeted: usd("40.00"), startDate: day("2026-01-01"))
            for number in 0..<30 {
                clock.advance(seconds: 3 * 86_400)
                try ledger.recordEnvelopeTransaction("x\(number)", account: "Assets:Bank", amount: usd("-9.00"), envelope: "fun",
                                                     effectiveAt: ledger.calendar.startOfDay(ledger.calendar.date(of: clock.now)))
            }
            try ledger.close()
            let beforeBackdating = clock.now
            ledger = try Ledger.open(at: root, options: Ledger.Options(clock: clock.function, syncMode: .none, snapshotInterval: .months(1), features: standardFeatures))
            clock.advance(seconds: 3_600)
            try ledger.recordEnvelopeTransaction("late", account: "Assets:Bank", amount: usd("-25.00"), envelope: "fun", effectiveAt: ledger.calendar.startOfDay(day("2026-01-10")))
            for date in stride(from: 9, through: 95, by: 4).map({ day("2026-01-01").adding(days: $0) }) {
                try ledger.expectAnswersMatchReplay(on: date, context: "after the backdated expense")
                try ledger.expectAnswersMatchReplay(on: date, knownAt: clock.now, context: "as known after it")
                try ledger.expectAnswersMatchReplay(on: date, knownAt: beforeBackdating, context: "as known before it")
            }
            try ledger.close()
        }
    }

    /// 5 random ledgers × 3 intervals × 16 (date, known-at) points × 3 answers = 720
    /// comparisons with a fold from scratch. `TALLY_SNAPSHOT_LEDGERS=N` runs N ledgers (the
    /// long form: 8 or more).
    @Test(arguments: [SnapshotInterval.days(3), .months(1), .never])
    func everyAnswerEqualsAFoldFromScratchAtAnyIntervalDateAndKnownAt(interval: SnapshotInterval) throws {
        let base = TestSeed.value(default: 20_261_121)
        let ledgers = TestScale.count("TALLY_SNAPSHOT_LEDGERS", default: 5)
        for offset in UInt64(0)..<UInt64(ledgers) {
            let seed = base &+ offset
            var random = SplitMix64(seed: seed)
            try withTemporaryStore { root in
                let clock = ManualClock("2026-01-03T12:00:00Z")
                let ledger = try Ledger.forTesting(at: root, clock: clock, snapshotInterval: interval)
                try randomEnvelopeHistory(ledger, clock: clock, random: &random)
                let start = day("2025-12-20")
                for _ in 0..<16 {
                    let date = start.adding(days: Int.random(in: 0...150, using: &random))
                    let knownAt: Instant? = Bool.random(using: &random) ? nil
                        : Instant(microsecondsSinceEpoch: try Instant(parsing: "2026-01-03T12:00:00Z").microsecondsSinceEpoch
                                  + Int64.random(in: 0...(130 * 86_400), using: &random) * 1_000_000)
                    try ledger.expectAnswersMatchReplay(on: date, knownAt: knownAt, context: "seed \(seed) (TALLY_TEST_SEED=\(base)) interval \(interval)")
                }
                try ledger.close()
            }
        }
    }

    /// Envelopes of every interval and policy, and 120 commands over four months of
    /// recorded time: expenses dated up to 40 days back, fundings, budget and policy
    /// changes, foreign expenses with and without their own rate, backdated FX rates,
    /// amendments and deletions.
    private func randomEnvelopeHistory(_ ledger: Ledger, clock: ManualClock, random: inout SplitMix64) throws {
        try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("9000.00"), effectiveAt: ledger.calendar.startOfDay(day("2025-12-01")))
        try ledger.openEnvelopeAccount("Assets:Cash", commodity: .eur, openingBalance: Money(parsing: "800.00", commodity: .eur), effectiveAt: ledger.calendar.startOfDay(day("2025-12-01")))
        let intervals: [EnvelopeInterval] = [.weekly, .biweekly, .monthly, .oneTime]
        let policies: [RolloverPolicy] = [.reset, .carryForward, .takeFromToAssign]
        for (index, interval) in intervals.enumerated() {
            try ledger.createEnvelope("e\(index)", name: "Envelope \(index)", interval: interval,
                                      budgeted: Money(minorUnits: Int64.random(in: 5_000...60_000, using: &random), commodity: .usd),
                                      startDate: day("2025-12-01").adding(days: Int.random(in: 0...20, using: &random)))
        }
        var recorded: [String] = []
        for number in 0..<120 {
            clock.advance(seconds: Int64.random(in: 3_600...86_400, using: &random))
            let today = ledger.calendar.date(of: clock.now)
            let date = today.adding(days: -Int.random(in: 0...40, using: &random))
            let envelope = "e\(Int.random(in: 0..<4, using: &random))"
            do {
                switch Int.random(in: 0..<14, using: &random) {
                case 0: try ledger.setEnvelopeRollover(envelope, policy: policies.randomElement(using: &random)!, effectiveAt: ledger.calendar.startOfDay(date))
                case 1: try ledger.changeEnvelopeBudget(envelope, budgeted: Money(minorUnits: Int64.random(in: 0...60_000, using: &random), commodity: .usd),
                                                        interval: intervals.randomElement(using: &random)!, effectiveAt: ledger.calendar.startOfDay(date))
                case 2: try ledger.fundEnvelope(envelope, amount: Money(minorUnits: Int64.random(in: 1...5_000, using: &random), commodity: .usd), effectiveAt: ledger.calendar.startOfDay(date))
                case 3: try ledger.recordEnvelopeTransaction("t\(number)", account: "Assets:Cash",
                                                             amount: Money(minorUnits: -Int64.random(in: 1...9_999, using: &random), commodity: .eur),
                                                             rateToBase: Bool.random(using: &random) ? rate("1.0\(Int.random(in: 10...99, using: &random))") : nil,
                                                             envelope: envelope, effectiveAt: ledger.calendar.startOfDay(date))
                    recorded.append("t\(number)")
                case 4: try ledger.setFXRate(base: .eur, quote: .usd, rate: rate("1.\(Int.random(in: 1_000...2_999, using: &random))"),
                                             effectiveAt: ledger.calendar.startOfDay(date))
                case 5 where !recorded.isEmpty:
                    let id = recorded.remove(at: Int.random(in: 0..<recorded.count, using: &random))
                    try ledger.appendEvents([NewEvent(effectiveAt: clock.now, body: EventBody(TransactionDeleted(transactionId: id)))])
                case 6 where !recorded.isEmpty:
                    let id = recorded[Int.random(in: 0..<recorded.count, using: &random)]
                    try ledger.appendEvents([NewEvent(effectiveAt: ledger.calendar.startOfDay(date), body: EventBody(TransactionAmended(
                        transactionId: id, payee: "", category: .general,
                        amount: Money(minorUnits: -Int64.random(in: 1...9_999, using: &random), commodity: id.hasPrefix("u") ? .usd : .eur),
                        recurring: false)))])
                default:
                    try ledger.recordEnvelopeTransaction("u\(number)", account: "Assets:Bank",
                                                         amount: Money(minorUnits: Int64.random(in: -9_999...2_000, using: &random), commodity: .usd),
                                                         envelope: envelope, effectiveAt: ledger.calendar.startOfDay(date))
                    recorded.append("u\(number)")
                }
            } catch let error as LedgerError {
                // A refused command appends nothing (a zero amount, no rate known yet): the story goes on.
                _ = error
            }
        }
    }
}
