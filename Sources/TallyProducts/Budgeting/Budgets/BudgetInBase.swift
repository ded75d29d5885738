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

extension Ledger {
    /// ``budgetOverview(month:asOf:knownAt:)`` with its amounts in the base currency in force
    /// (as known at `knownAt`), converted at the rate in force at the moment the balances
    /// are read (the end of the month, or `asOf`).
    ///
    /// ```swift
    /// let may = try ledger.budgetOverviewInBase(month: try Month(parsing: "2026-05"))
    /// print(may.converted?.income as Any, may.notConverted)
    /// ```
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` when `asOf` comes before the month.
    public func budgetOverviewInBase(month: Month, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> BudgetOverviewInBase {
        let overview = try budgetOverview(month: month, asOf: asOf, knownAt: knownAt)
        let end = calendar.endOfDay(month.lastDay)
        let point = PointInTime(asOf: min(asOf ?? end, end), knownAt: knownAt)
        return try read { db in
            let valuations = Valuations(db: db, point: point)
            let base = try valuations.baseCurrency()
            func convert(_ money: Money) throws -> Money { try valuations.convert(money, to: base) }
            do {
                let converted = BudgetOverview(
                    month: month, currentBalance: try convert(overview.currentBalance), heldInPots: try convert(overview.heldInPots),
                    income: try convert(overview.income), expenses: try convert(overview.expenses))
                return BudgetOverviewInBase(overview: overview, baseCurrency: base, converted: converted, notConverted: [])
            } catch is MissingRate {
                return BudgetOverviewInBase(overview: overview, baseCurrency: base, converted: nil, notConverted: [overview.income.commodity])
            }
        }
    }
}
