public import TallyEngine
import GRDB

/// One asset in an X-ray snapshot.
public struct XRayHolding: Hashable, Sendable {
    /// The asset's id.
    public let assetId: String
    /// What the user calls it.
    public let name: String
    /// Its X-ray asset type, as added.
    public let type: AssetType
    /// Its country tag in force (ISO 3166-1 alpha-2); nil when unknown.
    public let country: String?
    /// Its sector tag in force; nil when unknown.
    public let sector: String?
    /// Its active value in its own currency and where that came from.
    public let value: ActiveValue
    /// In the base currency.
    public let converted: Money
    /// Share of the included total, basis points.
    public let weightBasisPoints: Int64
    /// Stale, market closed or fresh, as its net worth line (``PriceFreshness``).
    public let freshness: PriceFreshness
    /// True when its market has traded longer than the staleness threshold since the value.
    public var isStale: Bool { freshness == .stale }
    /// What its position in force cost, as recorded (``PositionSet/costBasis``); nil when
    /// none was given.
    public let costBasis: Money?
    /// Country and sector both known.
    public var hasFullTags: Bool { country != nil && sector != nil }
}

/// A named group's share of the total (a type, a country, a sector, Other or Unknown).
public struct GroupShare: Hashable, Sendable {
    /// The group's name: an asset type's raw value (`stock_etf`), a country, a sector,
    /// `Other` (the groups past the top ones) or `Unknown` (no tag).
    public let group: String
    /// The group's holdings added up, in the base currency.
    public let total: Money
    /// The group's share of the included total, in basis points (10000 = 100%), rounded half-even.
    public let basisPoints: Int64
}

/// The exposure warning's group: the one country or sector holding the largest share of
/// the value (`Other` and `Unknown` aside; a country before a sector on a tie).
public struct XRayExposure: Hashable, Sendable {
    /// Which tag the group is of.
    public enum Dimension: String, Hashable, Sendable {
        /// A country tag (ISO 3166-1 alpha-2) or a sector tag.
        case country, sector

        /// The holding's tag of this dimension.
        func key(_ holding: XRayHolding) -> String? {
            switch self {
            case .country: holding.country
            case .sector: holding.sector
            }
        }
    }

    /// Country or sector.
    public let dimension: Dimension
    /// The country or the sector.
    public let group: String
    /// Its share of the included total, basis points.
    public let basisPoints: Int64
}

/// A metric with its severity band (``XRayRules``).
public struct XRayMetric: Hashable, Sendable {
    /// Basis points for shares; hundredths of a point for the concentration score.
    public let value: Int64
    /// How worrying the value is, by the metric's bands in ``XRayRules``.
    public let severity: XRayRules.Severity
}

/// A reminder to update an asset's value that is due.
public struct DueReminder: Hashable, Sendable {
    /// The reminder's id.
    public let reminderId: String
    /// The asset whose value to update.
    public let assetId: String
    /// The day it fell due, on or before the day asked about.
    public let dueDate: LocalDate
    /// The note it was set with; nil for none.
    public let note: String?
}

/// The portfolio X-ray at a point in time (docs/domain.md §5).
public struct XRaySnapshot: Hashable, Sendable {
    /// The moment asked about: effective by `asOf`, as recorded by `knownAt`.
    public let point: PointInTime
    /// The currency of every amount: the base currency as known at `knownAt`.
    public let baseCurrency: Commodity
    /// The included assets' total in the base currency.
    public let total: Money
    /// The assets included, by id.
    public let holdings: [XRayHolding]
    /// Assets left out (no value, or no FX rate), with the reason.
    public let excluded: [ExcludedItem]
    /// Included assets over all assets held, basis points.
    public let coverageBasisPoints: Int64
    /// Value by asset type, largest first (ties by name); the types below
    /// ``XRayRules/allocationOtherBelowBasisPoints`` each, when two or more, together as
    /// `Other` at the end.
    public let allocationByType: [GroupShare]
    /// Value by country tag: the ``XRayRules/topGroupCount`` largest, then `Other` and
    /// `Unknown` when not zero.
    public let exposureByCountry: [GroupShare]
    /// Value by sector tag: the ``XRayRules/topGroupCount`` largest, then `Other` and
    /// `Unknown` when not zero.
    public let exposureBySector: [GroupShare]
    /// 100 × Σ wᵢ², in hundredths (2500 = 25.00).
    public let concentration: XRayMetric
    /// The share of value tagged with a country of the base currency
    /// (``XRayRules/homeCountries(of:)``), basis points.
    public let homeBias: XRayMetric
    /// The share of value in real estate and custom assets, basis points.
    public let illiquidity: XRayMetric
    /// The share of value with full tags (country and sector) and no stale price, basis points.
    public let dataConfidence: XRayMetric
    /// The largest share of value in one country or one sector, basis points (the exposure
    /// warning, bands ``XRayRules/exposureSeverity(basisPoints:)``).
    public let exposure: XRayMetric
    /// The country or sector that holds that share; nil when no holding is tagged.
    public let largestExposure: XRayExposure?
    /// Liabilities with their amounts in the base currency (linked assets named).
    public let liabilities: [NetWorthLine]
    /// Reminders open at the point whose due date is on or before its day, by due date.
    public let remindersDue: [DueReminder]
    /// The insight cards, one per ``XRayCard/Kind`` in its order: concentration, home bias,
    /// illiquidity, data confidence, exposure (the same metrics as above, with their causes,
    /// why each matters and what to do next); none when the portfolio is empty.
    public let cards: [XRayCard]
    /// Each holding with a cost basis that converts into the base currency, by asset id.
    public let unrealisedGains: [UnrealisedGain]
    /// The gains added up, in the base currency: Σ (value − cost basis).
    public let unrealisedGainTotal: Money
    /// Holdings with a cost basis left out of the gains, with the reason (no FX rate for
    /// the cost basis's currency).
    public let unrealisedGainsExcluded: [ExcludedItem]

    /// True when no holding is included: the X-ray's empty state. Every metric is then 0 and
    /// low and there is no card: nothing is judged, nothing is warned about.
    public var isEmpty: Bool { holdings.isEmpty }
}

extension Ledger {
    /// The X-ray at the end of `asOf` (now when absent), as known at `knownAt`.
    ///
    /// ```swift
    /// let xray = try ledger.xray()
    /// print(xray.concentration.value, xray.concentration.severity)   // 2500 (25.00), .medium
    /// for group in xray.exposureByCountry { print(group.group, group.basisPoints) }
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the moment asked about: values and FX rates in force then (now by default).
    ///   - knownAt: as the ledger knew it at this instant (default: everything recorded).
    public func xray(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> XRaySnapshot {
        let point = PointInTime(asOf: asOf ?? now, knownAt: knownAt)
        let calendar = self.calendar
        return try read { db in
            try XRayQueries.snapshot(db, point: point, stalenessSeconds: try Valuations(db: db, point: point).priceStalenessSeconds(), calendar: calendar)
        }
    }
}

enum XRayQueries {
    static func snapshot(_ db: Database, point: PointInTime, stalenessSeconds: Int64, calendar: LedgerCalendar) throws -> XRaySnapshot {
        // The X-ray analyses the items added by hand (a portfolio), not the household's accounts.
        let report = try NetWorthQueries.report(db, point: point, stalenessSeconds: stalenessSeconds, accounts: [])
        let valuations = Valuations(db: db, point: point)
        let base = report.baseCurrency
        var types: [String: AssetType] = [:]
        for item in try valuations.items() where item.kind == .asset {
            types[item.itemId] = item.type ?? .custom
        }
        let total = report.assets
        let holdings = try report.lines.filter { $0.kind == .asset }.map { line in
            let tags = try valuations.tags(of: line.itemId)
            return XRayHolding(
                assetId: line.itemId, name: line.name, type: types[line.itemId] ?? .custom,
                country: tags.country, sector: tags.sector, value: line.value, converted: line.converted,
                weightBasisPoints: Shares.basisPoints(line.converted.minorUnits, of: total.minorUnits), freshness: line.freshness,
                costBasis: try valuations.costBasis(of: line.itemId))
        }
        let excluded = report.excluded.filter { $0.kind == .asset }
        let held = holdings.count + excluded.count
        let coverage = held == 0 ? 10_000 : Shares.basisPoints(Int64(holdings.count), of: Int64(held))

        func value(_ counted: (XRayHolding) -> Bool) -> Int64 {
            holdings.filter(counted).reduce(Int64(0)) { $0 + $1.converted.minorUnits }
        }
        // An empty portfolio is an empty state: every metric 0 and low, nothing to warn about.
        let empty = XRayMetric(value: 0, severity: .low)
        let score = concentrationHundredths(holdings.map(\.converted.minorUnits))
        let concentration = XRayMetric(value: score, severity: XRayRules.concentrationSeverity(hundredths: score))
        let homeBias = holdings.isEmpty ? empty : metric(value { XRayRules.isHome($0, baseCurrency: base) }, total, XRayRules.homeBiasSeverity)
        let illiquidity = holdings.isEmpty ? empty : metric(value(XRayRules.isIlliquid), total, XRayRules.illiquiditySeverity)
        let dataConfidence = holdings.isEmpty ? empty : metric(value(XRayRules.isConfident), total, XRayRules.dataConfidenceSeverity)
        let byCountry = try groups(holdings, total: total, top: XRayRules.topGroupCount) { $0.country }
        let bySector = try groups(holdings, total: total, top: XRayRules.topGroupCount) { $0.sector }
        let largestExposure = largest(country: byCountry, sector: bySector)
        let exposure = largestExposure.map { XRayMetric(value: $0.basisPoints, severity: XRayRules.exposureSeverity(basisPoints: $0.basisPoints)) } ?? empty
        var market = try MarketValuation(db, point: point, currency: base)
        let gains = try unrealisedGains(holdings, base: base) { money in try market.converted(money) }

        let reminders = try ReminderQueries.open(db, point: point, calendar: calendar).filter(\.isDue).map { reminder in
            DueReminder(reminderId: reminder.reminderId, assetId: reminder.assetId, dueDate: reminder.dueDate, note: reminder.note)
        }

        return XRaySnapshot(
            point: point, baseCurrency: base, total: total, holdings: holdings, excluded: excluded,
            coverageBasisPoints: coverage,
            allocationByType: try allocation(holdings, total: total),
            exposureByCountry: byCountry, exposureBySector: bySector,
            concentration: concentration, homeBias: homeBias, illiquidity: illiquidity, dataConfidence: dataConfidence,
            exposure: exposure, largestExposure: largestExposure,
            liabilities: report.lines.filter { $0.kind == .liability },
            remindersDue: reminders,
            cards: XRayCards.cards(holdings: holdings, concentration: concentration, homeBias: homeBias, illiquidity: illiquidity,
                                   dataConfidence: dataConfidence, exposure: (exposure, largestExposure), baseCurrency: base),
            unrealisedGains: gains.gains, unrealisedGainTotal: gains.total, unrealisedGainsExcluded: gains.excluded
        )
    }

    /// Value less cost basis for each holding with one, both in `base` at the rates in force
    /// at the point; a cost basis with no rate leaves its holding out, listed with the reason.
    static func unrealisedGains(
        _ holdings: [XRayHolding], base: Commodity, convert: (Money) throws -> Money
    ) throws -> (gains: [UnrealisedGain], total: Money, excluded: [ExcludedItem]) {
        var gains: [UnrealisedGain] = []
        var excluded: [ExcludedItem] = []
        var total = Money.zero(base)
        for holding in holdings {
            guard let cost = holding.costBasis else { continue }
            let costConverted: Money
            do {
                costConverted = try convert(cost)
            } catch let missing as MissingRate {
                excluded.append(ExcludedItem(kind: .asset, itemId: holding.assetId, name: holding.name, origin: .item, value: cost,
                                             reason: "no \(missing.from)/\(missing.to) rate by then for its cost basis"))
                continue
            }
            let gain = try holding.converted.subtracting(costConverted)
            total = try total.adding(gain)
            gains.append(UnrealisedGain(assetId: holding.assetId, name: holding.name, costBasis: cost,
                                        costConverted: costConverted, value: holding.converted, gain: gain))
        }
        return (gains, total, excluded)
    }

    private static func metric(_ part: Int64, _ total: Money, _ severity: (Int64) -> XRayRules.Severity) -> XRayMetric {
        let share = Shares.basisPoints(part, of: total.minorUnits)
        return XRayMetric(value: share, severity: severity(share))
    }

    /// The allocation by type: every type largest first, then, when two or more hold less
    /// than ``XRayRules/allocationOtherBelowBasisPoints`` each, those together as "Other".
    private static func allocation(_ holdings: [XRayHolding], total: Money) throws -> [GroupShare] {
        let types = try groups(holdings, total: total, top: Int.max) { $0.type.rawValue }
        let small = types.filter { $0.basisPoints < XRayRules.allocationOtherBelowBasisPoints }
        guard small.count >= 2 else { return types }
        let other = try small.reduce(Money.zero(total.commodity)) { try $0.adding($1.total) }
        return types.filter { $0.basisPoints >= XRayRules.allocationOtherBelowBasisPoints }
            + [GroupShare(group: "Other", total: other, basisPoints: Shares.basisPoints(other.minorUnits, of: total.minorUnits))]
    }

    /// The one country or sector with the largest share, "Other" and "Unknown" aside (a
    /// country first on a tie); nil when no holding is tagged.
    private static func largest(country: [GroupShare], sector: [GroupShare]) -> XRayExposure? {
        // The top groups are named, largest first; "Other" and "Unknown" come after them.
        let named = { (shares: [GroupShare]) in shares.prefix(XRayRules.topGroupCount).first { $0.group != "Other" && $0.group != "Unknown" } }
        let pairs: [(XRayExposure.Dimension, GroupShare?)] = [(.country, named(country)), (.sector, named(sector))]
        let candidates = pairs.compactMap { pair in
            pair.1.map { XRayExposure(dimension: pair.0, group: $0.group, basisPoints: $0.basisPoints) }
        }
        guard let first = candidates.first else { return nil }
        return candidates.dropFirst().first { $0.basisPoints > first.basisPoints } ?? first
    }

    /// Groups by key, largest first: the top `top` by name, the rest as "Other", missing keys as "Unknown".
    private static func groups(_ holdings: [XRayHolding], total: Money, top: Int, key: (XRayHolding) -> String?) throws -> [GroupShare] {
        var totals: [String: Money] = [:]
        var unknown = Money.zero(total.commodity)
        for holding in holdings {
            if let name = key(holding), !name.isEmpty {
                totals[name] = try (totals[name] ?? Money.zero(total.commodity)).adding(holding.converted)
            } else {
                unknown = try unknown.adding(holding.converted)
            }
        }
        let ranked = totals.sorted { $0.value.minorUnits != $1.value.minorUnits ? $0.value.minorUnits > $1.value.minorUnits : $0.key < $1.key }
        var result = ranked.prefix(top).map { GroupShare(group: $0.key, total: $0.value, basisPoints: Shares.basisPoints($0.value.minorUnits, of: total.minorUnits)) }
        let other = try ranked.dropFirst(top).reduce(Money.zero(total.commodity)) { try $0.adding($1.value) }
        if !other.isZero { result.append(GroupShare(group: "Other", total: other, basisPoints: Shares.basisPoints(other.minorUnits, of: total.minorUnits))) }
        if !unknown.isZero { result.append(GroupShare(group: "Unknown", total: unknown, basisPoints: Shares.basisPoints(unknown.minorUnits, of: total.minorUnits))) }
        return result
    }

    /// 100 × Σ (vᵢ / V)², in hundredths, computed exactly as 10000 · Σ vᵢ² / V² (values
    /// scaled down by powers of ten past 10^12 minor units, so every sum fits in 128 bits).
    static func concentrationHundredths(_ values: [Int64]) -> Int64 {
        let positive = values.filter { $0 > 0 }
        guard !positive.isEmpty else { return 0 }
        var divisor: Int64 = 1
        while positive.max()! / divisor > 1_000_000_000_000 { divisor *= 10 }
        let scaled = positive.map { Int128($0 / divisor) }
        let whole = scaled.reduce(Int128(0), +)
        guard whole > 0 else { return 0 }
        let squares = scaled.reduce(Int128(0)) { $0 + $1 * $1 }
        return Int64(RationalRounding.rounded(squares * 10_000, dividedBy: whole * whole, rule: .halfEven))
    }
}
