import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// The interval arithmetic of envelopes, exhaustively over small ranges.
@Suite struct EnvelopeScheduleTests {
    @Test(arguments: [EnvelopeInterval.weekly, .biweekly])
    func weeksAreAnchoredAtTheStartDateForEveryStartAndDay(interval: EnvelopeInterval) {
        let length = interval == .weekly ? 7 : 14
        for startOffset in 0..<21 {
            let start = day("2026-01-01").adding(days: startOffset)
            let schedule = EnvelopeSchedule(start: start, interval: interval)
            for offset in 0..<100 {
                let date = start.adding(days: offset)
                let period = schedule.period(containing: date)
                let first = start.adding(days: offset / length * length)
                #expect(period == EnvelopePeriod(first: first, last: first.adding(days: length - 1)), "start \(start), date \(date)")
            }
            #expect(schedule.period(containing: start.adding(days: -1)) == nil)
        }
    }

    @Test func monthsAreCalendarMonthsAndTheFirstStartsOnTheStartDate() {
        let schedule = EnvelopeSchedule(start: day("2026-01-15"), interval: .monthly)
        #expect(schedule.period(containing: day("2026-01-20")) == EnvelopePeriod(first: day("2026-01-15"), last: day("2026-01-31")))
        #expect(schedule.period(containing: day("2026-02-28")) == EnvelopePeriod(first: day("2026-02-01"), last: day("2026-02-28")))
        #expect(schedule.period(containing: day("2028-02-29")) == EnvelopePeriod(first: day("2028-02-01"), last: day("2028-02-29")))
        let periods = schedule.periods(through: day("2026-12-31"))
        #expect(periods.count == 12)
        // Consecutive, without gaps or overlaps.
        for (earlier, later) in zip(periods, periods.dropFirst()) { #expect(earlier.last!.adding(days: 1) == later.first) }
    }

    @Test func aOneTimeEnvelopeHasOneIntervalForever() {
        let schedule = EnvelopeSchedule(start: day("2026-03-01"), interval: .oneTime)
        #expect(schedule.period(containing: day("2099-12-31")) == EnvelopePeriod(first: day("2026-03-01"), last: nil))
        #expect(schedule.periods(through: day("2030-01-01")).count == 1)
    }

    @Test func changingTheIntervalReanchorsOnTheDayOfTheChange() {
        var schedule = EnvelopeSchedule(start: day("2026-01-01"), interval: .monthly)
        schedule.change(to: .weekly, from: day("2026-03-18"))
        #expect(schedule.period(containing: day("2026-03-10")) == EnvelopePeriod(first: day("2026-03-01"), last: day("2026-03-17")))
        #expect(schedule.period(containing: day("2026-03-18")) == EnvelopePeriod(first: day("2026-03-18"), last: day("2026-03-24")))
        #expect(schedule.period(containing: day("2026-03-26")) == EnvelopePeriod(first: day("2026-03-25"), last: day("2026-03-31")))
        // The same interval again changes nothing; a change before the start replaces the first.
        schedule.change(to: .weekly, from: day("2026-04-02"))
        #expect(schedule.period(containing: day("2026-04-02")) == EnvelopePeriod(first: day("2026-04-01"), last: day("2026-04-07")))
        schedule.change(to: .biweekly, from: day("2025-12-01"))
        #expect(schedule.period(containing: day("2026-01-16")) == EnvelopePeriod(first: day("2026-01-15"), last: day("2026-01-28")))
    }

    @Test(arguments: [RolloverPolicy.reset, .carryForward, .takeFromToAssign])
    func theRolloverRuleMovesTheWholeRemainderSomewhere(policy: RolloverPolicy) throws {
        for cents: Int64 in [-500, -1, 0, 1, 500] {
            let remaining = Money(minorUnits: cents, commodity: .usd)
            let carry = try EnvelopeRollover.carry(remaining: remaining, policy: policy)
            #expect(!carry.takenFromToAssign.isNegative)
            switch policy {
            case .reset: #expect(carry.carried.isZero)
            case .carryForward: #expect(carry.carried == remaining)
            case .takeFromToAssign: #expect(carry.carried.minorUnits == max(cents, 0))
            }
            if cents < 0 && policy != .carryForward { #expect(carry.takenFromToAssign.minorUnits == -cents) }
        }
    }
}
