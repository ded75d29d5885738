/// Where one page of a list sits: the one paging rule of every list (issue 32, rule 7;
/// docs/cli.md, "Lists"). A page holds `pageSize` items (1 to ``pageSizeLimit``; when the
/// caller gives none, the `page_size` setting in force at the list's as-of,
/// ``Ledger/pageSize(_:asOf:knownAt:)``); pages count from 1; a list fills at least one page,
/// so an empty list is page 1 of 1; a page beyond the last is empty, never an error, and
/// still says how many pages and items there are.
///
/// ```swift
/// let pots = try ledger.pots()
/// let page = try ledger.listPage(page: 2, totalCount: pots.count)   // the page_size setting's rows
/// for pot in page.slice(pots) { print(pot.name) }
/// print("page \(page.page) of \(page.pageCount) (\(page.totalCount) items)")
/// ```
public struct ListPage: Hashable, Sendable {
    /// The most items a page may hold, asked for or set (`tally settings set page-size`).
    public static let pageSizeLimit = 500

    /// 1-based.
    public let page: Int
    /// The most items a page holds.
    public let pageSize: Int
    /// How many items the list holds, over every page.
    public let totalCount: Int

    /// Page `page` of `pageSize` items of a list of `totalCount`.
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` for a page below 1, a page size outside 1
    ///   to ``pageSizeLimit``, a negative count, or a page so far that its first item's
    ///   position overflows.
    public init(page: Int, pageSize: Int, totalCount: Int) throws {
        try Self.check(page: page, pageSize: pageSize)
        guard totalCount >= 0 else { throw LedgerError(.invalidArgument, "a list holds no fewer than 0 items, not \(totalCount)") }
        guard !(page - 1).multipliedReportingOverflow(by: pageSize).overflow else { throw LedgerError(.invalidArgument, "the page is too large") }
        self.page = page
        self.pageSize = pageSize
        self.totalCount = totalCount
    }

    /// Refuses a page below 1 and, when one is given, a page size outside 1 to
    /// ``pageSizeLimit``: what every list checks before it reads.
    ///
    /// - Throws: ``LedgerError`` `invalidArgument`, naming the limit.
    public static func check(page: Int, pageSize: Int?) throws {
        guard page >= 1 else { throw LedgerError(.invalidArgument, "the page must be 1 or more, not \(page)") }
        if let pageSize, !(1...pageSizeLimit).contains(pageSize) {
            throw LedgerError(.invalidArgument, "the page size must be 1 to \(pageSizeLimit), not \(pageSize)")
        }
    }

    /// How many pages the items fill (at least 1).
    public var pageCount: Int { Self.pageCount(of: totalCount, pageSize: pageSize) }

    /// How many pages of `pageSize` (1 or more) items `totalCount` items fill (at least 1).
    public static func pageCount(of totalCount: Int, pageSize: Int) -> Int {
        max(1, totalCount / pageSize + (totalCount % pageSize == 0 ? 0 : 1))
    }

    /// The position of this page's first item in the whole list.
    public var offset: Int { (page - 1) * pageSize }

    /// The positions in the whole list of the items on this page: empty beyond the last page.
    public var range: Range<Int> {
        let start = min(offset, totalCount)
        return start..<min(totalCount, start + pageSize)
    }

    /// Whether the page holds every item of the list (a first page as large as the list).
    public var isWhole: Bool { page == 1 && totalCount <= pageSize }

    /// This page's items of `items`, the whole list of ``totalCount`` items.
    public func slice<Item>(_ items: [Item]) -> ArraySlice<Item> {
        precondition(items.count == totalCount, "a page is cut from the list it counted")
        return items[range]
    }
}

extension Ledger {
    /// Page `page` of a list of `totalCount` items read as of `asOf` (now when nil) as known
    /// at `knownAt`: `pageSize` items a page when given, else the `page_size` setting in force
    /// then (``ListPage``, the one paging rule).
    ///
    /// ```swift
    /// let envelopes = try ledger.envelopeStatuses(asOf: end)
    /// let page = try ledger.listPage(page: 1, totalCount: envelopes.count, asOf: end)
    /// ```
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` for a page below 1 or a page size outside
    ///   1 to ``ListPage/pageSizeLimit``.
    public func listPage(page: Int = 1, pageSize requested: Int? = nil, totalCount: Int, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> ListPage {
        try ListPage.check(page: page, pageSize: requested)
        return try ListPage(page: page, pageSize: try pageSize(requested, asOf: asOf, knownAt: knownAt), totalCount: totalCount)
    }
}
