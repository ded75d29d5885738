public import TallyEngine
import GRDB

/// The reference answer for a point in time: the log folded from its first event into
/// fresh state, never the store's read models or their roll-ups.
///
/// "As known at K" keeps only the events recorded at or before K (a prefix of the log, as
/// recorded times never decrease); "as of D" then applies each answer's own effective-time
/// rule to that state: balances count the postings effective at or before D (postings are
/// dated one by one — the reversal of an amended transaction carries the original's date),
/// pots are those created and not deleted by D, the budgets and the budget overview are
/// D's month's (the overview's balances at D), the budget transactions are those dated by
/// D, net worth is the values and rates in force at D.
///
/// ```swift
/// let march = try Replay.run(at: "/data/home.tally", until: calendar.endOfDay(try LocalDate(parsing: "2026-03-31")))
/// print(march.eventsFolded, march.balances.count, march.netWorth.netWorth)
/// ```
public struct ReplayResult: Sendable {
    /// The point answered for.
    public let point: PointInTime
    /// The month of `point.asOf` in the ledger's time zone: the month of ``budgets``.
    public let month: Month
    /// How many events were folded (those recorded by `point.knownAt`).
    public let eventsFolded: UInt64
    /// Every non-zero balance, by account then commodity.
    public let balances: [AccountBalance]
    /// The savings pots that exist at the point, by id, with their totals then.
    public let pots: [Pot]
    /// The budgets of ``month`` as known at the point.
    public let budgets: [BudgetStatus]
    /// The budget overview of ``month``, its balances and flows up to the point.
    public let budgetOverview: BudgetOverview
    /// Every budget transaction dated at or before the point, in its version then, newest
    /// first (the order of ``Ledger/transactions(_:asOf:knownAt:)``).
    public let budgetTransactions: [BudgetTransaction]
    /// Net worth at the point.
    public let netWorth: NetWorthReport
}

extension Replay {
    /// Folds the log of the store at `root` up to `knownAt` with every product
    /// (``Ledger/Options/standard``), answers for `until`, and deletes the folded state.
    ///
    /// - Parameters:
    ///   - root: the store directory.
    ///   - until: the effective instant answered for (the end of a day, usually).
    ///   - knownAt: fold only events recorded at or before this instant; nil for all.
    /// - Throws: ``StoreError`` or a log error when the store cannot be read; SQLite errors
    ///   from the temporary database.
    public static func run(at root: String, key: LedgerKey? = nil, until: Instant, knownAt: Instant? = nil) throws -> ReplayResult {
        try run(at: root, key: key, untilEach: [until], knownAt: knownAt)[0]
    }

    /// One fold up to `knownAt`, answered for each effective instant in `untilEach` (in
    /// that order): a series of dates costs one replay.
    ///
    /// - Throws: as ``run(at:key:until:knownAt:)``.
    public static func run(at root: String, key: LedgerKey? = nil, untilEach instants: [Instant], knownAt: Instant? = nil) throws -> [ReplayResult] {
        var pots = PotLifecycles()
        var options = Ledger.Options.standard
        options.key = key
        return try Replay.fold(at: root, options: options, knownAt: knownAt, observe: { pots.apply($0) }) { state in
            let db = state.database
            let calendar = state.calendar
            let folded = state.eventsFolded
            return try instants.map { until in
                let staleness = try LedgerSettings.read(db, point: PointInTime(asOf: until)).priceStalenessSeconds
                let point = PointInTime(asOf: until, knownAt: knownAt)
                let month = calendar.month(of: until)
                let balances = try state.balances(asOf: until)
                let report = try NetWorthQueries.report(db, point: PointInTime(asOf: until), stalenessSeconds: staleness,
                                                       accounts: try HouseholdAccounts.holdings(from: balances, asOf: until))
                return ReplayResult(
                    point: point, month: month, eventsFolded: folded, balances: balances,
                    pots: pots.existing(at: until, balances: balances),
                    budgets: try BudgetQueries.statuses(db, month: month, knownAt: nil, calendar: calendar),
                    budgetOverview: try BudgetQueries.overview(db, month: month, through: until, knownAt: nil,
                                                               balances: balances, calendar: calendar),
                    budgetTransactions: try allTransactions(db, until: until, calendar: calendar),
                    netWorth: report.answering(for: point)
                )
            }
        }
    }
}

extension Ledger {
    /// A full replay of this ledger's log to a point in time, into fresh state: the
    /// reference that indexed answers such as ``balances(asOf:knownAt:)`` and
    /// ``netWorth(asOf:knownAt:)`` must equal. Linear in the log: for checks and audits,
    /// not for everyday queries.
    ///
    /// ```swift
    /// let replayed = try ledger.replay(until: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-03-31")))
    /// assert(replayed.balances == (try ledger.balances(asOf: replayed.point.asOf)))
    /// ```
    ///
    /// - Parameters:
    ///   - until: the effective instant answered for.
    ///   - knownAt: as the ledger knew it at this instant; nil for everything recorded.
    public func replay(until: Instant, knownAt: Instant? = nil) throws -> ReplayResult {
        try Replay.run(at: layout.root, until: until, knownAt: knownAt)
    }
}

extension Replay {
    /// Every budget transaction dated by `until` in the folded state, newest first, page by
    /// page (the list's own order and filter, over state that holds only known events).
    static func allTransactions(_ db: Database, until: Instant, calendar: LedgerCalendar) throws -> [BudgetTransaction] {
        var query = TransactionQuery()
        var transactions: [BudgetTransaction] = []
        while true {
            let page = try TransactionQueries.page(db, query, pageSize: BudgetSettings.pageSizeLimit, asOf: until, knownAt: nil, calendar: calendar)
            transactions += page.transactions
            guard query.page < page.pageCount else { return transactions }
            query.page += 1
        }
    }
}

/// Pots as the replay folds them: when each was created and deleted (effective times), so
/// that "as of D" lists the pots that existed at D. An id used again after a deletion
/// starts a new life; the earlier ones are kept for earlier dates.
struct PotLifecycles {
    private struct Lifecycle {
        let name: String
        let target: Money
        let createdAt: Instant
        var deletedAt: Instant?
    }

    private var pots: [String: [Lifecycle]] = [:]

    mutating func apply(_ event: Event) {
        switch event.body.payload {
        case let created as PotCreated:
            end(created.potId, at: event.effectiveAt)
            pots[created.potId, default: []].append(Lifecycle(name: created.name, target: created.target, createdAt: event.effectiveAt))
        case let deleted as PotDeleted:
            end(deleted.potId, at: event.effectiveAt)
        default:
            break
        }
    }

    private mutating func end(_ id: String, at instant: Instant) {
        guard let last = pots[id]?.indices.last, pots[id]?[last].deletedAt == nil else { return }
        pots[id]?[last].deletedAt = instant
    }

    /// The pots created by `instant` and not deleted by then, by id, each with its
    /// account's balance from `balances`.
    func existing(at instant: Instant, balances: [AccountBalance]) -> [Pot] {
        pots.compactMap { id, lives -> (String, Lifecycle)? in
            lives.last { $0.createdAt <= instant && !($0.deletedAt.map { $0 <= instant } ?? false) }.map { (id, $0) }
        }
        .sorted { $0.0 < $1.0 }
        .map { id, pot in
            let account = LedgerAccounts.pot(id)
            let total = balances.first { $0.account == account && $0.amount.commodity == pot.target.commodity }?.amount
            return Pot(id: id, name: pot.name, target: pot.target, total: total ?? Money.zero(pot.target.commodity))
        }
    }
}

extension NetWorthReport {
    /// The same report, labelled with another point (a replay answers "as of D" on state
    /// already cut at K).
    func answering(for point: PointInTime) -> NetWorthReport {
        NetWorthReport(point: point, baseCurrency: baseCurrency, assets: assets, liabilities: liabilities, netWorth: netWorth,
                       lines: lines, excluded: excluded, categories: categories)
    }
}
