import Tally

/// The one convention of every JSON answer on the command line (docs/cli.md, "JSON output"),
/// written here once and nowhere else:
///
/// - an answer is ONE JSON object on standard output;
/// - money is always `{"amount":"3200.00","currency":"USD"}`, the amount an exact decimal
///   string (``money(_:)``), never a bare string or number beside a currency;
/// - a list (an answer that is one row per item: every `list` command, `tx list`,
///   `balances`, `networth series`, `suggest`, …) is `{…context…, "items":[…],
///   "paging":{"page":1,"page_size":N,"page_count":1,"total_count":N}}` (``list(_:paging:context:)``);
///   a list that is not paged is one page holding every item.
///
/// `tally log --json` is the exception the docs name: events in their published NDJSON form,
/// one a line, the form `tally append` and `tally import` read back.
enum JSONText {
    /// `{"amount":"-12.40","currency":"USD"}`: money in every JSON answer.
    static func money(_ money: Money) -> String {
        Output.jsonObject([("amount", EventJSON.quoted(money.decimalString)), ("currency", EventJSON.quoted(money.commodity.code))])
    }

    static func string(_ text: String?) -> String { text.map(EventJSON.quoted) ?? "null" }

    static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }

    /// A list answer: the list's context fields (`as_of`, `currency`, `not_converted`, …),
    /// then `items` (each an encoded JSON object) and `paging`.
    static func list(_ items: [String], paging: JSONPaging? = nil, context: [(String, String)] = []) -> String {
        let paging = paging ?? .whole(items.count)
        precondition(paging.totalCount >= items.count, "a page holds no more items than the list")
        return Output.jsonObject(context + [("items", array(items)), ("paging", paging.json)])
    }
}

/// Where a page of a list sits: `{"page":1,"page_size":10,"page_count":3,"total_count":27}`.
struct JSONPaging {
    init(page: Int, pageSize: Int, totalCount: Int) {
        self.page = page
        self.pageSize = pageSize
        self.totalCount = totalCount
    }

    /// 1-based.
    let page: Int
    /// The most items a page holds.
    let pageSize: Int
    /// How many items match, over every page.
    let totalCount: Int

    /// How many pages the items fill (at least 1): ``ListPage/pageCount(of:pageSize:)``, and 1
    /// for a whole list of no items (page size 0).
    var pageCount: Int { pageSize > 0 ? ListPage.pageCount(of: totalCount, pageSize: pageSize) : 1 }

    /// A list that is not paged: one page holding all `count` items.
    static func whole(_ count: Int) -> JSONPaging { JSONPaging(page: 1, pageSize: count, totalCount: count) }

    /// Where `page` sits (``ListPage``, the one paging rule).
    init(_ page: ListPage) { self.init(page: page.page, pageSize: page.pageSize, totalCount: page.totalCount) }

    var json: String {
        Output.jsonObject([("page", String(page)), ("page_size", String(pageSize)),
                           ("page_count", String(pageCount)), ("total_count", String(totalCount))])
    }
}
