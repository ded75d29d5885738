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
            guard try AccountRecords.exists(account, db) else {
                throw LedgerError(.notFound, "no account '\(account)' has moved; `tally balances` lists the accounts")
            }
            let start = from.map { calendar.startOfDay($0).microsecondsSinceEpoch } ?? Int64.min
            let end = through.map { calendar.endOfDay($0).microsecondsSinceEpoch } ?? Int64.max
            let known = knownAt?.microsecondsSinceEpoch ?? Int64.max
            var running = try PostingRecords.openingBalances(of: account, before: start, recordedBound: known, db)
            var entries: [AuditEntry] = []
            try PostingRecords.forEach(of: account, effectiveFrom: start, through: end, recordedBound: known, db) { posting in
                let code = posting.amount.commodity.code
                let (balance, overflow) = (running[code] ?? 0).addingReportingOverflow(posting.amount.minorUnits)
                guard !overflow else { throw MoneyError.overflowing("the running balance of \(account)") }
                running[code] = balance
                let eventCode = posting.eventCode
                entries.append(AuditEntry(
                    sequence: posting.sequence, recordedAt: posting.recordedAt,
                    effectiveAt: posting.effectiveAt, effectiveDate: calendar.date(of: posting.effectiveAt),
                    eventType: catalog.type(code: eventCode)?.name ?? "code \(eventCode)",
                    cause: posting.cause, amount: posting.amount,
                    balance: Money(minorUnits: balance, commodity: posting.amount.commodity)))
            }
            return entries
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
