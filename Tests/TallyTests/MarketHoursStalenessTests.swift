import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 15, wrong today 10: a price is stale by the time its market has traded since it,
/// not by wall-clock age; outside market hours the last close is "market closed".
@Suite struct MarketHoursStalenessTests {
    private func at(_ text: String) -> Instant { try! Instant(parsing: text) }

    /// A ledger holding 10 VEA (quoted in USD: New York) and 10 VWRL (quoted in GBP: London).
    private func portfolio(_ root: String, _ clock: ManualClock) throws -> Ledger {
        let ledger = try Ledger.forTesting(at: root, clock: clock)
        for (id, code) in [("vea", "VEA"), ("vwrl", "VWRL")] {
            let symbol = try Commodity.named(code)
            // A London-listed fund with a US country tag still trades on London's hours.
            try ledger.addAsset(assetId: id, name: code, category: .investments, type: .stockOrETF, currency: .usd, country: "US", symbol: code)
            try ledger.setPosition(assetId: id, quantity: try Money(parsing: "10", commodity: symbol))
        }
        try ledger.setFXRate(base: .gbp, quote: .usd, rate: try ExactDecimal(parsing: "1.25"))
        return ledger
    }

    private func freshness(_ ledger: Ledger, _ id: String, _ instant: String) throws -> PriceFreshness? {
        try ledger.netWorth(asOf: at(instant)).lines.first { $0.itemId == id }?.freshness
    }

    @Test func aPriceQuotedAtFridaysCloseIsMarketClosedOnSaturdayAndStaleOnMondayAfterFifteenMinutesOfTrading() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-06T21:00:00Z")   // Friday 16:00 in New York (EST)
            let ledger = try portfolio(root, clock)
            try ledger.quotePrice(symbol: try Commodity.named("VEA"), price: usd("50.00"), source: .live)
            #expect(try freshness(ledger, "vea", "2026-03-07T15:00:00Z") == .marketClosed, "Saturday: the last close, not stale")
            #expect(try freshness(ledger, "vea", "2026-03-09T13:00:00Z") == .marketClosed, "Monday 09:00 EDT: not open yet")
            #expect(try freshness(ledger, "vea", "2026-03-09T13:40:00Z") == .fresh, "Monday 09:40: 10 minutes of trading")
            #expect(try freshness(ledger, "vea", "2026-03-09T14:00:00Z") == .stale, "Monday 10:00: 30 minutes of trading")
            let report = try ledger.netWorth(asOf: at("2026-03-09T14:00:00Z"))
            #expect(report.netWorth == usd("500.00"), "a stale price is still used")
        }
    }

    @Test func aPriceQuotedMiddayFridayMissedTheCloseAndIsStaleAllWeekend() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-06T17:00:00Z")   // Friday 12:00 in New York
            let ledger = try portfolio(root, clock)
            try ledger.quotePrice(symbol: try Commodity.named("VEA"), price: usd("50.00"), source: .live)
            #expect(try freshness(ledger, "vea", "2026-03-07T15:00:00Z") == .stale)
        }
    }

    @Test func aGBPPriceFollowsLondonHours() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-06T16:30:00Z")   // Friday 16:30 in London: the close
            let ledger = try portfolio(root, clock)
            try ledger.quotePrice(symbol: try Commodity.named("VWRL"), price: gbp("100.00"), source: .live)
            #expect(try freshness(ledger, "vwrl", "2026-03-06T20:00:00Z") == .marketClosed, "New York still trades; London does not")
            #expect(try freshness(ledger, "vwrl", "2026-03-09T08:10:00Z") == .fresh)
            #expect(try freshness(ledger, "vwrl", "2026-03-09T08:16:00Z") == .stale)
        }
    }

    @Test func aLiveValuationFollowsTheSameRuleAndAManualOneIsNeverFlagged() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-06T21:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addAsset(assetId: "fund", name: "Fund", category: .investments, type: .fund, currency: .usd)
            try ledger.addAsset(assetId: "home", name: "Home", category: .property, type: .realEstate, currency: .usd)
            try ledger.recordValuation(itemKind: .asset, itemId: "fund", value: usd("1000.00"), source: .live)
            try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd("400000.00"), source: .manual)
            #expect(try freshness(ledger, "fund", "2026-03-07T15:00:00Z") == .marketClosed)
            #expect(try freshness(ledger, "fund", "2026-03-09T14:00:00Z") == .stale)
            #expect(try freshness(ledger, "home", "2026-03-09T14:00:00Z") == .fresh)
        }
    }

    @Test func cryptoTradesAroundTheClock() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-07T12:00:00Z")   // Saturday
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addAsset(assetId: "btc", name: "Bitcoin", category: .investments, type: .custom, currency: .usd, symbol: "BTC")
            try ledger.setPosition(assetId: "btc", quantity: try Money(parsing: "0.5", commodity: .btc))
            try ledger.quotePrice(symbol: .btc, price: usd("60000.00"), source: .live)
            #expect(try freshness(ledger, "btc", "2026-03-07T12:10:00Z") == .fresh)
            #expect(try freshness(ledger, "btc", "2026-03-07T12:16:00Z") == .stale)
        }
    }

    @Test func theXRayShowsWhatNetWorthShows() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-06T21:00:00Z")
            let ledger = try portfolio(root, clock)
            try ledger.quotePrice(symbol: try Commodity.named("VEA"), price: usd("50.00"), source: .live)
            let xray = try ledger.xray(asOf: at("2026-03-07T15:00:00Z"))
            #expect(xray.holdings.first { $0.assetId == "vea" }?.freshness == .marketClosed)
        }
    }

    @Test func aBackdatedThresholdChangeAppliesFromItsDateAndTheThresholdReadIsTheOneInForceThen() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-02T15:00:00Z")   // Monday 10:00 in New York
            let ledger = try portfolio(root, clock)
            try ledger.quotePrice(symbol: try Commodity.named("VEA"), price: usd("50.00"), source: .live)
            clock.set("2026-03-20T12:00:00Z")
            // Later in March: one hour from the 10th on.
            try ledger.setPriceStaleness(seconds: 3_600, effectiveAt: at("2026-03-10T00:00:00Z"))
            // Then, backdated to the 1st: 30 minutes. It holds until the 10th; it does not replace the hour.
            try ledger.setPriceStaleness(seconds: 1_800, effectiveAt: at("2026-03-01T00:00:00Z"))
            #expect(try ledger.settings(asOf: at("2026-03-05T00:00:00Z")).priceStalenessSeconds == 1_800)
            #expect(try ledger.settings(asOf: at("2026-03-15T00:00:00Z")).priceStalenessSeconds == 3_600)
            #expect(try ledger.settings(asOf: at("2026-02-15T00:00:00Z")).priceStalenessSeconds == 900, "before any: the default")
            // Monday 10:20: 20 minutes of trading: stale at 15 (the default before the 1st), fresh at 30.
            #expect(try freshness(ledger, "vea", "2026-03-02T15:20:00Z") == .fresh)
            // As known before the backdated change was recorded, the default was in force.
            let before = try ledger.netWorth(asOf: at("2026-03-02T15:20:00Z"), knownAt: at("2026-03-03T00:00:00Z"))
            #expect(before.lines.first { $0.itemId == "vea" }?.freshness == .stale)
        }
    }
}
