import GRDB

// The envelope product's answers, for any day: each reads the envelopes read model for
// events effective through that day and computes with ``EnvelopeBook``.

extension Ledger {
    /// The envelope book for events effective through the end of `date` (and recorded at
    /// or before `knownAt`).
    func envelopeBook(through date: LocalDate, knownAt: Instant?, _ db: Database) throws -> EnvelopeBook {
        try EnvelopeBook.load(db, effectiveThrough: calendar.endOfDay(date), knownAt: knownAt)
    }

    /// An envelope's budgeted, spent and remaining amounts in the interval containing `date`.
    ///
    /// ```swift
    /// let groceries = try ledger.envelopeStatus("groceries", on: try LocalDate(parsing: "2026-05-31"))
    /// print(groceries.remaining, groceries.isOverBudget)
    /// ```
    ///
    /// - Parameters:
    ///   - date: the day asked about (today by default).
    ///   - knownAt: what the ledger had recorded by then (everything by default).
    /// - Throws: ``LedgerError`` `notFound` when the envelope did not exist that day (not
    ///   created yet, deleted, or before its start date).
    public func envelopeStatus(_ envelopeId: String, on date: LocalDate? = nil, knownAt: Instant? = nil) throws -> EnvelopeStatus {
        let day = date ?? today
        return try read { db in
            guard let status = try envelopeBook(through: day, knownAt: knownAt, db).status(of: envelopeId, on: day, calendar: calendar) else {
                throw LedgerError(.notFound, "envelope '\(envelopeId)' did not exist on \(day) (not created, deleted, or not started yet)")
            }
            return status
        }
    }

    /// Every envelope that exists on `date`, by name, in its interval containing `date`.
    public func envelopeStatuses(on date: LocalDate? = nil, knownAt: Instant? = nil) throws -> [EnvelopeStatus] {
        let day = date ?? today
        return try read { db in try envelopeBook(through: day, knownAt: knownAt, db).statuses(on: day, calendar: calendar) }
    }

    /// What went through each envelope from `first` through `last`, both days included.
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` when `last` is before `first`.
    public func envelopeSpending(from first: LocalDate, through last: LocalDate, knownAt: Instant? = nil) throws -> [EnvelopeSpending] {
        guard first <= last else { throw LedgerError(.invalidArgument, "the period's last day (\(last)) is before its first (\(first))") }
        return try read { db in try envelopeBook(through: last, knownAt: knownAt, db).spending(from: first, through: last, calendar: calendar) }
    }

    /// The total balance across the user's accounts at the end of `date`, in the base
    /// currency then, each balance converted at the rate in force (``RateBook``).
    public func envelopeAccountsTotal(on date: LocalDate? = nil, knownAt: Instant? = nil) throws -> EnvelopeAccountsTotal {
        let day = date ?? today
        let bound = calendar.endOfDay(day)
        return try read { db in
            let book = try EnvelopeBook.load(db, effectiveThrough: bound, knownAt: knownAt)
            return try book.total(balances: try EnvelopeBook.accountBalances(db, effectiveThrough: bound, knownAt: knownAt), at: bound)
        }
    }
}

extension Ledger {
    /// The user accounts opened (kind asset or liability), by name.
    public func envelopeAccounts() throws -> [EnvelopeAccount] {
        try read { db in try EnvelopeBook.load(db, effectiveThrough: .latest).accounts.values.sorted { $0.account < $1.account } }
    }
}
