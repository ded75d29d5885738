// The budget's balance model (DOMAIN.md §2): current balance = reference balance − money
// held in pots, then moved by transactions. PostingRules turns a reference reset into an
// untracked transfer into or out of `Budget:Current`.

extension Ledger {
    /// Sets (or resets) the reference balance: the bank balance, pots included, as of now.
    /// The difference from what the ledger holds is recorded as an untracked transfer.
    ///
    /// ```swift
    /// try ledger.setReferenceBalance(amount: usd("2500.00"))
    /// ```
    ///
    /// - Throws: ``LedgerError`` `currencyMismatch` (not the budget currency).
    @discardableResult
    public func setReferenceBalance(amount: Money) throws -> CommandResult {
        try perform { db in
            try BudgetSettings.requireBudgetCurrency(amount, "the reference balance", db)
            return [NewEvent(effectiveAt: now, body: .referenceBalanceSet(ReferenceBalanceSet(amount: amount)))]
        }
    }
}
