import ArgumentParser
import Tally

/// How a list command prints (`pot list`, `account list`, `asset list`, `rates`, …), the same
/// flags on each: a table for people (the default), `--format csv` (one header line in
/// snake_case, then one row per item, a spreadsheet opens it) or `--format json` (one list
/// answer, `{"items":[…],"paging":{…}}`: ``JSONText``); `--json` is `--format json`. Every
/// form holds one page (``ListPage``, as `tx list`): `--page` (from 1) of `--page-size` items,
/// by default the `page_size` setting in force at the list's as-of.
struct ListFormatOptions: ParsableArguments {
    /// The three forms of a list.
    enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, json }

    @Option(help: "table (default), csv (a header line, then one row per item of the page) or json (one object: items and paging).")
    var format: Format?

    @Flag(help: "The same as --format json.") var json = false

    @Option(help: "The page, from 1.") var page = 1

    @Option(name: .customLong("page-size"), help: "Items per page (1-500). Default: the page_size setting in force (`tally settings`).")
    var pageSize: Int?

    func validate() throws {
        if json, let format, format != .json { throw ValidationError("give --json or --format \(format.rawValue), not both") }
        do { try ListPage.check(page: page, pageSize: pageSize) } catch let error as LedgerError { throw ValidationError(error.message) }
    }

    /// The form chosen.
    var chosen: Format { json ? .json : format ?? .table }

    /// The page asked for of a list of `count` items read as of `asOf` (now when nil) as known
    /// at `knownAt`: its size the one asked for, else the `page_size` setting in force then.
    func page(of count: Int, _ ledger: Ledger, asOf: Instant?, knownAt: Instant?) throws -> ListPage {
        try ledger.listPage(page: page, pageSize: pageSize, totalCount: count, asOf: asOf, knownAt: knownAt)
    }
}

/// How a page of a list ends in a table and in CSV: the table's footer, `page 1 of 3 (27
/// items)`, as `tx list` prints; CSV carries no footer, so when the page is not the whole list
/// standard error says which page it is and how to reach the others.
enum ListFooter {
    static func table(_ page: ListPage) -> String {
        "page \(page.page) of \(page.pageCount) (\(page.totalCount) item\(page.totalCount == 1 ? "" : "s"))"
    }

    /// Says on standard error that a CSV holds one page of a longer list.
    static func noteCSV(_ page: ListPage) {
        guard !page.isWhole else { return }
        Output.note("note: \(table(page)): --page N for another, --page-size up to \(ListPage.pageSizeLimit) for more a page\n")
    }
}

/// How a report prints (`tx list`, `budget show`, `overview`, `envelope status`,
/// `recurring status`, `networth show`), the same flags on each: a table for people (the
/// default), `--format csv` (one header line naming every column, then one row per item,
/// amounts as plain decimals: the library's renderer, e.g. ``BudgetsCSV``) or `--format json`
/// (one JSON object); `--json` is `--format json`.
struct ReportFormatOptions: ParsableArguments {
    @Option(help: "table (default), csv (a header naming every column, then one row per item; plain amounts) or json (one object).")
    var format: ListFormatOptions.Format?

    @Flag(help: "The same as --format json.") var json = false

    func validate() throws {
        if json, let format, format != .json { throw ValidationError("give --json or --format \(format.rawValue), not both") }
    }

    /// The form chosen.
    var chosen: ListFormatOptions.Format { json ? .json : format ?? .table }
}

/// One column of a list: its name (snake_case; upper case as a table's heading) and
/// whether its cells are numbers (right-aligned in a table).
struct ListColumn {
    let name: String
    let numeric: Bool

    init(_ name: String, numeric: Bool = false) {
        self.name = name
        self.numeric = numeric
    }
}

/// One cell of a list.
enum ListCell {
    /// Text: a JSON string.
    case text(String)
    /// An exact decimal rate: a JSON string, so no reader turns it into a float.
    case decimal(String)
    /// An amount: plain in CSV (its currency in a column of its own), `{amount, currency}`
    /// in JSON (the amount a decimal string), thousands grouped in a table (``MoneyDisplay``).
    case money(Money)
    /// A whole number: a JSON number.
    case integer(Int64)
    /// A JSON boolean.
    case bool(Bool)
    /// Nothing: an empty cell, JSON null.
    case none

    /// The cell for an optional text.
    static func text(_ value: String?) -> ListCell { value.map { .text($0) } ?? .none }

    /// The cell for an amount's decimal, its currency in a column of its own.
    static func amount(_ money: Money?) -> ListCell { money.map { .money($0) } ?? .none }

    /// The cell for a day.
    static func day(_ date: LocalDate?) -> ListCell { date.map { .text($0.description) } ?? .none }

    var plain: String {
        switch self {
        case .text(let text), .decimal(let text): text
        case .money(let money): money.decimalString
        case .integer(let value): String(value)
        case .bool(let value): String(value)
        case .none: ""
        }
    }

    /// The cell as a table shows it to a person: an amount grouped, the rest as ``plain``.
    var display: String {
        if case .money(let money) = self { return MoneyDisplay.amount(money) }
        return plain
    }

    var json: String {
        switch self {
        case .text(let text), .decimal(let text): EventJSON.quoted(text)
        case .money(let money): JSONText.money(money)
        case .integer(let value): String(value)
        case .bool(let value): String(value)
        case .none: "null"
        }
    }
}

/// A list as rows of cells under named columns, printed in any of the three forms.
struct ListTable {
    let columns: [ListColumn]
    var rows: [[ListCell]] = []

    init(_ columns: [ListColumn]) { self.columns = columns }

    mutating func append(_ row: [ListCell]) {
        precondition(row.count == columns.count, "a list row has one cell per column")
        rows.append(row)
    }

    /// Page `page` of the list in `format` (every row when `page` is nil: a list that is not
    /// paged, the CSV `pot list` prints through it); a table with no rows at all prints
    /// `empty` instead, a page beyond the last its footer alone. JSON is one list answer
    /// (``JSONText/list(_:paging:context:)``), `context` its fields before `items`.
    func render(_ format: ListFormatOptions.Format, page: ListPage?, empty: String, context: [(String, String)] = []) -> String {
        let shown = page.map { Array($0.slice(rows)) } ?? rows
        switch format {
        case .csv:
            return ([CSVWriter.line(columns.map(\.name))] + shown.map { CSVWriter.line($0.map(\.plain)) }).map { $0 + "\n" }.joined()
        case .json:
            let paging = page.map { JSONPaging(page: $0.page, pageSize: $0.pageSize, totalCount: $0.totalCount) }
            return JSONText.list(shown.map { row in Output.jsonObject(zip(columns, row).map { ($0.name, $1.json) }) }, paging: paging, context: context) + "\n"
        case .table:
            guard !rows.isEmpty else { return empty + "\n" }
            let footer = page.map { ListFooter.table($0) + "\n" } ?? ""
            guard !shown.isEmpty else { return footer }
            let numeric = Set(columns.indices.filter { columns[$0].numeric })
            return Output.table(columns.map { $0.name.uppercased().replacingOccurrences(of: "_", with: " ") },
                                shown.map { $0.map(\.display) }, rightAligned: numeric) + "\n" + footer
        }
    }

    /// Prints page `page` of the list in `format` to standard output (``render(_:page:empty:context:)``),
    /// and for a CSV that is not the whole list, which page it is on standard error.
    func print(_ format: ListFormatOptions.Format, page: ListPage?, empty: String, context: [(String, String)] = []) {
        TallyCLI.print(render(format, page: page, empty: empty, context: context), terminator: "")
        if format == .csv, let page { ListFooter.noteCSV(page) }
    }

    /// Prints the page `options` ask for of the list, read as of `asOf` as known at `knownAt`
    /// (``ListFormatOptions/page(of:_:asOf:knownAt:)``), in the form they choose.
    func print(_ options: ListFormatOptions, _ ledger: Ledger, asOf: Instant?, knownAt: Instant?, empty: String, context: [(String, String)] = []) throws {
        print(options.chosen, page: try options.page(of: rows.count, ledger, asOf: asOf, knownAt: knownAt), empty: empty, context: context)
    }
}
