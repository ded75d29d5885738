public import TallyEngine
public import GRDB

/// The budget's transactions: the budget's details of every version of each
/// (`budget_transaction_history`: payee, category, amount, date, source, bank and recurring
/// ids, the change that made it, and for an imported one the category the bank sent, which
/// every later version keeps whatever the user's category becomes), and the bank connections.
///
/// Which version is in force, as known when, is kept once, by the engine
/// (`transaction_versions`, which the same events move): the view
/// `budget_transaction_versions` joins the two, so a version was in force from `recorded_at`
/// (inclusive) until `superseded_at` (exclusive; ``BudgetTime/openEnd`` while it still is),
/// "as known at K" reads `recorded_at <= K < superseded_at`, and `deleted` is a version made
/// by a deletion. Only transactions on the budget's current account are kept: a
/// `transaction_recorded` that names another account belongs to the envelope product. Dates
/// are kept as the effective instant; queries turn months and days into instants with the
/// ledger calendar.
public struct TransactionsProjector: Projector {
    /// The read model, as ``BudgetingFeature`` registers it; its tables are created by ``createTables(_:)``.
    public init() {}

    public let name = "budget_transactions"
    public let version = 6
    public let tables = ["budget_transaction_history", "budget_banks"]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [TransactionRecorded.self, RecurringOccurrenceGenerated.self, TransactionAmended.self, TransactionRecategorised.self, TransactionDeleted.self, BankConnected.self, BankConsentGranted.self, BankDisconnected.self]
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
                bank_category TEXT,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                effective_at INTEGER NOT NULL,
                recurring INTEGER NOT NULL,
                recorded_sequence INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                PRIMARY KEY (transaction_id, sequence)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX budget_transaction_history_by_date ON budget_transaction_history (effective_at, recorded_at);
            CREATE INDEX budget_transaction_history_by_category ON budget_transaction_history (category, effective_at);
            CREATE INDEX budget_transaction_history_by_recurring ON budget_transaction_history (recurring_id, recurring_month);
            DROP VIEW IF EXISTS budget_transaction_versions;
            CREATE VIEW budget_transaction_versions AS
                SELECT h.*, h.change = 'deleted' AS deleted, v.superseded_sequence AS superseded_sequence, v.superseded_at AS superseded_at
                FROM budget_transaction_history h
                JOIN transaction_versions v ON v.transaction_id = h.transaction_id AND v.sequence = h.sequence;
            CREATE TABLE budget_banks (
                bank_id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                connected INTEGER NOT NULL,
                consent_expires TEXT,
                changed_sequence INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        let sequence = event.rowSequence
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
                      amended.amount.minorUnits, event.rowEffectiveAt, amended.recurring], event, db)
        case let change as TransactionRecategorised:
            try newVersion(of: change.transactionId, change: "recategorised", setting: "category = ?", [change.category.rawValue], event, db)
        case let deleted as TransactionDeleted:
            try newVersion(of: deleted.transactionId, change: "deleted", setting: "", [], event, db)
        case let bank as BankConnected:
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO budget_banks (bank_id, name, connected, changed_sequence) VALUES (?, ?, 1, ?)")
                .execute(arguments: [bank.bankId, bank.name, sequence])
        case let bank as BankDisconnected:
            try db.cachedStatement(sql: "UPDATE budget_banks SET connected = 0, consent_expires = NULL, changed_sequence = ? WHERE bank_id = ?")
                .execute(arguments: [sequence, bank.bankId])
        case let consent as BankConsentGranted:
            try db.cachedStatement(sql: "UPDATE budget_banks SET consent_expires = ?, changed_sequence = ? WHERE bank_id = ?")
                .execute(arguments: [consent.expiresOn.description, sequence, consent.bankId])
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
        let sequence = event.rowSequence
        try db.cachedStatement(sql: """
            INSERT INTO budget_transaction_history
                (transaction_id, sequence, change, source, bank_id, external_id, recurring_id, recurring_month, payee,
                 payee_key, category, bank_category, commodity, amount, effective_at, recurring, recorded_sequence, recorded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(
            // What the bank sent is the imported transaction's first category, kept apart from the user's.
            arguments: [id, sequence, recurringId == nil ? "recorded" : "generated", source.rawValue, bankId, externalId,
                        recurringId, recurringMonth, payee, payee.lowercased(), category.rawValue,
                        source == .bank ? category.rawValue : nil, amount.commodity.code,
                        amount.minorUnits, event.rowEffectiveAt, recurring, sequence,
                        event.rowRecordedAt]
        )
    }

    /// Records the budget's latest version of a transaction not deleted, with `assignments`
    /// applied (an SQL `SET` list and its arguments), as its version made by `event`. Nothing
    /// happens when there is none (replay never validates: an amendment of a deleted
    /// transaction changes nothing). Which version is in force, as known when, is the
    /// engine's `transaction_versions` (joined in `budget_transaction_versions`), which the
    /// same event moved.
    private func newVersion(
        of id: String, change: String, setting assignments: String, _ arguments: StatementArguments, _ event: Event, _ db: Database
    ) throws {
        let sequence = event.rowSequence
        try db.cachedStatement(sql: """
                INSERT INTO budget_transaction_history
                    (transaction_id, sequence, change, source, bank_id, external_id, recurring_id, recurring_month, payee,
                     payee_key, category, bank_category, commodity, amount, effective_at, recurring, recorded_sequence, recorded_at)
                SELECT transaction_id, ?, ?, source, bank_id, external_id, recurring_id, recurring_month, payee,
                       payee_key, category, bank_category, commodity, amount, effective_at, recurring, recorded_sequence, ?
                FROM budget_transaction_history WHERE transaction_id = ? AND sequence < ? AND change != 'deleted'
                    AND sequence = (SELECT MAX(sequence) FROM budget_transaction_history WHERE transaction_id = ? AND sequence < ?)
                """).execute(arguments: [sequence, change, event.rowRecordedAt, id, sequence, id, sequence])
        guard db.changesCount > 0 else { return }
        guard !assignments.isEmpty else { return }
        try db.cachedStatement(sql: "UPDATE budget_transaction_history SET \(assignments) WHERE transaction_id = ? AND sequence = ?").execute(arguments: arguments + [id, sequence])
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum BudgetTransactionColumns {
    static let amount = Column("amount")
    static let bankCategory = Column("bank_category")
    static let bankId = Column("bank_id")
    static let category = Column("category")
    static let consentExpires = Column("consent_expires")
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
