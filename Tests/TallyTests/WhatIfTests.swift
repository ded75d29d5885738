import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// The what-if projection (docs/domain.md §3): a pure function of the state at a date.
@Suite struct WhatIfTests {
    private func plan(balance: String = "0.00", monthly: String = "100.00", extra: String = "0.00", oneTime: String = "0.00",
                      goal: String, horizon: Int = 120) -> WhatIfPlan {
        WhatIfPlan(startDate: day("2026-01-31"), startBalance: usd(balance), monthlySaving: usd(monthly), extraMonthly: usd(extra),
                   oneTime: usd(oneTime), goal: usd(goal), horizonMonths: horizon)
    }

    @Test func aGoalThatMonthlySavingsReachInMonth14ReportsMonth14() throws {
        let projection = try WhatIf.project(plan(goal: "1400.00"))
        #expect(projection.reachedMonth == 14)
        #expect(projection.reachedDate == day("2027-03-31"))
        #expect(projection.series.count == 15)
        #expect(projection.series[13].balance == usd("1300.00"))
        #expect(projection.series[14].balance == usd("1400.00"))
        // One cent more is month 15.
        #expect(try WhatIf.project(plan(goal: "1400.01")).reachedMonth == 15)
    }

    @Test func theExtraMonthlyAmountAndTheOneTimeContributionBringTheGoalCloser() throws {
        #expect(try WhatIf.project(plan(extra: "40.00", goal: "1400.00")).reachedMonth == 10)   // 140 a month
        #expect(try WhatIf.project(plan(oneTime: "500.00", goal: "1400.00")).reachedMonth == 9)
        #expect(try WhatIf.project(plan(balance: "900.00", oneTime: "500.00", goal: "1400.00")).reachedMonth == 0)
        // Month-ends clamp to shorter months: 31 January, 28 February, 31 March.
        let series = try WhatIf.project(plan(goal: "300.00")).series.map(\.date)
        #expect(series == [day("2026-01-31"), day("2026-02-28"), day("2026-03-31"), day("2026-04-30")])
    }

    @Test func aGoalOutOfReachIsReportedAsNotWithinTheHorizon() throws {
        let projection = try WhatIf.project(plan(goal: "1000000.00", horizon: 24))
        #expect(projection.reachedMonth == nil)
        #expect(projection.reachedDate == nil)
        #expect(projection.series.count == 25)
        #expect(try WhatIf.project(plan(monthly: "-10.00", goal: "1.00")).reachedMonth == nil)
        #expect(throws: LedgerError.self) { try WhatIf.project(plan(goal: "1.00", horizon: 0)) }
        #expect(throws: LedgerError.self) {
            try WhatIf.project(WhatIfPlan(startDate: day("2026-01-01"), startBalance: gbp("0.00"), monthlySaving: usd("1.00"),
                                          extraMonthly: usd("0.00"), oneTime: usd("0.00"), goal: usd("1.00"), horizonMonths: 12))
        }
    }

    @Test func fromTheLedgerTheMonthlySavingComesFromTheLastThreeMonthsAndNothingIsRecorded() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-08-01T12:00:00Z"))
            try ledger.openEnvelopeAccount("Assets:Savings", commodity: .usd, openingBalance: usd("1000.00"), effectiveAt: ledger.calendar.startOfDay(day("2025-10-01")))
            // Savings grew by 100, 120 and 110 in April, May and June: 110 a month.
            for (number, (date, amount)) in [("2026-04-10", "100.00"), ("2026-05-10", "120.00"), ("2026-06-10", "110.00"), ("2026-07-05", "10.00")].enumerated() {
                try ledger.recordEnvelopeTransaction("s\(number)", account: "Assets:Savings", amount: usd(amount), payee: "Saving", effectiveAt: ledger.calendar.startOfDay(day(date)))
            }
            let head = ledger.head
            let projection = try ledger.whatIf(goal: usd("2500.00"), account: "Assets:Savings", extraMonthly: usd("40.00"), on: day("2026-07-15"))
            #expect(projection.plan.startBalance == usd("1340.00"))
            #expect(projection.plan.monthlySaving == usd("110.00"))
            // 1340 + 150 a month: 2540 after 8 months.
            #expect(projection.reachedMonth == 8)
            #expect(projection.reachedDate == day("2027-03-15"))
            // Asked at a past date, the state then: 1100.00, saving 33.33 a month (100 over three months).
            let earlier = try ledger.whatIf(goal: usd("2500.00"), on: day("2026-04-30"))
            #expect(earlier.plan.startBalance == usd("1100.00"))
            #expect(earlier.plan.monthlySaving == usd("0.00"))   // January to March saved nothing
            let june = try ledger.whatIf(goal: usd("2500.00"), on: day("2026-06-01"))
            #expect(june.plan.monthlySaving == usd("73.33"))     // 220 over February to May, half-even
            // The same projection from a full replay of the log to that date.
            let events = try ledger.loggedEvents()
            func replayed(_ date: LocalDate) throws -> Money {
                let book = try EnvelopeBook.folding(events, effectiveThrough: ledger.calendar.endOfDay(date))
                return try book.total(balances: book.foldedBalances, at: ledger.calendar.endOfDay(date)).total
            }
            let reference = try WhatIf.project(WhatIfPlan(
                startDate: day("2026-07-15"), startBalance: try replayed(day("2026-07-15")),
                monthlySaving: try WhatIf.monthlySaving(from: try replayed(day("2026-03-31")), to: try replayed(day("2026-06-30")), months: 3),
                extraMonthly: usd("40.00"), oneTime: usd("0.00"), goal: usd("2500.00"), horizonMonths: 120
            ))
            #expect(reference == projection)
            #expect(ledger.head == head)
            #expect { try ledger.whatIf(goal: usd("1.00"), account: "Assets:Nowhere") } throws: { ($0 as? LedgerError)?.code == .notFound }
            try ledger.expectConsistent()
            try ledger.close()
        }
    }
}
