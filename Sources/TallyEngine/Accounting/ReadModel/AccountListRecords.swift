import GRDB

/// One row of the balances read model's `accounts` table: an account as it was opened and
/// (perhaps) closed, by the sequence numbers of those events.
struct AccountRecord: Hashable, Sendable {
    /// The account's name.
    let name: String
    /// Its kind.
    let kind: AccountKind
    /// The event that opened it: an `account_opened`, or the first posting that moved it.
    let openedSequence: UInt64
    /// The `account_closed` that closed it, when it is closed.
    let closedSequence: UInt64?
}

/// The lookups behind ``Ledger/accountList(asOf:knownAt:)``: every account the balances read
/// model keeps, and the first effective time a posting moved one as known at an instant.
enum AccountListRecords {
    /// The columns these lookups read, beside ``BalancesColumns``.
    private enum Columns {
        static let name = Column("name")
        static let openedSequence = Column("opened_sequence")
        static let first = Column("first")
    }

    /// Every account ever opened or moved, closed ones included, by name.
    ///
    /// - Throws: ``LedgerError`` (`inconsistentLog`) for a stored kind no case has.
    static func all(_ db: Database) throws -> [AccountRecord] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT name, kind, opened_sequence, closed_sequence FROM accounts ORDER BY name")).map { row in
            AccountRecord(name: row[Columns.name], kind: try row.kind(BalancesColumns.kind), openedSequence: row.sequence(Columns.openedSequence),
                          closedSequence: row.optionalSequence(BalancesColumns.closedSequence))
        }
    }

    /// The earliest effective time of a posting to `account` recorded by `recordedBound`
    /// (microseconds; `Int64.max` for all), nil when none is.
    static func firstPosting(of account: String, recordedBound: Int64, _ db: Database) throws -> Instant? {
        let below = try PostingDays.sequenceBound(recordedThrough: recordedBound, db)
        let firsts = try PostingDays.pairs(ofAccount: account, db).compactMap { pair, _ in
            try PostingDays.earliestEffective(ofPair: pair, fromDay: Int64.min, where: { $0.sequence < below }, db)
        }
        let first = firsts.min()
        return first.map(Instant.init(microsecondsSinceEpoch:))
    }
}
