public import TallyEngine
import GRDB
// The budget's balance model (docs/domain.md §2): current balance = reference balance − money
// held in pots, then moved by transactions. PostingRules turns a reference reset into an
// untracked transfer into or out of `Budget:Current`.
//
// The reference is what the bank said at that moment: it already holds every transaction
// dated before its day, and those of its day recorded before it (one of its day entered
// after it is taken as made after it). History entered, imported, amended or deleted later
// but held by a reference therefore leaves the current balance from that reference on
// unchanged: the command records, with its change, a `reference_balance_reconciled` at
// the first reference that holds the change, which takes the same amount out of the
// untracked transfer (`ReferenceReconciliation`, the one place of this rule).

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

/// The rule that a reference balance already holds what is dated before it.
enum ReferenceReconciliation {
    /// A move of the current balance a command's events make: when, by how much, the event
    /// (its place in the command) that makes it, and for the reversal of an earlier version
    /// the sequence number that recorded that version (nil: a version recorded now).
    struct Change {
        let at: Instant
        let amount: Money
        let event: Int
        var version: UInt64? = nil
    }

    /// The reconciliations that keep the current balance from each reference on where the
    /// reference put it: per change a reference holds, the first such reference takes the
    /// change back out of its untracked transfer, at its own effective time, caused by the
    /// event that made the change. One event's changes held by the same reference are summed
    /// (an amendment's reversal and new version: one reconciliation of the difference, none
    /// when it is zero). Changes no reference holds need none.
    static func events(for changes: [Change], calendar: LedgerCalendar, _ db: Database) throws -> [NewEvent] {
        var reconciled: [(event: Int, reference: UInt64, at: Instant, adjustment: Money)] = []
        for change in changes where !change.amount.isZero {
            guard let reference = try BudgetSettingsProjector.firstReference(
                holding: change.at, dayEnd: calendar.endOfDay(calendar.date(of: change.at)), recordedBy: change.version, db) else { continue }
            let adjustment = try change.amount.negated()
            if let index = reconciled.firstIndex(where: { $0.event == change.event && $0.reference == reference.sequence }) {
                reconciled[index].adjustment = try reconciled[index].adjustment.adding(adjustment)
            } else {
                reconciled.append((change.event, reference.sequence, reference.effectiveAt, adjustment))
            }
        }
        return reconciled.filter { !$0.adjustment.isZero }.map { entry in
            NewEvent(effectiveAt: entry.at, cause: .earlierInBatch(entry.event),
                     body: EventBody(ReferenceBalanceReconciled(adjustment: entry.adjustment, reference: Int64(entry.reference))))
        }
    }
}
