import Foundation
import Tally
import Testing

/// Issue 32, "every report in every format": a household that keeps its books in a spreadsheet
/// opens every report it reads on screen (`tx list`, `budget show`, `overview`, `envelope
/// status`, `recurring status`, `networth`) as CSV: a header naming every column, one row per
/// item, plain amounts (no grouping, no arrow), a payee with a comma and a quote quoted as
/// RFC 4180 says, and the same figures the JSON gives.
@Suite struct ReportCSVCommandTests {
    /// This month and its first day in New York, the store's time zone: what is dated then
    /// is dated by today whatever the hour.
    private static func thisMonth() -> (month: String, first: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/New_York")!
        let parts = calendar.dateComponents([.year, .month], from: Date())
        let month = String(format: "%04d-%02d", parts.year!, parts.month!)
        return (month, month + "-01")
    }

    /// The CSV's records, read back by the strict RFC 4180 reader `tally import` uses.
    private static func records(_ csv: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String]] {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/report.csv"
        try Data(csv.utf8).write(to: URL(fileURLWithPath: path))
        let reader = try CSVReader(path: path, usesFastPath: true)
        var records: [[String]] = []
        while let record = try reader.next() { records.append(record.fields) }
        #expect(csv.hasSuffix("\n"), "every line ends with LF", sourceLocation: sourceLocation)
        return records
    }

    /// The rows as dictionaries by column, after checking that the header is `header` and
    /// every row has a cell for every column.
    private static func rows(_ csv: String, header: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: String]] {
        let records = try records(csv, sourceLocation: sourceLocation)
        let columns = header.split(separator: ",").map(String.init)
        #expect(records.first == columns, "the header names every column: \(csv)", sourceLocation: sourceLocation)
        for record in records.dropFirst() {
            #expect(record.count == columns.count, "a cell per column: \(record)", sourceLocation: sourceLocation)
        }
        return records.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(columns, $0)) }
    }

    /// A household's month: pay, rent and a meal at a diner whose name holds a comma and a
    /// quote; a budget for dining out, a pot, rent as a recurring bill, an envelope account.
    private static func household() throws -> (store: BudgetStore, month: String) {
        let store = try BudgetStore()
        let (month, first) = thisMonth()
        try store.run(["tx", "add", "--payee", "Employer", "--category", "General", "--amount", "3200.00", "--date", first])
        try store.run(["tx", "add", "--payee", "Landlord", "--category", "Bills", "--amount", "-1200.00", "--date", first])
        try store.run(["tx", "add", "--payee", #"Joe's "Diner", NYC"#, "--category", "Dining Out", "--amount", "-1045.50", "--date", first])
        try store.run(["budget", "set", "--category", "Dining Out", "--month", month, "--maximum", "1000.00"])
        try store.run(["pot", "create", "trip", "--name", "Trip", "--target", "2500.00"])
        try store.run(["pot", "add", "trip", "500.00"])
        try store.run(["recurring", "define", "rent", "--payee", "Landlord", "--category", "Bills", "--amount", "-1200.00", "--day", "1", "--start", month])
        try store.run(["envelope", "account-open", "Assets:Bank", "--opening", "5000.00", "--date", first])
        try store.run(["envelope", "create", "dining", "--name", "Dining, out", "--budget", "1500.00", "--start", first])
        try store.run(["envelope", "record", "t1", "--account", "Assets:Bank", "--amount=-1045.50", "--envelope", "dining", "--date", first])
        return (store, month)
    }

    @Test func theTransactionListOpensInASpreadsheetAsTheExportWritesIt() throws {
        let (store, _) = try Self.household()
        let csv = try store.run(["tx", "list", "--format", "csv", "--sort", "name", "--ascending"])
        let rows = try Self.rows(csv, header: BudgetTransactionsCSV.header)
        #expect(rows.map { $0["payee"] } == ["Employer", #"Joe's "Diner", NYC"#, "Landlord"], "\(csv)")
        #expect(rows.map { $0["amount"] } == ["3200.00", "-1045.50", "-1200.00"], "plain amounts: \(csv)")
        #expect(csv.contains(#""Joe's ""Diner"", NYC""#), "RFC 4180 quoting: \(csv)")
        // The page the table shows: a page size of 2 gives the first two.
        #expect(try Self.rows(try store.run(["tx", "list", "--format", "csv", "--page-size", "2"]), header: BudgetTransactionsCSV.header).count == 2)
        let refused = try TallyProcess.run(["tx", "list", "--json", "--format", "csv"] + store.storeArguments)
        #expect(refused.status != 0 && refused.standardError.contains("not both"), "\(refused.standardError)")
    }

    @Test func theBudgetsAndTheRecurringBillsOpenAsOneRowEach() throws {
        let (store, month) = try Self.household()
        let budgets = try Self.rows(try store.run(["budget", "show", "--month", month, "--format", "csv"]), header: BudgetsCSV.header)
        #expect(budgets.count == 1)
        #expect(budgets.first?["category"] == "Dining Out" && budgets.first?["maximum"] == "1000.00" && budgets.first?["spent"] == "1045.50")
        #expect(budgets.first?["remaining"] == "-45.50" && budgets.first?["over_budget"] == "true" && budgets.first?["currency"] == "USD")
        // The base currency is the budget's: the amounts in it are the same.
        #expect(budgets.first?["base_currency"] == "USD" && budgets.first?["spent_in_base"] == "1045.50")

        let status = try store.run(["recurring", "status", "--month", month, "--format", "csv"])
        let bills = try Self.rows(status, header: RecurringStatusCSV.header)
        #expect(bills.count == 1 && bills.first?["id"] == "rent" && bills.first?["amount"] == "-1200.00", "\(status)")
        #expect(bills.first?["state"] == "paid" && bills.first?["due"] == month + "-01", "the rent paid on the first: \(status)")
        #expect(bills.first?["transaction_id"]?.isEmpty == false, "\(status)")
    }

    @Test func theOverviewScreenOpensAsOneRowPerFigureAgreeingWithItsJSON() throws {
        let (store, month) = try Self.household()
        let csv = try store.run(["overview", "--format", "csv"])
        let rows = try Self.rows(csv, header: BudgetScreenCSV.header)
        func figure(_ section: String, _ measure: String, id: String = "") -> String? {
            rows.first { $0["section"] == section && $0["measure"] == measure && $0["id"] == id }?["amount"]
        }
        #expect(Set(rows.map { $0["month"] }) == [month])
        #expect(figure("overview", "income") == "3200.00" && figure("overview", "expenses") == "2245.50", "\(csv)")
        #expect(figure("overview", "net") == "954.50" && figure("overview", "held_in_pots") == "500.00", "\(csv)")
        #expect(figure("pot", "target", id: "trip") == "2500.00" && figure("pots", "total") == "500.00", "\(csv)")
        #expect(figure("budget", "remaining", id: "dining_out") == "-45.50", "\(csv)")
        #expect(rows.filter { $0["section"] == "transaction" }.count == 3, "the latest transactions: \(csv)")
        #expect(figure("recurring_total", "bills", id: "paid") == "1200.00", "\(csv)")
        // The same figures as the JSON answer.
        let json = try store.run(["overview", "--json"])
        for measure in ["current_balance", "held_in_pots", "income", "expenses", "net"] {
            let amount = try #require(figure("overview", measure))
            #expect(json.contains(#""\#(measure)":{"amount":"\#(amount)","currency":"USD"}"#), "\(measure) \(amount): \(json)")
        }
    }

    @Test func envelopeStatusOpensAsOneRowPerEnvelope() throws {
        let (store, _) = try Self.household()
        let csv = try store.run(["envelope", "status", "--format", "csv"])
        let rows = try Self.rows(csv, header: EnvelopeStatusCSV.header)
        #expect(rows.count == 1 && rows.first?["name"] == "Dining, out", "\(csv)")
        #expect(rows.first?["budgeted"] == "1500.00" && rows.first?["spent"] == "1045.50" && rows.first?["remaining"] == "454.50", "\(csv)")
        #expect(rows.first?["over_budget"] == "false" && rows.first?["currency"] == "USD", "\(csv)")
        #expect(try store.run(["envelope", "status", "dining", "--format", "csv"]) == csv, "one envelope's row is its row on the board")
    }

    @Test func everyReportHasCSVAndEveryTableAHeaderForEveryColumn() throws {
        let (store, month) = try Self.household()
        for command in [["tx", "list"], ["budget", "show", "--month", month], ["overview"], ["networth"], ["envelope", "status"],
                        ["recurring", "status"], ["recurring", "list"], ["pot", "list"]] {
            let csv = try store.run(command + ["--format", "csv"])
            let records = try Self.records(csv)
            let header = try #require(records.first, "\(command): \(csv)")
            #expect(!header.contains(""), "\(command): every column is named: \(header)")
            for record in records.dropFirst() {
                #expect(record.count == header.count, "\(command): \(record)")
                #expect(!record.contains { $0.contains("↑") || $0.contains("↓") }, "\(command): no arrows in CSV: \(record)")
            }
            #expect(!csv.contains("3,200.00") && !csv.contains("1,045.50"), "\(command): plain amounts: \(csv)")
        }
    }

    @Test func theChangeInNetWorthOpensAsOneRowAgreeingWithItsJSONAndItsTable() throws {
        let store = try BudgetStore()
        try store.run(["asset", "add", "savings", "--name", "Savings", "--category", "cash", "--type", "cash", "--currency", "USD", "--date", "2026-03-01"])
        try store.run(["asset", "value", "savings", "10000.00", "--date", "2026-03-01"])
        try store.run(["asset", "value", "savings", "13200.00", "--date", "2026-03-31"])
        let asked = ["networth", "change", "--as-of", "2026-04-01", "--days", "30"]
        let rows = try Self.rows(try store.run(asked + ["--format", "csv"]), header: NetWorthChangeCSV.header)
        #expect(rows == [[
            "start_at": "2026-03-03T03:59:59.999999Z", "end_at": "2026-04-02T03:59:59.999999Z", "days": "30", "start": "10000.00", "end": "13200.00",
            "change": "3200.00", "currency": "USD", "complete": "true",
        ]], "\(rows)")
        let json = try store.run(asked + ["--format", "json"])
        #expect(json.contains(#""start":{"amount":"10000.00","currency":"USD"},"end":{"amount":"13200.00","currency":"USD"},"change":{"amount":"3200.00","currency":"USD"},"days":30"#), "\(json)")
        #expect(try store.run(asked + ["--json"]) == json)
        let table = try store.run(asked)
        #expect(table.contains("+3,200.00 USD ↑ over 30 days"), "\(table)")
    }
}
