public import TallyEngine
import GRDB

/// What to list: a period, a search, a category, an order and a page.
///
/// ```swift
/// var query = TransactionQuery(month: try Month(parsing: "2026-05"))
/// query.search = "netflix"
/// query.sort = .amount; query.descending = false
/// let page = try ledger.transactions(query)
/// ```
public struct TransactionQuery: Hashable, Sendable {
    /// The order of a list.
    public enum Sort: String, Sendable, CaseIterable {
        /// By date, then by when the ledger learned them.
        case date
        /// By payee, ignoring case, then by date.
        case name
        /// By signed amount, then by date.
        case amount
    }

    /// The first day listed, inclusive; nil for no bound.
    public var from: LocalDate?
    /// The last day listed, inclusive; nil for no bound.
    public var through: LocalDate?
    /// Only payees that contain this text, ignoring case.
    public var search: String?
    /// Only this category.
    public var category: BudgetCategory?
    /// The order; date unless told.
    public var sort: Sort = .date
    /// Newest, largest or Z first (the default: newest first).
    public var descending = true
    /// 1 for the first page.
    public var page = 1
    /// 1 to ``BudgetSettings/pageSizeLimit``; nil: the `page_size` setting in force
    /// (``Ledger/pageSize(_:asOf:knownAt:)``).
    public var pageSize: Int?

    /// Every transaction, newest first, a page of the `page_size` setting.
    public init() {}

    /// One month's transactions.
    public init(month: Month) {
        from = month.firstDay
        through = month.lastDay
    }

    /// The transactions of a range of days, inclusive.
    public init(from: LocalDate?, through: LocalDate?) {
        self.from = from
        self.through = through
    }
}

/// One page of a transaction list.
public struct TransactionPage: Hashable, Sendable {
    /// The page's transactions, in the query's order.
    public let transactions: [BudgetTransaction]
    /// 1-based.
    public let page: Int
    /// The most transactions a page holds.
    public let pageSize: Int
    /// How many transactions match, over every page.
    public let totalCount: Int

    /// How many pages the matches fill (at least 1), by the one paging rule (``ListPage``).
    public var pageCount: Int { (try? ListPage(page: page, pageSize: pageSize, totalCount: totalCount).pageCount) ?? 1 }
}

extension Ledger {
    /// Lists budget transactions in their current version, or in the version the ledger
    /// held at `knownAt`; deleted ones are hidden. Reads indexed versions, never the log.
    ///
    /// ```swift
    /// let may = try ledger.transactions(TransactionQuery(month: try Month(parsing: "2026-05")))
    /// let asKnown = try ledger.transactions(TransactionQuery(month: try Month(parsing: "2026-03")),
    ///                                       knownAt: try Instant(parsing: "2026-04-05T00:00:00Z"))
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: only transactions dated at or before this instant (with the query's range).
    ///   - knownAt: as the ledger knew them at this instant; nil for everything recorded.
    /// - Throws: ``LedgerError`` `invalidArgument` for a page below 1, a page size outside
    ///   1 to 500, or a range whose end comes before its start.
    public func transactions(
        _ query: TransactionQuery = TransactionQuery(), asOf: Instant? = nil, knownAt: Instant? = nil
    ) throws -> TransactionPage {
        try ListPage.check(page: query.page, pageSize: query.pageSize)
        if let from = query.from, let through = query.through, through < from {
            throw LedgerError(.invalidArgument, "the range ends before it starts; swap its dates")
        }
        let now = self.now
        return try read { db in
            var query = query
            let size = try LedgerSettings.pageSize(query.pageSize, at: PointInTime(asOf: asOf ?? now, knownAt: knownAt), db)
            query.pageSize = size
            let (_, overflow) = (query.page - 1).multipliedReportingOverflow(by: size)
            guard !overflow else { throw LedgerError(.invalidArgument, "the page is too large") }
            return try TransactionQueries.page(db, query, pageSize: size, asOf: asOf, knownAt: knownAt, calendar: calendar)
        }
    }
}
