import GRDB

/// One asset or liability in a net worth answer.
public struct NetWorthLine: Hashable, Sendable {
    public let kind: ItemKind
    public let itemId: String
    public let name: String
    /// The asset or liability category (`property`, `mortgage`, …).
    public let category: String
    /// Its value in its own currency and where that came from.
    public let value: ActiveValue
    /// The value in the base currency at the rate in force.
    public let converted: Money
    /// True when the value comes from a price older than the staleness threshold.
    public let isStale: Bool
}

/// An item left out of a total, and why: never silently dropped.
public struct ExcludedItem: Hashable, Sendable {
    public let kind: ItemKind
    public let itemId: String
    public let name: String
    /// Its value in its own currency, when it has one.
    public let value: Money?
    public let reason: String
}

/// A category's share of the assets (or of the liabilities).
public struct CategoryShare: Hashable, Sendable {
    public let kind: ItemKind
    public let category: String
    public let total: Money
    /// Share of its kind's total in basis points (10000 = 100%), rounded half-even.
    public let basisPoints: Int64
}

/// Net worth at a point in time, in the base currency.
public struct NetWorthReport: Hashable, Sendable {
    public let point: PointInTime
    public let baseCurrency: Commodity
    public let assets: Money
    public let liabilities: Money
    /// Assets − liabilities.
    public let netWorth: Money
    public let lines: [NetWorthLine]
    /// Items held but not counted (no value yet, or no FX rate into the base currency).
    public let excluded: [ExcludedItem]
    /// By category, largest first: assets, then liabilities.
    public let categories: [CategoryShare]
    /// False when anything was excluded: the total covers only the lines.
    public var isComplete: Bool { excluded.isEmpty }
}

extension Ledger {
    /// Net worth = assets − liabilities in the base currency, at the end of `asOf` (now
    /// when absent), as known at `knownAt`. Each item's own amount is converted at the FX
    /// rate in force at that moment, so changing the base currency never compounds rounding.
    ///
    /// ```swift
    /// let report = try ledger.netWorth(asOf: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-03-31")))
    /// print(report.netWorth, report.excluded.count)
    /// ```
    public func netWorth(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> NetWorthReport {
        let point = PointInTime(asOf: asOf ?? now, knownAt: knownAt)
        let staleness = try settings().priceStalenessSeconds
        return try read { db in try NetWorthQueries.report(db, point: point, stalenessSeconds: staleness) }
    }

    /// The change in net worth over the `days` before `asOf` (30 by default).
    public func netWorthChange(asOf: Instant? = nil, days: Int = 30, knownAt: Instant? = nil) throws -> (start: NetWorthReport, end: NetWorthReport, change: Money) {
        let end = try netWorth(asOf: asOf, knownAt: knownAt)
        let startInstant = Instant(microsecondsSinceEpoch: end.point.asOf.microsecondsSinceEpoch - Int64(days) * 86_400_000_000)
        let start = try netWorth(asOf: startInstant, knownAt: knownAt)
        let startInBase = start.baseCurrency == end.baseCurrency ? start.netWorth : Money.zero(end.baseCurrency)
        return (start, end, try end.netWorth.subtracting(startInBase))
    }

    /// Net worth at the end of each month from `first` through `last` (a chart's series).
    public func netWorthSeries(from first: Month, through last: Month, knownAt: Instant? = nil) throws -> [(month: Month, report: NetWorthReport)] {
        guard first <= last else { return [] }
        let staleness = try settings().priceStalenessSeconds
        return try read { db in
            try (first.ordinal...last.ordinal).map { ordinal in
                let month = Month(ordinal: ordinal)
                let point = PointInTime(asOf: calendar.endOfDay(month.lastDay), knownAt: knownAt)
                return (month, try NetWorthQueries.report(db, point: point, stalenessSeconds: staleness))
            }
        }
    }
}

enum NetWorthQueries {
    static func report(_ db: Database, point: PointInTime, stalenessSeconds: Int64) throws -> NetWorthReport {
        let valuations = Valuations(db: db, point: point)
        let base = try valuations.baseCurrency()
        var lines: [NetWorthLine] = []
        var excluded: [ExcludedItem] = []
        for row in try valuations.items() {
            let kind = ItemKind(rawValue: row["kind"]) ?? .asset
            let id: String = row["item_id"]
            let name: String = row["name"]
            guard let value = try valuations.activeValue(kind: kind, id: id) else {
                excluded.append(ExcludedItem(kind: kind, itemId: id, name: name, value: nil, reason: "no value recorded by then"))
                continue
            }
            do {
                let converted = try valuations.convert(value.value, to: base)
                let age = point.asOf.microsecondsSinceEpoch - value.valuedAt.microsecondsSinceEpoch
                let stale = value.pricedSymbol != nil && age > stalenessSeconds * 1_000_000
                lines.append(NetWorthLine(kind: kind, itemId: id, name: name, category: row["category"], value: value, converted: converted, isStale: stale))
            } catch let missing as MissingRate {
                excluded.append(ExcludedItem(kind: kind, itemId: id, name: name, value: value.value,
                                             reason: "no \(missing.from)/\(missing.to) rate by then"))
            }
        }
        let assets = try sum(lines.filter { $0.kind == .asset }.map(\.converted), base)
        let liabilities = try sum(lines.filter { $0.kind == .liability }.map(\.converted), base)
        return NetWorthReport(
            point: point, baseCurrency: base, assets: assets, liabilities: liabilities,
            netWorth: try assets.subtracting(liabilities), lines: lines, excluded: excluded,
            categories: try shares(of: lines, kind: .asset, total: assets) + shares(of: lines, kind: .liability, total: liabilities)
        )
    }

    static func sum(_ amounts: [Money], _ commodity: Commodity) throws -> Money {
        try amounts.reduce(Money.zero(commodity)) { try $0.adding($1) }
    }

    private static func shares(of lines: [NetWorthLine], kind: ItemKind, total: Money) throws -> [CategoryShare] {
        var totals: [String: Money] = [:]
        for line in lines where line.kind == kind {
            totals[line.category] = try (totals[line.category] ?? Money.zero(total.commodity)).adding(line.converted)
        }
        return totals.map { category, amount in
            CategoryShare(kind: kind, category: category, total: amount, basisPoints: Shares.basisPoints(amount.minorUnits, of: total.minorUnits))
        }.sorted { $0.total.minorUnits != $1.total.minorUnits ? $0.total.minorUnits > $1.total.minorUnits : $0.category < $1.category }
    }
}

/// Shares as exact integer fractions: basis points of a whole, rounded half-even.
enum Shares {
    /// `part / whole` in basis points (0 when the whole is not positive).
    static func basisPoints(_ part: Int64, of whole: Int64) -> Int64 {
        guard whole > 0 else { return 0 }
        return Int64(RationalRounding.rounded(Int128(part) * 10_000, dividedBy: Int128(whole), rule: .halfEven))
    }
}
