public import GRDB

/// The double-entry read model: accounts, every posting (indexed for point-in-time sums),
/// balances per account and commodity, bitemporal roll-up cells for point-in-time sums
/// (the `balance_rollup_*` tables), and the version of each budget transaction in force.
public struct BalancesProjector: Projector {
    public init() {}

    public let name = "balances"
    public let version = 3
    public let tables = ["accounts", "postings", "balances", "transaction_versions"] + BalanceRollups.tables

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE accounts (
                name TEXT PRIMARY KEY NOT NULL,
                kind TEXT NOT NULL,
                opened_sequence INTEGER NOT NULL,
                closed_sequence INTEGER
            ) STRICT;
            CREATE TABLE postings (
                sequence INTEGER NOT NULL,
                leg INTEGER NOT NULL,
                account TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                event_code INTEGER NOT NULL,
                cause INTEGER,
                PRIMARY KEY (sequence, leg)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX postings_by_account ON postings (account, commodity, effective_at);
            CREATE TABLE balances (
                account TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                PRIMARY KEY (account, commodity)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE transaction_versions (
                transaction_id TEXT PRIMARY KEY NOT NULL,
                sequence INTEGER NOT NULL,
                account TEXT NOT NULL,
                category TEXT NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                effective_at INTEGER NOT NULL,
                source TEXT NOT NULL,
                deleted INTEGER NOT NULL DEFAULT 0
            ) STRICT, WITHOUT ROWID;
            """)
        try BalanceRollups.createTables(db)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        try apply([event][...], db)
    }

    /// Folds a run of events with prepared statements kept for the run, accounts opened
    /// once, and balance changes summed in memory and written once per account and commodity
    /// (before any posting rule reads a balance, so rules see every earlier event).
    public func apply(_ events: ArraySlice<Event>, _ db: Database) throws {
        let fold = try BalancesFold(db)
        for event in events {
            try fold.apply(event)
            try recordTransactionVersion(event, db)
        }
        try fold.flushBalances()
        try fold.flushRollups()
    }

    /// `apply` never reads postings by account or by effective time: a rebuild builds those
    /// indexes once at the end.
    public var indexesDeferredOnRebuild: [String] { ["postings_by_account", "postings_by_effective"] }

    private func recordTransactionVersion(_ event: Event, _ db: Database) throws {
        func upsert(_ version: TransactionVersion) throws {
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO transaction_versions
                        (transaction_id, sequence, account, category, commodity, amount, effective_at, source, deleted)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)
                    """,
                arguments: [version.transactionId, Int64(event.sequence), version.account, version.category.rawValue,
                            version.amount.commodity.code, version.amount.minorUnits,
                            version.effectiveAt.microsecondsSinceEpoch, version.source.rawValue]
            )
        }
        switch try PostingRules.versionChange(for: event, context: DatabasePostingContext(db: db)) {
        case .set(let version)?:
            try upsert(version)
        case .delete(let transactionId)?:
            try db.execute(sql: "UPDATE transaction_versions SET deleted = 1 WHERE transaction_id = ?", arguments: [transactionId])
        case nil:
            break
        }
    }
}

/// The state of one run of ``BalancesProjector`` folding: its prepared statements, the
/// accounts it has opened, and balance changes not yet written.
final class BalancesFold {
    private struct BalanceKey: Hashable {
        let account: String
        let commodity: String
    }

    let db: Database
    private let insertPosting: RawStatement
    private let upsertBalance: Statement
    private let insertAccount: Statement
    private var knownAccounts: Set<String> = []
    private var pending: [BalanceKey: Int64] = [:]
    private var rollups: BalanceRollups

    init(_ db: Database) throws {
        self.db = db
        rollups = try BalanceRollups(db)
        insertPosting = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO postings (sequence, leg, account, commodity, amount, effective_at, recorded_at, event_code, cause)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """))
        upsertBalance = try db.cachedStatement(sql: """
            INSERT INTO balances (account, commodity, amount) VALUES (?, ?, ?)
            ON CONFLICT (account, commodity) DO UPDATE SET amount = amount + excluded.amount
            """)
        insertAccount = try db.cachedStatement(sql: "INSERT INTO accounts (name, kind, opened_sequence) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING")
    }

    func apply(_ event: Event) throws {
        let postings = try PostingRules.postings(for: event, context: BufferedPostingContext(fold: self))
        let sequence = Int64(event.sequence)
        let recordedAt = event.recordedAt.microsecondsSinceEpoch
        try rollups.note(sequence: sequence, recordedAt: recordedAt)
        for (leg, posting) in postings.enumerated() {
            let account = posting.account
            let commodity = posting.amount.commodity.code
            let amount = posting.amount.minorUnits
            if knownAccounts.insert(account).inserted {
                insertAccount.setUncheckedArguments([account, (LedgerAccounts.kind(of: account) ?? .asset).rawValue, sequence])
                try insertAccount.execute()
            }
            insertPosting.bind(1, sequence)
            insertPosting.bind(2, Int64(leg))
            insertPosting.bind(3, account)
            insertPosting.bind(4, commodity)
            insertPosting.bind(5, amount)
            let effectiveAt = posting.effectiveAt.microsecondsSinceEpoch
            insertPosting.bind(6, effectiveAt)
            insertPosting.bind(7, recordedAt)
            insertPosting.bind(8, Int64(event.type.code))
            insertPosting.bind(9, event.cause.map(Int64.init))
            try insertPosting.step(db)
            try add(amount, to: BalanceKey(account: account, commodity: commodity))
            try rollups.add(amount, account: account, commodity: commodity, effectiveAt: effectiveAt, recordedAt: recordedAt)
        }
        switch event.body {
        case .accountOpened(let opened):
            knownAccounts.insert(opened.account)
            try db.execute(
                sql: "INSERT INTO accounts (name, kind, opened_sequence) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET kind = excluded.kind",
                arguments: [opened.account, opened.kind.rawValue, sequence]
            )
        case .accountClosed(let closed):
            try db.execute(sql: "UPDATE accounts SET closed_sequence = ? WHERE name = ?", arguments: [sequence, closed.account])
        default:
            break
        }
    }

    private func add(_ amount: Int64, to key: BalanceKey) throws {
        let current = pending[key] ?? 0
        let (sum, overflow) = current.addingReportingOverflow(amount)
        if overflow {
            // Let SQLite see the two amounts separately, exactly as the one-by-one fold does.
            try write(current, to: key)
            pending[key] = amount
        } else {
            pending[key] = sum
        }
    }

    private func write(_ amount: Int64, to key: BalanceKey) throws {
        upsertBalance.setUncheckedArguments([key.account, key.commodity, amount])
        try upsertBalance.execute()
    }

    /// Writes the summed roll-up cells (at the end of a run: no rule reads them).
    func flushRollups() throws {
        try rollups.flush()
    }

    /// Writes the summed balance changes.
    func flushBalances() throws {
        for (key, amount) in pending { try write(amount, to: key) }
        pending.removeAll(keepingCapacity: true)
    }
}

/// Posting lookups during a run: balances are read after the run's pending changes are
/// written, so a rule sees every earlier event.
struct BufferedPostingContext: PostingContext {
    let fold: BalancesFold

    func currentVersion(of transactionId: String) throws -> TransactionVersion? {
        try DatabasePostingContext(db: fold.db).currentVersion(of: transactionId)
    }

    func balance(of account: String, in commodity: Commodity) throws -> Int64 {
        try fold.flushBalances()
        return try DatabasePostingContext(db: fold.db).balance(of: account, in: commodity)
    }

    func balances(withPrefix prefix: String) throws -> [(account: String, amount: Money)] {
        try fold.flushBalances()
        return try DatabasePostingContext(db: fold.db).balances(withPrefix: prefix)
    }
}

/// Posting lookups answered from the balances read model, as of the events folded so far.
struct DatabasePostingContext: PostingContext {
    let db: Database

    func currentVersion(of transactionId: String) throws -> TransactionVersion? {
        guard let row = try Row.fetchOne(
            db, sql: "SELECT * FROM transaction_versions WHERE transaction_id = ? AND deleted = 0", arguments: [transactionId]
        ) else { return nil }
        return TransactionVersion(
            transactionId: row["transaction_id"], account: row["account"],
            category: BudgetCategory(rawValue: row["category"]) ?? .general,
            amount: Money(minorUnits: row["amount"], commodity: try Commodity.named(row["commodity"])),
            effectiveAt: Instant(microsecondsSinceEpoch: row["effective_at"]),
            source: TransactionSource(rawValue: row["source"]) ?? .manual
        )
    }

    func balance(of account: String, in commodity: Commodity) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT amount FROM balances WHERE account = ? AND commodity = ?", arguments: [account, commodity.code]) ?? 0
    }

    func balances(withPrefix prefix: String) throws -> [(account: String, amount: Money)] {
        try Row.fetchAll(
            db, sql: "SELECT account, commodity, amount FROM balances WHERE account >= ? AND account < ? ORDER BY account, commodity",
            arguments: [prefix, prefix + "\u{10FFFF}"]
        ).map { row in
            (row["account"], Money(minorUnits: row["amount"], commodity: try Commodity.named(row["commodity"])))
        }
    }
}
