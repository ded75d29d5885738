public import TallyEngine

/// The budget app's overview screen in one answer (docs/domain.md §2): the month's balance,
/// income and expenses, the pots, the latest transactions, each budget with what is spent
/// and left, and the recurring items' totals, all read at one point in time.
///
/// ```swift
/// let may = try ledger.budgetScreen(month: try Month(parsing: "2026-05"))
/// print(may.overview.overview.currentBalance, may.pots.count, may.latestTransactions.first?.payee as Any)
/// ```
public struct BudgetScreen: Hashable, Sendable {
    /// How many transactions ``latestTransactions`` holds at most.
    public static let latestTransactionsCount = 5

    /// The month shown.
    public let month: Month
    /// The instant the balances are read at (the end of the month, now for the month in
    /// progress, or the `asOf` asked for); pots and the latest transactions are as of it.
    public let asOf: Instant
    /// Balance, money in pots, income and expenses, in the budget currency and the base
    /// currency (``Ledger/budgetOverviewInBase(month:asOf:knownAt:)``).
    public let overview: BudgetOverviewInBase
    /// Every pot that exists at ``asOf``, by id, with its total then.
    public let pots: [Pot]
    /// The pots' targets added up, in the budget currency (their totals add up to the
    /// overview's ``BudgetOverview/heldInPots``).
    public let potsTarget: Money
    /// The latest transactions dated by ``asOf`` (of any month), newest first: at most
    /// ``latestTransactionsCount``.
    public let latestTransactions: [BudgetTransaction]
    /// The month's budgets, each with spent and remaining (``Ledger/budgets(month:asOf:knownAt:)``).
    public let budgets: [BudgetStatus]
    /// The recurring items due in the month judged from the day of ``asOf``: paid, due soon
    /// or upcoming, with their totals (``Ledger/recurringStatus(month:today:dueSoonDays:knownAt:)``).
    public let recurring: RecurringStatusReport

    /// The budgets' maxima, spent and remaining added up (budget currency).
    ///
    /// - Throws: ``MoneyError`` on overflow.
    public func budgetTotals() throws -> (maximum: Money, spent: Money, remaining: Money) {
        let zero = Money.zero(potsTarget.commodity)
        return try budgets.reduce((zero, zero, zero)) { sums, budget in
            (try sums.0.adding(budget.maximum), try sums.1.adding(budget.spent), try sums.2.adding(budget.remaining))
        }
    }
}

extension Ledger {
    /// The budget app's overview screen for `month` (``BudgetScreen``), each part asked at
    /// the same point: balances at the end of the month (now for the month in progress, or
    /// `asOf`), flows and budgets up to then, as known at `knownAt`.
    ///
    /// - Parameters:
    ///   - month: the month shown.
    ///   - asOf: answer for this effective instant, at or after the month's start (the CLI
    ///     passes the end of today for the month in progress).
    ///   - knownAt: as the ledger knew it at this instant; nil for everything recorded.
    /// - Throws: ``LedgerError`` `invalidArgument` when `asOf` comes before the month.
    public func budgetScreen(month: Month, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> BudgetScreen {
        let overview = try budgetOverviewInBase(month: month, asOf: asOf, knownAt: knownAt)
        let at = budgetBalancesInstant(month: month, asOf: asOf, knownAt: knownAt)
        let pots = try self.pots(asOf: at, knownAt: knownAt)
        let currency = overview.overview.heldInPots.commodity
        var latest = TransactionQuery()
        latest.pageSize = BudgetScreen.latestTransactionsCount
        return BudgetScreen(
            month: month, asOf: at, overview: overview, pots: pots,
            potsTarget: try pots.reduce(Money.zero(currency)) { try $0.adding($1.target) },
            latestTransactions: try transactions(latest, asOf: at, knownAt: knownAt).transactions,
            budgets: try budgets(month: month, asOf: min(asOf ?? calendar.endOfDay(month.lastDay), calendar.endOfDay(month.lastDay)), knownAt: knownAt),
            recurring: try recurringStatus(month: month, today: calendar.date(of: at), knownAt: knownAt))
    }
}
