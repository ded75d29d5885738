public import TallyEngine
import GRDB

// Corrections of envelope transactions (issue 15, missing today 3), as budget transactions
// have them: an amendment records `transaction_amended` (the new version, at its own date),
// a reversal `transaction_deleted`; neither rewrites the log. The account's postings reverse
// the version in force and book the new one; the envelope's audit shows the original, its
// reversal and the new version (``Ledger/envelopeAudit(_:from:through:knownAt:)``).

extension Ledger {
    /// Amends an envelope transaction: a new amount, payee or day, the same account,
    /// envelope and rate to base.
    ///
    /// ```swift
    /// try ledger.amendEnvelopeTransaction("t1", amount: try Money(parsing: "-45.00", commodity: .usd))
    /// ```
    ///
    /// - Parameters:
    ///   - amount: the new signed amount in the account's currency (negative an expense;
    ///     on a `Liabilities:` account, -12.50 adds 12.50 to what is owed); nil keeps it.
    ///   - payee: the new payee; nil keeps it.
    ///   - effectiveAt: the new day (the start of its day in the ledger's time zone); nil
    ///     keeps the transaction's.
    ///   - idempotencyKey: an optional key; a repeat with the same input returns the first
    ///     result and appends nothing.
    /// - Returns: no event when every field is as it stands (nothing to do).
    /// - Throws: ``LedgerError`` `notFound` (no such envelope transaction, or it was
    ///   reversed), `notAllowed` (a budget transaction, or its account closed),
    ///   `invalidArgument` (zero), `currencyMismatch`, `idempotencyConflict`.
    @discardableResult
    public func amendEnvelopeTransaction(
        _ transactionId: String, amount: Money? = nil, payee: String? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(amendEnvelopeTransactionCommand(transactionId, amount: amount, payee: payee, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``amendEnvelopeTransaction(_:amount:payee:effectiveAt:idempotencyKey:)``
    /// runs, as a value: for `run(batch:)` or the async `run(_:)`. It reads the version in
    /// force at once and is planned when the pipeline reaches it.
    public func amendEnvelopeTransactionCommand(
        _ transactionId: String, amount: Money? = nil, payee: String? = nil, effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        guard (payee?.count ?? 0) <= 200 else { throw LedgerError(.invalidArgument, "a payee has up to 200 characters") }
        let current = try currentEnvelopeVersion(transactionId, action: "amended")
        let at = effectiveAt.map { dayStart($0) } ?? current.effectiveAt
        let version = NewEvent(effectiveAt: at, body: EventBody(TransactionAmended(
            transactionId: transactionId, payee: payee ?? current.payee, category: current.category,
            amount: amount ?? current.amount, recurring: current.recurring)))
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: version, requestHasEffectiveTime: effectiveAt != nil) { db in
            try EnvelopeCorrection.requireUnchanged(current, db)
            let unchanged = (amount ?? current.amount) == current.amount && (payee ?? current.payee) == current.payee && at == current.effectiveAt
            guard !unchanged else { return [] }
            let commodity = try EnvelopeRules.openAccount(current.account, at: min(at, current.effectiveAt), calendar: calendar, db)
            let newAmount = amount ?? current.amount
            guard newAmount.commodity == commodity else {
                throw LedgerError(.currencyMismatch, "'\(current.account)' holds \(commodity.code); amend the transaction in \(commodity.code)")
            }
            guard !newAmount.isZero else {
                throw LedgerError(.invalidArgument, "a transaction's amount cannot be zero; reverse it instead (tally envelope reverse \(transactionId))")
            }
            return [version]
        }
    }

    /// Reverses an envelope transaction: it leaves its account's balance and its envelope's
    /// spending from its own day on, and stays in the log and the audit.
    ///
    /// ```swift
    /// try ledger.reverseEnvelopeTransaction("t1")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat for the same id returns the
    ///   first result and appends nothing.
    /// - Throws: ``LedgerError`` `notFound` (no such envelope transaction, or reversed
    ///   already), `notAllowed` (a budget transaction, or its account closed), `idempotencyConflict`.
    @discardableResult
    public func reverseEnvelopeTransaction(_ transactionId: String, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(reverseEnvelopeTransactionCommand(transactionId, idempotencyKey: idempotencyKey))
    }

    /// The command ``reverseEnvelopeTransaction(_:idempotencyKey:)`` runs, as a value.
    public func reverseEnvelopeTransactionCommand(_ transactionId: String, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let deleted = NewEvent(effectiveAt: now, body: EventBody(TransactionDeleted(transactionId: transactionId)))
        // A repeat of a reversal already recorded returns it: read the version only for a new one.
        if let idempotencyKey, try read({ db in try TransactionVersionRecords.current(of: transactionId, db)?.deleted }) == true {
            return LedgerCommand(idempotencyKey: idempotencyKey, request: deleted, requestHasEffectiveTime: false) { _ in
                throw LedgerError(.notFound, "envelope transaction '\(transactionId)' was reversed already")
            }
        }
        let current = try currentEnvelopeVersion(transactionId, action: "reversed")
        let calendar = self.calendar
        return LedgerCommand(idempotencyKey: idempotencyKey, request: deleted, requestHasEffectiveTime: false) { db in
            try EnvelopeCorrection.requireUnchanged(current, db)
            _ = try EnvelopeRules.openAccount(current.account, at: current.effectiveAt, calendar: calendar, db)
            return [deleted]
        }
    }

    /// The version in force of an envelope transaction, read back from the log.
    private func currentEnvelopeVersion(_ transactionId: String, action: String) throws -> EnvelopeCorrection {
        let (version, isEnvelopeAccount) = try read { db in
            let version = try TransactionVersionRecords.current(of: transactionId, db)
            return (version, try version.map { try EnvelopeRecords.isEnvelopeAccount($0.account, db) } ?? false)
        }
        guard let version else {
            throw LedgerError(.notFound, "there is no envelope transaction '\(transactionId)'; record one with `tally envelope record`")
        }
        guard isEnvelopeAccount else {
            throw LedgerError(.notAllowed, "'\(transactionId)' is a budget transaction on \(version.account), not an envelope one; use `tally tx amend` or `tally tx delete`")
        }
        guard !version.deleted else {
            throw LedgerError(.notFound, "envelope transaction '\(transactionId)' was reversed; it cannot be \(action)")
        }
        guard let event = try loggedEvent(at: version.sequence) else {
            throw LedgerError(.inconsistentLog, "transaction '\(transactionId)' names event \(version.sequence), past the log's head")
        }
        switch event.body.payload {
        case let recorded as TransactionRecorded:
            return EnvelopeCorrection(transactionId: transactionId, sequence: version.sequence, account: version.account, effectiveAt: event.effectiveAt, payee: recorded.payee,
                                      category: recorded.category, amount: recorded.amount, recurring: recorded.recurring)
        case let amended as TransactionAmended:
            return EnvelopeCorrection(transactionId: transactionId, sequence: version.sequence, account: version.account, effectiveAt: event.effectiveAt, payee: amended.payee,
                                      category: amended.category, amount: amended.amount, recurring: amended.recurring)
        default:
            throw LedgerError(.inconsistentLog, "transaction '\(transactionId)' names event \(version.sequence), a \(event.type.name)")
        }
    }
}

/// An envelope transaction's version in force, as a correction starts from.
struct EnvelopeCorrection: Sendable {
    let transactionId: String
    let sequence: UInt64
    let account: String
    let effectiveAt: Instant
    let payee: String
    let category: BudgetCategory
    let amount: Money
    let recurring: Bool

    /// Refuses the plan when another command (earlier in the same batch, or since it was
    /// read) changed or reversed the transaction: the correction was made from that version.
    static func requireUnchanged(_ read: EnvelopeCorrection, _ db: Database) throws {
        let version = try TransactionVersionRecords.current(of: read.transactionId, db)
        guard let version, version.sequence == read.sequence, !version.deleted else {
            throw LedgerError(.notAllowed, "envelope transaction '\(read.transactionId)' changed while this correction waited; read it again and correct what stands")
        }
    }
}

extension Ledger {
    /// The account an envelope transaction moves (its amount is in that account's
    /// currency); nil when no transaction has that id.
    ///
    /// ```swift
    /// let account = try ledger.envelopeTransactionAccount("t1")   // "Assets:Checking"
    /// ```
    public func envelopeTransactionAccount(_ transactionId: String) throws -> String? {
        try read { db in try TransactionVersionRecords.current(of: transactionId, db)?.account }
    }
}
