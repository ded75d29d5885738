public import GRDB

/// What a command's plan can read of the ledger's money, typed: balances now, at a point in
/// time, and the lowest a balance stands from a date on (an overdraft rule's question).
///
/// A plan (``LedgerCommand/plan``) runs inside the write pipeline's transaction, so these
/// answers count every command committed before it and every earlier command of its own
/// group. They are the same answers as ``Ledger/balances(asOf:knownAt:)``, read from the
/// `Database` the plan is given; an embedder's rule needs no copy of the balances.
///
/// ```swift
/// LedgerCommand(idempotencyKey: key, request: payout, requestHasEffectiveTime: true) { db in
///     let reads = PlanReads(db)
///     try reads.requireCovers(amount, from: "Assets:Customers:alice", at: paidAt, calendar: calendar, what: "the payout")
///     return [payout]
/// }
/// ```
public struct PlanReads {
    /// The read models as the plan sees them.
    public let database: Database

    /// Reads through the `Database` a plan (or an admission check) is given.
    public init(_ database: Database) { self.database = database }

    /// The balance of `account` in `commodity` with everything recorded so far counted,
    /// whatever its effective time: zero for an account or commodity never posted to.
    public func balance(of account: String, in commodity: Commodity) throws -> Money {
        try BalanceQueries.balance(database, account: account, commodity: commodity)
    }

    /// The balance of `account` in `commodity` at `asOf` (postings effective at or before it),
    /// as the ledger knew it at `knownAt` (nil: as it knows it now). Read from the roll-ups:
    /// it does not sum the account's history.
    public func balance(of account: String, in commodity: Commodity, asOf: Instant, knownAt: Instant? = nil) throws -> Money {
        let sums = try BalanceRollups.sums(database, asOf: asOf.microsecondsSinceEpoch, knownAt: knownAt?.microsecondsSinceEpoch) { $0 == account }
        return Money(minorUnits: sums[BalancePair(account: account, commodity: commodity.code)] ?? 0, commodity: commodity)
    }

    /// Every non-zero balance at `asOf` as known at `knownAt` (nil: now, and as known now):
    /// ``Ledger/balances(asOf:knownAt:)``'s answer, inside a plan.
    public func balances(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [AccountBalance] {
        try BalanceQueries.balances(database, asOf: asOf, knownAt: knownAt)
    }

    /// The lowest balance `account` holds in `commodity` from `instant` on (at `instant`
    /// itself, and after each later effective time that moves it), and the first time it is
    /// that low. What a command may take out at `instant` without overdrawing the account
    /// then or at any later date, where payments may already be recorded: a backdated
    /// withdrawal must not overdraw a purchase recorded after it.
    public func lowestBalance(of account: String, in commodity: Commodity, from instant: Instant) throws -> (amount: Money, at: Instant) {
        try BalanceQueries.lowestBalance(database, account: account, commodity: commodity, from: instant)
    }

    /// Whether `account` has ever been opened or posted to.
    public func accountExists(_ account: String) throws -> Bool {
        try AccountRecords.exists(account, database)
    }

    /// The overdraft rule: refuses (``LedgerError/Code-swift.struct/insufficientFunds``) taking
    /// `amount` out of `account` at `instant` when the account's balance in that commodity,
    /// at `instant` or at any later effective time, is less than `amount`. The message names the
    /// account, the currency and the days (the day asked, and the later day that would go below
    /// zero), never the amounts: messages reach logs.
    ///
    /// - Parameters:
    ///   - amount: what the command takes out, positive.
    ///   - account: the account it leaves.
    ///   - instant: the command's effective time.
    ///   - calendar: the ledger's calendar (``Ledger/calendar``), whose days the message names.
    ///   - what: the command in words, e.g. `"the purchase"`.
    public func requireCovers(_ amount: Money, from account: String, at instant: Instant, calendar: LedgerCalendar, what: String) throws {
        let lowest = try lowestBalance(of: account, in: amount.commodity, from: instant)
        try Self.requireCovers(amount, lowest: (lowest.amount, calendar.date(of: lowest.at)), on: calendar.date(of: instant),
                               balance: "the balance in \(amount.commodity.code) of '\(account)'", what: what)
    }

    /// The overdraft rule's decision, given the lowest balance from the command's day on:
    /// shared by every command that takes money out (the wallet's, the wealth account's).
    ///
    /// - Parameters:
    ///   - amount: what the command takes out.
    ///   - lowest: the lowest balance from the command's effective time on, and its day.
    ///   - date: the command's effective day.
    ///   - balance: the balance in words, e.g. `"the Spend balance in GBP of wealth account 'alice'"`.
    ///   - what: the command in words.
    public static func requireCovers(_ amount: Money, lowest: (amount: Money, date: LocalDate), on date: LocalDate, balance: String, what: String) throws {
        guard try lowest.amount.isLess(than: amount) else { return }
        if lowest.date <= date {
            throw LedgerError(.insufficientFunds, "\(balance) on \(date) is less than \(what); deposit more or pay less")
        }
        throw LedgerError(
            .insufficientFunds,
            "\(what) on \(date) would take \(balance) below zero on \(lowest.date), where payments are already recorded; deposit more or pay less"
        )
    }
}
