import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// A user opens the portfolio X-ray and reads its insight cards and unrealised gains.
@Suite struct XRayCardsTests {
    private func card(_ kind: XRayCard.Kind, of xray: XRaySnapshot) throws -> XRayCard {
        try #require(xray.cards.first { $0.kind == kind })
    }

    @Test func aPortfolio80PercentInOneETFGetsAHighConcentrationCardNamingIt() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T12:00:00Z"))
            try ledger.addAsset(assetId: "world", name: "World ETF", category: .investments, type: .stockOrETF, currency: .usd,
                                country: "US", sector: "Diversified")
            try ledger.recordValuation(itemKind: .asset, itemId: "world", value: usd("8000.00"), source: .manual)
            try ledger.addAsset(assetId: "cash", name: "Savings", category: .cash, type: .cash, currency: .usd, country: "US", sector: "Cash")
            try ledger.recordValuation(itemKind: .asset, itemId: "cash", value: usd("2000.00"), source: .manual)

            let xray = try ledger.xray()
            #expect(xray.cards.map(\.kind) == XRayCard.Kind.allCases)
            let concentration = try card(.concentration, of: xray)
            // 100 × (0.8² + 0.2²) = 68.00.
            #expect(concentration.metric == XRayMetric(value: 68_00, severity: .high))
            #expect(concentration.severity == .high)
            #expect(concentration.items.first?.assetId == "world")
            #expect(concentration.items.first?.weightBasisPoints == 8_000)
            #expect(concentration.explanation.contains("World ETF (80.00%)"), "\(concentration.explanation)")
            #expect(concentration.explanation.contains("68.00"), "\(concentration.explanation)")
            // Everything is in the US for a USD portfolio: home bias is high too, naming both.
            let home = try card(.homeBias, of: xray)
            #expect(home.severity == .high)
            #expect(home.items.map(\.assetId) == ["world", "cash"])
            #expect(try card(.illiquidity, of: xray).items.isEmpty)
            #expect(try card(.illiquidity, of: xray).severity == .low)
        }
    }

    @Test func theCardsCarryTheSnapshotsMetrics() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T12:00:00Z"))
            for (id, type, country, sector, value) in [
                ("house", AssetType.realEstate, "US", "Real estate", "6000.00"), ("art", .custom, nil, nil, "1000.00"),
                ("world", .stockOrETF, "XD", "Diversified", "3000.00"),
            ] as [(String, AssetType, String?, String?, String)] {
                try ledger.addAsset(assetId: id, name: id.capitalized, category: type == .realEstate ? .property : .investments,
                                    type: type, currency: .usd, country: country, sector: sector)
                try ledger.recordValuation(itemKind: .asset, itemId: id, value: usd(value), source: .manual)
            }
            let xray = try ledger.xray()
            #expect(xray.cards.map(\.metric) == [xray.concentration, xray.homeBias, xray.illiquidity, xray.dataConfidence, xray.exposure])
            let illiquid = try card(.illiquidity, of: xray)
            #expect(illiquid.metric.value == 7_000)
            #expect(illiquid.severity == .high)
            #expect(illiquid.items.map(\.assetId) == ["house", "art"])
            #expect(illiquid.explanation.contains("House (60.00%)"), "\(illiquid.explanation)")
        }
    }

    @Test func dataConfidenceNamesTheStaleAndUntaggedHoldings() throws {
        try withTemporaryStore { root in
            // Monday 10:00 in New York: markets open.
            let clock = ManualClock("2026-05-04T14:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            let vea = try Commodity.named("VEA")
            try ledger.addAsset(assetId: "vea", name: "VEA", category: .investments, type: .stockOrETF, currency: .usd,
                                country: "XD", sector: "Diversified", symbol: "VEA")
            try ledger.setPosition(assetId: "vea", quantity: try Money(parsing: "10", commodity: vea))
            try ledger.quotePrice(symbol: vea, price: usd("50.00"), source: .live)
            try ledger.addAsset(assetId: "fund", name: "Fund", category: .investments, type: .fund, currency: .usd, country: "US")
            try ledger.recordValuation(itemKind: .asset, itemId: "fund", value: usd("300.00"), source: .manual)
            try ledger.addAsset(assetId: "bond", name: "Bond", category: .investments, type: .fixedIncome, currency: .usd,
                                country: "US", sector: "Government")
            try ledger.recordValuation(itemKind: .asset, itemId: "bond", value: usd("200.00"), source: .manual)

            var confidence = try card(.dataConfidence, of: try ledger.xray())
            #expect(confidence.items.map(\.assetId) == ["fund"])
            #expect(confidence.items.first?.reason == "no sector tag")
            #expect(confidence.metric.value == 7_000)
            #expect(confidence.severity == .medium)

            // Two hours later, markets still open, the VEA price is stale (the staleness rule decides): it joins the list.
            clock.advance(seconds: 7_200)
            let xray = try ledger.xray()
            confidence = try card(.dataConfidence, of: xray)
            #expect(xray.holdings.first { $0.assetId == "vea" }?.isStale == true)
            #expect(confidence.items.map(\.assetId) == ["vea", "fund"])
            #expect(confidence.items.first?.reason == "stale price")
            #expect(confidence.itemCount == 2)
            #expect(confidence.severity == .high)
            #expect(confidence.explanation.contains("2 holdings lack them"), "\(confidence.explanation)")
        }
    }

    @Test func unrealisedGainIsValueLessCostBasisPerHoldingAndSummed() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T12:00:00Z"))
            let vea = try Commodity.named("VEA")
            let vuke = try Commodity.named("VUKE")
            let yen = try Commodity.named("JPY")
            try ledger.setFXRate(base: .gbp, quote: .usd, rate: try ExactDecimal(parsing: "1.25"))
            // 10 VEA at 60.00 USD = 600.00, bought for 500.00 USD: +100.00.
            try ledger.addAsset(assetId: "vea", name: "VEA", category: .investments, type: .stockOrETF, currency: .usd, symbol: "VEA")
            try ledger.setPosition(assetId: "vea", quantity: try Money(parsing: "10", commodity: vea), costBasis: usd("500.00"))
            try ledger.quotePrice(symbol: vea, price: usd("60.00"), source: .live)
            // 5 VUKE at 30.00 GBP = 150.00 GBP = 187.50 USD, bought for 200.00 GBP = 250.00 USD: −62.50.
            try ledger.addAsset(assetId: "vuke", name: "FTSE 100", category: .investments, type: .stockOrETF, currency: .gbp, symbol: "VUKE")
            try ledger.setPosition(assetId: "vuke", quantity: try Money(parsing: "5", commodity: vuke), costBasis: gbp("200.00"))
            try ledger.quotePrice(symbol: vuke, price: gbp("30.00"), source: .live)
            // No cost basis: no gain.
            try ledger.addAsset(assetId: "cash", name: "Cash", category: .cash, type: .cash, currency: .usd)
            try ledger.recordValuation(itemKind: .asset, itemId: "cash", value: usd("1000.00"), source: .manual)
            // A cost basis in yen, which has no rate: left out of the gains and said so.
            try ledger.addAsset(assetId: "art", name: "Print", category: .other, type: .custom, currency: .usd)
            try ledger.recordValuation(itemKind: .asset, itemId: "art", value: usd("400.00"), source: .manual)
            try ledger.setPosition(assetId: "art", quantity: try Money(parsing: "1", commodity: try Commodity.named("ART")),
                                   costBasis: Money(minorUnits: 30_000, commodity: yen))

            let xray = try ledger.xray()
            #expect(xray.unrealisedGains.map(\.assetId) == ["vea", "vuke"])
            for gain in xray.unrealisedGains {
                let holding = try #require(xray.holdings.first { $0.assetId == gain.assetId })
                #expect(gain.value == holding.converted)
                #expect(gain.gain == (try holding.converted.subtracting(gain.costConverted)))
            }
            #expect(xray.unrealisedGains.map(\.gain) == [usd("100.00"), usd("-62.50")])
            #expect(xray.unrealisedGains.map(\.costConverted) == [usd("500.00"), usd("250.00")])
            #expect(xray.unrealisedGains.map(\.costBasis) == [usd("500.00"), gbp("200.00")])
            #expect(xray.unrealisedGainTotal == usd("37.50"))
            #expect(xray.unrealisedGainsExcluded.map(\.itemId) == ["art"])
            #expect(xray.unrealisedGainsExcluded.first?.reason.contains("JPY/USD") == true)
        }
    }

    /// Every band edge of every metric, from the one table in XRayRules.
    @Test func severityBandsChangeExactlyAtTheDocumentedThresholds() {
        let concentration = [(14_99, XRayRules.Severity.low), (15_00, .medium), (25_00, .medium), (25_01, .high)]
        for (value, severity) in concentration {
            #expect(XRayRules.concentrationSeverity(hundredths: Int64(value)) == severity, "concentration \(value)")
        }
        for (value, severity) in [(4_999, XRayRules.Severity.low), (5_000, .medium), (7_999, .medium), (8_000, .high)] {
            #expect(XRayRules.homeBiasSeverity(basisPoints: Int64(value)) == severity, "home bias \(value)")
        }
        for (value, severity) in [(1_999, XRayRules.Severity.low), (2_000, .medium), (3_999, .medium), (4_000, .high)] {
            #expect(XRayRules.illiquiditySeverity(basisPoints: Int64(value)) == severity, "illiquidity \(value)")
        }
        for (value, severity) in [(8_000, XRayRules.Severity.low), (7_999, .medium), (5_000, .medium), (4_999, .high)] {
            #expect(XRayRules.dataConfidenceSeverity(basisPoints: Int64(value)) == severity, "data confidence \(value)")
        }
    }
}
