import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// What the wealth account answers about the past: its history, the round-ups of a month,
/// and its summary as of a date and as known at a time.
@Suite struct WealthHistoryTests {
    private func story(at start: String = "2026-05-04T09:00:00Z", _ body: (Ledger, ManualClock) throws -> Void) throws {
        try withTemporaryStore { root in
            let clock = ManualClock(start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)   // America/New_York
            try body(ledger, clock)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    /// Deposit 100.00, buy 3.40 with a round-up, withdraw 10.00, buy 55.50 whose round-up
    /// empties Spend: seven rows.
    private func recordAMonth(_ ledger: Ledger, _ clock: ManualClock) throws {
        try ledger.deposit(account: "main", amount: usd("100.00"), source: .bankTransfer)   // 2, 3
        clock.advance(seconds: 60)
        try ledger.setRoundUps(account: "main", enabled: true)                              // 4
        clock.advance(seconds: 60)
        try ledger.purchase(account: "main", amount: usd("3.40"), merchant: "Blue Bottle")  // 5, 6
        clock.advance(seconds: 60)
        try ledger.withdraw(account: "main", amount: usd("10.00"), destination: "checking") // 7
        clock.advance(seconds: 60)
        try ledger.purchase(account: "main", amount: usd("55.50"), merchant: "Shoes")       // 8, 9 (0.50 left covers 0.50)
    }

    @Test func theHistoryListsEveryMoneyEventNewestFirstWithItsCause() throws {
        try story { ledger, clock in
            try recordAMonth(ledger, clock)
            let page = try ledger.wealthHistory(account: "main", filter: .all, page: 1, pageSize: 50)
            #expect(page.entries.map(\.kind) == [.roundUp, .purchase, .withdrawal, .roundUp, .purchase, .split, .deposit])
            #expect(page.entries.map(\.sequence) == [9, 8, 7, 6, 5, 3, 2])
            #expect(page.totalCount == 7)
            let split = page.entries[5]
            #expect(split.cause == 2)
            #expect(split.amount == usd("100.00"))
            #expect(split.spendChange == usd("70.00"))
            #expect(split.investChange == usd("30.00"))
            #expect(split.detail == "70/30")
            let roundUp = page.entries[3]
            #expect(roundUp.cause == 5)
            #expect(roundUp.spendChange == usd("-0.60"))
            #expect(roundUp.investChange == usd("0.60"))
            #expect(page.entries[4].detail == "Blue Bottle")
            #expect(page.entries[6].detail == "bank_transfer")
            #expect(page.entries[2].detail == "checking")
            #expect(page.entries[0].effectiveAt == clock.now)
        }
    }

    @Test func filtersSelectSpendInvestAndDeposits() throws {
        try story { ledger, clock in
            try recordAMonth(ledger, clock)
            func kinds(_ filter: WealthHistoryFilter) throws -> [WealthHistoryEntry.Kind] {
                try ledger.wealthHistory(account: "main", filter: filter, pageSize: 50).entries.map(\.kind)
            }
            #expect(try kinds(.spend) == [.roundUp, .purchase, .withdrawal, .roundUp, .purchase, .split])
            #expect(try kinds(.invest) == [.roundUp, .roundUp, .split])
            #expect(try kinds(.deposits) == [.deposit])
            // Every Spend row's changes add up to the Spend balance.
            var spend = Money.zero(.usd)
            for entry in try ledger.wealthHistory(account: "main", filter: .spend, pageSize: 50).entries {
                spend = try spend.adding(entry.spendChange)
            }
            #expect(spend == (try ledger.wealthSummary(account: "main").balance(in: .usd).spend))
        }
    }

    @Test func pagesSplitTheHistoryAndAPastTheEndPageIsEmpty() throws {
        try story { ledger, clock in
            try recordAMonth(ledger, clock)
            let pages = try (1...4).map { try ledger.wealthHistory(account: "main", page: $0, pageSize: 2) }
            #expect(pages.map { $0.entries.map(\.sequence) } == [[9, 8], [7, 6], [5, 3], [2]])
            #expect(pages.allSatisfy { $0.totalCount == 7 })
            #expect(try ledger.wealthHistory(account: "main", page: 5, pageSize: 2).entries.isEmpty)
            #expect(try ledger.wealthHistory(account: "main", page: Int.max, pageSize: 500).entries.isEmpty)
            for (page, size) in [(0, 10), (1, 0), (1, 501)] {
                #expect { try ledger.wealthHistory(account: "main", page: page, pageSize: size) } throws: {
                    ($0 as? LedgerError)?.code == .invalidArgument
                }
            }
        }
    }

    @Test func aBackdatedDepositTakesItsPlaceInTheHistory() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("10.00"))
            try ledger.deposit(account: "main", amount: usd("20.00"), effectiveAt: try Instant(parsing: "2026-05-01T12:00:00Z"))
            let deposits = try ledger.wealthHistory(account: "main", filter: .deposits).entries
            #expect(deposits.map(\.amount) == [usd("10.00"), usd("20.00")])
        }
    }

    @Test func roundUpsAddUpPerMonthInTheLedgersTimeZone() throws {
        try story(at: "2026-05-31T21:00:00Z") { ledger, clock in
            try ledger.deposit(account: "main", amount: usd("100.00"))
            try ledger.deposit(account: "main", amount: gbp("100.00"))
            try ledger.setRoundUps(account: "main", enabled: true)
            try ledger.purchase(account: "main", amount: usd("3.40"), merchant: "A")   // 0.60, May
            try ledger.purchase(account: "main", amount: gbp("1.75"), merchant: "B")   // 0.25, May
            // 02:00 UTC on 1 June is still 31 May in New York.
            clock.set("2026-06-01T02:00:00Z")
            try ledger.purchase(account: "main", amount: usd("1.90"), merchant: "C")   // 0.10, May
            clock.set("2026-06-01T05:00:00Z")
            try ledger.purchase(account: "main", amount: usd("2.25"), merchant: "D")   // 0.75, June
            try ledger.purchase(account: "main", amount: usd("4.00"), merchant: "E")   // 0.00
            #expect(try ledger.roundUpTotal(account: "main", month: try Month(parsing: "2026-05")) == [gbp("0.25"), usd("0.70")])
            #expect(try ledger.roundUpTotal(account: "main", month: try Month(parsing: "2026-06")) == [usd("0.75")])
            #expect(try ledger.roundUpTotal(account: "main", month: try Month(parsing: "2025-12")).isEmpty)
        }
    }

    @Test func theSummaryAsOfADateCountsOnlyWhatWasEffectiveThen() throws {
        try story(at: "2026-05-01T14:00:00Z") { ledger, clock in
            try ledger.deposit(account: "main", amount: usd("100.00"))
            clock.set("2026-05-02T14:00:00Z")
            try ledger.pauseAutomation(account: "main")
            try ledger.deposit(account: "main", amount: usd("50.00"))
            try ledger.freezeCard(account: "main")
            clock.set("2026-05-03T14:00:00Z")
            try ledger.setSplitRule(account: "main", spendWeight: 1, investWeight: 1)
            try ledger.resumeAutomation(account: "main")
            try ledger.setRoundUps(account: "main", enabled: true)

            let may1 = try ledger.wealthSummary(account: "main", asOf: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-05-01")))
            #expect(may1.balance(in: .usd).spend == usd("70.00"))
            #expect(may1.balance(in: .usd).total == usd("100.00"))
            #expect(may1.status == .active)
            #expect(!may1.cardFrozen)

            let may2 = try ledger.wealthSummary(account: "main", asOf: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-05-02")))
            #expect(may2.status == .paused)
            #expect(may2.unsplitDepositCount == 1)
            #expect(may2.balance(in: .usd).wallet == usd("50.00"))
            #expect(may2.cardFrozen)
            #expect(may2.splitRule == WealthRules.defaultSplitRule)
            #expect(!may2.roundUpsEnabled)

            let now = try ledger.wealthSummary(account: "main")
            #expect(now.balance(in: .usd).spend == usd("105.00"), "the paused deposit split 70/30 on resume")
            #expect(now.status == .active)
            #expect(now.splitRule == SplitRule(spendWeight: 1, investWeight: 1))
            // The as-of path at the present gives the same answer as the current read model.
            #expect(try ledger.wealthSummary(account: "main", asOf: clock.now) == now)
            #expect(try ledger.wealthSummary(account: "main", asOf: .latest, knownAt: clock.now) == now)
        }
    }

    @Test func theSummaryAsKnownAtATimeIgnoresLaterBackdatedDeposits() throws {
        try story(at: "2026-04-05T12:00:00Z") { ledger, clock in
            try ledger.deposit(account: "main", amount: usd("10.00"))
            let before = clock.now
            clock.set("2026-04-06T12:00:00Z")
            // Learned on 6 April: a deposit that arrived on 31 March.
            try ledger.deposit(account: "main", amount: usd("50.00"), effectiveAt: try Instant(parsing: "2026-03-31T15:00:00Z"))
            let endOfMarch = ledger.calendar.endOfDay(try LocalDate(parsing: "2026-03-31"))
            #expect(try ledger.wealthSummary(account: "main", asOf: endOfMarch).balance(in: .usd).total == usd("50.00"))
            #expect(try ledger.wealthSummary(account: "main", asOf: endOfMarch, knownAt: before).balance(in: .usd).total.isZero)
            #expect(try ledger.wealthSummary(account: "main", knownAt: before).balance(in: .usd).total == usd("10.00"))
        }
    }

    @Test func theHistoryAndRoundUpsAsKnownAtATimeIgnoreALaterBackdatedPurchase() throws {
        try story(at: "2026-04-05T12:00:00Z") { ledger, clock in
            try ledger.deposit(account: "main", amount: usd("100.00"), effectiveAt: try Instant(parsing: "2026-03-20T15:00:00Z"))
            try ledger.setRoundUps(account: "main", enabled: true, effectiveAt: try Instant(parsing: "2026-03-20T15:00:00Z"))
            try ledger.purchase(account: "main", amount: usd("3.40"), merchant: "A", effectiveAt: try Instant(parsing: "2026-03-21T15:00:00Z"))
            let before = clock.now
            let endOfMarch = ledger.calendar.endOfDay(day("2026-03-31"))
            let firstHistory = try ledger.wealthHistory(account: "main", asOf: endOfMarch)
            let firstTotals = try ledger.roundUpTotal(account: "main", month: month("2026-03"))
            #expect(firstTotals == [usd("0.60")])
            clock.set("2026-04-06T12:00:00Z")
            // Learned on 6 April: a purchase made on 30 March.
            try ledger.purchase(account: "main", amount: usd("1.75"), merchant: "B", effectiveAt: try Instant(parsing: "2026-03-30T15:00:00Z"))
            #expect(try ledger.wealthHistory(account: "main", asOf: endOfMarch, knownAt: before) == firstHistory)
            #expect(try ledger.roundUpTotal(account: "main", month: month("2026-03"), knownAt: before) == firstTotals)
            #expect(try ledger.wealthHistory(account: "main", asOf: endOfMarch).totalCount == firstHistory.totalCount + 2)
            #expect(try ledger.roundUpTotal(account: "main", month: month("2026-03")) == [usd("0.85")])
            // As of 29 March, the purchase of the 30th has not happened yet, whenever asked.
            let march29 = ledger.calendar.endOfDay(day("2026-03-29"))
            #expect(try ledger.roundUpTotal(account: "main", month: month("2026-03"), asOf: march29) == [usd("0.60")])
            #expect(try ledger.wealthHistory(account: "main", asOf: march29).entries.map(\.sequence) == [6, 5, 3, 2])
        }
    }

    /// Seeded random wealth activity, a quarter of it backdated, recorded over weeks: for
    /// random days and random instants it was known at, the history equals a fold of the
    /// log's events, its Spend and Invest changes add up to a full replay's balances, and
    /// the round-ups of a month equal the log's round-up events of that month.
    /// `TALLY_TEST_SEED` replays a failure.
    @Test func theHistoryAndRoundUpsAtAnyPointEqualAFoldOfTheLog() throws {
        let seed = TestSeed.value(default: 0x7EA1_7117)
        for index in 0..<3 {
            let storySeed = seed &+ UInt64(index) &* 0x9E37_79B9
            try story(at: "2026-03-01T15:00:00Z") { ledger, clock in
                try compareWithAFold(ledger, clock, seed: storySeed, where: "seed \(seed) (TALLY_TEST_SEED=\(seed)), story seed \(storySeed)")
            }
        }
    }

    private func compareWithAFold(_ ledger: Ledger, _ clock: ManualClock, seed: UInt64, where context: String) throws {
        var random = SplitMix64(seed: seed)
        let currencies: [Commodity] = [.usd, .gbp]
        var knownAts: [Instant] = []
        try ledger.setRoundUps(account: "main", enabled: true)
        for step in 0..<150 {
            clock.advance(seconds: Int64.random(in: 600...40_000, using: &random))
            let backdated = Int.random(in: 0..<4, using: &random) == 0
            let at: Instant? = backdated
                ? Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - Int64.random(in: 1...20, using: &random) * 86_400_000_000)
                : nil
            let commodity = currencies.randomElement(using: &random)!
            let amount = Money(minorUnits: Int64.random(in: 1...5_000, using: &random), commodity: commodity)
            do {
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<3: try ledger.deposit(account: "main", amount: try amount.multiplied(by: 4), effectiveAt: at)
                case 3..<8: try ledger.purchase(account: "main", amount: amount, merchant: "shop \(step)", effectiveAt: at)
                case 8: try ledger.withdraw(account: "main", amount: amount, effectiveAt: at)
                default: try ledger.setRoundUps(account: "main", enabled: Bool.random(using: &random), effectiveAt: at)
                }
            } catch let error as LedgerError where error.code == .insufficientFunds || error.code == .notAllowed {
                // Spend could not cover it then or later, or a backdated switch would contradict
                // a purchase recorded after it: refused, nothing recorded.
            }
            if step % 20 == 19 { knownAts.append(clock.now) }
        }
        let events = try ledger.loggedEvents()
        let first = day("2026-02-10").daysSinceEpoch
        let last = ledger.calendar.date(of: clock.now).daysSinceEpoch
        for _ in 0..<10 {
            let asOfDay = LocalDate(daysSinceEpoch: Int.random(in: first...last, using: &random))
            let knownAt = Bool.random(using: &random) ? knownAts.randomElement(using: &random) : nil
            let bound = ledger.calendar.endOfDay(asOfDay)
            let point = "\(context): as of \(asOfDay) known at \(knownAt.map { "\($0)" } ?? "now")"
            let folded = events.filter { $0.effectiveAt <= bound && $0.recordedAt <= (knownAt ?? .latest) }

            let moneyEvents = folded.filter { event in
                switch event.body.payload {
                case is DepositReceived, is DepositSplit, is PurchaseMade, is RoundUpApplied, is RoundUpSkipped, is WithdrawalMade: true
                default: false
                }
            }
            let expected = moneyEvents.sorted { ($0.effectiveAt, $0.sequence) > ($1.effectiveAt, $1.sequence) }.map(\.sequence)
            let page = try ledger.wealthHistory(account: "main", pageSize: Ledger.wealthHistoryPageSizeLimit, asOf: bound, knownAt: knownAt)
            #expect(page.entries.map(\.sequence) == expected, "history, \(point)")
            #expect(page.totalCount == expected.count, "history count, \(point)")

            let replayed = try Replay.run(at: ledger.layout.root, until: bound, knownAt: knownAt)
            for commodity in currencies {
                func replayedBalance(_ account: String) -> Money {
                    replayed.balances.first { $0.account == account && $0.amount.commodity == commodity }?.amount ?? .zero(commodity)
                }
                var spend = Money.zero(commodity)
                var invest = Money.zero(commodity)
                for entry in page.entries where entry.amount.commodity == commodity {
                    spend = try spend.adding(entry.spendChange)
                    invest = try invest.adding(entry.investChange)
                }
                #expect(spend == replayedBalance(LedgerAccounts.spend("main")), "Spend in \(commodity.code), \(point)")
                #expect(invest == replayedBalance(LedgerAccounts.invest("main")), "Invest in \(commodity.code), \(point)")
            }

            for month in [asOfDay.month, asOfDay.month.adding(months: -1)] {
                var sums: [String: Money] = [:]
                for event in folded {
                    guard let roundUp = event.body.as(RoundUpApplied.self), ledger.calendar.month(of: event.effectiveAt) == month else { continue }
                    let code = roundUp.amount.commodity.code
                    sums[code] = try (sums[code] ?? .zero(roundUp.amount.commodity)).adding(roundUp.amount)
                }
                let totals = try ledger.roundUpTotal(account: "main", month: month, asOf: bound, knownAt: knownAt)
                #expect(totals == sums.keys.sorted().map { sums[$0]! }, "round-ups of \(month), \(point)")
            }
        }
        // The time-travel path at the latest point answers what the read models say now.
        let now = ledger.calendar.month(of: clock.now)
        #expect(try ledger.roundUpTotal(account: "main", month: now, asOf: .latest) == ledger.roundUpTotal(account: "main", month: now), "\(context)")
        #expect(try ledger.wealthHistory(account: "main", pageSize: 500, knownAt: clock.now) == ledger.wealthHistory(account: "main", pageSize: 500), "\(context)")
    }
}
