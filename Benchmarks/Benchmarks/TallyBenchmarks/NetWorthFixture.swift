import Foundation
import Synchronization
import Tally
import TallyLog

/// The net-worth household of the series benchmarks: 30 items (20 assets in USD, GBP and
/// EUR: cash, property, funds and six ETF positions priced in USD or GBP; 10 liabilities)
/// living ten years, 2016-01-01 to 2025-12-31. Every day, one commit recorded that evening:
/// eight prices, three FX rates and sixteen valuations (about 98,600 events in all).
enum NetWorthFixture {
    static let firstDay = LocalDate(daysSinceEpoch: 16_801)  // 2016-01-01
    static let lastDay = LocalDate(daysSinceEpoch: 20_453)  // 2025-12-31
    static let firstMonth = Month(ordinal: 2016 * 12)
    static let lastMonth = Month(ordinal: 2025 * 12 + 11)

    /// The store, built once per snapshot interval and cache key; its read models are current.
    static func store(interval: SnapshotInterval) throws -> String {
        let path = try Fixtures.cacheDirectory() + "/networth-\(interval.description.replacingOccurrences(of: " ", with: "-"))"
        if FileManager.default.fileExists(atPath: path + "/COMPLETE") { return path }
        Fixtures.remove(path)
        try build(at: path, interval: interval)
        guard FileManager.default.createFile(atPath: path + "/COMPLETE", contents: Data()) else {
            throw FixtureError(description: "cannot mark \(path) complete")
        }
        return path
    }

    /// Opens the store of `interval` with that interval.
    static func ledger(interval: SnapshotInterval) throws -> Ledger {
        try Ledger.open(at: try store(interval: interval), options: Ledger.Options(syncMode: .none, snapshotInterval: interval, features: standardFeatures))
    }

    private static func build(at path: String, interval: SnapshotInterval) throws {
        let calendar = LedgerCalendar.utc
        let clock = Mutex(calendar.startOfDay(firstDay))
        let ledger = try Ledger.create(
            at: path, name: "Net worth household", baseCurrency: .usd, timeZone: "UTC",
            options: Ledger.Options(clock: { clock.withLock { $0 } }, syncMode: .none, snapshotInterval: interval, features: standardFeatures)
        )
        var random = SplitMix64(seed: Fixtures.seed)
        let currencies: [Commodity] = [.usd, .gbp, .eur]
        var symbols: [(symbol: Commodity, currency: Commodity, price: Int64)] = []
        var valued: [(kind: ItemKind, id: String, currency: Commodity, value: Int64)] = []
        var setup: [NewEvent] = []
        let start = calendar.startOfDay(firstDay)
        for index in 0..<20 {
            let id = "asset-\(index)"
            let currency = currencies[index % 3]
            if index < 6 {
                let symbol = try Commodity.named("ETF\(index)")
                let priced: Commodity = index % 2 == 0 ? .usd : .gbp
                setup.append(NewEvent(effectiveAt: start, body: EventBody(AssetAdded(
                    assetId: id, name: "ETF \(index)", category: .investments, type: .stockOrETF, currency: priced, symbol: symbol.code))))
                setup.append(NewEvent(effectiveAt: start, body: EventBody(PositionSet(
                    assetId: id, quantity: Money(minorUnits: Int64(100 + index * 37) * 100_000_000, commodity: symbol)))))
                symbols.append((symbol, priced, 5_000 + Int64(index) * 1_000))
            } else {
                let (category, type): (AssetCategory, AssetType) = index < 12 ? (.cash, .cash) : index < 15 ? (.property, .realEstate) : (.investments, .fund)
                setup.append(NewEvent(effectiveAt: start, body: EventBody(AssetAdded(
                    assetId: id, name: "Asset \(index)", category: category, type: type, currency: currency))))
                valued.append((.asset, id, currency, 1_000_000 + Int64(index) * 2_500_000))
            }
        }
        for index in 0..<10 {
            let id = "liability-\(index)"
            let currency = currencies[index % 3]
            setup.append(NewEvent(effectiveAt: start, body: EventBody(LiabilityAdded(
                liabilityId: id, name: "Liability \(index)", category: index < 3 ? .mortgage : .loan, currency: currency))))
            valued.append((.liability, id, currency, 500_000 + Int64(index) * 1_500_000))
        }
        _ = try ledger.appendEvents(setup)

        let pairs: [(Commodity, Commodity, Int64)] = [(.gbp, .usd, 13_000), (.eur, .usd, 11_000), (.eur, .gbp, 8_500)]
        var rates = pairs.map(\.2)
        var next = 0
        for days in 0...(lastDay.daysSinceEpoch - firstDay.daysSinceEpoch) {
            let day = firstDay.adding(days: days)
            let effective = calendar.startOfDay(day)
            clock.withLock { $0 = Instant(microsecondsSinceEpoch: calendar.endOfDay(day).microsecondsSinceEpoch - 6 * 3_600_000_000) }
            var events: [NewEvent] = []
            for index in symbols.indices {
                symbols[index].price = max(100, symbols[index].price + random.step(50))
                events.append(NewEvent(effectiveAt: effective, body: EventBody(PriceQuoted(
                    symbol: symbols[index].symbol, price: Money(minorUnits: symbols[index].price, commodity: symbols[index].currency), source: .live))))
            }
            for symbol in symbols.prefix(2) {
                events.append(NewEvent(effectiveAt: effective, body: EventBody(PriceQuoted(
                    symbol: symbol.symbol, price: Money(minorUnits: symbol.price + 1, commodity: symbol.currency), source: .manual))))
            }
            for (index, pair) in pairs.enumerated() {
                rates[index] = max(5_000, rates[index] + random.step(40))
                events.append(NewEvent(effectiveAt: effective, body: EventBody(FXRateSet(
                    base: pair.0, quote: pair.1, rate: try ExactDecimal(significand: rates[index], scale: 4)))))
            }
            for _ in 0..<16 {
                let item = valued[next]
                valued[next].value = max(100, item.value + random.step(item.value / 200 + 1))
                events.append(NewEvent(effectiveAt: effective, body: EventBody(ValuationRecorded(
                    itemKind: item.kind, itemId: item.id, value: Money(minorUnits: valued[next].value, commodity: item.currency),
                    source: item.kind == .asset && next % 2 == 0 ? .manual : .bankRefresh))))
                next = (next + 1) % valued.count
            }
            _ = try ledger.appendEvents(events)
        }
        clock.withLock { $0 = calendar.startOfDay(lastDay.adding(days: 2)) }
        _ = try ledger.appendEvents([NewEvent(effectiveAt: calendar.startOfDay(lastDay.adding(days: 2)), body: EventBody(AssetTagged(assetId: "asset-0", country: "US")))])
        try ledger.sync()
        try ledger.close()
    }
}

extension SplitMix64 {
    /// A step of the walk in `-limit...limit`.
    mutating func step(_ limit: Int64) -> Int64 {
        Int64(next() % UInt64(2 * limit + 1)) - limit
    }
}
