public import TallyEngine

/// A month's overview in the ledger's base currency (issue 15, wrong today 9: one base
/// currency per ledger, honoured by the budget product too).
///
/// The budget keeps its books in the currency the ledger was created with, so no recorded
/// amount ever changes meaning; after `base-currency EUR` its answers are given in EUR too,
/// each amount converted by the one conversion rule (``ConversionRule``: a direct quote
/// either way, else one hop through a third currency) at the moment asked about, into the
/// base currency in force then. With no rate by then nothing is converted and the budget
/// currency is named in ``notConverted``, never silently dropped.
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

/// How the budget's amounts read in the base currency at one moment: the base currency in
/// force then and the conversion the one rule finds then (``ConversionRule``, as
/// `balances --value` and net worth convert).
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
    /// How the budget currency converts into the base currency: no step when they are the
    /// same, a direct quote, or two through a third currency; nil when there is no rate.
    public let conversion: MarketConversion?

    /// Whether the budget's amounts are converted: the same currency, or a rate exists.
    public var isConverted: Bool { conversion != nil }

    /// The currencies with no rate into the base currency: empty, or the budget currency.
    public var notConverted: [Commodity] { isConverted ? [] : [budgetCurrency] }

    /// `money` in the base currency at the rate in force, rounded half-even to its scale;
    /// nil when there is no rate.
    ///
    /// - Throws: ``MoneyError`` on overflow.
    public func convert(_ money: Money) throws -> Money? {
        guard let conversion else { return nil }
        return try ConversionRule.convert(money, to: baseCurrency, along: conversion.steps.map(\.quote))
    }
}

extension Ledger {
    /// How the budget's amounts read in the base currency at `instant`, as known at `knownAt`.
    ///
    /// - Throws: ``LedgerError`` when a read model cannot be read.
    public func budgetBaseConversion(at instant: Instant, knownAt: Instant? = nil) throws -> BudgetBaseConversion {
        let point = PointInTime(asOf: instant, knownAt: knownAt)
        return try read { db in
            let base = try LedgerSettings.baseCurrency(at: point, db)
            let budget = try BudgetSettings.currency(db)
            var market = try MarketValuation(db, point: point, currency: base)
            return BudgetBaseConversion(budgetCurrency: budget, baseCurrency: base,
                                        conversion: budget == base ? MarketConversion(steps: []) : try market.conversion(of: budget))
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
        let at = budgetBalancesInstant(month: month, asOf: asOf, knownAt: knownAt)
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
