import TallyEngine
import GRDB

extension BudgetTransaction {
    /// Reads a row of `budget_transaction_versions`: one version of a transaction.
    static func from(_ row: Row, calendar: LedgerCalendar) throws -> BudgetTransaction {
        let version: Int64 = row[BudgetTransactionColumns.sequence]
        return BudgetTransaction(
            id: row[BudgetTransactionColumns.transactionId], payee: row[BudgetTransactionColumns.payee],
            category: try TransactionRecords.category(row[BudgetTransactionColumns.category], of: row[BudgetTransactionColumns.transactionId]),
            amount: try row.money(BudgetTransactionColumns.amount, BudgetTransactionColumns.commodity),
            date: calendar.date(of: row.instant(BudgetTransactionColumns.effectiveAt)),
            recurring: row[BudgetTransactionColumns.recurring], source: try TransactionRecords.source(row[BudgetTransactionColumns.source], of: row[BudgetTransactionColumns.transactionId]),
            bankId: row[BudgetTransactionColumns.bankId], externalId: row[BudgetTransactionColumns.externalId],
            bankCategory: try (row[BudgetTransactionColumns.bankCategory] as String?).map { try TransactionRecords.category($0, of: row[BudgetTransactionColumns.transactionId]) },
            recurringId: row[BudgetTransactionColumns.recurringId],
            isChanged: version != (row[BudgetTransactionColumns.recordedSequence] as Int64)
        )
    }

    /// The SQL filter on `budget_transaction_versions` of the versions in force as known at
    /// an instant, deleted ones excluded: bind ``BudgetTime/versionArguments(knownAt:)``.
    static let visible = "deleted = 0 AND " + BudgetTime.versionInForce

    /// The transaction with this id in its version in force now, deleted or not, as
    /// `(transaction, deleted)`.
    static func fetch(_ id: String, calendar: LedgerCalendar, _ db: Database) throws -> (transaction: BudgetTransaction, deleted: Bool)? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM budget_transaction_versions WHERE transaction_id = ? AND superseded_at = ?"),
            arguments: [id, BudgetTime.openEnd]
        ) else { return nil }
        return (try from(row, calendar: calendar), row[BudgetTransactionColumns.deleted])
    }
}

/// The statements of the budget's transactions read model (`budget_transaction_versions`:
/// every version of each transaction, bitemporally; the version in force is the one not
/// superseded).
enum TransactionRecords {
    /// A stored category name as the budget's category.
    ///
    /// - Throws: ``LedgerError`` (`inconsistentLog`) for a name no event writes.
    static func category(_ name: String, of transactionId: String) throws -> BudgetCategory {
        guard let category = BudgetCategory(rawValue: name) else {
            throw LedgerError(.inconsistentLog, "transaction '\(transactionId)' has the category '\(name)', which is no budget category; run tally rebuild")
        }
        return category
    }

    /// A stored source name as a transaction source.
    ///
    /// - Throws: ``LedgerError`` (`inconsistentLog`) for a name no event writes.
    static func source(_ name: String, of transactionId: String) throws -> TransactionSource {
        guard let source = TransactionSource(rawValue: name) else {
            throw LedgerError(.inconsistentLog, "transaction '\(transactionId)' has the source '\(name)', which is no transaction source; run tally rebuild")
        }
        return source
    }

    /// The version in force of a transaction (nil when none or deleted), as known at `knownAt`,
    /// when dated by `asOf` (``Ledger/transaction(id:asOf:knownAt:)``).
    static func version(of id: String, asOf: Instant?, knownAt: Instant?, calendar: LedgerCalendar, _ db: Database) throws -> BudgetTransaction? {
        try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT * FROM budget_transaction_versions
                WHERE transaction_id = ? AND \(BudgetTransaction.visible) AND effective_at <= ?
                """),
            arguments: [id] + BudgetTime.versionArguments(knownAt: knownAt) + [BudgetTime.effectiveBound(asOf)]
        ).map { try BudgetTransaction.from($0, calendar: calendar) }
    }

    /// Every version of a transaction, oldest first (``Ledger/transactionHistory(id:asOf:knownAt:)``).
    static func history(of id: String, asOf: Instant?, knownAt: Instant?, calendar: LedgerCalendar, _ db: Database) throws -> [TransactionChange] {
        try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT * FROM budget_transaction_versions
                WHERE transaction_id = ? AND recorded_at <= ? AND effective_at <= ? ORDER BY sequence
                """),
            arguments: [id, BudgetTime.knownBound(knownAt), BudgetTime.effectiveBound(asOf)]
        ).map { row in
            let changeName: String = row[BudgetTransactionColumns.change]
            guard let kind = TransactionChange.Kind(rawValue: changeName) else {
                throw LedgerError(.inconsistentLog, "transaction '\(id)' has a change of kind '\(changeName)', which no event makes; run tally rebuild")
            }
            return TransactionChange(
                sequence: row.sequence(BudgetTransactionColumns.sequence), kind: kind,
                payee: row[BudgetTransactionColumns.payee], category: try category(row[BudgetTransactionColumns.category], of: id),
                amount: try row.money(BudgetTransactionColumns.amount, BudgetTransactionColumns.commodity),
                date: calendar.date(of: row.instant(BudgetTransactionColumns.effectiveAt)),
                recordedAt: row.instant(BudgetTransactionColumns.recordedAt)
            )
        }
    }

    /// The earliest effective time of a visible transaction as known at `knownAt`.
    static func firstEffectiveAt(knownAt: Instant?, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MIN(effective_at) FROM budget_transaction_versions WHERE \(BudgetTransaction.visible)"),
                           arguments: BudgetTime.versionArguments(knownAt: knownAt))
    }

    /// The expenses in `currency` effective from `start` through `end`, per category (as
    /// positive minor units), as known at `knownAt`, by category.
    static func spendingByCategory(
        from start: Instant, through end: Instant, in currency: Commodity, knownAt: Instant?, _ db: Database
    ) throws -> [(category: BudgetCategory, spent: Int64)] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT category, SUM(-amount) AS spent FROM budget_transaction_versions
            WHERE effective_at >= ? AND effective_at <= ? AND amount < 0 AND commodity = ? AND \(BudgetTransaction.visible)
            GROUP BY category ORDER BY category
            """), arguments: [start.microsecondsSinceEpoch, end.microsecondsSinceEpoch, currency.code] + BudgetTime.versionArguments(knownAt: knownAt)
        ).map { row in (try category(row[BudgetTransactionColumns.category], of: "in the \(row[BudgetTransactionColumns.category] as String) spending"), row[BudgetTransactionColumns.spent]) }
    }

    /// One transaction not generated by a recurring item, as a proposal reads it.
    struct Occurrence {
        let payee: String
        /// The payee, lower-cased: occurrences of one payee share it.
        let payeeKey: String
        let category: BudgetCategory
        let amount: Money
        let effectiveAt: Instant
    }

    /// The visible transactions dated by `through` that no recurring item generated, as known
    /// at `knownAt`, by payee then date.
    static func unscheduled(through: Instant, knownAt: Instant?, _ db: Database) throws -> [Occurrence] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT transaction_id, payee, payee_key, category, commodity, amount, effective_at FROM budget_transaction_versions
            WHERE effective_at <= ? AND recurring_id IS NULL AND \(BudgetTransaction.visible)
            ORDER BY payee_key, effective_at, recorded_sequence
            """), arguments: [through.microsecondsSinceEpoch] + BudgetTime.versionArguments(knownAt: knownAt)
        ).map { row in
            Occurrence(payee: row[BudgetTransactionColumns.payee], payeeKey: row[BudgetTransactionColumns.payeeKey], category: try category(row[BudgetTransactionColumns.category], of: row[BudgetTransactionColumns.transactionId]),
                       amount: try row.money(BudgetTransactionColumns.amount, BudgetTransactionColumns.commodity),
                       effectiveAt: row.instant(BudgetTransactionColumns.effectiveAt))
        }
    }
}
