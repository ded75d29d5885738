public import TallyEngine
import GRDB

/// A category's budget for one month: its maximum, what was spent, what remains.
public struct BudgetStatus: Hashable, Sendable {
    /// The budget's category.
    public let category: BudgetCategory
    /// The month it covers.
    public let month: Month
    /// The most the user means to spend, positive.
    public let maximum: Money
    /// The month's expenses in the category (current versions, deleted ones excluded), as
    /// a positive amount.
    public let spent: Money
    /// maximum − spent; negative when over budget.
    public let remaining: Money
    /// The category's three latest transactions of the month, newest first.
    public let latestTransactions: [BudgetTransaction]

    /// Whether more was spent than the maximum.
    public var isOverBudget: Bool { remaining.isNegative }
}

/// The budget's balances and flows for one month.
public struct BudgetOverview: Hashable, Sendable {
    /// The month it covers.
    public let month: Month
    /// The current balance (reference balance plus transactions, less pots) at the end of
    /// the month, or now for the month in progress.
    public let currentBalance: Money
    /// What the pots held at the same moment.
    public let heldInPots: Money
    /// The month's income, positive.
    public let income: Money
    /// The month's expenses, as a positive amount.
    public let expenses: Money

    /// income − expenses.
    ///
    /// - Throws: `MoneyError` (`overflow`) past 64-bit minor units.
    public func net() throws -> Money { try income.subtracting(expenses) }
}

extension Ledger {
    /// The month's budgets, by category: maximum, spent, remaining and the three latest
    /// transactions. A past month's answer does not change when later months get
    /// transactions. "As of" is the month; `knownAt` answers as the ledger knew the
    /// budgets and transactions then (indexed versions, never the log).
    ///
    /// ```swift
    /// for budget in try ledger.budgets(month: try Month(parsing: "2026-05")) { print(budget.category, budget.remaining) }
    /// let asKnown = try ledger.budgets(month: try Month(parsing: "2026-03"), knownAt: try Instant(parsing: "2026-04-04T12:00:00Z"))
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: count the month's expenses dated up to this instant only (the month in
    ///     progress as of today: `budget show` passes the end of today); nil for the whole month.
    ///   - knownAt: as the ledger knew it at this instant; nil for everything recorded.
    public func budgets(month: Month, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [BudgetStatus] {
        try read { db in try BudgetQueries.statuses(db, month: month, through: asOf, knownAt: knownAt, calendar: calendar) }
    }

    /// Every month that has a budget set (and not deleted), as the ledger knew it at
    /// `knownAt`, oldest first: the months ``budgets(month:asOf:knownAt:)`` answers with a budget.
    ///
    /// ```swift
    /// for month in try ledger.budgetMonths() { print(month, try ledger.budgets(month: month).count) }
    /// ```
    public func budgetMonths(knownAt: Instant? = nil) throws -> [Month] {
        try read { db in try BudgetQueries.months(db, knownAt: knownAt) }
    }

    /// The month at a glance: current balance and money in pots at the end of the month
    /// (for the month in progress: now, or `knownAt` when that is earlier), and the month's
    /// income and expenses. With `asOf`, the balances are at that instant (within the month)
    /// and the flows count the days of the month up to it.
    ///
    /// ```swift
    /// let may = try ledger.budgetOverview(month: try Month(parsing: "2026-05"))
    /// print(may.currentBalance, may.heldInPots, may.income, may.expenses)
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: answer for this effective instant; at or after the month's start.
    ///   - knownAt: as the ledger knew it at this instant; nil for everything recorded.
    /// - Throws: ``LedgerError`` `invalidArgument` when `asOf` comes before the month.
    public func budgetOverview(month: Month, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> BudgetOverview {
        let range = BudgetQueries.range(of: month, calendar)
        if let asOf, asOf.microsecondsSinceEpoch < range.lowerBound {
            throw LedgerError(.invalidArgument, "the overview of \(month) cannot be as of \(calendar.date(of: asOf)), before the month starts")
        }
        let end = Instant(microsecondsSinceEpoch: range.upperBound)
        let balancesAt = budgetBalancesInstant(month: month, asOf: asOf, knownAt: knownAt)
        return try read { db in
            try BudgetQueries.overview(
                db, month: month, through: min(asOf ?? end, end), knownAt: knownAt,
                balances: BalanceQueries.balances(db, asOf: balancesAt, knownAt: knownAt), calendar: calendar
            )
        }
    }
}

extension Ledger {
    /// The instant a month's balances are read at: `asOf`, else now (or `knownAt` when that
    /// is earlier), never after the month's end. The overview, its amounts in the base
    /// currency and the budget screen read there.
    func budgetBalancesInstant(month: Month, asOf: Instant?, knownAt: Instant?) -> Instant {
        min(asOf ?? min(now, knownAt ?? now), calendar.endOfDay(month.lastDay))
    }
}

/// Sums the budget queries and commands share, from indexed postings, roll-ups and
/// transaction versions.
enum BudgetQueries {
    /// Whether a budget for the category and month is in force (not deleted, not replaced).
    static func hasCurrentBudget(month: Month, category: BudgetCategory, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM budgets WHERE month = ? AND category = ? AND superseded_at = ?"),
            arguments: [month.ordinal, category.rawValue, BudgetTime.openEnd]
        ) ?? false
    }

    /// The maximum of the category's budget for the month as it stands (the version not
    /// superseded); nil when there is none (never set, or deleted).
    static func currentMaximum(month: Month, category: BudgetCategory, _ db: Database) throws -> Money? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT commodity, maximum FROM budgets WHERE month = ? AND category = ? AND superseded_at = ?"),
            arguments: [month.ordinal, category.rawValue, BudgetTime.openEnd]
        ) else { return nil }
        return try row.money(BudgetColumns.maximum, BudgetColumns.commodity)
    }

    /// Every month that has a budget in force, as known at `knownAt`, oldest first.
    static func months(_ db: Database, knownAt: Instant?) throws -> [Month] {
        try Int.fetchAll(
            db.cachedStatement(sql: "SELECT DISTINCT month FROM budgets WHERE \(BudgetTime.versionInForce) ORDER BY month"),
            arguments: BudgetTime.versionArguments(knownAt: knownAt)
        ).map(Month.init(ordinal:))
    }

    /// The first and last microsecond of a month in the ledger's time zone.
    static func range(of month: Month, _ calendar: LedgerCalendar) -> ClosedRange<Int64> {
        calendar.startOfDay(month.firstDay).microsecondsSinceEpoch...calendar.endOfDay(month.lastDay).microsecondsSinceEpoch
    }

    /// The month's budgets from the read models in `db` (the ledger's, or a replay's), as
    /// known at `knownAt`.
    static func statuses(_ db: Database, month: Month, through: Instant? = nil, knownAt: Instant?, calendar: LedgerCalendar) throws -> [BudgetStatus] {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM budgets WHERE month = ? AND \(BudgetTime.versionInForce) ORDER BY category"),
            arguments: [month.ordinal] + BudgetTime.versionArguments(knownAt: knownAt)
        )
        let whole = BudgetQueries.range(of: month, calendar)
        // Up to `through` (the month's days up to today, for the month in progress); nothing
        // counts when it comes before the month.
        let upper = min(whole.upperBound, through?.microsecondsSinceEpoch ?? whole.upperBound)
        let range = whole.lowerBound...max(whole.lowerBound, upper)
        let started = upper >= whole.lowerBound
        return try rows.map { row in
            let category: BudgetCategory = try row.kind(BudgetColumns.category)
            let maximum = try row.money(BudgetColumns.maximum, BudgetColumns.commodity)
            let spent = started ? try BudgetQueries.expenses(db, category: category, range: range, commodity: maximum.commodity, knownAt: knownAt) : .zero(maximum.commodity)
            let latest = !started ? [] : try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT * FROM budget_transaction_versions
                    WHERE category = ? AND effective_at >= ? AND effective_at <= ? AND \(BudgetTransaction.visible)
                    ORDER BY effective_at DESC, recorded_sequence DESC LIMIT 3
                    """),
                arguments: [category.rawValue, range.lowerBound, range.upperBound] + BudgetTime.versionArguments(knownAt: knownAt)
            ).map { try BudgetTransaction.from($0, calendar: calendar) }
            return BudgetStatus(
                category: category, month: month, maximum: maximum, spent: spent,
                remaining: try maximum.subtracting(spent), latestTransactions: latest
            )
        }
    }

    /// The month's overview from the read models in `db`: flows from the month's first day
    /// through `through`, as known at `knownAt`, and the balances given (the ledger's
    /// roll-ups, or a replay's scan, at the instant answered for).
    static func overview(
        _ db: Database, month: Month, through: Instant, knownAt: Instant?, balances: [AccountBalance], calendar: LedgerCalendar
    ) throws -> BudgetOverview {
        let currency = try BudgetSettings.currency(db)
        let range = BudgetQueries.range(of: month, calendar)
        let flows = try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT COALESCE(SUM(CASE WHEN amount > 0 THEN amount ELSE 0 END), 0) AS income,
                       COALESCE(SUM(CASE WHEN amount < 0 THEN -amount ELSE 0 END), 0) AS expenses
                FROM budget_transaction_versions
                WHERE effective_at >= ? AND effective_at <= ? AND commodity = ? AND \(BudgetTransaction.visible)
                """),
            arguments: [range.lowerBound, min(range.upperBound, through.microsecondsSinceEpoch), currency.code]
                + BudgetTime.versionArguments(knownAt: knownAt)
        )
        let potPrefix = LedgerAccounts.pot("")
        var current: Int64 = 0
        var held: Int64 = 0
        for balance in balances where balance.amount.commodity == currency {
            if balance.account == LedgerAccounts.current {
                current = try add(current, balance.amount.minorUnits)
            } else if balance.account.hasPrefix(potPrefix) {
                held = try add(held, balance.amount.minorUnits)
            }
        }
        return BudgetOverview(
            month: month,
            currentBalance: Money(minorUnits: current, commodity: currency),
            heldInPots: Money(minorUnits: held, commodity: currency),
            income: Money(minorUnits: flows?[BudgetColumns.income] ?? 0, commodity: currency),
            expenses: Money(minorUnits: flows?[BudgetColumns.expenses] ?? 0, commodity: currency)
        )
    }

    private static func add(_ lhs: Int64, _ rhs: Int64) throws -> Int64 {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        guard !overflow else { throw MoneyError.overflowing("the pots' total") }
        return sum
    }

    /// `Budget:Current` from postings effective at or before `asOf`.
    static func currentBalance(_ db: Database, asOf: Instant, commodity: Commodity? = nil) throws -> Money {
        let commodity = try commodity ?? BudgetSettings.currency(db)
        let total = try PostingSums.sum(account: LedgerAccounts.current, commodity: commodity.code, effectiveThrough: asOf.microsecondsSinceEpoch, db)
        return Money(minorUnits: total, commodity: commodity)
    }

    /// Every pot's account, summed, from postings effective at or before `asOf`.
    static func heldInPots(_ db: Database, asOf: Instant, commodity: Commodity) throws -> Money {
        let pots = try PostingSums.sums(of: .prefixed(LedgerAccounts.pot("")), commodity: commodity.code,
                                        effectiveThrough: asOf.microsecondsSinceEpoch, db)
        let total = try pots.reduce(Int64(0)) { try add($0, $1.amount) }
        return Money(minorUnits: total, commodity: commodity)
    }

    /// A category's expenses in a range, as a positive amount.
    static func expenses(
        _ db: Database, category: BudgetCategory, range: ClosedRange<Int64>, commodity: Commodity, knownAt: Instant?
    ) throws -> Money {
        let total = try Int64.fetchOne(
            db.cachedStatement(sql: """
                SELECT COALESCE(SUM(-amount), 0) FROM budget_transaction_versions
                WHERE category = ? AND effective_at >= ? AND effective_at <= ? AND amount < 0 AND commodity = ?
                  AND \(BudgetTransaction.visible)
                """),
            arguments: [category.rawValue, range.lowerBound, range.upperBound, commodity.code] + BudgetTime.versionArguments(knownAt: knownAt)
        ) ?? 0
        return Money(minorUnits: total, commodity: commodity)
    }
}
