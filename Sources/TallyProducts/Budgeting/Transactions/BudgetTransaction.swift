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
    /// The bank it was imported from, for imported ones; nil for manual ones.
    public let bankId: String?
    /// The bank's transaction id, for imported ones.
    public let externalId: String?
    /// The category the bank sent, for imported ones: the category of its import
    /// (`transaction_recorded`), whatever the user re-categorised it to since (``category``
    /// is the user's); nil for the user's own transactions.
    public let bankCategory: BudgetCategory?
    /// The recurring item that generated it, if one did.
    public let recurringId: String?
    /// True once amended or re-categorised: the log holds earlier versions.
    public let isChanged: Bool

    /// Whether the user may amend or delete it: manual transactions only (docs/domain.md §2).
    public var isEditable: Bool { source == .manual }
}

/// One version of a transaction in the audit trail: what it said after one event.
public struct TransactionChange: Hashable, Sendable {
    /// What happened to the transaction.
    public enum Kind: String, Sendable {
        /// `recorded`: the first version (`transaction_recorded`); `generated`: the first
        /// version of a recurring item's occurrence (`recurring_occurrence_generated`);
        /// `amended`, `recategorised`, `deleted`: a later version made by
        /// `transaction_amended`, `transaction_recategorised` or `transaction_deleted`.
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
        let calendar = self.calendar
        return try read { db in try TransactionRecords.version(of: id, asOf: asOf, knownAt: knownAt, calendar: calendar, db) }
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
        let calendar = self.calendar
        return try read { db in try TransactionRecords.history(of: id, asOf: asOf, knownAt: knownAt, calendar: calendar, db) }
    }
}
