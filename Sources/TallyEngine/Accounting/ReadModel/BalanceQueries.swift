package import GRDB

/// One account's balance in one commodity.
public struct AccountBalance: Hashable, Sendable {
    /// The account's name, e.g. `Assets:Checking`.
    public let account: String
    /// The account's kind: for a user's account, from the first segment of its name.
    public let kind: AccountKind
    /// The balance in one commodity: positive for debits (assets, expenses), negative for
    /// credits (income, liabilities, equity).
    public let amount: Money

    /// Creates a balance; the ledger's balance queries make them.
    public init(account: String, kind: AccountKind, amount: Money) {
        self.account = account
        self.kind = kind
        self.amount = amount
    }
}

extension Ledger {
    /// Every non-zero balance, by account then commodity.
    ///
    /// A point-in-time answer reads roll-up cells (32-day and one-day sums per account,
    /// commodity and recorded block) and at most one day and one recorded block of postings:
    /// it never sums the whole log.
    ///
    /// ```swift
    /// let march = try ledger.balances(asOf: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-03-31")))
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: count only postings effective at or before this instant.
    ///   - knownAt: count only postings the ledger had recorded at this instant.
    public func balances(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [AccountBalance] {
        try read { db in try BalanceQueries.balances(db, asOf: asOf, knownAt: knownAt) }
    }

    /// The sum of all balances per commodity that is not zero: empty when the books balance,
    /// as double entry guarantees.
    public func trialBalance() throws -> [Money] {
        try read { db in try BalanceQueries.trialBalance(db) }
    }
}

package enum BalanceQueries {
    /// Every non-zero balance: the balances table now, the roll-up cells (sub-linear) at a
    /// point in time.
    package static func balances(_ db: Database, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [AccountBalance] {
        if asOf == nil && knownAt == nil {
            try HeldPostings.writeHeld(db)
            return try accountBalances(Row.fetchAll(db.cachedStatement(sql: """
                SELECT b.account, b.commodity, b.amount, a.kind FROM balances b JOIN accounts a ON a.name = b.account
                WHERE b.amount != 0 ORDER BY b.account, b.commodity
                """)))
        }
        return try BalanceRollups.balances(db, asOf: asOf?.microsecondsSinceEpoch ?? Int64.max, knownAt: knownAt?.microsecondsSinceEpoch)
    }

    /// The same answer as ``balances(_:asOf:knownAt:)`` by summing every posting: linear in
    /// the log, kept as the oracle the roll-ups are tested against.
    package static func scannedBalances(_ db: Database, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [AccountBalance] {
        let effectiveBound = asOf?.microsecondsSinceEpoch ?? Int64.max
        let below = try PostingDays.sequenceBound(recordedThrough: knownAt?.microsecondsSinceEpoch ?? Int64.max, db)
        var byPair: [Int64: Int64] = [:]
        try PostingDays.forEveryLeg(db) { pair, leg in
            guard leg.effectiveAt <= effectiveBound, leg.sequence < below else { return }
            byPair[pair] = try PostingRules.add(byPair[pair] ?? 0, leg.amount)
        }
        let texts = try BalanceRollups.pairTexts(db)
        var sums: [BalancePair: Int64] = [:]
        for (pair, amount) in byPair {
            guard let key = texts[pair] else { continue }
            sums[key] = amount
        }
        return try accountBalances(sums, db)
    }

    private static func accountBalances(_ rows: [Row]) throws -> [AccountBalance] {
        try rows.map { row in
            AccountBalance(
                account: row[BalancesColumns.account],
                kind: try row.kind(BalancesColumns.kind),
                amount: try row.money(BalancesColumns.amount, BalancesColumns.commodity)
            )
        }
    }

    /// Balances summed outside SQL, as answers: the non-zero ones, by account then
    /// commodity, each with its account's kind.
    static func accountBalances(_ sums: [BalancePair: Int64], _ db: Database) throws -> [AccountBalance] {
        var kinds: [String: AccountKind] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT name, kind FROM accounts")) {
            kinds[row[BalancesColumns.name]] = try row.kind(BalancesColumns.kind)
        }
        return try sums.filter { $0.value != 0 }
            .sorted { $0.key.precedes($1.key) }
            .map { pair, amount in
                guard let kind = kinds[pair.account] else {
                    throw LedgerError(.inconsistentLog, "the balances read model has postings to '\(pair.account)', which it lists as no account; run `tally rebuild`")
                }
                return AccountBalance(account: pair.account, kind: kind,
                                      amount: try Row.storedMoney(amount, code: pair.commodity, column: BalancesColumns.commodity.name))
            }
    }

    /// Writes what the write group on `db` holds (nothing on any other connection): a
    /// product's own statement over `balances` or the postings calls it first, so that it
    /// sees every earlier command of its group (``HeldPostings``).
    package static func writeHeld(_ db: Database) throws {
        try HeldPostings.writeHeld(db)
    }

    package static func balance(_ db: Database, account: String, commodity: Commodity) throws -> Money {
        Money(minorUnits: try DatabasePostingContext(db: db).balance(of: account, in: commodity), commodity: commodity)
    }

    /// The lowest balance `account` holds in `commodity` at the end of any effective instant
    /// from `from` on, as the ledger knows it now, and the first instant it is that low: the
    /// balance at `from` itself, then after each later instant that moves it. A command that
    /// takes money out at `from` needs this much, not only the balance at `from` or today's
    /// (a backdated withdrawal must not overdraw a purchase recorded later).
    ///
    /// Reads the head balance and the postings effective after `from`: O(1) for a command
    /// dated now, linear in the later postings for a backdated one.
    ///
    /// `pending` are legs a command is about to record (a correction's reversals): the
    /// answer counts those of `account` in `commodity` as if they were folded.
    package static func lowestBalance(
        _ db: Database, account: String, commodity: Commodity, from: Instant, pending: [Posting] = []
    ) throws -> (amount: Money, at: Instant) {
        var head = try DatabasePostingContext(db: db).balance(of: account, in: commodity)
        // The changes per effective instant after `from`, in order.
        var changes: [Int64: Int64] = [:]
        if let pair = try PostingDays.pair(of: account, commodity: commodity.code, db) {
            let after = from.microsecondsSinceEpoch
            try PostingDays.forEachLeg(ofPair: pair, fromDay: RollupBuckets.day(after), throughDay: Int64.max, db) { leg in
                guard leg.effectiveAt > after else { return }
                changes[leg.effectiveAt] = try PostingRules.add(changes[leg.effectiveAt] ?? 0, leg.amount)
            }
        }
        var later = changes.sorted { $0.key < $1.key }.map { (at: $0.key, amount: $0.value) }
        let own = pending.filter { $0.account == account && $0.amount.commodity == commodity }
        if !own.isEmpty {
            for posting in own {
                head = try PostingRules.add(head, posting.amount.minorUnits)
                if posting.effectiveAt > from { later.append((posting.effectiveAt.microsecondsSinceEpoch, posting.amount.minorUnits)) }
            }
            // One change per instant, in order, as the query gives them.
            var merged: [(at: Int64, amount: Int64)] = []
            for change in later.sorted(by: { $0.at < $1.at }) {
                if let last = merged.last, last.at == change.at {
                    merged[merged.count - 1].amount = try PostingRules.add(last.amount, change.amount)
                } else {
                    merged.append(change)
                }
            }
            later = merged
        }
        var running = head
        for change in later {
            let (difference, overflow) = running.subtractingReportingOverflow(change.amount)
            guard !overflow else { throw MoneyError(.overflow, "the balance of \(account) in \(commodity.code) before \(from) is beyond 64-bit minor units") }
            running = difference
        }
        var lowest = (amount: running, at: from.microsecondsSinceEpoch)
        for change in later {
            let (sum, overflow) = running.addingReportingOverflow(change.amount)
            guard !overflow else { throw MoneyError(.overflow, "the balance of \(account) in \(commodity.code) is beyond 64-bit minor units") }
            running = sum
            if running < lowest.amount { lowest = (running, change.at) }
        }
        return (Money(minorUnits: lowest.amount, commodity: commodity), Instant(microsecondsSinceEpoch: lowest.at))
    }

    /// The legs `events` would post, each against the balances as they stand (a command's
    /// planned events, before they are folded).
    package static func postings(of events: [NewEvent], _ db: Database) throws -> [Posting] {
        let context = DatabasePostingContext(db: db)
        return try events.flatMap { event -> [Posting] in
            try event.body.payload.declaredPostings(at: event.effectiveAt, context: context)
        }
    }

    package static func trialBalance(_ db: Database) throws -> [Money] {
        try HeldPostings.writeHeld(db)
        return try Row.fetchAll(db.cachedStatement(sql: "SELECT commodity, SUM(amount) AS total FROM balances GROUP BY commodity HAVING SUM(amount) != 0 ORDER BY commodity"))
            .map { row in try row.money(BalancesColumns.total, BalancesColumns.commodity) }
    }
}
