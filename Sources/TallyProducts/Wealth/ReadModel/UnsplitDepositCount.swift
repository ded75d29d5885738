import TallyEngine
import GRDB

// How many of a wealth account's deposits wait to be split at a point in time, as the ledger
// knew it then, for what the summary's status says ("allocating" while any waits).
//
// A deposit d waits at (asOf, knownAt) when it is effective by asOf and recorded by knownAt,
// and no split caused by it and no reversal of it is. Counting that over every deposit costs
// what the history holds, and the usual question is near now: the service answers every
// command with the account as known when the command was recorded. So the count starts from
// the deposits waiting now (`wealth_unsplit_deposits`, kept by the fold) and corrects it by the
// history rows outside the question, the "tail": rows effective after asOf (an index range of
// the account) and rows recorded after knownAt (the history's last rows, since recorded times
// never decrease in log order). With D the deposits waiting now and T the tail:
//
//   waiting at (asOf, knownAt) = |D| − |D ∩ T| + |{d ∉ T : every split of d and reversal of d is in T}|
//
// A deposit outside T is effective and known in time; one waiting now has no split or
// reversal at all, so it still waits; one split or reversed now waits then exactly when each
// of those is in T. A deposit in T is not yet there. Reading T costs its length (bounded by
// `tailLimit`); a question far in the past, with a longer tail, counts by the scan.

extension WealthQueries {
    /// The most tail rows read before the count falls back to the scan.
    static let unsplitTailLimit = 512

    /// The number of `account`'s deposits waiting to be split at `asOf`, as known at `knownAt`.
    static func unsplitDepositCount(
        _ account: String, asOf: Instant, knownAt: Instant, tailLimit: Int = unsplitTailLimit, _ db: Database
    ) throws -> Int {
        guard let tail = try UnsplitTail.read(account, asOf: asOf, knownAt: knownAt, limit: tailLimit, db) else {
            return try scannedUnsplitDepositCount(account, asOf: asOf, knownAt: knownAt, db)
        }
        let waitingNow = RawStatement(try db.cachedStatement(sql: "SELECT 1 FROM wealth_unsplit_deposits WHERE account = ? AND sequence = ?"))
        func waitsNow(_ sequence: Int64) throws -> Bool {
            waitingNow.bind(1, account)
            waitingNow.bind(2, sequence)
            var found = false
            try waitingNow.forEachRow(db) { _ in found = true }
            return found
        }
        var count = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT COUNT(*) FROM wealth_unsplit_deposits WHERE account = ?"), arguments: [account]
        ) ?? 0
        for deposit in tail.deposits where try waitsNow(deposit) { count -= 1 }
        for deposit in tail.resolvedDeposits where !tail.contains(deposit) {
            if try isDeposit(deposit, of: account, db), try resolutions(of: deposit, db).allSatisfy(tail.contains) { count += 1 }
        }
        return count
    }

    /// The count over every deposit of the account: the definition, and the answer when the
    /// tail is long. Also the oracle of the tests.
    static func scannedUnsplitDepositCount(_ account: String, asOf: Instant, knownAt: Instant, _ db: Database) throws -> Int {
        let effective = asOf.microsecondsSinceEpoch
        let recorded = knownAt.microsecondsSinceEpoch
        return try Int.fetchOne(
            db.cachedStatement(sql: """
                SELECT COUNT(*) FROM wealth_history d
                WHERE d.account = ? AND d.kind = 'deposit' AND d.effective_at <= ? AND d.recorded_at <= ?
                  AND NOT EXISTS (SELECT 1 FROM wealth_history s
                                  WHERE s.cause = d.sequence AND s.kind = 'split' AND s.effective_at <= ? AND s.recorded_at <= ?)
                  AND NOT EXISTS (SELECT 1 FROM wealth_history r
                                  WHERE r.reverses = d.sequence AND r.effective_at <= ? AND r.recorded_at <= ?)
                """),
            arguments: [account, effective, recorded, effective, recorded, effective, recorded]
        ) ?? 0
    }

    private static func isDeposit(_ sequence: Int64, of account: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM wealth_history WHERE sequence = ? AND account = ? AND kind = 'deposit'"),
            arguments: [sequence, account]
        ) != nil
    }

    /// The rows that split or reverse the deposit at `sequence`, by the two indexes.
    private static func resolutions(of sequence: Int64, _ db: Database) throws -> [Int64] {
        try Int64.fetchAll(
            db.cachedStatement(sql: """
                SELECT sequence FROM wealth_history WHERE cause = ?1 AND kind = 'split'
                UNION ALL SELECT sequence FROM wealth_history WHERE reverses = ?1
                """),
            arguments: [sequence]
        )
    }
}

/// The account's history rows outside a question (asOf, knownAt): effective after asOf or
/// recorded after knownAt.
struct UnsplitTail {
    private(set) var sequences: Set<Int64> = []
    /// The tail's deposits.
    private(set) var deposits: [Int64] = []
    /// The deposits the tail's splits and reversals name.
    private(set) var resolvedDeposits: Set<Int64> = []

    func contains(_ sequence: Int64) -> Bool { sequences.contains(sequence) }

    /// The tail, or nil when it holds more than `limit` rows.
    static func read(_ account: String, asOf: Instant, knownAt: Instant, limit: Int, _ db: Database) throws -> UnsplitTail? {
        var tail = UnsplitTail()
        var read = 0
        let effectiveAfter = try Row.fetchCursor(
            db.cachedStatement(sql: """
                SELECT sequence, kind, cause, reverses FROM wealth_history WHERE account = ? AND effective_at > ?
                """),
            arguments: [account, asOf.microsecondsSinceEpoch]
        )
        while let row = try effectiveAfter.next() {
            read += 1
            if read > limit { return nil }
            tail.add(row)
        }
        // Every account's rows, newest first, until one recorded by knownAt.
        let recordedAfter = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT sequence, kind, cause, reverses, account, recorded_at FROM wealth_history ORDER BY sequence DESC")
        )
        while let row = try recordedAfter.next() {
            guard (row[WealthColumns.recordedAt] as Int64) > knownAt.microsecondsSinceEpoch else { break }
            read += 1
            if read > limit { return nil }
            if (row[WealthColumns.account] as String) == account { tail.add(row) }
        }
        return tail
    }

    private mutating func add(_ row: Row) {
        let sequence: Int64 = row[WealthColumns.sequence]
        guard sequences.insert(sequence).inserted else { return }
        let kind: String = row[WealthColumns.kind]
        if kind == WealthHistoryEntry.Kind.deposit.rawValue { deposits.append(sequence) }
        if kind == WealthHistoryEntry.Kind.split.rawValue, let cause = row[WealthColumns.cause] as Int64? { resolvedDeposits.insert(cause) }
        if let reversed = row[WealthColumns.reverses] as Int64? { resolvedDeposits.insert(reversed) }
    }
}
