import Foundation
import GRDB
import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

/// Market value of balances at a date (`balances --value`): every expected figure below is
/// computed by hand in the comment beside it.
@Suite struct MarketValueTests {
    static let vea = try! Commodity.named("VEA")
    static let xau = try! Commodity.named("XAU")

    /// A household in New York whose clock the story moves.
    private func withHousehold<T>(_ body: (Ledger, ManualClock) throws -> T) throws -> T {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            return try body(ledger, clock)
        }
    }

    private func post(_ ledger: Ledger, _ account: String, _ counter: String, _ amount: Money, on date: String) throws {
        _ = try ledger.appendEvents([NewEvent(
            effectiveAt: ledger.calendar.startOfDay(day(date)),
            body: EventBody(JournalEntryPosted(account: account, counterAccount: counter, amount: amount)))])
    }

    private func price(_ ledger: Ledger, _ symbol: Commodity, _ price: Money, on date: String) throws {
        try ledger.quotePrice(symbol: symbol, price: price, source: .manual, effectiveAt: ledger.calendar.startOfDay(day(date)))
    }

    private func rate(_ ledger: Ledger, _ base: Commodity, _ quote: Commodity, _ rate: String, on date: String) throws {
        try ledger.setFXRate(base: base, quote: quote, rate: try ExactDecimal(parsing: rate), effectiveAt: ledger.calendar.startOfDay(day(date)))
    }

    private func units(_ text: String, _ commodity: Commodity) -> Money { try! Money(parsing: text, commodity: commodity) }

    private func endOf(_ ledger: Ledger, _ date: String) -> Instant { ledger.calendar.endOfDay(day(date)) }

    private func account(_ report: MarketValueReport, _ name: String) throws -> AccountValue {
        try #require(report.accounts.first { $0.account == name }, "no account \(name)")
    }

    @Test func aDirectPriceValuesSharesAtTheLatestPriceOnOrBeforeTheDate() throws {
        try withHousehold { ledger, _ in
            try post(ledger, "Assets:Brokerage", "Equity:Opening", units("12.5", Self.vea), on: "2026-05-01")
            try price(ledger, Self.vea, usd("50.10"), on: "2026-05-01")
            try price(ledger, Self.vea, usd("52.00"), on: "2026-06-01")

            let may = try ledger.marketValues(in: .usd, asOf: endOf(ledger, "2026-05-31"))
            // 12.5 × 50.10 = 626.25
            #expect(try account(may, "Assets:Brokerage").value == usd("626.25"))
            #expect(try account(may, "Equity:Opening").value == usd("-626.25"))
            let holding = try #require(try account(may, "Assets:Brokerage").holdings.first)
            #expect(holding.conversion?.method == "price")
            #expect(holding.conversion?.steps.first?.quote.value == (try ExactDecimal(parsing: "50.10")))
            #expect(may.notConverted.isEmpty)

            let june = try ledger.marketValues(in: .usd, asOf: endOf(ledger, "2026-06-01"))
            // 12.5 × 52.00 = 650.00
            #expect(try account(june, "Assets:Brokerage").value == usd("650.00"))

            let april = try ledger.marketValues(in: .usd, asOf: endOf(ledger, "2026-04-30"))
            #expect(april.accounts.isEmpty)
        }
    }

    @Test func aRateQuotedEitherWayRoundConverts() throws {
        try withHousehold { ledger, _ in
            try post(ledger, "Assets:Travel", "Equity:Opening", units("50000", .jpy), on: "2026-05-01")
            try post(ledger, "Assets:London", "Equity:Opening", gbp("100.00"), on: "2026-05-01")
            try rate(ledger, .usd, .jpy, "151.37", on: "2026-05-01")   // 1 USD = 151.37 JPY: inverse for JPY → USD
            try rate(ledger, .gbp, .usd, "1.25", on: "2026-05-01")     // 1 GBP = 1.25 USD: direct

            let report = try ledger.marketValues(in: .usd, asOf: endOf(ledger, "2026-05-02"))
            // 50000 / 151.37 = 330.3164… → 330.32
            let travel = try account(report, "Assets:Travel")
            #expect(travel.value == usd("330.32"))
            #expect(travel.holdings.first?.conversion?.method == "inverse_rate")
            // 100.00 × 1.25 = 125.00
            let london = try account(report, "Assets:London")
            #expect(london.value == usd("125.00"))
            #expect(london.holdings.first?.conversion?.method == "rate")
            // Equity holds −50000 JPY and −100.00 GBP: −330.32 − 125.00, each rounded on its own.
            #expect(try account(report, "Equity:Opening").value == usd("-455.32"))
        }
    }

    @Test func aCommodityPricedInAnotherCurrencyIsValuedThroughItsRateRoundingOnce() throws {
        try withHousehold { ledger, _ in
            try post(ledger, "Assets:Brokerage", "Equity:Opening", units("12.5", Self.vea), on: "2026-05-01")
            try post(ledger, "Assets:Small", "Equity:Small", units("0.007", Self.vea), on: "2026-05-01")
            try price(ledger, Self.vea, usd("50.15"), on: "2026-05-01")
            try rate(ledger, .eur, .usd, "1.08", on: "2026-05-01")     // 1 EUR = 1.08 USD

            let report = try ledger.marketValues(in: .eur, asOf: endOf(ledger, "2026-05-01"))
            // 12.5 × 50.15 / 1.08 = 626.875 / 1.08 = 580.4398… → 580.44
            let brokerage = try account(report, "Assets:Brokerage")
            #expect(brokerage.value == (try Money(parsing: "580.44", commodity: .eur)))
            let conversion = try #require(brokerage.holdings.first?.conversion)
            #expect(conversion.method == "via")
            #expect(conversion.via == .usd)
            #expect(conversion.steps.map(\.quote.kind) == [.price, .rate])
            #expect(conversion.steps.map(\.isInverted) == [false, true])
            // 0.007 × 50.15 / 1.08 = 0.35105 / 1.08 = 0.32504… → 0.33; rounding the dollars
            // first (0.35 / 1.08 = 0.324…) would give 0.32.
            #expect(try account(report, "Assets:Small").value == (try Money(parsing: "0.33", commodity: .eur)))
        }
    }

    @Test func aCommodityWithoutAPriceStaysInItsOwnUnitsAndIsListed() throws {
        try withHousehold { ledger, _ in
            try post(ledger, "Assets:Vault", "Equity:Opening", units("2", Self.xau), on: "2026-05-01")
            try post(ledger, "Assets:Vault", "Equity:Opening", usd("10.00"), on: "2026-05-01")
            try post(ledger, "Assets:Brokerage", "Equity:Opening", units("1", Self.vea), on: "2026-05-01")
            try price(ledger, Self.vea, usd("50.00"), on: "2026-05-03")   // after the date asked about

            let report = try ledger.marketValues(in: .usd, asOf: endOf(ledger, "2026-05-02"))
            #expect(report.notConverted == [Self.vea, Self.xau])
            let vault = try account(report, "Assets:Vault")
            #expect(vault.value == usd("10.00"))
            #expect(vault.unconverted == [units("2", Self.xau)])
            #expect(report.rows.map { "\($0.account) \($0.amount)" } == [
                "Assets:Brokerage 1.00000000 VEA",
                "Assets:Vault 10.00 USD",
                "Assets:Vault 2.00000000 XAU",
                "Equity:Opening -10.00 USD",
                "Equity:Opening -1.00000000 VEA",
                "Equity:Opening -2.00000000 XAU",
            ])
        }
    }

    @Test func aPriceRecordedAfterTheDateButEffectiveBeforeItCountsOnlyOnceKnown() throws {
        try withHousehold { ledger, clock in
            try post(ledger, "Assets:Brokerage", "Equity:Opening", units("12.5", Self.vea), on: "2026-05-01")
            try price(ledger, Self.vea, usd("50.10"), on: "2026-05-01")
            clock.set("2026-06-10T12:00:00Z")
            try price(ledger, Self.vea, usd("49.00"), on: "2026-05-20")   // backdated, recorded 10 June

            let asOf = endOf(ledger, "2026-05-31")
            let before = try ledger.marketValues(in: .usd, asOf: asOf, knownAt: try Instant(parsing: "2026-06-05T00:00:00Z"))
            // 12.5 × 50.10 = 626.25: the 49.00 was not known on 5 June.
            #expect(try account(before, "Assets:Brokerage").value == usd("626.25"))
            let now = try ledger.marketValues(in: .usd, asOf: asOf)
            // 12.5 × 49.00 = 612.50
            #expect(try account(now, "Assets:Brokerage").value == usd("612.50"))
        }
    }

    @Test func manySmallHoldingsAreEachRoundedHalfEvenThenSummed() throws {
        try withHousehold { ledger, _ in
            let symbols = try (0..<10).map { try Commodity.named("S\($0)") }
            for symbol in symbols {
                try post(ledger, "Assets:JarA", "Equity:Opening", units("0.015", symbol), on: "2026-05-01")
                try post(ledger, "Assets:JarB", "Equity:Opening", units("0.025", symbol), on: "2026-05-01")
                try price(ledger, symbol, usd("1.00"), on: "2026-05-01")
            }
            let report = try ledger.marketValues(in: .usd, asOf: endOf(ledger, "2026-05-01"))
            // Each 0.015 → 0.02 (half-even), ten of them 0.20 (the exact sum is 0.15).
            #expect(try account(report, "Assets:JarA").value == usd("0.20"))
            // Each 0.025 → 0.02 (half-even), ten of them 0.20 (the exact sum is 0.25).
            #expect(try account(report, "Assets:JarB").value == usd("0.20"))
            // Each −0.040 → −0.04, ten of them −0.40.
            #expect(try account(report, "Equity:Opening").value == usd("-0.40"))
        }
    }

    @Test func aDirectQuoteWinsOverAHopAndTheLatestOfPriceAndRateWins() throws {
        try withHousehold { ledger, _ in
            try post(ledger, "Assets:Brokerage", "Equity:Opening", units("10", Self.vea), on: "2026-05-01")
            try price(ledger, Self.vea, usd("50.00"), on: "2026-05-01")
            try rate(ledger, .eur, .usd, "1.25", on: "2026-05-01")
            try price(ledger, Self.vea, try Money(parsing: "45.00", commodity: .eur), on: "2026-05-02")
            // 10 × 45.00 EUR, the direct price.
            let direct = try ledger.marketValues(in: .eur, asOf: endOf(ledger, "2026-05-02"))
            #expect(try account(direct, "Assets:Brokerage").value == (try Money(parsing: "450.00", commodity: .eur)))
            // The day before, only the hop: 10 × 50.00 / 1.25 = 400.00.
            let hop = try ledger.marketValues(in: .eur, asOf: endOf(ledger, "2026-05-01"))
            #expect(try account(hop, "Assets:Brokerage").value == (try Money(parsing: "400.00", commodity: .eur)))
            // Of a rate and a rate the other way round, the one that took effect last.
            try post(ledger, "Assets:London", "Equity:Opening", gbp("100.00"), on: "2026-05-01")
            try rate(ledger, .gbp, .usd, "1.25", on: "2026-05-01")
            try rate(ledger, .usd, .gbp, "0.5", on: "2026-05-02")
            // 100.00 × 1.25 = 125.00, then 100.00 / 0.5 = 200.00.
            #expect(try account(ledger.marketValues(in: .usd, asOf: endOf(ledger, "2026-05-01")), "Assets:London").value == usd("125.00"))
            #expect(try account(ledger.marketValues(in: .usd, asOf: endOf(ledger, "2026-05-02")), "Assets:London").value == usd("200.00"))
        }
    }

    @Test func theLookupOfALatestPriceIsAnIndexSeek() throws {
        try withHousehold { ledger, _ in
            let plan = try ledger.read { db in
                try Row.fetchAll(db, sql: """
                    EXPLAIN QUERY PLAN SELECT significand, scale, effective_at, recorded_at, sequence FROM nw_prices INDEXED BY nw_prices_in
                    WHERE symbol = 'VEA' AND commodity = 'USD' AND effective_at <= 1 AND recorded_at <= 2
                    ORDER BY effective_at DESC, sequence DESC LIMIT 1
                    """).map { $0["detail"] as String }.joined(separator: "\n")
            }
            #expect(plan.contains("SEARCH nw_prices USING COVERING INDEX nw_prices_in"), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
        }
    }

    @Test func valuesAgreeWithAReplayOfRandomPricesAndHoldings() throws {
        let seed = TestSeed.value(default: 14)
        var random = SplitMix64(seed: seed)
        try withHousehold { ledger, clock in
            let symbols = try (0..<4).map { try Commodity.named("T\($0)") }
            var held: [String: [Commodity: Int64]] = [:]
            var prices: [Commodity: Int64] = [:]
            for index in 0..<60 {
                clock.advance(seconds: 60)
                let symbol = symbols[Int(random.next() % 4)]
                let account = "Assets:A\(random.next() % 5)"
                let quantity = Int64(random.next() % 10_000_000) + 1
                try post(ledger, account, "Equity:Opening", Money(minorUnits: quantity, commodity: symbol), on: "2026-05-01")
                held[account, default: [:]][symbol, default: 0] += quantity
                held["Equity:Opening", default: [:]][symbol, default: 0] -= quantity
                if index % 3 == 0 {
                    let cents = Int64(random.next() % 100_000) + 1
                    try price(ledger, symbol, Money(minorUnits: cents, commodity: .usd), on: "2026-05-01")
                    prices[symbol] = cents
                }
            }
            let report = try ledger.marketValues(in: .usd, asOf: endOf(ledger, "2026-05-01"))
            for (account, holdings) in held {
                var expected: Int64 = 0
                for (symbol, quantity) in holdings where quantity != 0 {
                    guard let cents = prices[symbol] else { continue }
                    // quantity (scale 8) × cents / 10^8, half-even.
                    expected += Int64(RationalRounding.rounded(Int128(quantity) * Int128(cents), dividedBy: 100_000_000, rule: .halfEven))
                }
                let value = try self.account(report, account).value
                #expect((value?.minorUnits ?? 0) == expected, "\(account), seed \(seed)")
            }
        }
    }
}
