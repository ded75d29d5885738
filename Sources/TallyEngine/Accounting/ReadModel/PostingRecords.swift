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
        guard start > Int64.min else { return [:] }
        var opening: [String: Int64] = [:]
        let sums = try BalanceRollups.sums(db, asOf: start - 1, knownAt: recordedBound, of: { $0 == account })
        for (pair, amount) in sums { opening[pair.commodity] = amount }
        return opening
    }

    /// Calls `body` with each of the account's postings effective from `start` through
    /// `end` and recorded by `recordedBound`, by effective time, then log order, then leg.
    static func forEach(
        of account: String, effectiveFrom start: Int64, through end: Int64, recordedBound: Int64, _ db: Database,
        _ body: (Leg) throws -> Void
    ) throws {
        let below = try PostingDays.sequenceBound(recordedThrough: recordedBound, db)
        var legs: [(leg: StoredLeg, commodity: String)] = []
        for (pair, commodity) in try PostingDays.pairs(ofAccount: account, db) {
            try PostingDays.forEachLeg(ofPair: pair, fromDay: RollupBuckets.day(start), throughDay: RollupBuckets.day(end), db) { leg in
                guard leg.effectiveAt >= start, leg.effectiveAt <= end, leg.sequence < below else { return }
                legs.append((leg, commodity))
            }
        }
        legs.sort { ($0.leg.effectiveAt, $0.leg.sequence, $0.leg.leg) < ($1.leg.effectiveAt, $1.leg.sequence, $1.leg.leg) }
        var recorded: (sequence: Int64, at: Int64)?
        for (leg, commodity) in legs {
            if recorded?.sequence != leg.sequence {
                recorded = (leg.sequence, try PostingDays.recordedAt(ofSequence: leg.sequence, db))
            }
            try body(Leg(
                sequence: UInt64(leg.sequence),
                amount: try Row.storedMoney(leg.amount, code: commodity, column: BalancesColumns.commodity.name),
                effectiveAt: Instant(microsecondsSinceEpoch: leg.effectiveAt),
                recordedAt: Instant(microsecondsSinceEpoch: recorded!.at),
                eventCode: UInt32(leg.eventCode),
                cause: leg.cause.map(UInt64.init)))
        }
    }

    /// A leg's place in an audit: effective time, then log order, then leg.
    typealias Key = (effectiveAt: Int64, sequence: Int64, leg: Int64)

    /// The account's balances per commodity code through the leg at `key` (that leg
    /// included), recorded by `recordedBound`: the rollups before its instant, then the legs
    /// of that instant up to it (one day's row read).
    static func balances(of account: String, through key: Key, recordedBound: Int64, _ db: Database) throws -> [String: Int64] {
        var balances = try openingBalances(of: account, before: key.effectiveAt, recordedBound: recordedBound, db)
        let below = try PostingDays.sequenceBound(recordedThrough: recordedBound, db)
        let day = RollupBuckets.day(key.effectiveAt)
        for (pair, commodity) in try PostingDays.pairs(ofAccount: account, db) {
            try PostingDays.forEachLeg(ofPair: pair, fromDay: day, throughDay: day, db) { leg in
                guard leg.effectiveAt == key.effectiveAt, leg.sequence < below, (leg.sequence, leg.leg) <= (key.sequence, key.leg) else { return }
                let (sum, overflow) = (balances[commodity] ?? 0).addingReportingOverflow(leg.amount)
                guard !overflow else { throw MoneyError.overflowing("the running balance of \(account)") }
                balances[commodity] = sum
            }
        }
        return balances
    }

    /// The account's first `limit` legs after `key` (from the start when nil) effective from
    /// `start` through `end` and recorded by `recordedBound`, in audit order, and whether
    /// more follow. Each commodity's legs are read day by day until it has more than `limit`:
    /// the cost is the days the page spans, not the account's history.
    static func page(
        of account: String, after key: Key?, effectiveFrom start: Int64, through end: Int64, recordedBound: Int64, limit: Int, _ db: Database
    ) throws -> (legs: [(leg: Leg, key: Key)], more: Bool) {
        let below = try PostingDays.sequenceBound(recordedThrough: recordedBound, db)
        let from = max(start, key?.effectiveAt ?? start)
        guard from <= end else { return ([], false) }
        var legs: [(leg: StoredLeg, commodity: String)] = []
        for (pair, commodity) in try PostingDays.pairs(ofAccount: account, db) {
            var taken = 0
            try PostingDays.forEachLeg(ofPair: pair, fromDay: RollupBuckets.day(from), throughDay: RollupBuckets.day(end), db) { leg in
                guard leg.effectiveAt >= from, leg.effectiveAt <= end, leg.sequence < below else { return true }
                if let key, (leg.effectiveAt, leg.sequence, leg.leg) <= (key.effectiveAt, key.sequence, key.leg) { return true }
                legs.append((leg, commodity))
                taken += 1
                return taken <= limit
            }
        }
        legs.sort { ($0.leg.effectiveAt, $0.leg.sequence, $0.leg.leg) < ($1.leg.effectiveAt, $1.leg.sequence, $1.leg.leg) }
        let more = legs.count > limit
        var page: [(leg: Leg, key: Key)] = []
        var recorded: (sequence: Int64, at: Int64)?
        for (leg, commodity) in legs.prefix(limit) {
            if recorded?.sequence != leg.sequence {
                recorded = (leg.sequence, try PostingDays.recordedAt(ofSequence: leg.sequence, db))
            }
            page.append((Leg(
                sequence: UInt64(leg.sequence),
                amount: try Row.storedMoney(leg.amount, code: commodity, column: BalancesColumns.commodity.name),
                effectiveAt: Instant(microsecondsSinceEpoch: leg.effectiveAt),
                recordedAt: Instant(microsecondsSinceEpoch: recorded!.at),
                eventCode: UInt32(leg.eventCode),
                cause: leg.cause.map(UInt64.init)), (leg.effectiveAt, leg.sequence, leg.leg)))
        }
        return (page, more)
    }
}
