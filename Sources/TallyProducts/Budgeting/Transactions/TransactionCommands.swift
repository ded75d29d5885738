public import TallyEngine
import GRDB

// The rules of budget transactions (docs/domain.md §2): manual ones can be amended and
// deleted, each change a new event; bank ones are imported once per bank transaction id
// and can only be re-categorised.
//
// Idempotency: every command takes an optional key; a repeat with the same input returns
// the first result and appends nothing, a repeat with other input throws
// `idempotencyConflict`. The input is compared as the first event the command records,
// built once before planning and returned by the plan.

extension Ledger {
    /// Records a transaction the user typed.
    ///
    /// ```swift
    /// let result = try ledger.recordTransaction(payee: "Corner shop", category: .groceries,
    ///                                           amount: usd("-12.40"), date: try LocalDate(parsing: "2026-05-03"))
    /// let id = result.transactionId   // "manual:7"
    /// ```
    ///
    /// - Parameters:
    ///   - payee: who was paid or paid the user; not empty.
    ///   - category: one of the fixed categories.
    ///   - amount: signed, in the budget currency: positive income, negative expense; not zero.
    ///   - date: the day it happened, in the ledger's time zone.
    ///   - recurring: whether the user marks it as recurring.
    ///   - id: the caller's id (letters, digits, `-`, `_`), or nil for `manual:<sequence>`.
    ///   - idempotencyKey: an optional key. A repeat with the same payee, category, amount,
    ///     date, recurring flag and id returns the first result and appends nothing; with
    ///     other input it is refused. Without an id, a repeat keeps the id the first run was
    ///     given (`manual:<its sequence>`).
    /// - Throws: ``LedgerError`` `invalidArgument` (empty payee, zero amount, bad id),
    ///   `currencyMismatch`, `alreadyExists` (the id is taken), `idempotencyConflict`.
    @discardableResult
    public func recordTransaction(
        payee: String, category: BudgetCategory, amount: Money, date: LocalDate, recurring: Bool = false, id: String? = nil,
        idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(recordTransactionCommand(payee: payee, category: category, amount: amount, date: date, recurring: recurring, id: id, idempotencyKey: idempotencyKey))
    }

    /// The command ``recordTransaction(payee:category:amount:date:recurring:id:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func recordTransactionCommand(
        payee: String, category: BudgetCategory, amount: Money, date: LocalDate, recurring: Bool = false, id: String? = nil,
        idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let payee = try BudgetSettings.validName(payee, "the payee")
        let chosenId = try id.map { try BudgetSettings.validIdentifier($0, "the transaction id") }
        @Sendable func recorded(_ transactionId: String) -> NewEvent {
            NewEvent(effectiveAt: calendar.startOfDay(date), body: EventBody(TransactionRecorded(
                transactionId: transactionId, payee: payee, category: category, amount: amount,
                recurring: recurring, source: .manual
            )))
        }
        // A generated id depends on the log: a repeat takes the one its first run generated.
        let request = try chosenId.map(recorded) ?? repeatRequest(key: idempotencyKey) { first in
            guard let earlier = first.body.as(TransactionRecorded.self), earlier.transactionId.hasPrefix("manual:") else {
                return recorded("manual:\(first.sequence)")
            }
            return recorded(earlier.transactionId)
        }
        return LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: true) { [self] db in
            try TransactionRules.requireAmount(amount, db)
            let event: NewEvent
            if let chosenId {
                try TransactionRules.requireUnused(chosenId, db)
                event = recorded(chosenId)
            } else {
                event = recorded("manual:\(nextSequence)")
            }
            return try [event] + ReferenceReconciliation.events(for: [.init(at: event.effectiveAt, amount: amount, event: 0)], calendar: calendar, db)
        }
    }

    /// Imports one bank transaction. Its id is `bank:<bankId>:<externalId>`, which is also
    /// its idempotency key unless the caller gives another: importing the same transaction
    /// again appends nothing, so a re-categorisation made since survives; importing the same
    /// id with another payee, amount, category or date is refused as a conflict, not taken
    /// for the transaction already recorded.
    ///
    /// ```swift
    /// try ledger.importBankTransaction(bankId: "chase", externalId: "T-1001", payee: "Netflix",
    ///                                  category: .entertainment, amount: usd("-15.49"), date: day)
    /// ```
    ///
    /// - Parameters:
    ///   - bankId: a connected bank.
    ///   - externalId: the bank's transaction id, 1 to 100 characters.
    ///   - payee: who was paid, or who paid, as the bank sent it.
    ///   - category: the category the bank sent.
    ///   - amount: signed, in the budget currency.
    ///   - date: the day the bank booked it.
    ///   - idempotencyKey: the key; by default the transaction's id. A repeat compares what
    ///     the bank sent (payee, category, amount, date) with what it sent the first time.
    /// - Throws: ``LedgerError`` `notFound` (the bank was never connected), `notAllowed`
    ///   (it is disconnected), `invalidArgument`, `currencyMismatch`, `alreadyExists` (imported
    ///   before under another key), `idempotencyConflict` (the same key with other data).
    @discardableResult
    public func importBankTransaction(
        bankId: String, externalId: String, payee: String, category: BudgetCategory, amount: Money, date: LocalDate,
        idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(importBankTransactionCommand(bankId: bankId, externalId: externalId, payee: payee, category: category, amount: amount, date: date, idempotencyKey: idempotencyKey))
    }

    /// The command ``importBankTransaction(bankId:externalId:payee:category:amount:date:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func importBankTransactionCommand(
        bankId: String, externalId: String, payee: String, category: BudgetCategory, amount: Money, date: LocalDate,
        idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let bankId = try BudgetSettings.validIdentifier(bankId, "the bank id")
        guard !externalId.isEmpty, externalId.count <= BudgetSettings.identifierLengthLimit else {
            throw LedgerError(.invalidArgument, "the bank's transaction id must have 1 to \(BudgetSettings.identifierLengthLimit) characters")
        }
        let payee = try BudgetSettings.validName(payee, "the payee")
        let transactionId = TransactionRules.bankTransactionId(bankId: bankId, externalId: externalId)
        // The request is what the bank sent, and a repeat compares it with the first event the
        // key recorded: what the bank sent the first time. A re-categorisation by the user is
        // an event of its own that the comparison never sees, so a plain re-import of a
        // transaction the user moved since returns the first result and the user's category
        // stays; another payee, amount, category or date from the bank is a conflict.
        let recorded = NewEvent(effectiveAt: calendar.startOfDay(date), body: EventBody(TransactionRecorded(
            transactionId: transactionId, payee: payee, category: category, amount: amount,
            recurring: false, source: .bank, externalId: externalId, bankId: bankId
        )))
        return LedgerCommand(idempotencyKey: idempotencyKey ?? transactionId, request: recorded, requestHasEffectiveTime: true) { [calendar] db in
            try BankRules.requireConnected(bankId, db)
            try TransactionRules.requireAmount(amount, db)
            try TransactionRules.requireUnused(transactionId, db)
            return try [recorded] + ReferenceReconciliation.events(for: [.init(at: recorded.effectiveAt, amount: amount, event: 0)], calendar: calendar, db)
        }
    }

    /// Amends a manual transaction: a new version in a new event; the audit keeps the old
    /// one. Arguments left nil keep their current value. Records nothing when the new version
    /// would be the current one (nothing given, or every field as it is).
    ///
    /// ```swift
    /// try ledger.amendTransaction(id: "manual:7", amount: usd("-14.40"))
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key. The fields left nil are taken from the
    ///   transaction as it stands, so a repeat is compared on the id and the fields it gives,
    ///   against the version the key recorded: the same returns the first result and appends
    ///   nothing, a different one is refused. A command that records nothing does not use up its key.
    /// - Throws: ``LedgerError`` `notFound` (no such transaction, or deleted), `notAllowed`
    ///   (a bank transaction: re-categorise it instead), `invalidArgument`, `currencyMismatch`,
    ///   `idempotencyConflict`.
    @discardableResult
    public func amendTransaction(
        id: String, payee: String? = nil, category: BudgetCategory? = nil, amount: Money? = nil,
        date: LocalDate? = nil, recurring: Bool? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(amendTransactionCommand(id: id, payee: payee, category: category, amount: amount, date: date, recurring: recurring, idempotencyKey: idempotencyKey))
    }

    /// The command ``amendTransaction(id:payee:category:amount:date:recurring:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func amendTransactionCommand(
        id: String, payee: String? = nil, category: BudgetCategory? = nil, amount: Money? = nil,
        date: LocalDate? = nil, recurring: Bool? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let payee = try payee.map { try BudgetSettings.validName($0, "the payee") }
        /// The new version: each field given, else the one of `base` (effective at `baseAt`).
        @Sendable func amended(over base: TransactionAmended, at baseAt: Instant) -> NewEvent {
            NewEvent(effectiveAt: date.map(calendar.startOfDay) ?? baseAt, body: EventBody(TransactionAmended(
                transactionId: id, payee: payee ?? base.payee, category: category ?? base.category, amount: amount ?? base.amount,
                recurring: recurring ?? base.recurring
            )))
        }
        let request = try repeatRequest(key: idempotencyKey) { first in
            guard let earlier = first.body.as(TransactionAmended.self) else { return nil }
            return amended(over: earlier, at: first.effectiveAt)
        }
        return LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: date != nil) { [self] db in
            let current = try TransactionRules.requireEditable(id, calendar: calendar, action: "amended", db)
            try TransactionRules.requireAmount(amount ?? current.amount, db)
            let base = TransactionAmended(
                transactionId: id, payee: current.payee, category: current.category, amount: current.amount, recurring: current.recurring)
            let version = amended(over: base, at: calendar.startOfDay(current.date))
            // Every field as it stands, on the same day: nothing to do.
            let unchanged = version.body.as(TransactionAmended.self) == base && calendar.date(of: version.effectiveAt) == current.date
            guard !unchanged else { return [] }
            return try [version] + ReferenceReconciliation.events(for: [
                .init(at: calendar.startOfDay(current.date), amount: try current.amount.negated(), event: 0,
                      version: try TransactionVersionRecords.versionSequence(of: id, db)),
                .init(at: version.effectiveAt, amount: amount ?? current.amount, event: 0),
            ], calendar: calendar, db)
        }
    }

    /// Deletes a manual transaction: it leaves every list, budget and balance, and stays
    /// in the log and the audit.
    ///
    /// ```swift
    /// try ledger.deleteTransaction(id: "manual:7")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat for the same id returns the
    ///   first result and appends nothing, one for another id is refused.
    /// - Throws: ``LedgerError`` `notFound`, `notAllowed` (a bank transaction), `idempotencyConflict`.
    @discardableResult
    public func deleteTransaction(id: String, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(deleteTransactionCommand(id: id, idempotencyKey: idempotencyKey))
    }

    /// The command ``deleteTransaction(id:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func deleteTransactionCommand(id: String, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let deleted = NewEvent(effectiveAt: now, body: EventBody(TransactionDeleted(transactionId: id)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: deleted, requestHasEffectiveTime: false) { [self] db in
            let current = try TransactionRules.requireEditable(id, calendar: calendar, action: "deleted", db)
            return try [deleted] + ReferenceReconciliation.events(for: [
                .init(at: calendar.startOfDay(current.date), amount: try current.amount.negated(), event: 0,
                      version: try TransactionVersionRecords.versionSequence(of: id, db)),
            ], calendar: calendar, db)
        }
    }

    /// Moves any transaction, manual or imported, to another category. Appends nothing when
    /// it is in that category already.
    ///
    /// ```swift
    /// try ledger.recategorise(id: "bank:chase:T-1001", category: .bills)
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same id and category
    ///   returns the first result, one with others is refused. A command that records
    ///   nothing (the category was already that) does not use up its key.
    /// - Throws: ``LedgerError`` `notFound` (no such transaction, or deleted), `idempotencyConflict`.
    @discardableResult
    public func recategorise(id: String, category: BudgetCategory, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(recategoriseCommand(id: id, category: category, idempotencyKey: idempotencyKey))
    }

    /// The command ``recategorise(id:category:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func recategoriseCommand(id: String, category: BudgetCategory, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let moved = NewEvent(effectiveAt: now, body: EventBody(TransactionRecategorised(transactionId: id, category: category)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: moved, requestHasEffectiveTime: false) { [self] db in
            let current = try TransactionRules.requireExisting(id, calendar: calendar, db)
            return current.category == category ? [] : [moved]
        }
    }
}

extension Ledger.CommandResult {
    /// The transaction a transaction command recorded or changed (nil for other commands).
    public var transactionId: String? {
        for event in events {
            switch event.body.payload {
            case let recorded as TransactionRecorded: return recorded.transactionId
            case let amended as TransactionAmended: return amended.transactionId
            case let deleted as TransactionDeleted: return deleted.transactionId
            case let change as TransactionRecategorised: return change.transactionId
            case let occurrence as RecurringOccurrenceGenerated: return occurrence.transactionId
            default: continue
            }
        }
        return nil
    }
}

/// The checks transaction commands share.
enum TransactionRules {
    static func bankTransactionId(bankId: String, externalId: String) -> String { "bank:\(bankId):\(externalId)" }

    /// A transaction amount: not zero, in the budget currency.
    static func requireAmount(_ amount: Money, _ db: Database) throws {
        try BudgetSettings.requireBudgetCurrency(amount, "the amount", db)
        guard !amount.isZero else {
            throw LedgerError(.invalidArgument, "the amount must not be zero: positive for income, negative for an expense")
        }
    }

    /// No transaction of any product, live or deleted, has this id.
    static func requireUnused(_ id: String, _ db: Database) throws {
        let taken = try TransactionVersionRecords.exists(id, db)
        guard !taken else { throw LedgerError(.alreadyExists, "a transaction with id '\(id)' exists already; choose another id") }
    }

    /// The transaction's current version; deleted ones are not found.
    static func requireExisting(_ id: String, calendar: LedgerCalendar, _ db: Database) throws -> BudgetTransaction {
        guard let found = try BudgetTransaction.fetch(id, calendar: calendar, db), !found.deleted else {
            throw LedgerError(.notFound, "there is no budget transaction '\(id)'; list them with `tally tx list`")
        }
        return found.transaction
    }

    /// Only manual transactions can be amended or deleted.
    static func requireEditable(_ id: String, calendar: LedgerCalendar, action: String, _ db: Database) throws -> BudgetTransaction {
        let current = try requireExisting(id, calendar: calendar, db)
        guard current.isEditable else {
            throw LedgerError(.notAllowed, "transaction '\(id)' was imported from a bank and cannot be \(action); it can only be re-categorised")
        }
        return current
    }
}
