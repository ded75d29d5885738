public import TallyEngine
import GRDB

/// One asset or liability in a net worth answer.
public struct NetWorthLine: Hashable, Sendable {
    /// Asset (added to net worth) or liability (subtracted).
    public let kind: ItemKind
    /// The asset's or liability's id; for one of the ledger's accounts, its name
    /// (`Wealth:main:Spend`, `Liabilities:Card`).
    public let itemId: String
    /// What the user calls it (an account's name).
    public let name: String
    /// The asset or liability category (`property`, `mortgage`, …).
    public let category: String
    /// Where the line comes from: an item added by hand, the wealth account, or a user
    /// account of the ledger (``NetWorthOrigin``).
    public let origin: NetWorthOrigin
    /// Its value in its own currency and where that came from.
    public let value: ActiveValue
    /// The value in the base currency at the rate in force.
    public let converted: Money
    /// Whether a value from a price or a live feed is stale, or its market closed
    /// (``PriceFreshness/of(_:asOf:thresholdSeconds:)``); `fresh` for every other value.
    public let freshness: PriceFreshness
    /// True when its market has traded longer than the staleness threshold since the value.
    public var isStale: Bool { freshness == .stale }
}

/// An item left out of a total, and why: never silently dropped.
public struct ExcludedItem: Hashable, Sendable {
    /// Asset or liability.
    public let kind: ItemKind
    /// The asset's or liability's id, or the account's name.
    public let itemId: String
    /// What the user calls it.
    public let name: String
    /// An item added by hand, the wealth account, or a user account (``NetWorthOrigin``).
    public let origin: NetWorthOrigin
    /// Its value in its own currency, when it has one.
    public let value: Money?
    /// Why it was left out, for people: no value recorded by then, or no FX rate into the
    /// base currency by then (e.g. `no GBP/USD rate by then`).
    public let reason: String
}

/// A category's share of the assets (or of the liabilities).
public struct CategoryShare: Hashable, Sendable {
    /// Whether this is a share of the assets or of the liabilities.
    public let kind: ItemKind
    /// The asset or liability category (`property`, `mortgage`, …).
    public let category: String
    /// The category's lines added up, in the base currency (positive for liabilities too).
    public let total: Money
    /// Share of its kind's total in basis points (10000 = 100%), rounded half-even.
    public let basisPoints: Int64
}

/// Net worth at a point in time, in the base currency.
public struct NetWorthReport: Hashable, Sendable {
    /// The moment asked about: effective by `asOf`, as recorded by `knownAt`.
    public let point: PointInTime
    /// The currency of every total: the base currency in force at `asOf` as known at
    /// `knownAt` (``Ledger/baseCurrency(asOf:knownAt:)``).
    public let baseCurrency: Commodity
    /// The assets counted, added up in the base currency.
    public let assets: Money
    /// The liabilities counted, added up in the base currency: positive, what is owed.
    public let liabilities: Money
    /// Assets − liabilities.
    public let netWorth: Money
    /// Every item counted: the items added by hand (assets then liabilities, each by id),
    /// then the household's accounts (``HouseholdAccounts``: the wealth account's wallet,
    /// Spend and Invest, `Assets:…` and `Liabilities:…` accounts), by name then commodity.
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
    ///
    /// When `asOf` is the end of a snapshot's day, the answer comes from the snapshot that
    /// holds the state as known at `knownAt`; otherwise from latest-value-at lookups. Both
    /// give the same report.
    public func netWorth(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> NetWorthReport {
        let point = PointInTime(asOf: asOf ?? now, knownAt: knownAt)
        let calendar = self.calendar
        return try read { db in try NetWorthQueries.report(db, point: point, calendar: calendar) }
    }

    /// The change in net worth over the `days` before `asOf` (30 by default): the report at
    /// `asOf`, the one `days` × 24 hours earlier, and end minus start. Both are in the base
    /// currency in force at `asOf`: when it changed within the period, the start is
    /// converted into it at the rates in force at the start (the one conversion rule).
    ///
    /// ```swift
    /// let month = try ledger.netWorthChange()
    /// print(month.change)   // positive: net worth grew over the last 30 days
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the end of the period (now by default).
    ///   - days: the period's length in days of 24 hours.
    ///   - knownAt: both reports as the ledger knew them at this instant (default: all).
    public func netWorthChange(asOf: Instant? = nil, days: Int = 30, knownAt: Instant? = nil) throws -> (start: NetWorthReport, end: NetWorthReport, change: Money) {
        let end = try netWorth(asOf: asOf, knownAt: knownAt)
        let startInstant = Instant(microsecondsSinceEpoch: end.point.asOf.microsecondsSinceEpoch - Int64(days) * 86_400_000_000)
        let point = PointInTime(asOf: startInstant, knownAt: knownAt)
        let calendar = self.calendar
        let start = try read { db in try NetWorthQueries.report(db, point: point, calendar: calendar, in: end.baseCurrency) }
        return (start, end, try end.netWorth.subtracting(start.netWorth))
    }

    /// Net worth at the end of each month from `first` through `last` (a chart's series), as
    /// known at `knownAt` (now when absent).
    ///
    /// Each month end with a snapshot (monthly by default, ``SnapshotInterval``) that holds
    /// the state as known at `knownAt` is read from it; the other months from latest-value-at
    /// lookups. Every report equals ``netWorth(asOf:knownAt:)`` at the month's end.
    ///
    /// ```swift
    /// let series = try ledger.netWorthSeries(from: try Month(parsing: "2016-01"), through: try Month(parsing: "2025-12"))
    /// for (month, report) in series { print(month, report.netWorth) }
    /// ```
    public func netWorthSeries(from first: Month, through last: Month, knownAt: Instant? = nil) throws -> [(month: Month, report: NetWorthReport)] {
        guard first <= last else { return [] }
        let calendar = self.calendar
        return try read { db in
            let months = (first.ordinal...last.ordinal).map(Month.init(ordinal:))
            let reports = try NetWorthQueries.reports(db, at: months.map { calendar.endOfDay($0.lastDay) }, knownAt: knownAt)
            return Array(zip(months, reports))
        }
    }
}

enum NetWorthQueries {
    /// Net worth at `point`, with the staleness threshold in force at `point.asOf` as known at
    /// `point.knownAt`: from the
    /// snapshot of the day when `point.asOf` ends one and a snapshot holds that day's state as
    /// known at `point.knownAt`, else from latest-value-at lookups.
    /// In `base` when given, else in the base currency in force at the point.
    /// The household's accounts are counted beside the items (``HouseholdAccounts``), at
    /// their balances at the point.
    static func report(_ db: Database, point: PointInTime, calendar: LedgerCalendar, in base: Commodity? = nil) throws -> NetWorthReport {
        let accounts = try householdAccounts(db, point: point)
        if let report = try NetWorthSnapshots.report(db, point: point, calendar: calendar, in: base, accounts: accounts) { return report }
        return try report(db, point: point, stalenessSeconds: try Valuations(db: db, point: point).priceStalenessSeconds(), in: base, accounts: accounts)
    }

    /// The household's accounts at `point` (``HouseholdAccounts``), from the journal's
    /// balances effective by `point.asOf` as known at `point.knownAt`.
    static func householdAccounts(_ db: Database, point: PointInTime) throws -> [NetWorthHolding] {
        try HouseholdAccounts.holdings(from: BalanceQueries.balances(db, asOf: point.asOf, knownAt: point.knownAt), asOf: point.asOf)
    }

    /// Net worth at each of `instants` (day ends, in order), as known at `knownAt`: from the
    /// snapshots of those days that hold the state as known then, read in one query, else
    /// from latest-value-at lookups. The base currency and the staleness threshold are the
    /// ones in force at each instant.
    static func reports(_ db: Database, at instants: [Instant], knownAt: Instant?) throws -> [NetWorthReport] {
        guard let lower = instants.first, let upper = instants.last else { return [] }
        let snapshots = try NetWorthSnapshots.table.all(from: lower, through: upper, knownAt: knownAt, db)
        return try instants.map { instant in
            let point = PointInTime(asOf: instant, knownAt: knownAt)
            let valuations = Valuations(db: db, point: point)
            let staleness = try valuations.priceStalenessSeconds()
            let base = try valuations.baseCurrency()
            let accounts = try householdAccounts(db, point: point)
            guard let stored = snapshots[instant] else { return try report(db, point: point, stalenessSeconds: staleness, accounts: accounts) }
            return try NetWorthSnapshots.report(stored, db, point: point, baseCurrency: base, stalenessSeconds: staleness, accounts: accounts)
        }
    }

    /// Net worth at `point` from latest-value-at lookups of the items, with `accounts` (the
    /// household's, ``householdAccounts(_:point:)``; none for the X-ray) counted after them.
    static func report(_ db: Database, point: PointInTime, stalenessSeconds: Int64, in base: Commodity? = nil,
                       accounts: [NetWorthHolding]) throws -> NetWorthReport {
        let valuations = Valuations(db: db, point: point)
        let currency = try base ?? valuations.baseCurrency()
        var market = try MarketValuation(db, point: point, currency: currency)
        return try report(point: point, baseCurrency: currency, stalenessSeconds: stalenessSeconds,
                          holdings: try valuations.holdings() + accounts) { value in try market.converted(value) }
    }

    /// Net worth at `point` from the items held then and their active values, each converted
    /// into `base` by `convert` (the one rule, ``MarketValuation``, which throws
    /// ``MissingRate`` for an item it cannot convert).
    static func report(
        point: PointInTime, baseCurrency base: Commodity, stalenessSeconds: Int64, holdings: [NetWorthHolding],
        convert: (ActiveValue) throws -> Money
    ) throws -> NetWorthReport {
        var lines: [NetWorthLine] = []
        var excluded: [ExcludedItem] = []
        for holding in holdings {
            let (kind, id, name, origin) = (holding.kind, holding.itemId, holding.name, holding.origin)
            guard let value = holding.value else {
                excluded.append(ExcludedItem(kind: kind, itemId: id, name: name, origin: origin, value: nil, reason: "no value recorded by then"))
                continue
            }
            do {
                let converted = try convert(value)
                let freshness = PriceFreshness.of(value, asOf: point.asOf, thresholdSeconds: stalenessSeconds)
                lines.append(NetWorthLine(kind: kind, itemId: id, name: name, category: holding.category, origin: origin,
                                          value: value, converted: converted, freshness: freshness))
            } catch let missing as MissingRate {
                excluded.append(ExcludedItem(kind: kind, itemId: id, name: name, origin: origin, value: value.value,
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
