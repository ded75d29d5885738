public import TallyEngine
import GRDB

// The envelope product's answers, for any day: each reads the envelopes read model for
// events effective through that day and computes with ``EnvelopeBook``. Statuses resume
// from the latest snapshot that holds the state as known then (``EnvelopeSnapshots``), so
// they read the money of at most one snapshot interval and the envelopes' settings, never
// the whole history; spending reads its period; totals read the balances' roll-ups and
// the latest rate of each pair.

extension Ledger {
    /// Every envelope's status on `date` as known at `knownAt`: the fold resumed from the
    /// latest snapshot that fits, or from the beginning.
    func envelopeStatuses(on date: LocalDate, knownAt: Instant?, _ db: Database) throws -> [EnvelopeStatus] {
        let bound = calendar.endOfDay(date)
        if let snapshot = try EnvelopeSnapshots.latest(through: date, knownAt: knownAt, calendar: calendar, db) {
            do {
                let book = try EnvelopeBook.load(db, effectiveThrough: bound, knownAt: knownAt, after: snapshot.effectiveThrough)
                return try book.statuses(on: date, resuming: snapshot, calendar: calendar)
            } catch is EnvelopeSnapshotMismatch {
                // Fold from the beginning below.
            }
        }
        return try EnvelopeBook.load(db, effectiveThrough: bound, knownAt: knownAt).statuses(on: date, calendar: calendar)
    }

    /// An envelope's budgeted, spent and remaining amounts in the interval containing the day
    /// of `asOf`.
    ///
    /// ```swift
    /// let groceries = try ledger.envelopeStatus("groceries", asOf: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-05-31")))
    /// print(groceries.remaining, groceries.isOverBudget)
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the moment asked about (now by default): its day in the ledger's time zone.
    ///   - knownAt: what the ledger had recorded by then (everything by default).
    /// - Throws: ``LedgerError`` `notFound` when the envelope did not exist that day (not
    ///   created yet, deleted, or before its start date).
    public func envelopeStatus(_ envelopeId: String, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> EnvelopeStatus {
        let day = calendar.date(of: asOf ?? now)
        return try read { db in
            guard let status = try envelopeStatuses(on: day, knownAt: knownAt, db).first(where: { $0.envelopeId == envelopeId }) else {
                throw LedgerError(.notFound, "envelope '\(envelopeId)' did not exist on \(day) (not created, deleted, or not started yet)")
            }
            return status
        }
    }

    /// Every envelope that exists on the day of `asOf` (today by default), by name, in its
    /// interval containing that day.
    ///
    /// ```swift
    /// for status in try ledger.envelopeStatuses() where status.isOverBudget { print(status.name, status.remaining) }
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the moment asked about (now by default): its day in the ledger's time zone.
    ///   - knownAt: what the ledger had recorded by then (everything by default).
    public func envelopeStatuses(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [EnvelopeStatus] {
        let day = calendar.date(of: asOf ?? now)
        return try read { db in try envelopeStatuses(on: day, knownAt: knownAt, db) }
    }

    /// What went through each envelope from `first` through `last`, both days included.
    ///
    /// ```swift
    /// let may = try ledger.envelopeSpending(from: try LocalDate(parsing: "2026-05-01"), through: try LocalDate(parsing: "2026-05-31"))
    /// for envelope in may { print(envelope.name, envelope.spent) }
    /// ```
    ///
    /// - Parameters:
    ///   - first: the period's first day, in the ledger's time zone.
    ///   - last: the period's last day.
    ///   - knownAt: what the ledger had recorded by then (everything by default).
    /// - Throws: ``LedgerError`` `invalidArgument` when `last` is before `first`.
    public func envelopeSpending(from first: LocalDate, through last: LocalDate, knownAt: Instant? = nil) throws -> [EnvelopeSpending] {
        guard first <= last else { throw LedgerError(.invalidArgument, "the period's last day (\(last)) is before its first (\(first))") }
        return try read { db in
            let before = Instant(microsecondsSinceEpoch: calendar.startOfDay(first).microsecondsSinceEpoch - 1)
            return try EnvelopeBook.load(db, effectiveThrough: calendar.endOfDay(last), knownAt: knownAt, after: before)
                .spending(from: first, through: last, calendar: calendar)
        }
    }

    /// The total balance across the user's accounts at the end of the day of `asOf`, in the base
    /// currency then, each balance converted at the rate in force (``RateBook``).
    ///
    /// ```swift
    /// let total = try ledger.envelopeAccountsTotal()
    /// print(total.total, total.unconverted.count)   // lines without a rate are left out of the total
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the moment asked about (now by default): balances at the end of its day.
    ///   - knownAt: what the ledger had recorded by then (everything by default).
    public func envelopeAccountsTotal(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> EnvelopeAccountsTotal {
        let day = calendar.date(of: asOf ?? now)
        let bound = calendar.endOfDay(day)
        return try read { db in
            let book = try EnvelopeBook.load(db, effectiveThrough: bound, knownAt: knownAt, after: bound)
            return try book.total(balances: try EnvelopeBook.accountBalances(db, effectiveThrough: bound, knownAt: knownAt), at: bound)
        }
    }
}

extension Ledger {
    /// The currency an envelope's amounts (budget, fundings, status) are in: the base
    /// currency in force on its first day. It stays the envelope's after a change of base
    /// currency; answers in another currency convert its amounts by the one rule.
    ///
    /// ```swift
    /// let currency = try ledger.envelopeCurrency("groceries")   // USD, created before the switch to EUR
    /// ```
    /// - Throws: ``LedgerError`` `notFound` for an envelope that does not exist or was deleted.
    public func envelopeCurrency(_ envelopeId: String) throws -> Commodity {
        try read { db in try EnvelopeRules.liveEnvelope(envelopeId, db).commodity }
    }

    /// The user accounts opened (kind asset or liability), by name.
    ///
    /// ```swift
    /// for account in try ledger.envelopeAccounts() { print(account.account, account.commodity) }
    /// ```
    public func envelopeAccounts() throws -> [EnvelopeAccount] {
        try read { db in try EnvelopeBook.load(db, effectiveThrough: .latest, after: .latest).accounts.values.sorted { $0.account < $1.account } }
    }
}

extension Ledger {
    /// Every change to what an envelope has left, with the event that made it and the
    /// running balance (`remaining` of ``EnvelopeStatus``), in effective-time order: each
    /// interval's budget as it opens (from the `envelope_created` or `envelope_budget_changed`
    /// in force on its last day), fundings, transactions and transfers (an amended
    /// transaction shows its original, the reversal and the new version; a deletion its
    /// reversal), and what each interval's rollover policy did with its remainder
    /// (`envelope_rollover_set`, or `envelope_created` for the default). Amounts are in the
    /// envelope's currency; a transaction with no known rate is left out, as from `spent`.
    ///
    /// ```swift
    /// let changes = try ledger.envelopeAudit("groceries", through: try LocalDate(parsing: "2026-05-31"))
    /// changes.last?.balance == try ledger.envelopeStatus("groceries", asOf: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-05-31"))).remaining   // true
    /// ```
    ///
    /// - Parameters:
    ///   - from: list changes from this day on (earlier ones make up the opening balance).
    ///   - through: the last day (today by default); a deleted envelope stops the day before
    ///     its deletion.
    ///   - knownAt: as the ledger knew it at this instant.
    /// - Throws: ``LedgerError`` `notFound` when no such envelope existed by `through`.
    public func envelopeAudit(_ envelopeId: String, from: LocalDate? = nil, through: LocalDate? = nil, knownAt: Instant? = nil) throws -> [AuditEntry] {
        let last = through ?? today
        return try read { db in
            let book = try EnvelopeBook.load(db, effectiveThrough: calendar.endOfDay(last), knownAt: knownAt)
            guard let envelope = book.envelopes[envelopeId] else {
                throw LedgerError(.notFound, "no envelope '\(envelopeId)' by \(last); `tally envelope list` lists them")
            }
            let end = envelope.deletedAt.map { min(last, calendar.date(of: $0).adding(days: -1)) } ?? last
            var entries: [AuditEntry] = []
            _ = try book.fold(of: envelope, through: end, resuming: nil, calendar: calendar) { entries.append($0) }
            return entries.filter { entry in from.map { entry.effectiveDate >= $0 } ?? true }
        }
    }

    /// One page of ``envelopeAudit(_:from:through:knownAt:)``: the first `limit` changes after
    /// `position` (from the first when nil), with their running balances, and where the next
    /// page starts. A page costs what it returns, not the envelope's history: the fold
    /// resumes from the latest snapshot before the page (``EnvelopeSnapshots``, its running
    /// balance what the envelope had left then), reads money only through a window past the
    /// page (doubled until the page is full), and stops once it is.
    ///
    /// ```swift
    /// var page = try ledger.envelopeAuditPage("groceries", limit: 50)
    /// while let next = page.next { page = try ledger.envelopeAuditPage("groceries", after: next, limit: 50) }
    /// ```
    ///
    /// - Throws: as ``envelopeAudit(_:from:through:knownAt:)``; (`invalidArgument`) for a limit below 1.
    public func envelopeAuditPage(
        _ envelopeId: String, from: LocalDate? = nil, through: LocalDate? = nil, knownAt: Instant? = nil,
        after position: AuditPosition? = nil, limit: Int
    ) throws -> AuditPage {
        guard limit >= 1 else { throw LedgerError(.invalidArgument, "an audit page holds at least 1 change, not \(limit)") }
        let last = through ?? today
        let calendar = self.calendar
        /// Stops the fold: the page is full, or the fold passed the money read.
        struct Stop: Error {}
        return try read { db in
            // The page's first day: the snapshot of the day before it is resumed.
            let firstDay = [position.map { calendar.date(of: Instant(microsecondsSinceEpoch: $0.effectiveAt)) }, from].compactMap { $0 }.max()
            var snapshot = try firstDay.flatMap { day in
                try EnvelopeSnapshots.latest(through: min(day.adding(days: -1), last), knownAt: knownAt, calendar: calendar, db)
            }
            guard let start = try EnvelopeBook.earliestStart(of: envelopeId, db) else {
                throw LedgerError(.notFound, "no envelope '\(envelopeId)' by \(last); `tally envelope list` lists them")
            }
            var windowDays = 62
            while true {
                let base = max(snapshot?.day ?? start, firstDay ?? start)
                let windowEnd = min(last, base.adding(days: windowDays))
                let book = try EnvelopeBook.load(db, effectiveThrough: calendar.endOfDay(windowEnd), knownAt: knownAt,
                                                 after: snapshot?.effectiveThrough, envelopesThrough: calendar.endOfDay(last))
                guard let envelope = book.envelopes[envelopeId] else {
                    throw LedgerError(.notFound, "no envelope '\(envelopeId)' by \(last); `tally envelope list` lists them")
                }
                let end = envelope.deletedAt.map { min(last, calendar.date(of: $0).adding(days: -1)) } ?? last
                // Each change with its ordinal among the changes of its event at its time.
                var entries: [(entry: AuditEntry, ordinal: Int64)] = []
                var previous: (Int64, UInt64)?
                var ordinal: Int64 = 0
                var started = position == nil
                do {
                    let resume = try snapshot?.progress(of: envelope)
                    _ = try book.fold(of: envelope, through: end, resuming: resume, calendar: calendar) { entry in
                        // Money after the window is not read: a change past it waits for a wider one.
                        if windowEnd < end, entry.effectiveDate > windowEnd { throw Stop() }
                        let place = (entry.effectiveAt.microsecondsSinceEpoch, entry.sequence)
                        ordinal = previous.map { $0 == place } == true ? ordinal + 1 : 0
                        previous = place
                        if let from, entry.effectiveDate < from { return }
                        // The page starts right after the change the position names, in fold order.
                        guard started else {
                            if let position { started = place.0 == position.effectiveAt && place.1 == position.sequence && ordinal == position.ordinal }
                            return
                        }
                        entries.append((entry, ordinal))
                        if entries.count > limit { throw Stop() }
                    }
                } catch is Stop {
                } catch is EnvelopeSnapshotMismatch {
                    // Never seen; fold from the envelope's start instead.
                    snapshot = nil
                    continue
                }
                if entries.count > limit || windowEnd >= end {
                    let page = entries.prefix(limit)
                    let next = entries.count > limit ? page.last.map { last in
                        AuditPosition(effectiveAt: last.entry.effectiveAt.microsecondsSinceEpoch, sequence: last.entry.sequence, ordinal: last.ordinal)
                    } : nil
                    return AuditPage(entries: page.map(\.entry), next: next)
                }
                windowDays *= 2
            }
        }
    }
}
