public import TallyEngine
import GRDB

// The rules of savings pots (docs/domain.md §2): adding money needs that much in the current
// balance, withdrawing needs that much in the pot, deleting returns the pot's total to
// the current balance. Each is an event; PostingRules moves the money.
//
// Idempotency: every command takes an optional key; a repeat with the same input returns
// the first result without planning again (a withdrawal repeated after the pot was emptied
// still returns the first withdrawal), a repeat with other input throws `idempotencyConflict`.

extension Ledger {
    /// Creates a savings pot with a target.
    ///
    /// ```swift
    /// try ledger.createPot(id: "holiday", name: "Holiday", target: usd("500.00"))
    /// ```
    ///
    /// - Parameters:
    ///   - id: letters, digits, `-`, `_`; names the pot in later commands.
    ///   - name: what the user calls it; defaults to the id.
    ///   - target: positive, in the budget currency.
    ///   - idempotencyKey: an optional key; a repeat with the same id, name and target returns
    ///     the first result and appends nothing, one with others is refused.
    /// - Throws: ``LedgerError`` `alreadyExists` (a pot with that id exists),
    ///   `invalidArgument`, `currencyMismatch`, `idempotencyConflict`.
    @discardableResult
    public func createPot(id: String, name: String? = nil, target: Money, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(createPotCommand(id: id, name: name, target: target, idempotencyKey: idempotencyKey))
    }

    /// The command ``createPot(id:name:target:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func createPotCommand(id: String, name: String? = nil, target: Money, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let id = try BudgetSettings.validIdentifier(id, "the pot id")
        let created = NewEvent(effectiveAt: now, body: EventBody(PotCreated(
            potId: id, name: try NameRule.name(name ?? id, "the pot name"), target: target)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: created, requestHasEffectiveTime: false) { db in
            try BudgetSettings.requireBudgetCurrency(target, "the target", db)
            guard target.isPositive else { throw LedgerError(.invalidArgument, "the pot's target must be more than zero") }
            guard try PotRules.existing(id, db) == nil else {
                throw LedgerError(.alreadyExists, "a pot with id '\(id)' exists already; choose another id")
            }
            return [created]
        }
    }

    /// Moves money from the current balance into a pot.
    ///
    /// ```swift
    /// try ledger.addToPot(id: "holiday", amount: usd("50.00"))
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same pot and amount
    ///   returns the first result (even when the balance could no longer cover it), one with
    ///   others is refused.
    /// - Throws: ``LedgerError`` `insufficientFunds` (the current balance cannot cover it),
    ///   `notFound`, `invalidArgument` (not positive), `currencyMismatch`, `idempotencyConflict`.
    @discardableResult
    public func addToPot(id: String, amount: Money, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(addToPotCommand(id: id, amount: amount, idempotencyKey: idempotencyKey))
    }

    /// The command ``addToPot(id:amount:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func addToPotCommand(id: String, amount: Money, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let funded = NewEvent(effectiveAt: now, body: EventBody(PotFunded(potId: id, amount: amount)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: funded, requestHasEffectiveTime: false) { db in
            _ = try PotRules.requireExisting(id, db)
            try PotRules.requirePositive(amount, db)
            let current = try BudgetQueries.currentBalance(db, asOf: funded.effectiveAt)
            guard try !current.isLess(than: amount) else {
                throw LedgerError(.insufficientFunds, "the current balance cannot cover this amount; add less to pot '\(id)'")
            }
            return [funded]
        }
    }

    /// Moves money from a pot back to the current balance.
    ///
    /// ```swift
    /// try ledger.withdrawFromPot(id: "holiday", amount: usd("20.00"))
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same pot and amount
    ///   returns the first result (even when the pot no longer holds that much), one with
    ///   others is refused.
    /// - Throws: ``LedgerError`` `insufficientFunds` (the pot holds less), `notFound`,
    ///   `invalidArgument` (not positive), `currencyMismatch`, `idempotencyConflict`.
    @discardableResult
    public func withdrawFromPot(id: String, amount: Money, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(withdrawFromPotCommand(id: id, amount: amount, idempotencyKey: idempotencyKey))
    }

    /// The command ``withdrawFromPot(id:amount:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func withdrawFromPotCommand(id: String, amount: Money, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let withdrawn = NewEvent(effectiveAt: now, body: EventBody(PotWithdrawn(potId: id, amount: amount)))
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: withdrawn, requestHasEffectiveTime: false) { db in
            let pot = try PotRules.requireExisting(id, db)
            try PotRules.requirePositive(amount, db)
            guard try !pot.total.isLess(than: amount) else {
                throw LedgerError(.insufficientFunds, "pot '\(id)' holds less than this amount; withdraw at most its total")
            }
            // The pot must hold it at the withdrawal's time and at every later one (a pot
            // event dated later, such as one imported, keeps what it needs).
            let lowest = try BalanceQueries.lowestBalance(db, account: LedgerAccounts.pot(id), commodity: amount.commodity, from: withdrawn.effectiveAt,
                                                          pending: try BalanceQueries.postings(of: [withdrawn], db))
            guard !lowest.amount.isNegative else {
                throw LedgerError(.insufficientFunds, "pot '\(id)' would hold less than zero on \(calendar.date(of: lowest.at)); withdraw less")
            }
            return [withdrawn]
        }
    }

    /// Deletes a pot; its whole total returns to the current balance.
    ///
    /// ```swift
    /// try ledger.deletePot(id: "holiday")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key. The event records the total the pot
    ///   returned, which depends on state, so a repeat is compared on the pot's id: the same
    ///   returns the first result and appends nothing, another is refused.
    /// - Throws: ``LedgerError`` `notFound`, `idempotencyConflict`.
    @discardableResult
    public func deletePot(id: String, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(deletePotCommand(id: id, idempotencyKey: idempotencyKey))
    }

    /// The command ``deletePot(id:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func deletePotCommand(id: String, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let at = now
        @Sendable func deleted(returning total: Money) -> NewEvent {
            NewEvent(effectiveAt: at, body: EventBody(PotDeleted(potId: id, returned: total)))
        }
        let request = try repeatRequest(key: idempotencyKey) { first in
            guard let earlier = first.body.as(PotDeleted.self) else { return nil }
            return deleted(returning: earlier.returned)
        }
        return LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: false) { db in
            [deleted(returning: try PotRules.requireExisting(id, db).total)]
        }
    }
}

/// The checks pot commands share, and the pot reads.
enum PotRules {
    static func existing(_ id: String, _ db: Database) throws -> Pot? {
        try PotRecords.pots(db, id: id, asOf: nil, knownAt: nil).first
    }

    static func requireExisting(_ id: String, _ db: Database) throws -> Pot {
        guard let pot = try existing(id, db) else {
            throw LedgerError(.notFound, "there is no pot '\(id)'; list them with `tally pot list`")
        }
        return pot
    }

    static func requirePositive(_ amount: Money, _ db: Database) throws {
        try BudgetSettings.requireBudgetCurrency(amount, "the amount", db)
        guard amount.isPositive else { throw LedgerError(.invalidArgument, "the amount must be more than zero") }
    }
}

// What a pot event arriving already decided must keep: a positive target or amount, a pot
// that exists where the event lands, and no pot below zero.

extension PotCreated: AdmissionChecked {
    public func checkAdmission(_ admission: inout Admission) throws {
        try admission.requirePositive(target, "target")
    }
}

extension PotFunded: AdmissionChecked {
    public func checkAdmission(_ admission: inout Admission) throws {
        try PotRules.requireExisting(potId, admission)
        try admission.requirePositive(amount, "amount")
    }
}

extension PotWithdrawn: AdmissionChecked {
    public func checkAdmission(_ admission: inout Admission) throws {
        try PotRules.requireExisting(potId, admission)
        try admission.requirePositive(amount, "amount")
        admission.protect(LedgerAccounts.pot(potId), in: amount.commodity)
    }
}

extension PotDeleted: AdmissionChecked {
    /// The pot exists, and what the deletion returns is exactly what the pot holds then in
    /// that currency (the command records it so), so no money is left in a deleted pot.
    public func checkAdmission(_ admission: inout Admission) throws {
        try PotRules.requireExisting(potId, admission)
        try admission.requireNotNegative(returned, "returned")
        let held = try BalanceQueries.balance(admission.database, account: LedgerAccounts.pot(potId), commodity: returned.commodity)
        guard held == returned else {
            throw admission.refuse(.invalidArgument, "'returned' must be what pot '\(potId)' holds in \(returned.commodity.code) at this point of the log")
        }
    }
}

extension PotRules {
    /// Refuses an admitted event naming a pot that does not exist at its point of the log.
    static func requireExisting(_ id: String, _ admission: Admission) throws {
        guard try existing(id, admission.database) != nil else {
            throw admission.refuse(.notFound, "no pot '\(id)' exists at this point of the log")
        }
    }
}
