import ArgumentParser
import Tally

/// How a list command prints (`pot list`, `account list`, `asset list`, `rates`, …), the same
/// flags on each: a table for people (the default), `--format csv` (one header line in
/// snake_case, then one row per item, a spreadsheet opens it) or `--format json` (one list
/// answer, `{"items":[…],"paging":{…}}`: ``JSONText``); `--json` is `--format json`.
struct ListFormatOptions: ParsableArguments {
    /// The three forms of a list.
    enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, json }

    @Option(help: "table (default), csv (a header line, then one row per item) or json (one object: items and paging).")
    var format: Format?

    @Flag(help: "The same as --format json.") var json = false

    func validate() throws {
        if json, let format, format != .json { throw ValidationError("give --json or --format \(format.rawValue), not both") }
    }

    /// The form chosen.
    var chosen: Format { json ? .json : format ?? .table }
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

    /// The list in `format`; a table with no rows prints `empty` instead. JSON is one list
    /// answer (``JSONText/list(_:paging:context:)``), `context` its fields before `items`.
    func render(_ format: ListFormatOptions.Format, empty: String, context: [(String, String)] = []) -> String {
        switch format {
        case .csv:
            return ([CSVWriter.line(columns.map(\.name))] + rows.map { CSVWriter.line($0.map(\.plain)) }).map { $0 + "\n" }.joined()
        case .json:
            return JSONText.list(rows.map { row in Output.jsonObject(zip(columns, row).map { ($0.name, $1.json) }) }, context: context) + "\n"
        case .table:
            guard !rows.isEmpty else { return empty + "\n" }
            let numeric = Set(columns.indices.filter { columns[$0].numeric })
            return Output.table(columns.map { $0.name.uppercased().replacingOccurrences(of: "_", with: " ") },
                                rows.map { $0.map(\.display) }, rightAligned: numeric) + "\n"
        }
    }

    /// Prints the list in `format` to standard output.
    func print(_ format: ListFormatOptions.Format, empty: String, context: [(String, String)] = []) {
        Swift.print(render(format, empty: empty, context: context), terminator: "")
    }
}
