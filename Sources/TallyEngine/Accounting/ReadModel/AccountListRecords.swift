import GRDB

/// One row of the balances read model's `accounts` table: an account as it was opened and
/// (perhaps) closed, by the sequence numbers of those events.
struct AccountRecord: Hashable, Sendable {
    /// The account's name.
    let name: String
    /// Its kind as the read model keeps it (``AccountKind``'s raw value).
    let kindName: String
    /// The event that opened it: an `account_opened`, or the first posting that moved it.
    let openedSequence: UInt64
    /// The `account_closed` that closed it, when it is closed.
    let closedSequence: UInt64?
}

/// The lookups behind ``Ledger/accountList(asOf:knownAt:)``: every account the balances read
/// model keeps, and the first effective time a posting moved one as known at an instant.
enum AccountListRecords {
    /// Every account ever opened or moved, closed ones included, by name.
    static func all(_ db: Database) throws -> [AccountRecord] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT name, kind, opened_sequence, closed_sequence FROM accounts ORDER BY name")).map { row in
            let opened: Int64 = row[2]
            let closed: Int64? = row[3]
            return AccountRecord(name: row[0], kindName: row[1], openedSequence: UInt64(opened), closedSequence: closed.map { UInt64($0) })
        }
    }

    /// The earliest effective time of a posting to `account` recorded by `recordedBound`
    /// (microseconds; `Int64.max` for all), nil when none is.
    static func firstPosting(of account: String, recordedBound: Int64, _ db: Database) throws -> Instant? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MIN(effective_at) FROM postings WHERE account = ? AND recorded_at <= ?"),
                           arguments: [account, recordedBound]).map(Instant.init(microsecondsSinceEpoch:))
    }
}
