public import TallyEngine
import GRDB

// The rules of monthly budgets (docs/domain.md §2): one per (category, month), with a positive
// maximum; deleting one touches no transaction.

extension Ledger {
    /// Sets the maximum of a category's budget for a month (creating or replacing it).
    /// Records nothing when the budget has that maximum already.
    ///
    /// ```swift
    /// try ledger.setBudget(category: .groceries, month: try Month(parsing: "2026-05"), maximum: usd("400.00"))
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same category, month and
    ///   maximum returns the first result and appends nothing, one with others is refused. A
    ///   command that records nothing does not use up its key.
    /// - Throws: ``LedgerError`` `invalidArgument` (not positive), `currencyMismatch`,
    ///   `idempotencyConflict`.
    @discardableResult
    public func setBudget(category: BudgetCategory, month: Month, maximum: Money, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(setBudgetCommand(category: category, month: month, maximum: maximum, idempotencyKey: idempotencyKey))
    }

    /// The command ``setBudget(category:month:maximum:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func setBudgetCommand(category: BudgetCategory, month: Month, maximum: Money, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let set = NewEvent(effectiveAt: calendar.startOfDay(month.firstDay), body: EventBody(BudgetSet(
            category: category, month: month, maximum: maximum
        )))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: set, requestHasEffectiveTime: false) { db in
            try BudgetSettings.requireBudgetCurrency(maximum, "the maximum", db)
            guard maximum.isPositive else { throw LedgerError(.invalidArgument, "the budget's maximum must be more than zero") }
            return try BudgetQueries.currentMaximum(month: month, category: category, db) == maximum ? [] : [set]
        }
    }

    /// Deletes a category's budget for a month. No transaction changes.
    ///
    /// ```swift
    /// try ledger.deleteBudget(category: .groceries, month: try Month(parsing: "2026-05"))
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same category and month
    ///   returns the first result and appends nothing, one with others is refused.
    /// - Throws: ``LedgerError`` `notFound` (there is no such budget), `idempotencyConflict`.
    @discardableResult
    public func deleteBudget(category: BudgetCategory, month: Month, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(deleteBudgetCommand(category: category, month: month, idempotencyKey: idempotencyKey))
    }

    /// The command ``deleteBudget(category:month:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func deleteBudgetCommand(category: BudgetCategory, month: Month, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let deleted = NewEvent(effectiveAt: calendar.startOfDay(month.firstDay), body: EventBody(BudgetDeleted(
            category: category, month: month
        )))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: deleted, requestHasEffectiveTime: false) { db in
            let exists = try BudgetQueries.hasCurrentBudget(month: month, category: category, db)
            guard exists else {
                throw LedgerError(.notFound, "there is no \(category.displayName) budget for \(month)")
            }
            return [deleted]
        }
    }
}
