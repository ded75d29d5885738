import Foundation
import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

/// Net worth and the X-ray answer "as of D, as known at K" from indexed lookups. The
/// reference answer folds, from scratch, only the events effective by D and recorded by K
/// into a fresh ledger: the two must agree for every random household and moment.
@Suite struct NetWorthReplayTests {
    /// A random household: assets in three currencies, liabilities, valuations of every
    /// source (some backdated), positions and prices, FX rates both ways, overrides and
    /// clears, tags, removals.
    private func randomHousehold(_ ledger: Ledger, clock: ManualClock, random: inout SplitMix64) throws {
        let currencies: [Commodity] = [.usd, .gbp, .eur]
        let vea = try Commodity.named("VEA")
        var assets: [(String, Commodity)] = []
        var liabilities: [(String, Commodity)] = []
        for step in 0..<60 {
            clock.advance(seconds: Int64(random.next() % 5) * 86_400 + 3_600)
            let backdate = Int64(random.next() % 40) * 86_400 * 1_000_000
            let effective = Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - (random.next() % 3 == 0 ? backdate : 0))
            let currency = currencies[Int(random.next() % 3)]
            // A valuation or position dated before its item was added is refused (issue 32,
            // rule 3: nothing happens before it exists); the household goes on.
            do {
            switch random.next() % 10 {
            case 0, 1:
                let id = "a\(step)"
                let type = [AssetType.cash, .stockOrETF, .realEstate, .fund, .gold, .custom][Int(random.next() % 6)]
                try ledger.addAsset(assetId: id, name: id, category: .investments, type: type, currency: currency,
                                               country: ["US", "GB", nil][Int(random.next() % 3)], sector: ["Tech", nil][Int(random.next() % 2)],
                                    effectiveAt: effective)
                assets.append((id, currency))
            case 2:
                let id = "l\(step)"
                try ledger.addLiability(liabilityId: id, name: id, category: .loan, currency: currency, effectiveAt: effective)
                liabilities.append((id, currency))
            case 3, 4:
                guard let (id, currency) = assets.randomElement(using: &random) else { continue }
                let source = [ValuationSource.manual, .bankRefresh, .live, .override][Int(random.next() % 4)]
                try ledger.recordValuation(itemKind: .asset, itemId: id, value: Money(minorUnits: Int64(random.next() % 10_000_000) + 1, commodity: currency), source: source, effectiveAt: effective)
            case 5:
                guard let (id, currency) = liabilities.randomElement(using: &random) else { continue }
                try ledger.recordValuation(itemKind: .liability, itemId: id, value: Money(minorUnits: Int64(random.next() % 5_000_000) + 1, commodity: currency), source: .bankRefresh, effectiveAt: effective)
            case 6:
                let (base, quote) = (currencies[Int(random.next() % 3)], currencies[Int(random.next() % 3)])
                guard base != quote else { continue }
                try ledger.setFXRate(base: base, quote: quote, rate: try ExactDecimal(significand: Int64(random.next() % 20_000) + 5_000, scale: 4), effectiveAt: effective)
            case 7:
                guard let (id, _) = assets.randomElement(using: &random) else { continue }
                if random.next() % 2 == 0 {
                    try ledger.setPosition(assetId: id, quantity: Money(minorUnits: Int64(random.next() % 10_000_000_000), commodity: vea), effectiveAt: effective)
                } else {
                    try ledger.clearValuationOverride(id, effectiveAt: effective)
                }
            case 8:
                try ledger.quotePrice(symbol: vea, price: Money(minorUnits: Int64(random.next() % 10_000) + 100, commodity: currency), source: random.next() % 2 == 0 ? .live : .manual, effectiveAt: effective)
            default:
                let roll = random.next() % 3
                if roll == 1, let (id, _) = assets.randomElement(using: &random) {
                    // A rename or a new category, perhaps backdated before the asset was held.
                    let category = [AssetCategory.cash, .property, .investments, .other][Int(random.next() % 4)]
                    do {
                        try ledger.renameAsset(assetId: id, name: "\(id) renamed \(step)", category: category, effectiveAt: effective)
                    } catch let error as LedgerError where error.code == .notFound {}
                    continue
                }
                guard roll == 0, let index = assets.indices.randomElement(using: &random) else { continue }
                try ledger.removeAsset(assets[index].0, effectiveAt: effective)
                assets.remove(at: index)
            }
            } catch let error as LedgerError where error.message.hasSuffix("comes before it") {
                continue
            }
        }
    }

    /// A fresh ledger holding only the events effective by `asOf` and recorded by `knownAt`,
    /// each recorded at its original instant.
    private func replay(_ source: Ledger, root: String, asOf: Instant, knownAt: Instant) throws -> Ledger {
        var events: [Event] = []
        try EventStoreReader.open(at: source.layout.root, catalog: .standard).forEach { events.append($0) }
        let clock = ManualClock(events[0].recordedAt)
        let fresh = try Ledger.forTesting(at: root, clock: clock)
        for event in events.dropFirst() where event.effectiveAt <= asOf && event.recordedAt <= knownAt {
            clock.set(event.recordedAt.description)
            try fresh.appendEvents([NewEvent(effectiveAt: event.effectiveAt, body: event.body)])
        }
        return fresh
    }

    @Test(arguments: LogBackend.allCases) func indexedAnswersEqualAFullReplay(on backend: LogBackend) throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for household in 0..<6 {
            try withTemporaryStore(on: backend) { store in
                let root = store.root
                let clock = ManualClock("2026-01-01T12:00:00Z")
                let ledger = try Ledger.forTesting(at: store, clock: clock)
                try randomHousehold(ledger, clock: clock, random: &random)
                let first = try Instant(parsing: "2025-12-01T00:00:00Z").microsecondsSinceEpoch
                let last = clock.now.microsecondsSinceEpoch
                for moment in 0..<6 {
                    let asOf = Instant(microsecondsSinceEpoch: Int64.random(in: first...last, using: &random))
                    let knownAt = moment % 2 == 0 ? clock.now : Instant(microsecondsSinceEpoch: Int64.random(in: first...last, using: &random))
                    let context = "seed \(seed), household \(household), as of \(asOf), known at \(knownAt)"
                    let fresh = try replay(ledger, root: root + "-replay-\(moment)", asOf: asOf, knownAt: knownAt)
                    defer { try? fresh.close(); try? FileManager.default.removeItem(atPath: root + "-replay-\(moment)") }
                    let indexed = try ledger.netWorth(asOf: asOf, knownAt: knownAt)
                    let reference = try fresh.netWorth(asOf: asOf)
                    #expect(indexed.netWorth == reference.netWorth, "\(context)")
                    #expect(indexed.lines.map(\.converted) == reference.lines.map(\.converted), "\(context)")
                    #expect(indexed.lines.map(\.value.source) == reference.lines.map(\.value.source), "\(context)")
                    #expect(indexed.excluded.map(\.itemId) == reference.excluded.map(\.itemId), "\(context)")
                    // Names and categories in force then (asset_renamed), in the lines, the breakdown and the list.
                    #expect(indexed.lines.map(\.name) == reference.lines.map(\.name), "\(context)")
                    #expect(indexed.lines.map(\.category) == reference.lines.map(\.category), "\(context)")
                    #expect(indexed.categories == reference.categories, "\(context)")
                    #expect(try ledger.netWorthItems(asOf: asOf, knownAt: knownAt).items == fresh.netWorthItems(asOf: asOf).items.map { $0 }, "\(context)")
                    let indexedXRay = try ledger.xray(asOf: asOf, knownAt: knownAt)
                    let referenceXRay = try fresh.xray(asOf: asOf)
                    #expect(indexedXRay.exposureByCountry == referenceXRay.exposureByCountry, "\(context)")
                    #expect(indexedXRay.concentration == referenceXRay.concentration, "\(context)")
                    #expect(indexedXRay.dataConfidence == referenceXRay.dataConfidence, "\(context)")
                }
                try ledger.close()
            }
        }
    }
}
