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
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM accounts WHERE name = ?)", arguments: [account]) == true else {
                throw LedgerError(.notFound, "no account '\(account)' has moved; `tally balances` lists the accounts")
            }
            let start = from.map { calendar.startOfDay($0).microsecondsSinceEpoch } ?? Int64.min
            let end = through.map { calendar.endOfDay($0).microsecondsSinceEpoch } ?? Int64.max
            let known = knownAt?.microsecondsSinceEpoch ?? Int64.max
            var running: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT commodity, SUM(amount) AS opening FROM postings
                WHERE account = ? AND effective_at < ? AND recorded_at <= ? GROUP BY commodity
                """, arguments: [account, start, known]) {
                running[row["commodity"]] = row["opening"]
            }
            var entries: [AuditEntry] = []
            let rows = try Row.fetchCursor(db, sql: """
                SELECT sequence, commodity, amount, effective_at, recorded_at, event_code, cause FROM postings
                WHERE account = ? AND effective_at >= ? AND effective_at <= ? AND recorded_at <= ?
                ORDER BY effective_at, sequence, leg
                """, arguments: [account, start, end, known])
            while let row = try rows.next() {
                let code: String = row["commodity"]
                let commodity = try Commodity.named(code)
                let amount: Int64 = row["amount"]
                let (balance, overflow) = (running[code] ?? 0).addingReportingOverflow(amount)
                guard !overflow else { throw MoneyError.overflowing("the running balance of \(account)") }
                running[code] = balance
                let effectiveAt = Instant(microsecondsSinceEpoch: row["effective_at"])
                let eventCode: Int64 = row["event_code"]
                entries.append(AuditEntry(
                    sequence: UInt64(row["sequence"] as Int64),
                    recordedAt: Instant(microsecondsSinceEpoch: row["recorded_at"]),
                    effectiveAt: effectiveAt, effectiveDate: calendar.date(of: effectiveAt),
                    eventType: catalog.type(code: UInt32(eventCode))?.name ?? "code \(eventCode)",
                    cause: (row["cause"] as Int64?).map(UInt64.init),
                    amount: Money(minorUnits: amount, commodity: commodity),
                    balance: Money(minorUnits: balance, commodity: commodity)))
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
