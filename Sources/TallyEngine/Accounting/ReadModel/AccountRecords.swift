public import GRDB

/// Typed lookups of the accounts the balances read model keeps, for commands' checks (a
/// command's plan reads state through these, never through SQL of its own).
///
/// ```swift
/// try ledger.perform(request: opened) { db in
///     guard try !AccountRecords.exists("Assets:Cash", db) else { throw LedgerError(.alreadyExists, "…") }
///     return [opened]
/// }
/// ```
public enum AccountRecords {
    /// Whether an account of this name was ever opened (closed ones included).
    public static func exists(_ name: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM accounts WHERE name = ?)"), arguments: [name]) ?? false
    }

    /// Whether the account was opened and not closed since; nil when it was never opened.
    public static func isOpen(_ name: String, _ db: Database) throws -> Bool? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT closed_sequence FROM accounts WHERE name = ?"), arguments: [name]) else {
            return nil
        }
        return (row[BalancesColumns.closedSequence] as Int64?) == nil
    }

    /// When the account was closed (the closing's effective time); nil when it is open or
    /// was never opened.
    public static func closedAt(_ name: String, _ db: Database) throws -> Instant? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT closed_at FROM accounts WHERE name = ? AND closed_sequence IS NOT NULL"),
                           arguments: [name]).map(Instant.init(microsecondsSinceEpoch:))
    }

    /// The first effective time after `instant` at which a posting moves the account, if any.
    public static func firstMove(of name: String, after instant: Instant, _ db: Database) throws -> Instant? {
        let after = instant.microsecondsSinceEpoch
        let firsts = try PostingDays.pairs(ofAccount: name, db).compactMap { pair, _ in
            try PostingDays.earliestEffective(ofPair: pair, fromDay: RollupBuckets.day(after), where: { $0.effectiveAt > after }, db)
        }
        let first = firsts.min()
        return first.map(Instant.init(microsecondsSinceEpoch:))
    }


    /// The name of every account that ever moved or was opened (closed ones included) whose
    /// name starts with `prefix`, sorted.
    public static func names(startingWith prefix: String, _ db: Database) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: "SELECT name FROM accounts ORDER BY name")).filter { $0.hasPrefix(prefix) }
    }
}

/// Typed lookups of the transaction versions the balances read model keeps
/// (``TransactionVersion``): every version of every transaction, in `transaction_versions`,
/// each with the recorded interval it was in force (`recorded_at` until `superseded_at`).
public enum TransactionVersionRecords {
    /// The `superseded_at` of a version still in force: later than any recorded time.
    public static let openEnd = Int64.max

    /// Whether a transaction of this id was ever recorded, deleted ones included: an id is
    /// never used twice.
    public static func exists(_ transactionId: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM transaction_versions WHERE transaction_id = ?)"),
                          arguments: [transactionId]) ?? false
    }

    /// The sequence number of the event that recorded the version in force of a transaction
    /// (nil when there is none, or it is deleted).
    public static func versionSequence(of transactionId: String, _ db: Database) throws -> UInt64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT sequence FROM transaction_versions WHERE transaction_id = ? AND superseded_sequence IS NULL AND deleted = 0"),
                           arguments: [transactionId]).map { UInt64($0) }
    }

    /// The version in force of a transaction as it stands: the event that made it, the
    /// account it moves, and whether it is a deletion; nil when no transaction has that id.
    public static func current(of transactionId: String, _ db: Database) throws -> (sequence: UInt64, account: String, deleted: Bool)? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT sequence, account, deleted FROM transaction_versions WHERE transaction_id = ? AND superseded_sequence IS NULL"),
            arguments: [transactionId]
        ).map { row in (row.sequence(BalancesColumns.sequence), row[BalancesColumns.account], row[BalancesColumns.deleted]) }
    }
}
