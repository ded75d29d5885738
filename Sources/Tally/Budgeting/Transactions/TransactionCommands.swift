import GRDB

// The rules of budget transactions (DOMAIN.md §2): manual ones can be amended and
// deleted, each change a new event; bank ones are imported once per bank transaction id
// and can only be re-categorised.

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
    /// - Throws: ``LedgerError`` `invalidArgument` (empty payee, zero amount, bad id),
    ///   `currencyMismatch`, `alreadyExists` (the id is taken).
    @discardableResult
    public func recordTransaction(
        payee: String, category: BudgetCategory, amount: Money, date: LocalDate, recurring: Bool = false, id: String? = nil
    ) throws -> CommandResult {
        try perform { db in
            let payee = try BudgetSettings.validName(payee, "the payee")
            try TransactionRules.requireAmount(amount, db)
            let transactionId: String
            if let id {
                transactionId = try BudgetSettings.validIdentifier(id, "the transaction id")
                try TransactionRules.requireUnused(transactionId, db)
            } else {
                transactionId = "manual:\(head.sequence + 1)"
            }
            return [NewEvent(effectiveAt: calendar.startOfDay(date), body: .transactionRecorded(TransactionRecorded(
                transactionId: transactionId, payee: payee, category: category, amount: amount,
                recurring: recurring, source: .manual
            )))]
        }
    }

    /// Imports one bank transaction. Its id is `bank:<bankId>:<externalId>`, which is also
    /// the idempotency key: importing it again appends nothing, so a re-categorisation made
    /// since survives.
    ///
    /// ```swift
    /// try ledger.importBankTransaction(bankId: "chase", externalId: "T-1001", payee: "Netflix",
    ///                                  category: .entertainment, amount: usd("-15.49"), date: day)
    /// ```
    ///
    /// - Throws: ``LedgerError`` `notFound` (the bank was never connected), `notAllowed`
    ///   (it is disconnected), `invalidArgument`, `currencyMismatch`.
    @discardableResult
    public func importBankTransaction(
        bankId: String, externalId: String, payee: String, category: BudgetCategory, amount: Money, date: LocalDate
    ) throws -> CommandResult {
        let bankId = try BudgetSettings.validIdentifier(bankId, "the bank id")
        guard !externalId.isEmpty, externalId.count <= BudgetSettings.identifierLengthLimit else {
            throw LedgerError(.invalidArgument, "the bank's transaction id must have 1 to \(BudgetSettings.identifierLengthLimit) characters")
        }
        let transactionId = TransactionRules.bankTransactionId(bankId: bankId, externalId: externalId)
        return try perform(idempotencyKey: transactionId) { db in
            try BankRules.requireConnected(bankId, db)
            let payee = try BudgetSettings.validName(payee, "the payee")
            try TransactionRules.requireAmount(amount, db)
            try TransactionRules.requireUnused(transactionId, db)
            return [NewEvent(effectiveAt: calendar.startOfDay(date), body: .transactionRecorded(TransactionRecorded(
                transactionId: transactionId, payee: payee, category: category, amount: amount,
                recurring: false, source: .bank, externalId: externalId, bankId: bankId
            )))]
        }
    }

    /// Amends a manual transaction: a new version in a new event; the audit keeps the old
    /// one. Arguments left nil keep their current value.
    ///
    /// ```swift
    /// try ledger.amendTransaction(id: "manual:7", amount: usd("-14.40"))
    /// ```
    ///
    /// - Throws: ``LedgerError`` `notFound` (no such transaction, or deleted), `notAllowed`
    ///   (a bank transaction: re-categorise it instead), `invalidArgument`, `currencyMismatch`.
    @discardableResult
    public func amendTransaction(
        id: String, payee: String? = nil, category: BudgetCategory? = nil, amount: Money? = nil,
        date: LocalDate? = nil, recurring: Bool? = nil
    ) throws -> CommandResult {
        try perform { db in
            let current = try TransactionRules.requireEditable(id, calendar: calendar, action: "amended", db)
            let payee = try payee.map { try BudgetSettings.validName($0, "the payee") } ?? current.payee
            let amount = amount ?? current.amount
            try TransactionRules.requireAmount(amount, db)
            return [NewEvent(effectiveAt: calendar.startOfDay(date ?? current.date), body: .transactionAmended(TransactionAmended(
                transactionId: id, payee: payee, category: category ?? current.category, amount: amount,
                recurring: recurring ?? current.recurring
            )))]
        }
    }

    /// Deletes a manual transaction: it leaves every list, budget and balance, and stays
    /// in the log and the audit.
    ///
    /// ```swift
    /// try ledger.deleteTransaction(id: "manual:7")
    /// ```
    ///
    /// - Throws: ``LedgerError`` `notFound`, `notAllowed` (a bank transaction).
    @discardableResult
    public func deleteTransaction(id: String) throws -> CommandResult {
        try perform { db in
            _ = try TransactionRules.requireEditable(id, calendar: calendar, action: "deleted", db)
            return [NewEvent(effectiveAt: now, body: .transactionDeleted(TransactionDeleted(transactionId: id)))]
        }
    }

    /// Moves any transaction, manual or imported, to another category. Appends nothing when
    /// it is in that category already.
    ///
    /// ```swift
    /// try ledger.recategorise(id: "bank:chase:T-1001", category: .bills)
    /// ```
    ///
    /// - Throws: ``LedgerError`` `notFound` (no such transaction, or deleted).
    @discardableResult
    public func recategorise(id: String, category: BudgetCategory) throws -> CommandResult {
        try perform { db in
            let current = try TransactionRules.requireExisting(id, calendar: calendar, db)
            guard current.category != category else { return [] }
            return [NewEvent(effectiveAt: now, body: .transactionRecategorised(TransactionRecategorised(
                transactionId: id, category: category
            )))]
        }
    }
}

extension Ledger.CommandResult {
    /// The transaction a transaction command recorded or changed (nil for other commands).
    public var transactionId: String? {
        for event in events {
            switch event.body {
            case .transactionRecorded(let recorded): return recorded.transactionId
            case .transactionAmended(let amended): return amended.transactionId
            case .transactionDeleted(let deleted): return deleted.transactionId
            case .transactionRecategorised(let change): return change.transactionId
            case .recurringOccurrenceGenerated(let occurrence): return occurrence.transactionId
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
        let taken = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM transaction_versions WHERE transaction_id = ?"), arguments: [id]
        ) ?? false
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
