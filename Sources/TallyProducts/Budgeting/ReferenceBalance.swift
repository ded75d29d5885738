public import TallyEngine
// The budget's balance model (DOMAIN.md §2): current balance = reference balance − money
// held in pots, then moved by transactions. PostingRules turns a reference reset into an
// untracked transfer into or out of `Budget:Current`.

extension Ledger {
    /// Sets (or resets) the reference balance: the bank balance, pots included, as of now.
    /// The difference from what the current balance and pots hold as of now (postings dated
    /// later, such as recurring items generated for later in the month, do not count) is
    /// recorded in the event as an untracked transfer.
    ///
    /// ```swift
    /// try ledger.setReferenceBalance(amount: usd("2500.00"))
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key. The event records the adjustment, which
    ///   depends on state, so a repeat is compared on the amount: the same returns the first
    ///   result and appends nothing (the adjustment is not worked out again), another amount
    ///   is refused.
    /// - Throws: ``LedgerError`` `currencyMismatch` (not the budget currency),
    ///   `idempotencyConflict`; `MoneyError` (`overflow`) when the difference exceeds 64-bit
    ///   minor units.
    @discardableResult
    public func setReferenceBalance(amount: Money, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(setReferenceBalanceCommand(amount: amount, idempotencyKey: idempotencyKey))
    }

    /// The command ``setReferenceBalance(amount:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func setReferenceBalanceCommand(amount: Money, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let at = now
        @Sendable func set(adjustment: Money?) -> NewEvent {
            NewEvent(effectiveAt: at, body: EventBody(ReferenceBalanceSet(amount: amount, adjustment: adjustment)))
        }
        let request = try repeatRequest(key: idempotencyKey) { first in
            guard let earlier = first.body.as(ReferenceBalanceSet.self) else { return nil }
            return set(adjustment: earlier.adjustment)
        }
        return LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: false) { db in
            try BudgetSettings.requireBudgetCurrency(amount, "the reference balance", db)
            let current = try BudgetQueries.currentBalance(db, asOf: at, commodity: amount.commodity)
            let held = try BudgetQueries.heldInPots(db, asOf: at, commodity: amount.commodity)
            return [set(adjustment: try amount.subtracting(current).subtracting(held))]
        }
    }
}
