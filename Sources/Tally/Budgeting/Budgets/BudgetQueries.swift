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
    /// transactions.
    ///
    /// ```swift
    /// for budget in try ledger.budgets(month: try Month(parsing: "2026-05")) { print(budget.category, budget.remaining) }
    /// ```
    public func budgets(month: Month) throws -> [BudgetStatus] {
        try read { db in try BudgetQueries.statuses(db, month: month, calendar: calendar) }
    }

    /// The month at a glance: current balance and money in pots at the end of the month (now,
    /// for the month in progress), and the month's income and expenses.
    ///
    /// ```swift
    /// let may = try ledger.budgetOverview(month: try Month(parsing: "2026-05"))
    /// print(may.currentBalance, may.heldInPots, may.income, may.expenses)
    /// ```
    public func budgetOverview(month: Month) throws -> BudgetOverview {
        let asOf = min(now, calendar.endOfDay(month.lastDay))
        return try read { db in
            let currency = try BudgetSettings.currency(db)
            let range = BudgetQueries.range(of: month, calendar)
            let flows = try Row.fetchOne(
                db.cachedStatement(sql: """
                    SELECT COALESCE(SUM(CASE WHEN amount > 0 THEN amount ELSE 0 END), 0) AS income,
                           COALESCE(SUM(CASE WHEN amount < 0 THEN -amount ELSE 0 END), 0) AS expenses
                    FROM budget_transactions
                    WHERE deleted = 0 AND effective_at >= ? AND effective_at <= ? AND commodity = ?
                    """),
                arguments: [range.lowerBound, range.upperBound, currency.code]
            )
            return BudgetOverview(
                month: month,
                currentBalance: try BudgetQueries.currentBalance(db, asOf: asOf, commodity: currency),
                heldInPots: try BudgetQueries.heldInPots(db, asOf: asOf, commodity: currency),
                income: Money(minorUnits: flows?["income"] ?? 0, commodity: currency),
                expenses: Money(minorUnits: flows?["expenses"] ?? 0, commodity: currency)
            )
        }
    }
}

/// Sums the budget queries and commands share, from indexed postings and transactions.
enum BudgetQueries {
    /// The first and last microsecond of a month in the ledger's time zone.
    static func range(of month: Month, _ calendar: LedgerCalendar) -> ClosedRange<Int64> {
        calendar.startOfDay(month.firstDay).microsecondsSinceEpoch...calendar.endOfDay(month.lastDay).microsecondsSinceEpoch
    }

    /// The month's budgets from the read models in `db` (the ledger's, or a replay's).
    static func statuses(_ db: Database, month: Month, calendar: LedgerCalendar) throws -> [BudgetStatus] {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM budgets WHERE month = ? ORDER BY category"), arguments: [month.ordinal]
        )
        let range = BudgetQueries.range(of: month, calendar)
        return try rows.map { row in
            let category = BudgetCategory(rawValue: row["category"]) ?? .general
            let maximum = Money(minorUnits: row["maximum"], commodity: try Commodity.named(row["commodity"]))
            let spent = try BudgetQueries.expenses(db, category: category, range: range, commodity: maximum.commodity)
            let latest = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT * FROM budget_transactions
                    WHERE category = ? AND deleted = 0 AND effective_at >= ? AND effective_at <= ?
                    ORDER BY effective_at DESC, recorded_sequence DESC LIMIT 3
                    """),
                arguments: [category.rawValue, range.lowerBound, range.upperBound]
            ).map { try BudgetTransaction.from($0, calendar: calendar) }
            return BudgetStatus(
                category: category, month: month, maximum: maximum, spent: spent,
                remaining: try maximum.subtracting(spent), latestTransactions: latest
            )
        }
    }

    /// `Budget:Current` from postings effective at or before `asOf`.
    static func currentBalance(_ db: Database, asOf: Instant, commodity: Commodity? = nil) throws -> Money {
        let commodity = try commodity ?? BudgetSettings.currency(db)
        let total = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT COALESCE(SUM(amount), 0) FROM postings WHERE account = ? AND commodity = ? AND effective_at <= ?"),
            arguments: [LedgerAccounts.current, commodity.code, asOf.microsecondsSinceEpoch]
        ) ?? 0
        return Money(minorUnits: total, commodity: commodity)
    }

    /// Every pot's account, summed, from postings effective at or before `asOf`.
    static func heldInPots(_ db: Database, asOf: Instant, commodity: Commodity) throws -> Money {
        let prefix = LedgerAccounts.pot("")
        let total = try Int64.fetchOne(
            db.cachedStatement(sql: """
                SELECT COALESCE(SUM(amount), 0) FROM postings
                WHERE account >= ? AND account < ? AND commodity = ? AND effective_at <= ?
                """),
            arguments: [prefix, prefix + "\u{10FFFF}", commodity.code, asOf.microsecondsSinceEpoch]
        ) ?? 0
        return Money(minorUnits: total, commodity: commodity)
    }

    /// A category's expenses in a range, as a positive amount.
    static func expenses(_ db: Database, category: BudgetCategory, range: ClosedRange<Int64>, commodity: Commodity) throws -> Money {
        let total = try Int64.fetchOne(
            db.cachedStatement(sql: """
                SELECT COALESCE(SUM(-amount), 0) FROM budget_transactions
                WHERE category = ? AND deleted = 0 AND amount < 0 AND effective_at >= ? AND effective_at <= ? AND commodity = ?
                """),
            arguments: [category.rawValue, range.lowerBound, range.upperBound, commodity.code]
        ) ?? 0
        return Money(minorUnits: total, commodity: commodity)
    }
}
