import GRDB

// The rules of monthly budgets (DOMAIN.md §2): one per (category, month), with a positive
// maximum; deleting one touches no transaction.

extension Ledger {
    /// Sets the maximum of a category's budget for a month (creating or replacing it).
    ///
    /// ```swift
    /// try ledger.setBudget(category: .groceries, month: try Month(parsing: "2026-05"), maximum: usd("400.00"))
    /// ```
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` (not positive), `currencyMismatch`.
    @discardableResult
    public func setBudget(category: BudgetCategory, month: Month, maximum: Money) throws -> CommandResult {
        try perform { db in
            try BudgetSettings.requireBudgetCurrency(maximum, "the maximum", db)
            guard maximum.isPositive else { throw LedgerError(.invalidArgument, "the budget's maximum must be more than zero") }
            return [NewEvent(effectiveAt: calendar.startOfDay(month.firstDay), body: .budgetSet(BudgetSet(
                category: category, month: month, maximum: maximum
            )))]
        }
    }

    /// Deletes a category's budget for a month. No transaction changes.
    ///
    /// ```swift
    /// try ledger.deleteBudget(category: .groceries, month: try Month(parsing: "2026-05"))
    /// ```
    ///
    /// - Throws: ``LedgerError`` `notFound` (there is no such budget).
    @discardableResult
    public func deleteBudget(category: BudgetCategory, month: Month) throws -> CommandResult {
        try perform { db in
            let exists = try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM budgets WHERE month = ? AND category = ? AND superseded_at = ?"),
                arguments: [month.ordinal, category.rawValue, BudgetTime.openEnd]
            ) ?? false
            guard exists else {
                throw LedgerError(.notFound, "there is no \(category.displayName) budget for \(month)")
            }
            return [NewEvent(effectiveAt: calendar.startOfDay(month.firstDay), body: .budgetDeleted(BudgetDeleted(
                category: category, month: month
            )))]
        }
    }
}
