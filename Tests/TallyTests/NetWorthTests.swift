import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

@Suite struct NetWorthTests {
    private func day(_ text: String, _ ledger: Ledger) -> Instant { ledger.calendar.endOfDay(try! LocalDate(parsing: text)) }

    /// A household with a home in USD, savings in GBP, a mortgage, and rates over spring.
    private func household(_ root: String, clock: ManualClock, base: Commodity = .usd) throws -> Ledger {
        let ledger = try Ledger.forTesting(at: root, clock: clock, baseCurrency: base)
        try ledger.addAsset(assetId: "home", name: "Home", category: .property, type: .realEstate, currency: .usd, country: "US")
        try ledger.addAsset(assetId: "uk-savings", name: "UK savings", category: .cash, type: .cash, currency: .gbp, country: "GB")
        try ledger.addLiability(liabilityId: "mortgage", name: "Mortgage", category: .mortgage, currency: .usd, linkedAssetId: "home")
        try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd("400000.00"), source: .manual)
        try ledger.recordValuation(itemKind: .asset, itemId: "uk-savings", value: gbp("10000.00"), source: .bankRefresh)
        try ledger.recordValuation(itemKind: .liability, itemId: "mortgage", value: usd("250000.00"), source: .bankRefresh)
        try ledger.setFXRate(base: .gbp, quote: .usd, rate: try ExactDecimal(parsing: "1.2500"))
        return ledger
    }

    @Test func netWorthIsAssetsLessLiabilitiesInTheBaseCurrency() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-01T12:00:00Z")
            let ledger = try household(root, clock: clock)
            let report = try ledger.netWorth()
            #expect(report.assets == usd("412500.00"))
            #expect(report.liabilities == usd("250000.00"))
            #expect(report.netWorth == usd("162500.00"))
            #expect(report.isComplete)
            // Breakdown by category, largest first, with percentages of the assets.
            #expect(report.categories.filter { $0.kind == .asset }.map(\.category) == ["property", "cash"])
            #expect(report.categories.first?.basisPoints == 9_697)  // 400,000 / 412,500 = 96.97%
            try ledger.expectConsistent()
        }
    }

    @Test func switchingBaseCurrencyBackAndForthChangesNothingForAFixedDate() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-01T12:00:00Z")
            let ledger = try household(root, clock: clock, base: .gbp)
            let march = day("2026-03-01", ledger)
            let before = try ledger.netWorth(asOf: march)
            #expect(before.baseCurrency == .gbp)
            #expect(before.netWorth == gbp("130000.00"))  // 320,000 + 10,000 − 200,000
            for _ in 0..<3 {
                clock.advance(seconds: 60)
                try ledger.setBaseCurrency(.usd)
                #expect(try ledger.netWorth(asOf: march).netWorth == usd("162500.00"))
                clock.advance(seconds: 60)
                try ledger.setBaseCurrency(.gbp)
            }
            let after = try ledger.netWorth(asOf: march)
            #expect(after.netWorth == before.netWorth)
            #expect(after.lines.map(\.value.value) == before.lines.map(\.value.value))
            try ledger.expectConsistent()
        }
    }

    @Test func anItemWithoutAnFXRateIsExcludedAndTheTotalSaysSo() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-01T12:00:00Z")
            let ledger = try household(root, clock: clock)
            let yen = try Commodity.named("JPY")
            try ledger.addAsset(assetId: "tokyo-account", name: "Tokyo account", category: .cash, type: .cash, currency: yen, country: "JP")
            try ledger.recordValuation(itemKind: .asset, itemId: "tokyo-account", value: Money(minorUnits: 500_000, commodity: yen), source: .manual)
            let report = try ledger.netWorth()
            #expect(!report.isComplete)
            #expect(report.excluded.map(\.itemId) == ["tokyo-account"])
            #expect(report.excluded.first?.reason.contains("JPY/USD") == true)
            #expect(report.netWorth == usd("162500.00"))
            // Once a rate exists, it counts: 500,000 JPY at 0.0067 = 3,350.00 USD.
            try ledger.setFXRate(base: yen, quote: .usd, rate: try ExactDecimal(parsing: "0.0067"))
            #expect(try ledger.netWorth().netWorth == usd("165850.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func aPositionIsValuedAtTheLatestPriceAndAnOldPriceIsFlaggedStale() throws {
        try withTemporaryStore { root in
            // Monday 10:00 in New York: the market is open, so a USD price goes stale after 15 minutes.
            let clock = ManualClock("2026-03-02T15:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            let vea = try Commodity.named("VEA")
            try ledger.addAsset(assetId: "vea", name: "Developed markets ETF", category: .investments, type: .stockOrETF, currency: .usd, symbol: "VEA")
            try ledger.setPosition(assetId: "vea", quantity: try Money(parsing: "12.5", commodity: vea))
            try ledger.quotePrice(symbol: vea, price: usd("50.10"), source: .live)
            var report = try ledger.netWorth()
            #expect(report.netWorth == usd("626.25"))
            #expect(report.lines.first?.isStale == false)
            clock.advance(seconds: 16 * 60)
            report = try ledger.netWorth()
            #expect(report.netWorth == usd("626.25"), "a stale price is still used")
            #expect(report.lines.first?.isStale == true)
            try ledger.setPriceStaleness(seconds: 3_600)
            #expect(try ledger.netWorth().lines.first?.isStale == false)
            try ledger.expectConsistent()
        }
    }

    @Test func changeOverThirtyDaysAndAMonthlySeries() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-01-15T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addAsset(assetId: "cash", name: "Cash", category: .cash, type: .cash, currency: .usd)
            for (date, amount) in [("2026-01-15", "1000.00"), ("2026-02-15", "1500.00"), ("2026-03-15", "1200.00")] {
                clock.set(date + "T12:00:00Z")
                try ledger.recordValuation(itemKind: .asset, itemId: "cash", value: usd(amount), source: .manual)
            }
            let change = try ledger.netWorthChange(asOf: day("2026-03-20", ledger))
            #expect(change.start.netWorth == usd("1500.00"))
            #expect(change.change == usd("-300.00"))
            let series = try ledger.netWorthSeries(from: try Month(parsing: "2025-12"), through: try Month(parsing: "2026-03"))
            #expect(series.map(\.report.netWorth) == [usd("0.00"), usd("1000.00"), usd("1500.00"), usd("1200.00")])
            try ledger.expectConsistent()
        }
    }

    @Test func aBackdatedValuationChangesThePastFromNowOnButNotWhatWasKnownBefore() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-01T12:00:00Z")
            let ledger = try household(root, clock: clock)
            let before = clock.now
            clock.set("2026-04-05T09:00:00Z")
            // Items were added on 1 March: a valuation dated before that is refused, naming both days (issue 32, rule 3).
            let head = ledger.head
            #expect { try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd("390000.00"), source: .manual,
                                                 effectiveAt: try Instant(parsing: "2026-02-01T12:00:00Z")) } throws: {
                ($0 as? LedgerError)?.message == "asset 'home' was added on 2026-03-01; a record dated 2026-02-01 comes before it"
            }
            #expect(ledger.head == head)
            // On 5 April the user records that the home was worth 390,000 on 15 March.
            try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd("390000.00"), source: .manual,
                                       effectiveAt: try Instant(parsing: "2026-03-15T12:00:00Z"))
            #expect(try ledger.netWorth(asOf: day("2026-03-01", ledger)).netWorth == usd("162500.00"), "before the backdated value")
            let later = day("2026-03-20", ledger)
            #expect(try ledger.netWorth(asOf: later).netWorth == usd("152500.00"), "the backdated value counts from its day on")
            #expect(try ledger.netWorth(asOf: later, knownAt: before).netWorth == usd("162500.00"), "as known before it was recorded")
            try ledger.expectConsistent()
        }
    }

    @Test func commandsRefuseWhatDoesNotFitAndAppendNothing() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-01T12:00:00Z")
            let ledger = try household(root, clock: clock)
            let head = ledger.head
            #expect { try ledger.recordValuation(itemKind: .asset, itemId: "home", value: gbp("1.00"), source: .manual) } throws: {
                ($0 as? LedgerError)?.code == .currencyMismatch
            }
            #expect { try ledger.recordValuation(itemKind: .asset, itemId: "boat", value: usd("1.00"), source: .manual) } throws: {
                ($0 as? LedgerError)?.code == .notFound
            }
            #expect { try ledger.addAsset(assetId: "home", name: "Again", category: .property, type: .realEstate, currency: .usd) } throws: {
                ($0 as? LedgerError)?.code == .alreadyExists
            }
            #expect { try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd("0.00"), source: .manual) } throws: {
                ($0 as? LedgerError)?.code == .invalidArgument
            }
            #expect(ledger.head == head)
        }
    }
}
