public import TallyEngine
import GRDB

// The rules of recurring items (docs/domain.md §2): defined monthly by default; generating a
// month creates each item's occurrence once, keyed `recurring:<id>:<month>`, so asking
// twice for the same month generates nothing the second time.
//
// Idempotency: every command also takes an optional key of the caller's; a repeat with the
// same input returns the first result and appends nothing, with other input it throws
// `idempotencyConflict`.

extension Ledger {
    /// Defines a recurring income (positive amount) or expense (negative).
    ///
    /// ```swift
    /// try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-1200.00"),
    ///                            dayOfMonth: 1, startMonth: try Month(parsing: "2026-01"))
    /// ```
    ///
    /// - Parameters:
    ///   - dayOfMonth: 1 to 31; in shorter months the item falls due on the last day.
    ///   - endMonth: the last month it falls due in; nil for no end.
    ///   - frequency: monthly (the default), quarterly or yearly, counted from the start month.
    ///   - idempotencyKey: an optional key; a repeat with the same definition returns the
    ///     first result and appends nothing, one with another is refused.
    /// - Throws: ``LedgerError`` `alreadyExists` (an item with that id exists),
    ///   `invalidArgument` (empty payee, zero amount, day outside 1-31, end before start,
    ///   weekly), `currencyMismatch`, `idempotencyConflict`.
    @discardableResult
    public func defineRecurring(
        id: String, payee: String, category: BudgetCategory, amount: Money, dayOfMonth: Int,
        startMonth: Month, endMonth: Month? = nil, frequency: RecurringFrequency = .monthly, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(defineRecurringCommand(id: id, payee: payee, category: category, amount: amount, dayOfMonth: dayOfMonth, startMonth: startMonth, endMonth: endMonth, frequency: frequency, idempotencyKey: idempotencyKey))
    }

    /// The command ``defineRecurring(id:payee:category:amount:dayOfMonth:startMonth:endMonth:frequency:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func defineRecurringCommand(
        id: String, payee: String, category: BudgetCategory, amount: Money, dayOfMonth: Int,
        startMonth: Month, endMonth: Month? = nil, frequency: RecurringFrequency = .monthly, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let id = try BudgetSettings.validIdentifier(id, "the recurring item id")
        let defined = NewEvent(effectiveAt: now, body: EventBody(RecurringDefined(
            recurringId: id, payee: try BudgetSettings.validName(payee, "the payee"), category: category, amount: amount,
            frequency: frequency, dayOfMonth: dayOfMonth, startMonth: startMonth, endMonth: endMonth
        )))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: defined, requestHasEffectiveTime: false) { db in
            try TransactionRules.requireAmount(amount, db)
            guard (1...31).contains(dayOfMonth) else {
                throw LedgerError(.invalidArgument, "the day of the month must be 1 to 31 (shorter months use their last day)")
            }
            if let endMonth, endMonth < startMonth {
                throw LedgerError(.invalidArgument, "the end month comes before the start month")
            }
            guard frequency != .weekly else {
                throw LedgerError(.invalidArgument, "weekly recurring items are not supported; define it monthly, quarterly or yearly")
            }
            guard try !RecurringItem.exists(id, db) else { throw LedgerError(.alreadyExists, "a recurring item with id '\(id)' exists already; remove it first or choose another id") }
            return [defined]
        }
    }

    /// Removes a recurring item. Occurrences already generated stay.
    ///
    /// ```swift
    /// try ledger.removeRecurring(id: "rent")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat for the same item returns the
    ///   first result and appends nothing, one for another item is refused.
    /// - Throws: ``LedgerError`` `notFound`, `idempotencyConflict`.
    @discardableResult
    public func removeRecurring(id: String, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(removeRecurringCommand(id: id, idempotencyKey: idempotencyKey))
    }

    /// The command ``removeRecurring(id:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func removeRecurringCommand(id: String, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let removed = NewEvent(effectiveAt: now, body: EventBody(RecurringRemoved(recurringId: id)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: removed, requestHasEffectiveTime: false) { db in
            guard try RecurringItem.exists(id, db) else { throw LedgerError(.notFound, "there is no recurring item '\(id)'; list them with `tally recurring status`") }
            return [removed]
        }
    }

    /// Generates the month's occurrence of every recurring item due in it, dated on its due
    /// day, each with the idempotency key `recurring:<id>:<month>`, which is also its
    /// transaction id. Items already generated for the month are skipped: asking twice
    /// appends nothing the second time.
    ///
    /// ```swift
    /// let may = try ledger.generateRecurring(month: try Month(parsing: "2026-05"))
    /// print(may.events.count)   // 0 the second time
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key of the caller's for the whole command; it
    ///   takes the place of the first occurrence's own key (that occurrence is still found
    ///   by its transaction id and never generated twice). Which items are due depends on
    ///   state, so a repeat is compared on the month: the same returns the first result and
    ///   appends nothing, another month is refused. A month with nothing to generate does not
    ///   use up the key.
    /// - Throws: ``LedgerError`` `idempotencyConflict`.
    @discardableResult
    public func generateRecurring(month: Month, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(generateRecurringCommand(month: month, idempotencyKey: idempotencyKey))
    }

    /// The command ``generateRecurring(month:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func generateRecurringCommand(month: Month, idempotencyKey: String? = nil) throws -> LedgerCommand {
        // The first occurrence depends on the items defined: a repeat is compared on the month.
        let request = try repeatRequest(key: idempotencyKey) { first in
            guard var occurrence = first.body.as(RecurringOccurrenceGenerated.self) else { return nil }
            occurrence.month = month
            occurrence.transactionId = RecurringRules.occurrenceKey(occurrence.recurringId, month)
            return NewEvent(effectiveAt: first.effectiveAt, body: EventBody(occurrence))
        }
        return LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: false) { [self] db in
            let occurrences: [(event: NewEvent, amount: Money)] = try RecurringItem.all(db).filter { $0.isDue(in: month) }.compactMap { item in
                let key = RecurringRules.occurrenceKey(item.id, month)
                guard try !RecurringRules.isGenerated(key, db) else { return nil }
                return (NewEvent(
                    effectiveAt: calendar.startOfDay(item.dueDate(in: month)), idempotencyKey: key,
                    body: EventBody(RecurringOccurrenceGenerated(
                        recurringId: item.id, month: month, transactionId: key, payee: item.payee,
                        category: item.category, amount: item.amount
                    ))
                ), item.amount)
            }
            // An occurrence dated before a reference balance is already in it.
            let changes = occurrences.enumerated().map { index, occurrence in
                ReferenceReconciliation.Change(at: occurrence.event.effectiveAt, amount: occurrence.amount, event: index)
            }
            return try occurrences.map(\.event) + ReferenceReconciliation.events(for: changes, calendar: calendar, db)
        }
    }
}

extension Ledger {
    /// The command that records one occurrence of a recurring item as an export shows it (the
    /// transaction `recurring:<id>:<month>` of `budget-transactions.csv`, in its current
    /// version): the event ``generateRecurring(month:idempotencyKey:)`` records, under the same
    /// key and transaction id, with the row's payee, category, amount and day, so a later
    /// generation of that month skips the item. The item need not be defined: an occurrence
    /// outlives its item's removal.
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` (empty payee, zero amount),
    ///   `currencyMismatch`, `alreadyExists` (the occurrence was generated already).
    func restoreOccurrenceCommand(
        recurringId: String, month: Month, payee: String, category: BudgetCategory, amount: Money, date: LocalDate
    ) throws -> LedgerCommand {
        let key = RecurringRules.occurrenceKey(try BudgetSettings.validIdentifier(recurringId, "the recurring item id"), month)
        let occurrence = NewEvent(effectiveAt: calendar.startOfDay(date), idempotencyKey: key, body: EventBody(RecurringOccurrenceGenerated(
            recurringId: recurringId, month: month, transactionId: key, payee: try BudgetSettings.validName(payee, "the payee"),
            category: category, amount: amount
        )))
        return LedgerCommand(idempotencyKey: nil, request: occurrence, requestHasEffectiveTime: true) { [calendar] db in
            try TransactionRules.requireAmount(amount, db)
            guard try !RecurringRules.isGenerated(key, db) else {
                throw LedgerError(.alreadyExists, "the occurrence '\(key)' of recurring item '\(recurringId)' was generated already")
            }
            return try [occurrence] + ReferenceReconciliation.events(for: [.init(at: occurrence.effectiveAt, amount: amount, event: 0)], calendar: calendar, db)
        }
    }
}

/// Names recurring commands share.
enum RecurringRules {
    /// The idempotency key, and the transaction id, of an item's occurrence in a month.
    static func occurrenceKey(_ id: String, _ month: Month) -> String { "recurring:\(id):\(month)" }

    /// The month of item `id`'s occurrence whose key is `key`; nil when `key` is no occurrence of it.
    static func occurrenceMonth(_ key: String, of id: String) -> Month? {
        let prefix = "recurring:\(id):"
        guard key.hasPrefix(prefix), let month = try? Month(parsing: String(key.dropFirst(prefix.count))) else { return nil }
        return occurrenceKey(id, month) == key ? month : nil
    }

    /// Whether the occurrence with this key was generated: by its key, or by its transaction
    /// id (the same text), which the first occurrence of a command run under a caller's key
    /// keeps although its key is the caller's.
    static func isGenerated(_ key: String, _ db: Database) throws -> Bool {
        guard try IdempotencyProjector.range(of: key, db) == nil else { return true }
        return try TransactionVersionRecords.exists(key, db)
    }
}
