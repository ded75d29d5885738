import GRDB

/// One change to an account: the event that caused it, its times, the amount and the
/// balance after it (per commodity, in effective-time order).
public struct AuditEntry: Hashable, Sendable {
    /// The sequence number of the event that made the change.
    public let sequence: UInt64
    /// When the ledger recorded that event.
    public let recordedAt: Instant
    /// When the change takes effect: the event's effective time, or for the reversal of an
    /// amended transaction, the effective time of the version it reverses.
    public let effectiveAt: Instant
    /// The day of `effectiveAt` in the ledger's time zone.
    public let effectiveDate: LocalDate
    /// The type of the event that made the change.
    public let eventType: String
    /// The event that caused the causing event (a split names its deposit), if any.
    public let cause: UInt64?
    /// The signed change: positive into the account, negative out of it.
    public let amount: Money
    /// The balance in `amount`'s commodity after this change.
    public let balance: Money

    /// Creates an entry; ``Ledger/audit(account:from:through:knownAt:)`` makes them.
    public init(
        sequence: UInt64, recordedAt: Instant, effectiveAt: Instant, effectiveDate: LocalDate, eventType: String,
        cause: UInt64?, amount: Money, balance: Money
    ) {
        self.sequence = sequence
        self.recordedAt = recordedAt
        self.effectiveAt = effectiveAt
        self.effectiveDate = effectiveDate
        self.eventType = eventType
        self.cause = cause
        self.amount = amount
        self.balance = balance
    }
}

extension Ledger {
    /// Every change to an account with the event that caused it and the running balance,
    /// ordered by effective time (then log order): why the balance is what it is.
    ///
    /// An amended transaction shows both versions: the original, its reversal at the
    /// original date, and the new version. Pots are the accounts `Budget:Pots:<id>`.
    ///
    /// - Parameters:
    ///   - account: the account's name, e.g. `Assets:Bank` or `Budget:Pots:holiday`.
    ///   - from: list changes effective from the start of this day (earlier ones make up
    ///     the opening balance).
    ///   - through: list changes effective until the end of this day.
    ///   - knownAt: as the ledger knew it at this instant.
    /// - Throws: ``LedgerError`` (`notFound`) for an account that never moved.
    public func audit(account: String, from: LocalDate? = nil, through: LocalDate? = nil, knownAt: Instant? = nil) throws -> [AuditEntry] {
        let calendar = self.calendar
        return try read { db in
            let (start, end, known) = try auditBounds(account, from: from, through: through, knownAt: knownAt, calendar, db)
            var running = try PostingRecords.openingBalances(of: account, before: start, recordedBound: known, db)
            var entries: [AuditEntry] = []
            try PostingRecords.forEach(of: account, effectiveFrom: start, through: end, recordedBound: known, db) { posting in
                entries.append(try auditEntry(posting, of: account, running: &running, calendar))
            }
            return entries
        }
    }

    /// What an audit of `account` reads, in microseconds: effective from the start of `from`'s
    /// day through the end of `through`'s, recorded by `knownAt` (unbounded where nil); refused
    /// (`notFound`) for an account that never moved.
    private func auditBounds(
        _ account: String, from: LocalDate?, through: LocalDate?, knownAt: Instant?, _ calendar: LedgerCalendar, _ db: Database
    ) throws -> (start: Int64, end: Int64, known: Int64) {
        guard try AccountRecords.exists(account, db) else {
            throw LedgerError(.notFound, "no account '\(account)' has moved; `tally balances` lists the accounts")
        }
        return (from.map { calendar.startOfDay($0).microsecondsSinceEpoch } ?? Int64.min,
                through.map { calendar.endOfDay($0).microsecondsSinceEpoch } ?? Int64.max,
                knownAt?.microsecondsSinceEpoch ?? Int64.max)
    }

    /// One leg of an audit as an entry: the running balance in its commodity moved by it
    /// (`running` holds one per commodity code), and its event type named from the catalog.
    private func auditEntry(_ posting: PostingRecords.Leg, of account: String, running: inout [String: Int64], _ calendar: LedgerCalendar) throws -> AuditEntry {
        let code = posting.amount.commodity.code
        let (balance, overflow) = (running[code] ?? 0).addingReportingOverflow(posting.amount.minorUnits)
        guard !overflow else { throw MoneyError.overflowing("the running balance of \(account)") }
        running[code] = balance
        let eventCode = posting.eventCode
        return AuditEntry(
            sequence: posting.sequence, recordedAt: posting.recordedAt,
            effectiveAt: posting.effectiveAt, effectiveDate: calendar.date(of: posting.effectiveAt),
            eventType: catalog.type(code: eventCode)?.name ?? "code \(eventCode)",
            cause: posting.cause, amount: posting.amount,
            balance: Money(minorUnits: balance, commodity: posting.amount.commodity))
    }
}

/// Where a page of an audit ended: the next page starts after this change. Its text form
/// (`description`, read back by ``init(_:)``) goes into a client's cursor.
public struct AuditPosition: Hashable, Sendable, LosslessStringConvertible {
    /// The change's effective time, in microseconds since the epoch.
    public let effectiveAt: Int64
    /// The sequence number of the event that made it.
    public let sequence: UInt64
    /// Which of that event's changes at that time it is (0, 1, …).
    public let ordinal: Int64

    /// A position from its parts.
    public init(effectiveAt: Int64, sequence: UInt64, ordinal: Int64) {
        self.effectiveAt = effectiveAt
        self.sequence = sequence
        self.ordinal = ordinal
    }

    /// `effective.sequence.ordinal`, e.g. `1767600000000000.42.1`.
    public var description: String { "\(effectiveAt).\(sequence).\(ordinal)" }

    /// Reads ``description``; nil for any other text.
    public init?(_ description: String) {
        let parts = description.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let effectiveAt = Int64(parts[0]), let sequence = UInt64(parts[1]), let ordinal = Int64(parts[2]), ordinal >= 0 else {
            return nil
        }
        self.init(effectiveAt: effectiveAt, sequence: sequence, ordinal: ordinal)
    }
}

/// One page of an audit and where the next starts.
public struct AuditPage: Hashable, Sendable {
    /// The changes, in audit order, each with its running balance.
    public let entries: [AuditEntry]
    /// After which change the next page starts; nil when this page is the last.
    public let next: AuditPosition?

    /// A page; ``Ledger/auditPage(account:from:through:knownAt:after:limit:)`` makes them.
    public init(entries: [AuditEntry], next: AuditPosition?) {
        self.entries = entries
        self.next = next
    }

    /// A page of an audit computed whole (`entries` in audit order): the entries after
    /// `position`, at most `limit`. For the audits of items with a history of their own
    /// (an envelope, an asset's value), where the whole is the item's, not the ledger's.
    public init(slicing entries: [AuditEntry], after position: AuditPosition?, limit: Int) {
        var start = 0
        if let position {
            // The n-th entry of an event at a time is (time, sequence, n): skip through it.
            var ordinal: Int64 = 0
            var previous: (Int64, UInt64)?
            start = entries.count
            for (index, entry) in entries.enumerated() {
                let place = (entry.effectiveAt.microsecondsSinceEpoch, entry.sequence)
                ordinal = previous.map { $0 == place } == true ? ordinal + 1 : 0
                previous = place
                if (place.0, place.1, ordinal) > (position.effectiveAt, position.sequence, position.ordinal) {
                    start = index
                    break
                }
            }
        }
        let end = min(entries.count, start + max(limit, 0))
        let page = Array(entries[start..<end])
        var next: AuditPosition?
        if end < entries.count, let last = page.last {
            var ordinal: Int64 = 0
            var index = end - 2
            while index >= 0, entries[index].effectiveAt == last.effectiveAt, entries[index].sequence == last.sequence {
                ordinal += 1
                index -= 1
            }
            next = AuditPosition(effectiveAt: last.effectiveAt.microsecondsSinceEpoch, sequence: last.sequence, ordinal: ordinal)
        }
        self.init(entries: page, next: next)
    }
}

extension Ledger {
    /// One page of ``audit(account:from:through:knownAt:)``: the first `limit` changes after
    /// `position` (from the first when nil), with their running balances, and where the next
    /// page starts. A page costs what it returns: the balance before it is read from the
    /// balance rollups (log n), its changes from the days it spans, never the account's
    /// whole history.
    ///
    /// ```swift
    /// var page = try ledger.auditPage(account: "Assets:Bank", limit: 50)
    /// while let next = page.next { page = try ledger.auditPage(account: "Assets:Bank", after: next, limit: 50) }
    /// ```
    ///
    /// - Parameters:
    ///   - account: the account's name (a pot is `Budget:Pots:<id>`).
    ///   - from: changes effective from the start of this day (earlier ones make up the opening balance).
    ///   - through: changes effective until the end of this day.
    ///   - knownAt: as the ledger knew it at this instant (give the same on every page).
    ///   - position: the previous page's ``AuditPage/next``.
    ///   - limit: at most this many changes (at least 1).
    /// - Throws: ``LedgerError`` (`notFound`) for an account that never moved, (`invalidArgument`)
    ///   for a limit below 1.
    public func auditPage(
        account: String, from: LocalDate? = nil, through: LocalDate? = nil, knownAt: Instant? = nil,
        after position: AuditPosition? = nil, limit: Int
    ) throws -> AuditPage {
        guard limit >= 1 else { throw LedgerError(.invalidArgument, "an audit page holds at least 1 change, not \(limit)") }
        let calendar = self.calendar
        return try read { db in
            let (start, end, known) = try auditBounds(account, from: from, through: through, knownAt: knownAt, calendar, db)
            let key = position.map { (effectiveAt: $0.effectiveAt, sequence: Int64(clamping: $0.sequence), leg: $0.ordinal) }
            var running = try key.map { try PostingRecords.balances(of: account, through: $0, recordedBound: known, db) }
                ?? PostingRecords.openingBalances(of: account, before: start, recordedBound: known, db)
            let (legs, more) = try PostingRecords.page(of: account, after: key, effectiveFrom: start, through: end, recordedBound: known, limit: limit, db)
            var entries: [AuditEntry] = []
            entries.reserveCapacity(legs.count)
            for (posting, _) in legs {
                entries.append(try auditEntry(posting, of: account, running: &running, calendar))
            }
            let next = more ? legs.last.map { AuditPosition(effectiveAt: $0.key.effectiveAt, sequence: UInt64($0.key.sequence), ordinal: $0.key.leg) } : nil
            return AuditPage(entries: entries, next: next)
        }
    }
}

/// The audit's CSV form, a contract other tools rely on.
public enum AuditCSV {
    /// Exactly this header, then one row per change.
    public static let header = "seq,recorded_at,effective_date,event,amount,currency,balance"

    /// The header and every entry, RFC 4180, amounts as plain decimals at their scale.
    public static func render(_ entries: [AuditEntry]) -> String {
        var text = header + "\n"
        for entry in entries {
            text += CSVWriter.line([
                String(entry.sequence), entry.recordedAt.description, entry.effectiveDate.description, entry.eventType,
                entry.amount.decimalString, entry.amount.commodity.code, entry.balance.decimalString,
            ]) + "\n"
        }
        return text
    }
}
