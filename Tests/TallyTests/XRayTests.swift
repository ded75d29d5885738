import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

@Suite struct XRayTests {
    private func asset(_ ledger: Ledger, _ id: String, type: AssetType, country: String?, sector: String?, value: String) throws {
        try ledger.addAsset(assetId: id, name: id.capitalized, category: type == .realEstate ? .property : .investments,
                                       type: type, currency: .usd, country: country, sector: sector)
        try ledger.recordValuation(itemKind: .asset, itemId: id, value: usd(value), source: .manual)
    }

    @Test func fourEqualAssetsHaveAConcentrationOf25() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T12:00:00Z"))
            for id in ["a", "b", "c", "d"] {
                try asset(ledger, id, type: .stockOrETF, country: "US", sector: "Tech", value: "2500.00")
            }
            let xray = try ledger.xray()
            #expect(xray.concentration.value == 25_00)
            #expect(xray.concentration.severity == .medium)
            #expect(xray.holdings.allSatisfy { $0.weightBasisPoints == 2_500 })
            try ledger.expectConsistent()
        }
    }

    @Test func concentrationOfOneAssetIs100AndIsExactForUnevenWeights() {
        #expect(XRayQueries.concentrationHundredths([5]) == 100_00)
        // Weights 1/2, 1/4, 1/4: 100 × (1/4 + 1/16 + 1/16) = 37.50.
        #expect(XRayQueries.concentrationHundredths([200, 100, 100]) == 37_50)
        #expect(XRayQueries.concentrationHundredths([]) == 0)
        #expect(XRayQueries.concentrationHundredths([Int64.max, Int64.max]) == 50_00)
    }

    @Test func aManualOverrideBeatsANewerLivePriceUntilCleared() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addAsset(assetId: "fund", name: "Fund", category: .investments, type: .fund, currency: .usd, country: "US", sector: "Diversified")
            try ledger.recordValuation(itemKind: .asset, itemId: "fund", value: usd("900.00"), source: .manual)
            try ledger.recordValuation(itemKind: .asset, itemId: "fund", value: usd("1000.00"), source: .override)
            clock.advance(seconds: 60)
            try ledger.recordValuation(itemKind: .asset, itemId: "fund", value: usd("1100.00"), source: .live)
            var holding = try #require(try ledger.xray().holdings.first)
            #expect(holding.converted == usd("1000.00"))
            #expect(holding.value.source == .override)
            clock.advance(seconds: 60)
            try ledger.clearValuationOverride("fund")
            holding = try #require(try ledger.xray().holdings.first)
            #expect(holding.converted == usd("1100.00"))
            #expect(holding.value.source == .live)
            try ledger.expectConsistent()
        }
    }

    @Test func anAssetWithNoRateIsExcludedFromCoverage() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T12:00:00Z"))
            try asset(ledger, "us", type: .stockOrETF, country: "US", sector: "Tech", value: "3000.00")
            let chf = try Commodity.named("CHF")
            try ledger.addAsset(assetId: "swiss", name: "Swiss account", category: .cash, type: .cash, currency: chf, country: "CH")
            try ledger.recordValuation(itemKind: .asset, itemId: "swiss", value: Money(minorUnits: 100_000, commodity: chf), source: .manual)
            let xray = try ledger.xray()
            #expect(xray.excluded.map(\.itemId) == ["swiss"])
            #expect(xray.coverageBasisPoints == 5_000)
            #expect(xray.total == usd("3000.00"))
        }
    }

    @Test func allocationExposureAndRiskMetrics() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T12:00:00Z"))
            try asset(ledger, "house", type: .realEstate, country: "US", sector: "Real estate", value: "6000.00")
            try asset(ledger, "world", type: .stockOrETF, country: "XD", sector: nil, value: "3000.00")
            try asset(ledger, "gold", type: .gold, country: nil, sector: "Commodities", value: "1000.00")
            let xray = try ledger.xray()
            #expect(xray.allocationByType.map(\.group) == ["real_estate", "stock_etf", "gold"])
            #expect(xray.exposureByCountry.map(\.group) == ["US", "XD", "Unknown"])
            #expect(xray.exposureBySector.map { "\($0.group) \($0.basisPoints)" } == ["Real estate 6000", "Commodities 1000", "Unknown 3000"])
            #expect(xray.homeBias.value == 6_000)
            #expect(xray.homeBias.severity == .medium)
            #expect(xray.illiquidity.value == 6_000)
            #expect(xray.illiquidity.severity == .high)
            #expect(xray.dataConfidence.value == 6_000, "only the house has full tags")
            #expect(xray.dataConfidence.severity == .medium)
            #expect(xray.concentration.value == 46_00)  // 100 × (0.36 + 0.09 + 0.01)
        }
    }

    @Test func groupsBeyondTheTopFiveAreSummedAsOther() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T12:00:00Z"))
            for (index, country) in ["US", "GB", "DE", "FR", "JP", "CA", "AU"].enumerated() {
                try asset(ledger, "a\(index)", type: .stockOrETF, country: country, sector: "S", value: "\(700 - index * 10).00")
            }
            let groups = try ledger.xray().exposureByCountry.map(\.group)
            #expect(groups == ["US", "GB", "DE", "FR", "JP", "Other"])
        }
    }

    @Test func remindersAreDueFromTheirDateUntilDone() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try asset(ledger, "house", type: .realEstate, country: "US", sector: "Real estate", value: "6000.00")
            try ledger.setReminder(reminderId: "revalue", assetId: "house", dueDate: try LocalDate(parsing: "2026-05-10"), note: "Check sales")
            #expect(try ledger.xray().remindersDue.isEmpty)
            let tenth = ledger.calendar.endOfDay(try LocalDate(parsing: "2026-05-10"))
            #expect(try ledger.xray(asOf: tenth).remindersDue.map(\.reminderId) == ["revalue"])
            clock.set("2026-05-11T12:00:00Z")
            try ledger.completeReminder("revalue")
            #expect(try ledger.xray().remindersDue.isEmpty)
            #expect(try ledger.xray(asOf: tenth).remindersDue.map(\.reminderId) == ["revalue"], "the past still shows it due")
            try ledger.expectConsistent()
        }
    }
}
