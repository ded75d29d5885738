public import TallyEngine
import GRDB

/// A budget transaction in one version: as it stands now, or as the ledger knew it at an
/// instant.
public struct BudgetTransaction: Hashable, Sendable {
    /// `manual:<sequence>` or the caller's id for manual ones, `bank:<bank>:<external id>`
    /// for imported ones, `recurring:<id>:<month>` for generated occurrences.
    public let id: String
    /// Who was paid, or who paid.
    public let payee: String
    /// The category, after any re-categorisation.
    public let category: BudgetCategory
    /// Signed: positive income, negative expense.
    public let amount: Money
    /// The day it happened, in the ledger's time zone.
    public let date: LocalDate
    /// Whether the user marked it recurring (generated occurrences always are).
    public let recurring: Bool
    /// Typed by the user (`manual`, also generated occurrences) or imported (`bank`).
    public let source: TransactionSource
    /// The bank and its transaction id, for imported ones.
    public let bankId: String?
    /// The bank's transaction id, for imported ones.
    public let externalId: String?
    /// The recurring item that generated it, if one did.
    public let recurringId: String?
    /// True once amended or re-categorised: the log holds earlier versions.
    public let isChanged: Bool

    /// Whether the user may amend or delete it: manual transactions only (DOMAIN.md §2).
    public var isEditable: Bool { source == .manual }

    /// Reads a row of `budget_transactions` (latest versions) or of
    /// `budget_transaction_history` (every version).
    static func from(_ row: Row, calendar: LedgerCalendar) throws -> BudgetTransaction {
        let version: Int64 = row.hasColumn("version_sequence") ? row["version_sequence"] : row["sequence"]
        return BudgetTransaction(
            id: row["transaction_id"], payee: row["payee"],
            category: BudgetCategory(rawValue: row["category"]) ?? .general,
            amount: Money(minorUnits: row["amount"], commodity: try Commodity.named(row["commodity"])),
            date: calendar.date(of: Instant(microsecondsSinceEpoch: row["effective_at"])),
            recurring: row["recurring"], source: TransactionSource(rawValue: row["source"]) ?? .manual,
            bankId: row["bank_id"], externalId: row["external_id"], recurringId: row["recurring_id"],
            isChanged: version != (row["recorded_sequence"] as Int64)
        )
    }

    /// The SQL filter on `budget_transaction_history` of the versions in force as known at
    /// an instant, deleted ones excluded: bind ``BudgetTime/versionArguments(knownAt:)``.
    static let visible = "deleted = 0 AND " + BudgetTime.versionInForce

    /// The transaction with this id, deleted or not, as `(transaction, deleted)`.
    static func fetch(_ id: String, calendar: LedgerCalendar, _ db: Database) throws -> (transaction: BudgetTransaction, deleted: Bool)? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM budget_transactions WHERE transaction_id = ?"), arguments: [id]
        ) else { return nil }
        return (try from(row, calendar: calendar), row["deleted"])
    }
}

/// One version of a transaction in the audit trail: what it said after one event.
public struct TransactionChange: Hashable, Sendable {
    /// What happened to the transaction.
    public enum Kind: String, Sendable {
        case recorded, generated, amended, recategorised, deleted
    }

    /// The event that made this version.
    public let sequence: UInt64
    /// What the event did.
    public let kind: Kind
    /// Who was paid, or who paid.
    public let payee: String
    /// The category, after any re-categorisation.
    public let category: BudgetCategory
    /// The signed amount of this version.
    public let amount: Money
    /// The day of this version, in the ledger's time zone.
    public let date: LocalDate
    /// When the ledger learned it.
    public let recordedAt: Instant
}

extension Ledger {
    /// A budget transaction's version, or nil if there is none or it was deleted: now, or
    /// as the ledger knew it at `knownAt`; with `asOf`, nil when that version is dated later.
    ///
    /// ```swift
    /// let rent = try ledger.transaction(id: "manual:12")
    /// let before = try ledger.transaction(id: "manual:12", knownAt: try Instant(parsing: "2026-04-04T23:59:59Z"))
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: only a version effective at or before this instant.
    ///   - knownAt: the version the ledger held at this instant; nil for the current one.
    public func transaction(id: String, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> BudgetTransaction? {
        try read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: """
                    SELECT * FROM budget_transaction_history
                    WHERE transaction_id = ? AND \(BudgetTransaction.visible) AND effective_at <= ?
                    """),
                arguments: [id] + BudgetTime.versionArguments(knownAt: knownAt) + [BudgetTime.effectiveBound(asOf)]
            ).map { try BudgetTransaction.from($0, calendar: calendar) }
        }
    }

    /// Every version of a budget transaction, oldest first: the audit trail of amendments,
    /// re-categorisations and the deletion, each with the event that made it.
    ///
    /// ```swift
    /// for version in try ledger.transactionHistory(id: "manual:12") { print(version.sequence, version.kind, version.amount) }
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: only versions effective at or before this instant (a deletion is dated by
    ///     the version it deletes).
    ///   - knownAt: only versions recorded at or before this instant.
    public func transactionHistory(id: String, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [TransactionChange] {
        try read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT * FROM budget_transaction_history
                    WHERE transaction_id = ? AND recorded_at <= ? AND effective_at <= ? ORDER BY sequence
                    """),
                arguments: [id, BudgetTime.knownBound(knownAt), BudgetTime.effectiveBound(asOf)]
            ).map { row in
                TransactionChange(
                    sequence: UInt64(row["sequence"] as Int64),
                    kind: TransactionChange.Kind(rawValue: row["change"]) ?? .recorded,
                    payee: row["payee"], category: BudgetCategory(rawValue: row["category"]) ?? .general,
                    amount: Money(minorUnits: row["amount"], commodity: try Commodity.named(row["commodity"])),
                    date: calendar.date(of: Instant(microsecondsSinceEpoch: row["effective_at"])),
                    recordedAt: Instant(microsecondsSinceEpoch: row["recorded_at"])
                )
            }
        }
    }
}
