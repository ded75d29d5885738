import GRDB

/// The postings of the balances read model, one account at a time (the audit's reads).
enum PostingRecords {
    /// One leg as stored, with the event that made it.
    struct Leg {
        let sequence: UInt64
        let amount: Money
        let effectiveAt: Instant
        let recordedAt: Instant
        let eventCode: UInt32
        let cause: UInt64?
    }

    /// The sum per commodity code of the account's postings effective before `start` and
    /// recorded by `recordedBound`.
    static func openingBalances(of account: String, before start: Int64, recordedBound: Int64, _ db: Database) throws -> [String: Int64] {
        var opening: [String: Int64] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT b.commodity, SUM(p.amount) AS opening FROM balances b CROSS JOIN postings p
            WHERE b.account = ? AND p.pair = b.pair AND p.effective_at < ? AND p.recorded_at <= ? GROUP BY b.commodity
            """, arguments: [account, start, recordedBound]) {
            opening[row[BalancesColumns.commodity]] = row[BalancesColumns.opening]
        }
        return opening
    }

    /// Calls `body` with each of the account's postings effective from `start` through
    /// `end` and recorded by `recordedBound`, by effective time, then log order, then leg.
    static func forEach(
        of account: String, effectiveFrom start: Int64, through end: Int64, recordedBound: Int64, _ db: Database,
        _ body: (Leg) throws -> Void
    ) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT p.sequence, b.commodity, p.amount, p.effective_at, p.recorded_at, p.event_code, p.cause
            FROM balances b CROSS JOIN postings p
            WHERE b.account = ? AND p.pair = b.pair AND p.effective_at >= ? AND p.effective_at <= ? AND p.recorded_at <= ?
            ORDER BY p.effective_at, p.sequence, p.leg
            """, arguments: [account, start, end, recordedBound])
        while let row = try rows.next() {
            try body(Leg(
                sequence: row.sequence(BalancesColumns.sequence),
                amount: try row.money(BalancesColumns.amount, BalancesColumns.commodity),
                effectiveAt: row.instant(BalancesColumns.effectiveAt),
                recordedAt: row.instant(BalancesColumns.recordedAt),
                eventCode: UInt32(row[BalancesColumns.eventCode] as Int64),
                cause: row.optionalSequence(BalancesColumns.cause)))
        }
    }
}
