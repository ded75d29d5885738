public import TallyEngine

/// A month's overview in the ledger's base currency (issue 15, wrong today 9: one base
/// currency per ledger, honoured by the budget product too).
///
/// The budget keeps its books in the currency the ledger was created with, so no recorded
/// amount ever changes meaning; after `base-currency EUR` its answers are given in EUR too,
/// each amount converted at the FX rate in force at the moment asked about (the rule net
/// worth follows: the base currency as known then, the direct rate or the inverse of the
/// opposite one, whichever took effect last). With no rate by then nothing is converted and
/// the budget currency is named in ``notConverted``, never silently dropped.
public struct BudgetOverviewInBase: Hashable, Sendable {
    /// The overview in the budget currency, as recorded.
    public let overview: BudgetOverview
    /// The base currency the answer is given in.
    public let baseCurrency: Commodity
    /// The overview's amounts in the base currency; nil when no rate converts them
    /// (``notConverted`` then names the budget currency). Equal to ``overview`` when the
    /// base currency is the budget currency.
    public let converted: BudgetOverview?
    /// The currencies with no rate into the base currency at that moment: empty, or the
    /// budget currency.
    public let notConverted: [Commodity]
}

/// How the budget's amounts read in the base currency at one moment (issue 15, wrong today
/// 9): the base currency as known then and the FX rate in force then (the net worth rule:
/// the direct rate or the inverse of the opposite one, whichever took effect last).
///
/// ```swift
/// let conversion = try ledger.budgetBaseConversion(at: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-05-31")))
/// let inBase = try conversion.convert(usd("12.50"))   // nil: no rate then
/// ```
public struct BudgetBaseConversion: Hashable, Sendable {
    /// The currency the budget keeps its books in.
    public let budgetCurrency: Commodity
    /// The base currency the answers are given in.
    public let baseCurrency: Commodity
    let direct: FXQuote?
    let inverse: FXQuote?

    /// Whether the budget's amounts are converted: the same currency, or a rate exists.
    public var isConverted: Bool { budgetCurrency == baseCurrency || direct != nil || inverse != nil }

    /// The currencies with no rate into the base currency: empty, or the budget currency.
    public var notConverted: [Commodity] { isConverted ? [] : [budgetCurrency] }

    /// `money` in the base currency at the rate in force, rounded half-even to its scale;
    /// nil when there is no rate.
    ///
    /// - Throws: ``MoneyError`` on overflow.
    public func convert(_ money: Money) throws -> Money? {
        guard isConverted else { return nil }
        return try FXQuote.convert(money, to: baseCurrency, direct: direct, inverse: inverse)
    }
}

extension Ledger {
    /// How the budget's amounts read in the base currency at `instant`, as known at `knownAt`.
    ///
    /// - Throws: ``LedgerError`` when a read model cannot be read.
    public func budgetBaseConversion(at instant: Instant, knownAt: Instant? = nil) throws -> BudgetBaseConversion {
        let point = PointInTime(asOf: instant, knownAt: knownAt)
        return try read { db in
            let valuations = Valuations(db: db, point: point)
            let base = try valuations.baseCurrency()
            let budget = try BudgetSettings.currency(db)
            return BudgetBaseConversion(budgetCurrency: budget, baseCurrency: base,
                                        direct: try valuations.latestQuote(base: budget.code, quote: base.code),
                                        inverse: try valuations.latestQuote(base: base.code, quote: budget.code))
        }
    }
}

extension Ledger {
    /// ``budgetOverview(month:asOf:knownAt:)`` with its amounts in the base currency in force
    /// at the moment the balances are read (the end of the month, now for the month in
    /// progress, or `asOf`) as known at `knownAt`, converted at the rate in force then.
    ///
    /// ```swift
    /// let may = try ledger.budgetOverviewInBase(month: try Month(parsing: "2026-05"))
    /// print(may.converted?.income as Any, may.notConverted)
    /// ```
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` when `asOf` comes before the month.
    public func budgetOverviewInBase(month: Month, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> BudgetOverviewInBase {
        let overview = try budgetOverview(month: month, asOf: asOf, knownAt: knownAt)
        // The instant the balances are read at (``budgetOverview(month:asOf:knownAt:)``): its
        // base currency and rates.
        let end = calendar.endOfDay(month.lastDay)
        let at = min(asOf ?? min(now, knownAt ?? now), end)
        let conversion = try budgetBaseConversion(at: at, knownAt: knownAt)
        func convert(_ money: Money) throws -> Money {
            guard let converted = try conversion.convert(money) else { throw MissingRate(from: money.commodity.code, to: conversion.baseCurrency.code) }
            return converted
        }
        guard conversion.isConverted else {
            return BudgetOverviewInBase(overview: overview, baseCurrency: conversion.baseCurrency, converted: nil, notConverted: conversion.notConverted)
        }
        let converted = BudgetOverview(
            month: month, currentBalance: try convert(overview.currentBalance), heldInPots: try convert(overview.heldInPots),
            income: try convert(overview.income), expenses: try convert(overview.expenses))
        return BudgetOverviewInBase(overview: overview, baseCurrency: conversion.baseCurrency, converted: converted, notConverted: [])
    }
}
