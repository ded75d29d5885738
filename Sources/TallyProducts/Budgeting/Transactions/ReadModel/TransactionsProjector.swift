public import TallyEngine
public import GRDB

/// The budget's transactions as they stand now (current version, deleted flag, for the
/// commands' checks), every version of each with the recorded interval it was in force
/// (for the audit and every read "as known at"), and the bank connections.
///
/// A version in `budget_transaction_history` was in force, as the ledger knew it, from
/// `recorded_at` (inclusive) until `superseded_at` (exclusive; ``BudgetTime/openEnd`` while
/// it still is): "as known at K" reads the versions with `recorded_at <= K < superseded_at`,
/// indexed rows only. Only transactions on the budget's current account are kept: a `transaction_recorded`
/// that names another account belongs to the envelope product. Dates are kept as the
/// effective instant; queries turn months and days into instants with the ledger calendar.
public struct TransactionsProjector: Projector {
    /// The read model, as ``BudgetingFeature`` registers it; its tables are created by ``createTables(_:)``.
    public init() {}

    public let name = "budget_transactions"
    public let version = 2
    public let tables = ["budget_transactions", "budget_transaction_history", "budget_banks"]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [TransactionRecorded.self, RecurringOccurrenceGenerated.self, TransactionAmended.self, TransactionRecategorised.self, TransactionDeleted.self, BankConnected.self, BankDisconnected.self]
    }

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE budget_transactions (
                transaction_id TEXT PRIMARY KEY NOT NULL,
                source TEXT NOT NULL,
                bank_id TEXT,
                external_id TEXT,
                recurring_id TEXT,
                recurring_month INTEGER,
                payee TEXT NOT NULL,
                payee_key TEXT NOT NULL,
                category TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                effective_at INTEGER NOT NULL,
                recurring INTEGER NOT NULL,
                recorded_sequence INTEGER NOT NULL,
                version_sequence INTEGER NOT NULL,
                deleted INTEGER NOT NULL DEFAULT 0
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE budget_transaction_history (
                transaction_id TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                change TEXT NOT NULL,
                source TEXT NOT NULL,
                bank_id TEXT,
                external_id TEXT,
                recurring_id TEXT,
                recurring_month INTEGER,
                payee TEXT NOT NULL,
                payee_key TEXT NOT NULL,
                category TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                effective_at INTEGER NOT NULL,
                recurring INTEGER NOT NULL,
                recorded_sequence INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                superseded_sequence INTEGER,
                superseded_at INTEGER NOT NULL,
                deleted INTEGER NOT NULL,
                PRIMARY KEY (transaction_id, sequence)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX budget_transaction_history_by_date ON budget_transaction_history (effective_at, recorded_at);
            CREATE INDEX budget_transaction_history_by_category ON budget_transaction_history (category, effective_at);
            CREATE INDEX budget_transaction_history_by_recurring ON budget_transaction_history (recurring_id, recurring_month);
            CREATE TABLE budget_banks (
                bank_id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                connected INTEGER NOT NULL,
                changed_sequence INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        let sequence = Int64(event.sequence)
        switch event.body.payload {
        case let transaction as TransactionRecorded:
            guard transaction.account == nil || transaction.account == LedgerAccounts.current else { return }
            try insert(
                id: transaction.transactionId, source: transaction.source, bankId: transaction.bankId,
                externalId: transaction.externalId, recurringId: nil, recurringMonth: nil, payee: transaction.payee,
                category: transaction.category, amount: transaction.amount, recurring: transaction.recurring, event, db
            )
        case let occurrence as RecurringOccurrenceGenerated:
            try insert(
                id: occurrence.transactionId, source: .manual, bankId: nil, externalId: nil,
                recurringId: occurrence.recurringId, recurringMonth: occurrence.month.ordinal, payee: occurrence.payee,
                category: occurrence.category, amount: occurrence.amount, recurring: true, event, db
            )
        case let amended as TransactionAmended:
            try db.execute(
                sql: """
                    UPDATE budget_transactions SET payee = ?, payee_key = ?, category = ?, commodity = ?, amount = ?,
                        effective_at = ?, recurring = ?, version_sequence = ?
                    WHERE transaction_id = ? AND deleted = 0
                    """,
                arguments: [amended.payee, amended.payee.lowercased(), amended.category.rawValue, amended.amount.commodity.code,
                            amended.amount.minorUnits, event.effectiveAt.microsecondsSinceEpoch, amended.recurring, sequence,
                            amended.transactionId]
            )
            try recordHistory(amended.transactionId, change: "amended", event, db)
        case let change as TransactionRecategorised:
            try db.execute(
                sql: "UPDATE budget_transactions SET category = ?, version_sequence = ? WHERE transaction_id = ? AND deleted = 0",
                arguments: [change.category.rawValue, sequence, change.transactionId]
            )
            try recordHistory(change.transactionId, change: "recategorised", event, db)
        case let deleted as TransactionDeleted:
            try db.execute(
                sql: "UPDATE budget_transactions SET deleted = 1, version_sequence = ? WHERE transaction_id = ? AND deleted = 0",
                arguments: [sequence, deleted.transactionId]
            )
            try recordHistory(deleted.transactionId, change: "deleted", event, db)
        case let bank as BankConnected:
            try db.execute(
                sql: "INSERT OR REPLACE INTO budget_banks (bank_id, name, connected, changed_sequence) VALUES (?, ?, 1, ?)",
                arguments: [bank.bankId, bank.name, sequence]
            )
        case let bank as BankDisconnected:
            try db.execute(
                sql: "UPDATE budget_banks SET connected = 0, changed_sequence = ? WHERE bank_id = ?",
                arguments: [sequence, bank.bankId]
            )
        default:
            break
        }
    }

    private func insert(
        id: String, source: TransactionSource, bankId: String?, externalId: String?, recurringId: String?,
        recurringMonth: Int?, payee: String, category: BudgetCategory, amount: Money, recurring: Bool,
        _ event: Event, _ db: Database
    ) throws {
        let sequence = Int64(event.sequence)
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO budget_transactions
                    (transaction_id, source, bank_id, external_id, recurring_id, recurring_month, payee, payee_key, category,
                     commodity, amount, effective_at, recurring, recorded_sequence, version_sequence, deleted)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
                """,
            arguments: [id, source.rawValue, bankId, externalId, recurringId, recurringMonth, payee, payee.lowercased(),
                        category.rawValue, amount.commodity.code, amount.minorUnits, event.effectiveAt.microsecondsSinceEpoch,
                        recurring, sequence, sequence]
        )
        try recordHistory(id, change: recurringId == nil ? "recorded" : "generated", event, db)
    }

    /// Copies the transaction's row as it now stands into the history as the version in
    /// force, and closes the version it replaces. Nothing happens when the event changed no
    /// row (replay never validates: an amendment of a deleted transaction changes nothing).
    private func recordHistory(_ id: String, change: String, _ event: Event, _ db: Database) throws {
        let sequence = Int64(event.sequence)
        let recordedAt = event.recordedAt.microsecondsSinceEpoch
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO budget_transaction_history
                    (transaction_id, sequence, change, source, bank_id, external_id, recurring_id, recurring_month, payee,
                     payee_key, category, commodity, amount, effective_at, recurring, recorded_sequence, recorded_at,
                     superseded_sequence, superseded_at, deleted)
                SELECT transaction_id, ?, ?, source, bank_id, external_id, recurring_id, recurring_month, payee,
                       payee_key, category, commodity, amount, effective_at, recurring, recorded_sequence, ?,
                       NULL, ?, deleted
                FROM budget_transactions WHERE transaction_id = ? AND version_sequence = ?
                """,
            arguments: [sequence, change, recordedAt, BudgetTime.openEnd, id, sequence]
        )
        guard db.changesCount > 0 else { return }
        try db.execute(
            sql: """
                UPDATE budget_transaction_history SET superseded_sequence = ?, superseded_at = ?
                WHERE transaction_id = ? AND superseded_at = ? AND sequence < ?
                """,
            arguments: [sequence, recordedAt, id, BudgetTime.openEnd, sequence]
        )
    }
}
