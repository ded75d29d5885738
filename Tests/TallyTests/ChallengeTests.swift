import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Savings challenges as a user meets them (docs/domain.md §3).
@Suite struct ChallengeTests {
    @Test func theTemplatesAreATableAndThe52WeekOneSaves1378Units() throws {
        let template = try #require(ChallengeTemplate.named("52_week"))
        #expect(template.stepCount == 52)
        #expect(try template.amount(ofStep: 10, unit: usd("1.00")) == usd("10.00"))
        #expect(try template.total(unit: usd("1.00")) == usd("1378.00"))
        #expect(try ChallengeTemplate.named("reverse_52_week")!.total(unit: usd("1.00")) == usd("1378.00"))
        #expect(try ChallengeTemplate.named("fixed_weekly")!.total(unit: usd("5.00")) == usd("260.00"))
        #expect(Set(ChallengeTemplate.all.map(\.id)).count == ChallengeTemplate.all.count)
    }

    @Test func the52WeekChallengeCompletesWith1378UnitsSaved() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2027-06-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("2000.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            try ledger.openEnvelopeAccount("Assets:Savings", commodity: .usd, effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            try ledger.startChallenge("save", template: "52_week", unit: usd("1.00"), account: "Assets:Savings", effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            for week in 1...52 {
                let result = try ledger.completeChallengeStep("save", from: "Assets:Bank", effectiveAt: ledger.calendar.startOfDay(day("2026-01-01").adding(days: 7 * (week - 1))))
                #expect(result.events.count == 2)
                #expect(result.events[1].cause == result.events[0].sequence)
            }
            let progress = try ledger.challengeProgress("save", asOf: ledger.calendar.endOfDay(day("2026-12-31")))
            #expect(progress.isComplete)
            #expect(progress.saved == usd("1378.00"))
            #expect(progress.remaining == usd("0.00"))
            #expect(progress.nextStep == nil)
            // The savings moved: the bank paid them, the savings account holds them.
            let total = try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-12-31")))
            #expect(total.lines.map(\.amount) == [usd("622.00"), usd("1378.00")])
            // Halfway through the year, progress is what the first 26 weeks saved.
            let halfway = try ledger.challengeProgress("save", asOf: ledger.calendar.endOfDay(day("2026-06-28")))
            #expect(halfway.completedSteps == Array(1...26))
            #expect(halfway.saved == usd("351.00"))
            #expect(halfway.nextStep == 27)
            #expect { try ledger.completeChallengeStep("save", from: "Assets:Bank") } throws: { ($0 as? LedgerError)?.code == .notAllowed }
            for date in ["2025-12-31", "2026-01-01", "2026-06-28", "2026-12-31"] { try ledger.expectAnswersMatchReplay(on: day(date)) }
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aStepIsRefusedWhenDoneAlreadyOutOfRangeOrNotCovered() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("5.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            try ledger.openEnvelopeAccount("Assets:Savings", commodity: .usd, effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            try ledger.startChallenge("c", template: "52_week", unit: usd("1.00"), account: "Assets:Savings", effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            try ledger.startChallenge("tally-only", template: "fixed_monthly", unit: usd("50.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            let head = ledger.head
            #expect { try ledger.completeChallengeStep("c", step: 6, from: "Assets:Bank") } throws: { ($0 as? LedgerError)?.code == .insufficientFunds }
            #expect { try ledger.completeChallengeStep("c", step: 53, from: "Assets:Bank") } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            #expect { try ledger.completeChallengeStep("c", step: 1) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            #expect { try ledger.completeChallengeStep("nope") } throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect { try ledger.startChallenge("c", template: "52_week", unit: usd("1.00")) } throws: { ($0 as? LedgerError)?.code == .alreadyExists }
            #expect { try ledger.startChallenge("d", template: "53_week", unit: usd("1.00")) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            #expect(ledger.head == head)
            try ledger.completeChallengeStep("c", step: 5, from: "Assets:Bank", effectiveAt: ledger.calendar.startOfDay(day("2026-02-01")))
            #expect { try ledger.completeChallengeStep("c", step: 5, from: "Assets:Bank") } throws: { ($0 as? LedgerError)?.code == .alreadyExists }
            // A challenge without an account only counts its steps.
            #expect(try ledger.completeChallengeStep("tally-only", effectiveAt: ledger.calendar.startOfDay(day("2026-02-01"))).events.count == 1)
            let progress = try ledger.challengeProgress("tally-only", asOf: ledger.calendar.endOfDay(day("2026-02-01")))
            #expect(progress.saved == usd("50.00"))
            #expect(progress.target == usd("600.00"))
            #expect(try ledger.challengeProgress("c").nextStep == 1)
            try ledger.expectAnswersMatchReplay(on: day("2026-02-01"))
            try ledger.expectConsistent()
            try ledger.close()
        }
    }
}
