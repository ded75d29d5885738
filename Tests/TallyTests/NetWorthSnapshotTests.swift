import Foundation
import Testing
@testable import Tally
import TallyTestSupport
import TallyLog
@testable import TallyEngine
@testable import TallyProducts

/// The net-worth series reads month ends from compressed bitemporal snapshots of every item's
/// active value and the FX quotes in force. Whatever the interval, every month's report, as
/// known at any instant, equals the latest-value-at lookups and a full replay of the log.
@Suite struct NetWorthSnapshotTests {
    // MARK: - Stories

    @Test func aValuationCorrectedTodayForLastMarchChangesTheSeriesFromMarchOnAndNotAsKnownYesterday() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2025-01-02T15:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addAsset(assetId: "home", name: "Home", category: .property, type: .realEstate, currency: .usd)
            try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd("400000.00"), source: .manual)
            try ledger.addAsset(assetId: "savings", name: "Savings", category: .cash, type: .cash, currency: .gbp)
            try ledger.addLiability(liabilityId: "mortgage", name: "Mortgage", category: .mortgage, currency: .usd)
            var owed: Int64 = 30_000_000
            for index in 0..<23 {
                // Each month: the bank refreshes, the mortgage shrinks, GBP moves; all recorded on the 2nd.
                clock.set(ledger.calendar.startOfDay(month("2025-01").adding(months: index).firstDay.adding(days: 1)).description)
                clock.advance(seconds: 15 * 3_600)
                try ledger.recordValuation(itemKind: .asset, itemId: "savings", value: gbp("\(5_000 + index * 250).00"), source: .bankRefresh)
                try ledger.recordValuation(itemKind: .liability, itemId: "mortgage", value: Money(minorUnits: owed, commodity: .usd), source: .bankRefresh)
                owed -= 120_000
                try ledger.setFXRate(base: .gbp, quote: .usd, rate: rate("1.2\(index % 10)"))
            }
            clock.set("2026-11-20T18:00:00Z")
            let yesterday = clock.now
            let before = try ledger.netWorthSeries(from: month("2025-01"), through: month("2026-10"))
            #expect(try snapshotHits(ledger, before.map(\.report.point)) == before.count, "every month end from a snapshot")

            clock.set("2026-11-21T10:00:00Z")
            try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd("430000.00"), source: .manual,
                                       effectiveAt: ledger.calendar.startOfDay(day("2026-03-20")))
            let after = try ledger.netWorthSeries(from: month("2025-01"), through: month("2026-10"))
            for (old, new) in zip(before, after) {
                let difference = try new.report.netWorth.subtracting(old.report.netWorth)
                #expect(difference == (old.month >= month("2026-03") ? usd("30000.00") : usd("0.00")), "\(old.month)")
            }
            let knownYesterday = try ledger.netWorthSeries(from: month("2025-01"), through: month("2026-10"), knownAt: yesterday)
            #expect(knownYesterday.map(\.report.netWorth) == before.map(\.report.netWorth))
            #expect(knownYesterday.map(\.report.lines) == before.map(\.report.lines))

            let statistics = try ledger.read { db in try NetWorthSnapshots.statistics(db) }
            #expect(statistics.count - statistics.current == 8, "March to October 2026 retired: \(statistics)")
            #expect(try snapshotHits(ledger, after.map(\.report.point)) == after.count, "retaken from March on")
            #expect(try snapshotHits(ledger, knownYesterday.map(\.report.point)) == knownYesterday.count, "the retired ones answer as known yesterday")
            try expectSeriesMatchLookupsAndReplay(ledger, from: month("2024-12"), through: month("2026-11"), knownAt: nil, context: "now")
            try expectSeriesMatchLookupsAndReplay(ledger, from: month("2024-12"), through: month("2026-11"), knownAt: yesterday, context: "as known yesterday")
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aBaseCurrencySwitchOrAStalenessChangeRetiresNoSnapshotAndAppliesAsKnown() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-01-05T15:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            let vea = try Commodity.named("VEA")
            try ledger.addAsset(assetId: "vea", name: "VEA", category: .investments, type: .stockOrETF, currency: .usd, symbol: "VEA")
            try ledger.setPosition(assetId: "vea", quantity: try Money(parsing: "12.5", commodity: vea))
            try ledger.addAsset(assetId: "flat", name: "Flat", category: .property, type: .realEstate, currency: .gbp)
            try ledger.recordValuation(itemKind: .asset, itemId: "flat", value: gbp("250000.00"), source: .manual)
            for week in 0..<30 {
                clock.advance(seconds: 7 * 86_400)
                try ledger.quotePrice(symbol: vea, price: usd("\(50 + week % 7).10"), source: .live,
                                      effectiveAt: ledger.calendar.startOfDay(ledger.calendar.date(of: clock.now).adding(days: -(week % 3))))
                try ledger.setFXRate(base: .gbp, quote: .usd, rate: rate("1.3\(week % 10)"))
            }
            let beforeSwitch = clock.now
            let usdSeries = try ledger.netWorthSeries(from: month("2026-01"), through: month("2026-07"))
            let taken = try ledger.read { db in try NetWorthSnapshots.statistics(db) }
            #expect(taken.current >= 6 && taken.count == taken.current, "\(taken)")
            #expect(usdSeries.contains { $0.report.lines.contains(where: \.isStale) }, "month-end prices are days old: stale at 15 minutes")

            clock.advance(seconds: 3_600)
            // Backdated to the day after the ledger was created: every month end of the series is in GBP.
            try ledger.setBaseCurrency(.gbp, effectiveAt: ledger.calendar.startOfDay(day("2026-01-06")))
            clock.advance(seconds: 3_600)
            // Backdated to the start of the year: the threshold in force at each month end.
            try ledger.setPriceStaleness(seconds: 30 * 86_400, effectiveAt: ledger.calendar.startOfDay(day("2026-01-01")))
            #expect(try ledger.read { db in try NetWorthSnapshots.statistics(db) } == taken, "no snapshot depends on either")
            let gbpSeries = try ledger.netWorthSeries(from: month("2026-01"), through: month("2026-07"))
            #expect(gbpSeries.allSatisfy { $0.report.baseCurrency == .gbp && !$0.report.lines.contains(where: \.isStale) })
            let knownBefore = try ledger.netWorthSeries(from: month("2026-01"), through: month("2026-07"), knownAt: beforeSwitch)
            #expect(knownBefore.map { $0.report.answering(for: PointInTime(asOf: $0.report.point.asOf)) } == usdSeries.map(\.report))
            #expect(try snapshotHits(ledger, gbpSeries.map(\.report.point)) >= 6)
            for entry in knownBefore {
                let xray = try ledger.xray(asOf: entry.report.point.asOf, knownAt: beforeSwitch)
                #expect(xray.holdings.map(\.isStale) == entry.report.lines.filter { $0.kind == .asset }.map(\.isStale), "the X-ray flags as net worth does, \(entry.month)")
            }
            for knownAt in [nil, beforeSwitch, Instant(microsecondsSinceEpoch: beforeSwitch.microsecondsSinceEpoch + 3_600_000_000)] {
                try expectSeriesMatchLookupsAndReplay(ledger, from: month("2025-12"), through: month("2026-08"), knownAt: knownAt, context: "known at \(knownAt.map { "\($0)" } ?? "now")")
            }
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aValueConvertsAtTheInverseOfTheOppositeQuoteWhicheverTookEffectLast() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-01-05T15:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addAsset(assetId: "flat", name: "Flat", category: .property, type: .realEstate, currency: .eur)
            try ledger.recordValuation(itemKind: .asset, itemId: "flat", value: Money(parsing: "300000.00", commodity: .eur), source: .manual)
            try ledger.setFXRate(base: .usd, quote: .eur, rate: rate("0.8"))
            clock.set("2026-03-10T15:00:00Z")
            try ledger.setFXRate(base: .eur, quote: .usd, rate: rate("1.1"))
            clock.set("2026-05-10T15:00:00Z")
            try ledger.setFXRate(base: .usd, quote: .eur, rate: rate("0.9"))
            clock.set("2026-07-10T15:00:00Z")
            try ledger.tagAsset(assetId: "flat", country: "FR")
            let series = try ledger.netWorthSeries(from: month("2026-01"), through: month("2026-06"))
            #expect(series.map(\.report.netWorth) == [usd("375000.00"), usd("375000.00"), usd("330000.00"), usd("330000.00"), usd("333333.33"), usd("333333.33")])
            #expect(try snapshotHits(ledger, series.map(\.report.point)) == 6)
            try expectSeriesMatchLookupsAndReplay(ledger, from: month("2025-12"), through: month("2026-07"), knownAt: nil, context: "now")
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func anItemAddedAgainAfterItsRemovalRetiresTheSnapshotsOfItsFirstLife() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-01-05T15:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.addAsset(assetId: "car", name: "Car", category: .other, type: .custom, currency: .usd)
            try ledger.recordValuation(itemKind: .asset, itemId: "car", value: usd("20000.00"), source: .manual)
            clock.set("2026-03-10T15:00:00Z")
            try ledger.removeAsset("car")
            clock.set("2026-07-10T15:00:00Z")
            try ledger.addAsset(assetId: "car", name: "Car", category: .other, type: .custom, currency: .usd,
                                effectiveAt: ledger.calendar.startOfDay(day("2026-06-01")))
            try ledger.recordValuation(itemKind: .asset, itemId: "car", value: usd("15000.00"), source: .manual,
                                       effectiveAt: ledger.calendar.startOfDay(day("2026-06-01")))
            let hits = try expectSeriesMatchLookupsAndReplay(ledger, from: month("2026-01"), through: month("2026-06"), knownAt: nil, context: "now")
            #expect(hits == 1, "the item's row now starts in June: snapshots are taken from then on")
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aStoreReopenedWithAnotherIntervalKeepsEverySeries() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-01-02T12:00:00Z")
            var ledger = try Ledger.forTesting(at: root, clock: clock, snapshotInterval: .days(5))
            try ledger.addAsset(assetId: "cash", name: "Cash", category: .cash, type: .cash, currency: .usd)
            for number in 0..<40 {
                clock.advance(seconds: 4 * 86_400)
                try ledger.recordValuation(itemKind: .asset, itemId: "cash", value: usd("\(1_000 + number * 17).00"), source: .bankRefresh)
            }
            try ledger.close()
            let beforeBackdating = clock.now
            ledger = try Ledger.open(at: root, options: Ledger.Options(clock: clock.function, syncMode: .none, snapshotInterval: .months(1), features: standardFeatures))
            clock.advance(seconds: 3_600)
            try ledger.recordValuation(itemKind: .asset, itemId: "cash", value: usd("5.00"), source: .override,
                                       effectiveAt: ledger.calendar.startOfDay(day("2026-02-27")))
            #expect(try ledger.netWorth(asOf: ledger.calendar.endOfDay(day("2026-05-31"))).netWorth == usd("5.00"))
            for knownAt in [nil, beforeBackdating, clock.now] {
                try expectSeriesMatchLookupsAndReplay(ledger, from: month("2025-12"), through: month("2026-07"), knownAt: knownAt, context: "reopened monthly")
            }
            try ledger.close()
            // Weekly from now on: the month ends a backdated value retires are not taken again.
            let beforeSecondBackdating = clock.now
            ledger = try Ledger.open(at: root, options: Ledger.Options(clock: clock.function, syncMode: .none, snapshotInterval: .days(7), features: standardFeatures))
            clock.advance(seconds: 3_600)
            try ledger.clearValuationOverride("cash", effectiveAt: ledger.calendar.startOfDay(day("2026-04-15")))
            #expect(try ledger.netWorth(asOf: ledger.calendar.endOfDay(day("2026-05-31"))).netWorth != usd("5.00"))
            for knownAt in [nil, beforeBackdating, beforeSecondBackdating, clock.now] {
                try expectSeriesMatchLookupsAndReplay(ledger, from: month("2025-12"), through: month("2026-07"), knownAt: knownAt, context: "reopened weekly")
            }
            try ledger.close()
        }
    }

    // MARK: - Differential

    /// 2 random households × 4 intervals × 7 known-ats × 24 months: 1,344 month reports,
    /// each compared with the lookups and with a full replay. `TALLY_SNAPSHOT_LEDGERS=N` runs N
    /// households (the long form: 3 or more).
    @Test(arguments: [SnapshotInterval.days(10), .months(1), .months(3), .never])
    func everyMonthOfTheSeriesEqualsLookupsAndAFullReplayAtAnyIntervalAndKnownAt(interval: SnapshotInterval) throws {
        let base = TestSeed.value(default: 20_261_121)
        let households = TestScale.count("TALLY_SNAPSHOT_LEDGERS", default: 2)
        var hits = 0
        for offset in UInt64(0)..<UInt64(households) {
            let seed = base &+ offset
            var random = SplitMix64(seed: seed)
            hits += try withTemporaryStore { root in
                let clock = ManualClock("2025-01-03T12:00:00Z")
                let ledger = try Ledger.forTesting(at: root, clock: clock, snapshotInterval: interval)
                defer { try? ledger.close() }
                let recorded = try randomHousehold(ledger, clock: clock, random: &random)
                #expect(recorded.count >= 100, "seed \(seed): most commands append")
                var knownAts: [Instant?] = [nil, Instant(microsecondsSinceEpoch: recorded[0].microsecondsSinceEpoch - 1)]
                for _ in 0..<5 {
                    let instant = recorded.randomElement(using: &random)!.microsecondsSinceEpoch
                    knownAts.append(Instant(microsecondsSinceEpoch: instant + [-1, 0, 1, 86_400_000_000].randomElement(using: &random)!))
                }
                var hits = 0
                for knownAt in knownAts {
                    hits += try expectSeriesMatchLookupsAndReplay(
                        ledger, from: month("2024-11"), through: month("2026-10"), knownAt: knownAt,
                        context: "seed \(seed) (TALLY_TEST_SEED=\(base)), interval \(interval), known at \(knownAt.map { "\($0)" } ?? "now")")
                }
                try ledger.expectConsistent()
                return hits
            }
        }
        switch interval {
        case .never: #expect(hits == 0)
        case .months(1): #expect(hits >= households * 15, "most month ends answered from snapshots (seed \(base))")
        default: #expect(hits > 0, "some month ends answered from snapshots (seed \(base))")
        }
    }

    /// A household over about 20 months of recorded time: assets and liabilities added and
    /// removed (ids never reused), valuations of every source, overrides and clears,
    /// positions and prices in two currencies, FX rates both ways, base-currency switches,
    /// staleness changes and tags; a quarter of the events backdated up to 120 days.
    /// Returns the recorded instant of every command that appended.
    private func randomHousehold(_ ledger: Ledger, clock: ManualClock, random: inout SplitMix64) throws -> [Instant] {
        let currencies: [Commodity] = [.usd, .gbp, .eur]
        let vea = try Commodity.named("VEA")
        var assets: [(id: String, currency: Commodity)] = []
        var liabilities: [(id: String, currency: Commodity)] = []
        var recorded: [Instant] = []
        for step in 0..<170 {
            clock.advance(seconds: Int64.random(in: 3_600...(7 * 86_400), using: &random))
            let back = Int.random(in: 0..<4, using: &random) == 0 ? Int64.random(in: 0...(120 * 86_400), using: &random) : 0
            let effective = Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - back * 1_000_000)
            let currency = currencies.randomElement(using: &random)!
            func amount(_ range: ClosedRange<Int64>, _ commodity: Commodity) -> Money {
                Money(minorUnits: Int64.random(in: range, using: &random), commodity: commodity)
            }
            var result: Ledger.CommandResult?
            do {
                switch Int.random(in: 0..<20, using: &random) {
                case 0, 1:
                    let id = "a\(step)"
                    let type = [AssetType.cash, .stockOrETF, .realEstate, .fund, .gold, .custom].randomElement(using: &random)!
                    result = try ledger.addAsset(assetId: id, name: "Asset \(step)", category: [.cash, .investments, .property, .other].randomElement(using: &random)!,
                                                            type: type, currency: currency, effectiveAt: effective)
                    assets.append((id, currency))
                case 2:
                    let id = "l\(step)"
                    result = try ledger.addLiability(liabilityId: id, name: "Loan \(step)", category: .loan, currency: currency, effectiveAt: effective)
                    liabilities.append((id, currency))
                case 3, 4, 5:
                    guard let asset = assets.randomElement(using: &random) else { continue }
                    let source = [ValuationSource.manual, .bankRefresh, .live, .override].randomElement(using: &random)!
                    result = try ledger.recordValuation(itemKind: .asset, itemId: asset.id, value: amount(1...10_000_000, asset.currency), source: source,
                                                        effectiveAt: effective)
                case 6:
                    guard let liability = liabilities.randomElement(using: &random) else { continue }
                    result = try ledger.recordValuation(itemKind: .liability, itemId: liability.id, value: amount(1...5_000_000, liability.currency),
                                                                          source: .bankRefresh, effectiveAt: effective)
                case 7, 8:
                    let pair = currencies.shuffled(using: &random)
                    result = try ledger.setFXRate(base: pair[0], quote: pair[1], rate: try ExactDecimal(significand: Int64.random(in: 5_000...25_000, using: &random), scale: 4),
                                                  effectiveAt: effective)
                case 9:
                    guard let asset = assets.randomElement(using: &random) else { continue }
                    result = try ledger.setPosition(assetId: asset.id, quantity: Money(minorUnits: Int64.random(in: 0...10_000_000_000, using: &random), commodity: vea),
                                                    effectiveAt: effective)
                case 10:
                    guard let asset = assets.randomElement(using: &random) else { continue }
                    result = try ledger.clearValuationOverride(asset.id, effectiveAt: effective)
                case 11, 12:
                    result = try ledger.quotePrice(symbol: vea, price: amount(100...10_000, [Commodity.usd, .gbp].randomElement(using: &random)!),
                                                               source: Bool.random(using: &random) ? .live : .manual, effectiveAt: effective)
                case 13:
                    guard Bool.random(using: &random), let index = assets.indices.randomElement(using: &random) else { continue }
                    result = try ledger.removeAsset(assets[index].id, effectiveAt: effective)
                    assets.remove(at: index)
                case 14:
                    guard Bool.random(using: &random), let index = liabilities.indices.randomElement(using: &random) else { continue }
                    result = try ledger.removeLiability(liabilities[index].id, effectiveAt: effective)
                    liabilities.remove(at: index)
                case 15:
                    result = try ledger.setBaseCurrency(currencies.randomElement(using: &random)!, effectiveAt: effective)
                case 16:
                    result = try ledger.setPriceStaleness(seconds: [900, 86_400, 20 * 86_400, 90 * 86_400].randomElement(using: &random)!)
                case 17:
                    guard let asset = assets.randomElement(using: &random) else { continue }
                    result = try ledger.tagAsset(assetId: asset.id, country: ["US", "GB", nil].randomElement(using: &random)!, sector: nil, symbol: nil,
                                                 effectiveAt: effective)
                default:
                    // A burst at the same instant, for ties of effective time and sequence.
                    guard let asset = assets.randomElement(using: &random) else { continue }
                    for _ in 0..<2 {
                        result = try ledger.recordValuation(itemKind: .asset, itemId: asset.id, value: amount(1...9_000_000, asset.currency), source: .live,
                                                            effectiveAt: effective)
                    }
                    let pair = currencies.shuffled(using: &random)
                    result = try ledger.setFXRate(base: pair[0], quote: pair[1], rate: try ExactDecimal(significand: Int64.random(in: 5_000...25_000, using: &random), scale: 4),
                                                  effectiveAt: effective)
                }
            } catch is LedgerError {
                continue
            }
            if let result, let first = result.events.first { recorded.append(first.recordedAt) }
        }
        return recorded
    }

    // MARK: - Support

    /// Compares every month end of the series as known at `knownAt` with the lookups and with
    /// a full replay; returns how many month ends a snapshot answered.
    @discardableResult
    private func expectSeriesMatchLookupsAndReplay(
        _ ledger: Ledger, from first: Month, through last: Month, knownAt: Instant?, context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        let series = try ledger.netWorthSeries(from: first, through: last, knownAt: knownAt)
        let points = series.map(\.report.point)
        #expect(series.map(\.month) == (first.ordinal...last.ordinal).map(Month.init(ordinal:)), "\(context)", sourceLocation: sourceLocation)
        let lookups = try ledger.read { db in
            try points.map { point in
                try NetWorthQueries.report(db, point: point, stalenessSeconds: try Valuations(db: db, point: point).priceStalenessSeconds(),
                                           accounts: try NetWorthQueries.householdAccounts(db, point: point))
            }
        }
        let replays = try Replay.run(at: ledger.layout.root, untilEach: points.map(\.asOf), knownAt: knownAt)
        for (index, entry) in series.enumerated() {
            #expect(entry.report == lookups[index], "lookups, \(entry.month), \(context)", sourceLocation: sourceLocation)
            #expect(entry.report == replays[index].netWorth, "replay, \(entry.month), \(context)", sourceLocation: sourceLocation)
            #expect(try ledger.netWorth(asOf: entry.report.point.asOf, knownAt: knownAt) == entry.report, "netWorth, \(entry.month), \(context)", sourceLocation: sourceLocation)
        }
        return try snapshotHits(ledger, points)
    }

    /// How many of the points a snapshot answers.
    private func snapshotHits(_ ledger: Ledger, _ points: [PointInTime]) throws -> Int {
        let calendar = ledger.calendar
        return try ledger.read { db in try points.filter { try NetWorthSnapshots.report(db, point: $0, calendar: calendar, accounts: []) != nil }.count }
    }
}
