import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, "X-ray insight cards": each card says why it matters and what to do next, the
/// exposure warning names the country or sector the portfolio leans on, small asset types
/// are shown together as "Other", and an empty portfolio is an empty state, not a warning.
@Suite struct XRayInsightTests {
    private func asset(_ ledger: Ledger, _ id: String, type: AssetType, country: String?, sector: String?, value: String) throws {
        try ledger.addAsset(assetId: id, name: id.capitalized, category: .investments, type: type, currency: .usd, country: country, sector: sector)
        try ledger.recordValuation(itemKind: .asset, itemId: id, value: usd(value), source: .manual)
    }

    @Test func anEmptyPortfolioIsAnEmptyStateWithoutWarnings() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T12:00:00Z"))
            let xray = try ledger.xray()
            #expect(xray.isEmpty && xray.cards.isEmpty)
            for metric in [xray.concentration, xray.homeBias, xray.illiquidity, xray.dataConfidence, xray.exposure] {
                #expect(metric.severity == .low, "nothing to warn about in an empty portfolio")
            }
            #expect(xray.largestExposure == nil && xray.allocationByType.isEmpty)
        }
    }

    @Test func everyCardSaysWhyItMattersAndWhatToDoNext() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T12:00:00Z"))
            // 70% in technology across two US stocks, a house, a little gold and a little cash.
            try asset(ledger, "apple", type: .stockOrETF, country: "US", sector: "Technology", value: "4000.00")
            try asset(ledger, "msft", type: .stockOrETF, country: "US", sector: "Technology", value: "3000.00")
            try asset(ledger, "house", type: .realEstate, country: "US", sector: "Real estate", value: "2400.00")
            try asset(ledger, "gold", type: .gold, country: nil, sector: "Commodities", value: "300.00")
            try asset(ledger, "cash", type: .cash, country: "US", sector: "Cash", value: "300.00")
            let xray = try ledger.xray()
            #expect(xray.cards.map(\.kind) == XRayCard.Kind.allCases)
            for card in xray.cards {
                #expect(!card.whyItMatters.isEmpty && !card.nextStep.isEmpty, "\(card.kind)")
                #expect(card.nextStep.hasPrefix("Nothing to do") == (card.severity == .low), "\(card.kind) \(card.severity): \(card.nextStep)")
            }
            // The exposure warning: 97% in one country, the US (7,000 + 2,400 + 300 of 10,000).
            let exposure = try #require(xray.cards.first { $0.kind == .exposure })
            #expect(xray.largestExposure == XRayExposure(dimension: .country, group: "US", basisPoints: 9_700))
            #expect(exposure.metric == XRayMetric(value: 9_700, severity: .high))
            #expect(exposure.items.map(\.assetId) == ["apple", "msft", "house", "cash"])
            #expect(exposure.explanation.contains("country, US"), "\(exposure.explanation)")
            #expect(exposure.nextStep.contains("other countries") && exposure.nextStep.contains("US"), "\(exposure.nextStep)")
            // Gold and cash hold 3% each, below 5%: together as Other.
            #expect(xray.allocationByType.map { "\($0.group) \($0.basisPoints)" } == ["stock_etf 7000", "real_estate 2400", "Other 600"])
        }
    }

    @Test func aSectorCanBeTheExposureAndASingleSmallTypeKeepsItsName() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T12:00:00Z"))
            try asset(ledger, "us", type: .stockOrETF, country: "US", sector: "Energy", value: "3500.00")
            try asset(ledger, "uk", type: .stockOrETF, country: "GB", sector: "Energy", value: "3300.00")
            try asset(ledger, "de", type: .fund, country: "DE", sector: "Utilities", value: "3000.00")
            try asset(ledger, "gold", type: .gold, country: nil, sector: nil, value: "200.00")
            let xray = try ledger.xray()
            #expect(xray.largestExposure == XRayExposure(dimension: .sector, group: "Energy", basisPoints: 6_800))
            #expect(xray.exposure.severity == .high)
            #expect(try #require(xray.cards.first { $0.kind == .exposure }).nextStep.contains("other sectors"))
            #expect(xray.allocationByType.map(\.group) == ["stock_etf", "fund", "gold"])
        }
    }
}
