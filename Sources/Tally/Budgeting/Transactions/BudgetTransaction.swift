import GRDB

/// A budget transaction as it stands now: its current version.
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

    static func from(_ row: Row, calendar: LedgerCalendar) throws -> BudgetTransaction {
        BudgetTransaction(
            id: row["transaction_id"], payee: row["payee"],
            category: BudgetCategory(rawValue: row["category"]) ?? .general,
            amount: Money(minorUnits: row["amount"], commodity: try Commodity.named(row["commodity"])),
            date: calendar.date(of: Instant(microsecondsSinceEpoch: row["effective_at"])),
            recurring: row["recurring"], source: TransactionSource(rawValue: row["source"]) ?? .manual,
            bankId: row["bank_id"], externalId: row["external_id"], recurringId: row["recurring_id"],
            isChanged: (row["version_sequence"] as Int64) != (row["recorded_sequence"] as Int64)
        )
    }

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
    /// A budget transaction's current version, or nil if there is none or it was deleted.
    ///
    /// ```swift
    /// let rent = try ledger.transaction(id: "manual:12")
    /// ```
    public func transaction(id: String) throws -> BudgetTransaction? {
        try read { db in
            guard let found = try BudgetTransaction.fetch(id, calendar: calendar, db), !found.deleted else { return nil }
            return found.transaction
        }
    }

    /// Every version of a budget transaction, oldest first: the audit trail of amendments,
    /// re-categorisations and the deletion, each with the event that made it.
    ///
    /// ```swift
    /// for version in try ledger.transactionHistory(id: "manual:12") { print(version.sequence, version.kind, version.amount) }
    /// ```
    public func transactionHistory(id: String) throws -> [TransactionChange] {
        try read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM budget_transaction_history WHERE transaction_id = ? ORDER BY sequence"),
                arguments: [id]
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
