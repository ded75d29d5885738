import Foundation
import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

/// Envelope budgeting as a user meets it (docs/domain.md §3). Every answer is also checked at
/// past dates against a full replay of the log up to that date.
@Suite struct EnvelopeBudgetingTests {
    static let now = "2026-07-15T12:00:00Z"

    private func household(_ body: (Ledger, ManualClock) throws -> Void) throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.now)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("2000.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
            try body(ledger, clock)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aMonthlyGroceriesEnvelopeShowsBudgetedSpentAndRemaining() throws {
        try household { ledger, _ in
            try ledger.createEnvelope("groceries", name: "Groceries", interval: .monthly, budgeted: usd("400.00"), startDate: day("2026-05-01"))
            try ledger.recordEnvelopeTransaction("t1", account: "Assets:Bank", amount: usd("-120.50"), envelope: "groceries", payee: "Market", effectiveAt: ledger.calendar.startOfDay(day("2026-05-03")))
            try ledger.recordEnvelopeTransaction("t2", account: "Assets:Bank", amount: usd("-80.00"), envelope: "groceries", effectiveAt: ledger.calendar.startOfDay(day("2026-05-20")))
            try ledger.recordEnvelopeTransaction("t3", account: "Assets:Bank", amount: usd("10.00"), envelope: "groceries", payee: "Refund", effectiveAt: ledger.calendar.startOfDay(day("2026-05-21")))

            let early = try ledger.envelopeStatus("groceries", asOf: ledger.calendar.endOfDay(day("2026-05-10")))
            #expect(early.period == EnvelopePeriod(first: day("2026-05-01"), last: day("2026-05-31")))
            #expect(early.spent == usd("120.50"))
            #expect(early.remaining == usd("279.50"))

            let may = try ledger.envelopeStatus("groceries", asOf: ledger.calendar.endOfDay(day("2026-05-31")))
            #expect(may.budgeted == usd("400.00"))
            #expect(may.spent == usd("190.50"))
            #expect(may.remaining == usd("209.50"))
            #expect(!may.isOverBudget)

            let total = try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-05-31")))
            #expect(total.total == usd("1809.50"))
            #expect(try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-05-02"))).total == usd("2000.00"))

            for date in ["2026-04-30", "2026-05-01", "2026-05-10", "2026-05-31", "2026-06-15"] {
                try ledger.expectAnswersMatchReplay(on: day(date))
            }
        }
    }

    @Test func aJPYExpenseInAUSDLedgerCountsAtItsOwnRate() throws {
        try household { ledger, _ in
            try ledger.openEnvelopeAccount("Assets:Travel cash", commodity: .jpy, openingBalance: jpy("50000"), effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
            try ledger.createEnvelope("dining", name: "Dining out", interval: .monthly, budgeted: usd("100.00"), startDate: day("2026-05-01"))
            // 3,000 JPY at 1 JPY = 0.0067 USD is 20.10 USD.
            try ledger.recordEnvelopeTransaction("sushi", account: "Assets:Travel cash", amount: jpy("-3000"), rateToBase: rate("0.0067"),
                                                 envelope: "dining", payee: "Sushi bar", effectiveAt: ledger.calendar.startOfDay(day("2026-05-12")))
            let dining = try ledger.envelopeStatus("dining", asOf: ledger.calendar.endOfDay(day("2026-05-31")))
            #expect(dining.spent == usd("20.10"))
            #expect(dining.remaining == usd("79.90"))

            // The JPY account converts at the latest rate known at the date: the
            // transaction's own, until an fx_rate_set quotes 1 USD = 150 JPY.
            let before = try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-05-31")))
            #expect(before.total == usd("2314.90"))   // 2000.00 + 47,000 JPY × 0.0067
            #expect(before.lines.contains(.init(account: "Assets:Travel cash", kind: .asset, amount: jpy("47000"), inBase: usd("314.90"))))
            try ledger.appendEvents([NewEvent(effectiveAt: ledger.calendar.startOfDay(day("2026-06-01")),
                                              body: EventBody(FXRateSet(base: .usd, quote: .jpy, rate: rate("150"))))])
            #expect(try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-06-01"))).total == usd("2313.33"))   // 47,000 / 150 = 313.333…
            #expect(try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-05-31"))).total == usd("2314.90"))
            // The expense keeps its own rate.
            #expect(try ledger.envelopeSpending(from: day("2026-05-01"), through: day("2026-06-30")).map(\.spent) == [usd("20.10")])

            for date in ["2026-05-12", "2026-05-31", "2026-06-01"] { try ledger.expectAnswersMatchReplay(on: day(date)) }
        }
    }

    @Test func aForeignExpenseWithoutARateIsRefusedAndRecordsNothing() throws {
        try household { ledger, _ in
            try ledger.openEnvelopeAccount("Assets:Travel cash", commodity: .jpy, effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
            let head = ledger.head
            #expect { try ledger.recordEnvelopeTransaction("x", account: "Assets:Travel cash", amount: jpy("-3000"), effectiveAt: ledger.calendar.startOfDay(day("2026-05-02"))) }
                throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            #expect { try ledger.recordEnvelopeTransaction("x", account: "Assets:Bank", amount: jpy("-3000"), rateToBase: rate("0.0067")) }
                throws: { ($0 as? LedgerError)?.code == .currencyMismatch }
            #expect { try ledger.recordEnvelopeTransaction("x", account: "Assets:Bank", amount: usd("-1.00"), envelope: "nope") }
                throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect { try ledger.recordEnvelopeTransaction("x", account: "Assets:Nowhere", amount: usd("-1.00")) }
                throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect { try ledger.createEnvelope("e", name: "E", interval: .monthly, budgeted: gbp("10.00")) }
                throws: { ($0 as? LedgerError)?.code == .currencyMismatch }
            #expect { try ledger.createEnvelope("e", name: "E", interval: .monthly, budgeted: usd("0.00")) }
                throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            #expect { try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd) }
                throws: { ($0 as? LedgerError)?.code == .alreadyExists }
            #expect { try ledger.openEnvelopeAccount("Groceries", commodity: .usd) }
                throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            #expect(ledger.head == head)
            try ledger.recordEnvelopeTransaction("x", account: "Assets:Bank", amount: usd("-1.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-05-02")))
            #expect { try ledger.recordEnvelopeTransaction("x", account: "Assets:Bank", amount: usd("-1.00")) }
                throws: { ($0 as? LedgerError)?.code == .alreadyExists }
        }
    }

    @Test func spendingMoreThanTheBudgetFlagsTheEnvelopeOverBudget() throws {
        try household { ledger, _ in
            try ledger.createEnvelope("fun", name: "Fun", interval: .monthly, budgeted: usd("100.00"), startDate: day("2026-05-01"))
            try ledger.recordEnvelopeTransaction("t1", account: "Assets:Bank", amount: usd("-99.99"), envelope: "fun", effectiveAt: ledger.calendar.startOfDay(day("2026-05-05")))
            #expect(try !ledger.envelopeStatus("fun", asOf: ledger.calendar.endOfDay(day("2026-05-05"))).isOverBudget)
            try ledger.recordEnvelopeTransaction("t2", account: "Assets:Bank", amount: usd("-0.02"), envelope: "fun", effectiveAt: ledger.calendar.startOfDay(day("2026-05-06")))
            let status = try ledger.envelopeStatus("fun", asOf: ledger.calendar.endOfDay(day("2026-05-06")))
            #expect(status.isOverBudget)
            #expect(status.remaining == usd("-0.01"))
            try ledger.expectAnswersMatchReplay(on: day("2026-05-05"))
            try ledger.expectAnswersMatchReplay(on: day("2026-05-06"))
        }
    }

    @Test func byDefaultUnspentAndOverspentAmountsCarryIntoTheNextInterval() throws {
        #expect(RolloverPolicy.default == .carryForward)
        try household { ledger, _ in
            for id in ["under", "over"] {
                try ledger.createEnvelope(id, name: id, interval: .monthly, budgeted: usd("100.00"), startDate: day("2026-05-01"))
            }
            try ledger.recordEnvelopeTransaction("t1", account: "Assets:Bank", amount: usd("-60.00"), envelope: "under", effectiveAt: ledger.calendar.startOfDay(day("2026-05-10")))
            try ledger.recordEnvelopeTransaction("t2", account: "Assets:Bank", amount: usd("-130.00"), envelope: "over", effectiveAt: ledger.calendar.startOfDay(day("2026-05-10")))
            let under = try ledger.envelopeStatus("under", asOf: ledger.calendar.endOfDay(day("2026-06-01")))
            #expect(under.carriedIn == usd("40.00"))
            #expect(under.available == usd("140.00"))
            let over = try ledger.envelopeStatus("over", asOf: ledger.calendar.endOfDay(day("2026-06-01")))
            #expect(over.carriedIn == usd("-30.00"))
            #expect(over.available == usd("70.00"))
            #expect(over.takenFromToAssign == usd("0.00"))
            // Two months on, both carries have compounded: July starts from June's remainder.
            #expect(try ledger.envelopeStatus("under", asOf: ledger.calendar.endOfDay(day("2026-07-01"))).carriedIn == usd("140.00"))
            try ledger.expectAnswersMatchReplay(on: day("2026-06-01"))
            try ledger.expectAnswersMatchReplay(on: day("2026-07-01"))
        }
    }

    @Test func resetAndTakeFromToAssignTreatTheRemainderAsTheirPolicySays() throws {
        try household { ledger, _ in
            for (id, policy) in [("reset", RolloverPolicy.reset), ("ynab", .takeFromToAssign)] {
                try ledger.createEnvelope(id + "-under", name: id, interval: .monthly, budgeted: usd("100.00"), startDate: day("2026-05-01"))
                try ledger.createEnvelope(id + "-over", name: id, interval: .monthly, budgeted: usd("100.00"), startDate: day("2026-05-01"))
                try ledger.setEnvelopeRollover(id + "-under", policy: policy, effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
                try ledger.setEnvelopeRollover(id + "-over", policy: policy, effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
                try ledger.recordEnvelopeTransaction(id + "1", account: "Assets:Bank", amount: usd("-60.00"), envelope: id + "-under", effectiveAt: ledger.calendar.startOfDay(day("2026-05-10")))
                try ledger.recordEnvelopeTransaction(id + "2", account: "Assets:Bank", amount: usd("-130.00"), envelope: id + "-over", effectiveAt: ledger.calendar.startOfDay(day("2026-05-10")))
            }
            let june = day("2026-06-02")
            #expect(try ledger.envelopeStatus("reset-under", asOf: ledger.calendar.endOfDay(june)).carriedIn == usd("0.00"))
            #expect(try ledger.envelopeStatus("reset-over", asOf: ledger.calendar.endOfDay(june)).carriedIn == usd("0.00"))
            #expect(try ledger.envelopeStatus("reset-over", asOf: ledger.calendar.endOfDay(june)).takenFromToAssign == usd("30.00"))
            #expect(try ledger.envelopeStatus("ynab-under", asOf: ledger.calendar.endOfDay(june)).carriedIn == usd("40.00"))
            let over = try ledger.envelopeStatus("ynab-over", asOf: ledger.calendar.endOfDay(june))
            #expect(over.carriedIn == usd("0.00"))
            #expect(over.takenFromToAssign == usd("30.00"))
            #expect(over.available == usd("100.00"))
            #expect(over.policy == .takeFromToAssign)
            try ledger.expectAnswersMatchReplay(on: june)
        }
    }

    @Test func thePolicyInForceOnAnIntervalsLastDayDecidesItsRollover() throws {
        try household { ledger, _ in
            try ledger.createEnvelope("e", name: "E", interval: .monthly, budgeted: usd("100.00"), startDate: day("2026-05-01"))
            try ledger.recordEnvelopeTransaction("t", account: "Assets:Bank", amount: usd("-25.00"), envelope: "e", effectiveAt: ledger.calendar.startOfDay(day("2026-05-02")))
            try ledger.setEnvelopeRollover("e", policy: .reset, effectiveAt: ledger.calendar.startOfDay(day("2026-05-31")))
            #expect(try ledger.envelopeStatus("e", asOf: ledger.calendar.endOfDay(day("2026-06-01"))).carriedIn == usd("0.00"))
            // Before the change was in force, May's remainder would have carried.
            #expect(try ledger.envelopeStatus("e", asOf: ledger.calendar.endOfDay(day("2026-05-30"))).policy == .carryForward)
            try ledger.expectAnswersMatchReplay(on: day("2026-05-30"))
            try ledger.expectAnswersMatchReplay(on: day("2026-06-01"))
        }
    }

    @Test func aWeeklyEnvelopesWeeksRunFromItsStartDay() throws {
        try household { ledger, _ in
            // 6 May 2026 is a Wednesday: weeks run Wednesday to Tuesday.
            try ledger.createEnvelope("coffee", name: "Coffee", interval: .weekly, budgeted: usd("20.00"), startDate: day("2026-05-06"))
            try ledger.recordEnvelopeTransaction("c1", account: "Assets:Bank", amount: usd("-15.00"), envelope: "coffee", effectiveAt: ledger.calendar.startOfDay(day("2026-05-12")))
            try ledger.recordEnvelopeTransaction("c2", account: "Assets:Bank", amount: usd("-4.00"), envelope: "coffee", effectiveAt: ledger.calendar.startOfDay(day("2026-05-13")))
            let first = try ledger.envelopeStatus("coffee", asOf: ledger.calendar.endOfDay(day("2026-05-12")))
            #expect(first.period == EnvelopePeriod(first: day("2026-05-06"), last: day("2026-05-12")))
            #expect(first.spent == usd("15.00"))
            let second = try ledger.envelopeStatus("coffee", asOf: ledger.calendar.endOfDay(day("2026-05-13")))
            #expect(second.period == EnvelopePeriod(first: day("2026-05-13"), last: day("2026-05-19")))
            #expect(second.spent == usd("4.00"))
            #expect(second.carriedIn == usd("5.00"))
            #expect(throws: LedgerError.self) { try ledger.envelopeStatus("coffee", asOf: ledger.calendar.endOfDay(day("2026-05-05"))) }
            try ledger.expectAnswersMatchReplay(on: day("2026-05-12"))
            try ledger.expectAnswersMatchReplay(on: day("2026-05-13"))
        }
    }

    @Test func aBudgetChangeAppliesFromItsIntervalOnAndTheEarlierIntervalsKeepTheirs() throws {
        try household { ledger, _ in
            try ledger.createEnvelope("rent", name: "Rent", interval: .monthly, budgeted: usd("1000.00"), startDate: day("2026-05-01"))
            try ledger.changeEnvelopeBudget("rent", budgeted: usd("1100.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-06-10")))
            #expect(try ledger.envelopeStatus("rent", asOf: ledger.calendar.endOfDay(day("2026-05-31"))).budgeted == usd("1000.00"))
            #expect(try ledger.envelopeStatus("rent", asOf: ledger.calendar.endOfDay(day("2026-06-30"))).budgeted == usd("1100.00"))
            // Asked on 5 June, the change was not in force yet.
            #expect(try ledger.envelopeStatus("rent", asOf: ledger.calendar.endOfDay(day("2026-06-05"))).budgeted == usd("1000.00"))
            try ledger.fundEnvelope("rent", amount: usd("50.00"), effectiveAt: ledger.calendar.startOfDay(day("2026-06-20")))
            let june = try ledger.envelopeStatus("rent", asOf: ledger.calendar.endOfDay(day("2026-06-30")))
            #expect(june.funded == usd("50.00"))
            #expect(june.available == usd("2150.00"))   // 1100 budgeted + 50 funded + May's unspent 1000 carried
            for date in ["2026-05-31", "2026-06-05", "2026-06-30"] { try ledger.expectAnswersMatchReplay(on: day(date)) }
        }
    }

    @Test func spendingByEnvelopeCountsTransfersAssignedToAnEnvelope() throws {
        try household { ledger, _ in
            try ledger.openEnvelopeAccount("Assets:Savings", commodity: .usd, effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
            try ledger.createEnvelope("groceries", name: "Groceries", interval: .monthly, budgeted: usd("400.00"), startDate: day("2026-05-01"))
            try ledger.createEnvelope("savings", name: "Savings", interval: .monthly, budgeted: usd("200.00"), startDate: day("2026-05-01"))
            try ledger.recordEnvelopeTransaction("g1", account: "Assets:Bank", amount: usd("-50.00"), envelope: "groceries", effectiveAt: ledger.calendar.startOfDay(day("2026-05-04")))
            try ledger.recordEnvelopeTransaction("g2", account: "Assets:Bank", amount: usd("-70.00"), envelope: "groceries", effectiveAt: ledger.calendar.startOfDay(day("2026-06-04")))
            try ledger.transferBetweenAccounts("s1", from: "Assets:Bank", to: "Assets:Savings", amount: usd("200.00"), envelope: "savings", effectiveAt: ledger.calendar.startOfDay(day("2026-05-28")))
            let may = try ledger.envelopeSpending(from: day("2026-05-01"), through: day("2026-05-31"))
            #expect(may.map(\.name) == ["Groceries", "Savings"])
            #expect(may.map(\.spent) == [usd("50.00"), usd("200.00")])
            let both = try ledger.envelopeSpending(from: day("2026-05-01"), through: day("2026-06-30"))
            #expect(both.first?.spent == usd("120.00"))
            #expect(both.first?.transactionCount == 2)
            // A transfer between own accounts leaves the total unchanged.
            #expect(try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(day("2026-05-31"))).total == usd("1950.00"))
            #expect { try ledger.envelopeSpending(from: day("2026-06-01"), through: day("2026-05-01")) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            try ledger.expectAnswersMatchReplay(on: day("2026-05-31"))
            try ledger.expectAnswersMatchReplay(on: day("2026-06-30"))
        }
    }

    @Test func aDeletedEnvelopeIsGoneFromThenOnAndItsPastStays() throws {
        try household { ledger, _ in
            try ledger.createEnvelope("gym", name: "Gym", interval: .monthly, budgeted: usd("30.00"), startDate: day("2026-05-01"))
            try ledger.recordEnvelopeTransaction("g", account: "Assets:Bank", amount: usd("-30.00"), envelope: "gym", effectiveAt: ledger.calendar.startOfDay(day("2026-05-02")))
            try ledger.deleteEnvelope("gym", effectiveAt: ledger.calendar.startOfDay(day("2026-06-01")))
            #expect(try ledger.envelopeStatuses(asOf: ledger.calendar.endOfDay(day("2026-06-01"))).isEmpty)
            #expect(try ledger.envelopeStatuses(asOf: ledger.calendar.endOfDay(day("2026-05-31"))).map(\.envelopeId) == ["gym"])
            #expect { try ledger.recordEnvelopeTransaction("h", account: "Assets:Bank", amount: usd("-1.00"), envelope: "gym") }
                throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect(try ledger.envelopeSpending(from: day("2026-05-01"), through: day("2026-06-30")).map(\.envelopeId) == ["gym"])
            try ledger.expectAnswersMatchReplay(on: day("2026-05-31"))
            try ledger.expectAnswersMatchReplay(on: day("2026-06-01"))
        }
    }

    @Test func aBackdatedExpenseChangesThePastAndKnownAtShowsWhatTheLedgerSaidBefore() throws {
        try household { ledger, clock in
            try ledger.createEnvelope("fuel", name: "Fuel", interval: .monthly, budgeted: usd("150.00"), startDate: day("2026-05-01"))
            let before = clock.now
            clock.advance(seconds: 3600)
            try ledger.recordEnvelopeTransaction("f", account: "Assets:Bank", amount: usd("-45.00"), envelope: "fuel", effectiveAt: ledger.calendar.startOfDay(day("2026-05-15")))
            #expect(try ledger.envelopeStatus("fuel", asOf: ledger.calendar.endOfDay(day("2026-05-31"))).spent == usd("45.00"))
            #expect(try ledger.envelopeStatus("fuel", asOf: ledger.calendar.endOfDay(day("2026-05-31")), knownAt: before).spent == usd("0.00"))
            try ledger.expectAnswersMatchReplay(on: day("2026-05-31"), knownAt: before)
            try ledger.expectAnswersMatchReplay(on: day("2026-05-31"))
        }
    }

    @Test func randomHouseholdsGiveTheReplaysAnswersAtEveryPastDate() throws {
        for seed: UInt64 in [1, 2, 3] {
            var random = SplitMix64(seed: seed)
            try household { ledger, _ in
                try ledger.openEnvelopeAccount("Assets:Cash", commodity: .eur, openingBalance: Money(parsing: "300.00", commodity: .eur), effectiveAt: ledger.calendar.startOfDay(day("2026-05-01")))
                let intervals: [EnvelopeInterval] = [.weekly, .biweekly, .monthly, .oneTime]
                let policies: [RolloverPolicy] = [.reset, .carryForward, .takeFromToAssign]
                var starts: [LocalDate] = []
                for (index, interval) in intervals.enumerated() {
                    starts.append(day("2026-05-01").adding(days: Int.random(in: 0...10, using: &random)))
                    try ledger.createEnvelope("e\(index)", name: "Envelope \(index)", interval: interval,
                                              budgeted: Money(minorUnits: Int64.random(in: 1_000...50_000, using: &random), commodity: .usd),
                                              startDate: starts[index])
                }
                for number in 0..<60 {
                    // On or after the envelope's first day: nothing happens before it exists.
                    let index = Int.random(in: 0..<4, using: &random)
                    let date = starts[index].adding(days: Int.random(in: 0...60, using: &random))
                    let envelope = "e\(index)"
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0: try ledger.setEnvelopeRollover(envelope, policy: policies.randomElement(using: &random)!, effectiveAt: ledger.calendar.startOfDay(date))
                    case 1: try ledger.changeEnvelopeBudget(envelope, budgeted: Money(minorUnits: Int64.random(in: 0...50_000, using: &random), commodity: .usd),
                                                            interval: intervals.randomElement(using: &random)!, effectiveAt: ledger.calendar.startOfDay(date))
                    case 2: try ledger.fundEnvelope(envelope, amount: Money(minorUnits: Int64.random(in: 1...5_000, using: &random), commodity: .usd), effectiveAt: ledger.calendar.startOfDay(date))
                    case 3: try ledger.recordEnvelopeTransaction("t\(number)", account: "Assets:Cash",
                                                                 amount: Money(minorUnits: -Int64.random(in: 1...9_999, using: &random), commodity: .eur),
                                                                 rateToBase: ExactDecimal(significand: Int64.random(in: 10_000...13_000, using: &random), scale: 4),
                                                                 envelope: envelope, effectiveAt: ledger.calendar.startOfDay(date))
                    default: try ledger.recordEnvelopeTransaction("t\(number)", account: "Assets:Bank",
                                                                  amount: Money(minorUnits: Int64.random(in: -9_999...2_000, using: &random), commodity: .usd),
                                                                  envelope: envelope, effectiveAt: ledger.calendar.startOfDay(date))
                    }
                }
                for _ in 0..<6 {
                    let date = day("2026-04-25").adding(days: Int.random(in: 0...80, using: &random))
                    try ledger.expectAnswersMatchReplay(on: date, context: "seed \(seed)")
                    #expect(try ledger.envelopeStatuses(asOf: ledger.calendar.endOfDay(date)).allSatisfy { $0.remaining == (try? $0.available.subtracting($0.spent)) }, "seed \(seed)")
                }
            }
        }
    }
}
