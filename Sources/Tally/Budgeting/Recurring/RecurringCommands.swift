import GRDB

// The rules of recurring items (DOMAIN.md §2): defined monthly by default; generating a
// month creates each item's occurrence once, keyed `recurring:<id>:<month>`, so asking
// twice for the same month generates nothing the second time.

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
    /// - Throws: ``LedgerError`` `alreadyExists` (an item with that id exists),
    ///   `invalidArgument` (empty payee, zero amount, day outside 1-31, end before start,
    ///   weekly), `currencyMismatch`.
    @discardableResult
    public func defineRecurring(
        id: String, payee: String, category: BudgetCategory, amount: Money, dayOfMonth: Int,
        startMonth: Month, endMonth: Month? = nil, frequency: RecurringFrequency = .monthly
    ) throws -> CommandResult {
        try perform { db in
            let id = try BudgetSettings.validIdentifier(id, "the recurring item id")
            let payee = try BudgetSettings.validName(payee, "the payee")
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
            return [NewEvent(effectiveAt: now, body: .recurringDefined(RecurringDefined(
                recurringId: id, payee: payee, category: category, amount: amount, frequency: frequency,
                dayOfMonth: dayOfMonth, startMonth: startMonth, endMonth: endMonth
            )))]
        }
    }

    /// Removes a recurring item. Occurrences already generated stay.
    ///
    /// ```swift
    /// try ledger.removeRecurring(id: "rent")
    /// ```
    ///
    /// - Throws: ``LedgerError`` `notFound`.
    @discardableResult
    public func removeRecurring(id: String) throws -> CommandResult {
        try perform { db in
            guard try RecurringItem.exists(id, db) else { throw LedgerError(.notFound, "there is no recurring item '\(id)'; list them with `tally recurring status`") }
            return [NewEvent(effectiveAt: now, body: .recurringRemoved(RecurringRemoved(recurringId: id)))]
        }
    }

    /// Generates the month's occurrence of every recurring item due in it, dated on its due
    /// day, each with the idempotency key `recurring:<id>:<month>`. Items already generated
    /// for the month are skipped: asking twice appends nothing the second time.
    ///
    /// ```swift
    /// let may = try ledger.generateRecurring(month: try Month(parsing: "2026-05"))
    /// print(may.events.count)   // 0 the second time
    /// ```
    @discardableResult
    public func generateRecurring(month: Month) throws -> CommandResult {
        try perform { db in
            try RecurringItem.all(db).filter { $0.isDue(in: month) }.compactMap { item in
                let key = RecurringRules.occurrenceKey(item.id, month)
                guard try IdempotencyProjector.range(of: key, db) == nil else { return nil }
                return NewEvent(
                    effectiveAt: calendar.startOfDay(item.dueDate(in: month)), idempotencyKey: key,
                    body: .recurringOccurrenceGenerated(RecurringOccurrenceGenerated(
                        recurringId: item.id, month: month, transactionId: key, payee: item.payee,
                        category: item.category, amount: item.amount
                    ))
                )
            }
        }
    }
}

/// Names recurring commands share.
enum RecurringRules {
    /// The idempotency key, and the transaction id, of an item's occurrence in a month.
    static func occurrenceKey(_ id: String, _ month: Month) -> String { "recurring:\(id):\(month)" }
}
