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
    public let version = 3
    public let tables = ["budget_transaction_history", "budget_banks"]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [TransactionRecorded.self, RecurringOccurrenceGenerated.self, TransactionAmended.self, TransactionRecategorised.self, TransactionDeleted.self, BankConnected.self, BankDisconnected.self]
    }

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
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
            try newVersion(of: amended.transactionId, change: "amended", setting: """
                payee = ?, payee_key = ?, category = ?, commodity = ?, amount = ?, effective_at = ?, recurring = ?
                """, [amended.payee, amended.payee.lowercased(), amended.category.rawValue, amended.amount.commodity.code,
                      amended.amount.minorUnits, event.effectiveAt.microsecondsSinceEpoch, amended.recurring], event, db)
        case let change as TransactionRecategorised:
            try newVersion(of: change.transactionId, change: "recategorised", setting: "category = ?", [change.category.rawValue], event, db)
        case let deleted as TransactionDeleted:
            try newVersion(of: deleted.transactionId, change: "deleted", setting: "deleted = 1", [], event, db)
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
            throw eventNotFolded(event)
        }
    }

    /// Records a new transaction (or a recorded id recorded again: replay never validates)
    /// as the version in force, closing any version it replaces.
    private func insert(
        id: String, source: TransactionSource, bankId: String?, externalId: String?, recurringId: String?,
        recurringMonth: Int?, payee: String, category: BudgetCategory, amount: Money, recurring: Bool,
        _ event: Event, _ db: Database
    ) throws {
        let sequence = Int64(event.sequence)
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO budget_transaction_history
                    (transaction_id, sequence, change, source, bank_id, external_id, recurring_id, recurring_month, payee,
                     payee_key, category, commodity, amount, effective_at, recurring, recorded_sequence, recorded_at,
                     superseded_sequence, superseded_at, deleted)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, 0)
                """,
            arguments: [id, sequence, recurringId == nil ? "recorded" : "generated", source.rawValue, bankId, externalId,
                        recurringId, recurringMonth, payee, payee.lowercased(), category.rawValue, amount.commodity.code,
                        amount.minorUnits, event.effectiveAt.microsecondsSinceEpoch, recurring, sequence,
                        event.recordedAt.microsecondsSinceEpoch, BudgetTime.openEnd]
        )
        try closeEarlierVersions(of: id, event, db)
    }

    /// Records the version in force of a transaction not deleted, with `assignments` applied
    /// (an SQL `SET` list and its arguments), as the new version in force, and closes the one
    /// it replaces. Nothing happens when there is none (replay never validates: an amendment
    /// of a deleted transaction changes nothing).
    private func newVersion(
        of id: String, change: String, setting assignments: String, _ arguments: StatementArguments, _ event: Event, _ db: Database
    ) throws {
        let sequence = Int64(event.sequence)
        try db.execute(
            sql: """
                INSERT INTO budget_transaction_history
                    (transaction_id, sequence, change, source, bank_id, external_id, recurring_id, recurring_month, payee,
                     payee_key, category, commodity, amount, effective_at, recurring, recorded_sequence, recorded_at,
                     superseded_sequence, superseded_at, deleted)
                SELECT transaction_id, ?, ?, source, bank_id, external_id, recurring_id, recurring_month, payee,
                       payee_key, category, commodity, amount, effective_at, recurring, recorded_sequence, ?,
                       NULL, ?, deleted
                FROM budget_transaction_history WHERE transaction_id = ? AND superseded_at = ? AND deleted = 0
                """,
            arguments: [sequence, change, event.recordedAt.microsecondsSinceEpoch, BudgetTime.openEnd, id, BudgetTime.openEnd]
        )
        guard db.changesCount > 0 else { return }
        try db.execute(sql: "UPDATE budget_transaction_history SET \(assignments) WHERE transaction_id = ? AND sequence = ?",
                       arguments: arguments + [id, sequence])
        try closeEarlierVersions(of: id, event, db)
    }

    /// Closes the versions of `id` in force before `event`: superseded as of its recorded time.
    private func closeEarlierVersions(of id: String, _ event: Event, _ db: Database) throws {
        let sequence = Int64(event.sequence)
        try db.execute(
            sql: """
                UPDATE budget_transaction_history SET superseded_sequence = ?, superseded_at = ?
                WHERE transaction_id = ? AND superseded_at = ? AND sequence < ?
                """,
            arguments: [sequence, event.recordedAt.microsecondsSinceEpoch, id, BudgetTime.openEnd, sequence]
        )
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum BudgetTransactionColumns {
    static let amount = Column("amount")
    static let bankId = Column("bank_id")
    static let category = Column("category")
    static let change = Column("change")
    static let commodity = Column("commodity")
    static let connected = Column("connected")
    static let deleted = Column("deleted")
    static let effectiveAt = Column("effective_at")
    static let externalId = Column("external_id")
    static let name = Column("name")
    static let payee = Column("payee")
    static let payeeKey = Column("payee_key")
    static let recordedAt = Column("recorded_at")
    static let recordedSequence = Column("recorded_sequence")
    static let recurring = Column("recurring")
    static let recurringId = Column("recurring_id")
    static let sequence = Column("sequence")
    static let source = Column("source")
    static let spent = Column("spent")
    static let transactionId = Column("transaction_id")
}
