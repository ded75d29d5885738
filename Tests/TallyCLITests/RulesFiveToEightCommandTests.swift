import Foundation
import Testing

/// Issue 32, rules 5 to 8, as a user meets them on the command line: round-ups skipped and
/// said so for a currency without an increment; the recurring bills list; the page size
/// setting and grouped money in tables (plain in CSV and JSON); names, tickers, a paid-off
/// liability and `--as-of` instants.
@Suite struct RulesFiveToEightCommandTests {
    private struct Household {
        let directory: TemporaryDirectory
        var path: String { directory.path + "/home" }

        init() throws {
            directory = try TemporaryDirectory()
            let created = try TallyProcess.run(["init", "--store", directory.path + "/home", "--time-zone", "UTC"])
            try #require(created.status == 0, "\(created.standardError)")
        }

        @discardableResult
        func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> TallyRun {
            let result = try TallyProcess.run(arguments + ["--store", path])
            #expect(result.status == 0, "tally \(arguments.joined(separator: " ")): \(result.standardError)", sourceLocation: sourceLocation)
            return result
        }

        /// Runs a command that must be refused, and checks that it changed no file.
        func refused(_ arguments: [String], saying text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let before = try directory.snapshot("home").filter { !$0.key.hasSuffix("-shm") }
            let result = try TallyProcess.run(arguments + ["--store", path])
            #expect(result.status != 0, "tally \(arguments.joined(separator: " ")) was taken", sourceLocation: sourceLocation)
            #expect(result.standardError.contains(text), "\(result.standardError)", sourceLocation: sourceLocation)
            #expect(try directory.snapshot("home").filter { !$0.key.hasSuffix("-shm") } == before, "the store is as it was", sourceLocation: sourceLocation)
        }
    }

    @Test func aBitcoinPurchaseRoundsUpByNothingAndSaysSo() throws {
        let home = try Household()
        try home.run(["wealth", "deposit", "0.5", "--currency", "BTC"])
        try home.run(["wealth", "round-ups", "on"])
        let purchase = try home.run(["wealth", "purchase", "0.00012345", "--currency", "BTC", "--merchant", "Node shop"]).standardOutput
        #expect(purchase.contains("round-up skipped: BTC has no round-up increment, nothing moved"), "\(purchase)")
        #expect(purchase.contains("round-ups skipped in BTC"), "\(purchase)")
        let summary = try home.run(["wealth", "summary", "--json"]).standardOutput
        #expect(summary.contains(#""invest":{"amount":"0.15000000","currency":"BTC"},"total":{"amount":"0.49987655","currency":"BTC"},"round_up_increment":null,"round_ups_skipped":true"#), "\(summary)")
        try home.run(["wealth", "round-up-increment", "BTC", "0.001"])
        let second = try home.run(["wealth", "purchase", "0.0102", "--currency", "BTC", "--merchant", "Node shop"]).standardOutput
        #expect(second.contains("round-up of 0.00080000 BTC moved from Spend to Invest"), "\(second)")
        try home.refused(["wealth", "round-up-increment", "BTC", "0"], saying: "more than zero")
    }

    @Test func theBillsListShowsEachVendorOnceWithItsStateAndSortsAndSearches() throws {
        let home = try Household()
        try home.run(["tx", "add", "--payee", "Netflix", "--category", "Entertainment", "--amount", "-15.99", "--date", "2026-03-15", "--recurring"])
        try home.run(["tx", "add", "--payee", "Netflix", "--category", "Entertainment", "--amount", "-15.99", "--date", "2026-04-15", "--recurring"])
        try home.run(["tx", "add", "--payee", "Electricity", "--category", "Bills", "--amount", "-84.10", "--date", "2026-02-10", "--recurring"])
        try home.run(["tx", "add", "--payee", "Gym", "--category", "Personal Care", "--amount", "-30.00", "--date", "2026-03-29", "--recurring"])
        let csv = try home.run(["recurring", "bills", "--today", "2026-04-27", "--sort", "name-az", "--format", "csv"]).standardOutput
        #expect(csv == """
            vendor,category,amount,currency,state,next_due,last_paid,source,recurring_id
            Electricity,Bills,-84.10,USD,overdue,2026-03-10,2026-02-10,flagged,
            Gym,Personal Care,-30.00,USD,due_soon,2026-04-29,2026-03-29,flagged,
            Netflix,Entertainment,-15.99,USD,paid,2026-05-15,2026-04-15,flagged,

            """, "\(csv)")
        let search = try home.run(["recurring", "bills", "--today", "2026-04-27", "--search", "fLiX", "--json"]).standardOutput
        #expect(search.contains(#""total_count":1}"#) && search.contains(#""vendor":"Netflix""#), "\(search)")
        let byAmount = try home.run(["recurring", "bills", "--today", "2026-04-27", "--sort", "amount-high", "--format", "csv"]).standardOutput
        #expect(byAmount.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[0] } == ["Electricity", "Gym", "Netflix"])
        try home.refused(["recurring", "bills", "--sort", "cheapest"], saying: "--sort must be one of")
    }

    @Test func listsPageByTheSettingAndTablesGroupMoneyWhileCSVAndJSONStayPlain() throws {
        let home = try Household()
        for number in 1...5 {
            try home.run(["tx", "add", "--payee", "Employer \(number)", "--category", "General", "--amount", "3200.00", "--date", "2026-05-0\(number)"])
        }
        try home.run(["settings", "set", "page-size", "3", "--date", "2026-01-01"])
        let list = try home.run(["tx", "list", "--json", "--as-of", "2026-05-31"]).standardOutput
        #expect(list.contains(#""page_size":3"#) && list.components(separatedBy: #""payee":"#).count - 1 == 3, "\(list)")
        let table = try home.run(["tx", "list", "--as-of", "2026-05-31"]).standardOutput
        #expect(table.contains("3,200.00") && !table.contains("3200.00"), "\(table)")
        let csv = try home.run(["balances", "--format", "csv", "--as-of", "2026-05-31"]).standardOutput
        #expect(csv.contains(",16000.00") && !csv.contains("16,000.00"), "\(csv)")
        let balances = try home.run(["balances", "--as-of", "2026-05-31"]).standardOutput
        #expect(balances.contains("16,000.00"), "\(balances)")
    }

    @Test func aNetWorthChangeIsSignedWithItsArrow() throws {
        let home = try Household()
        try home.run(["asset", "add", "cash", "--name", "Cash", "--category", "cash", "--type", "cash", "--currency", "GBP", "--date", "2026-01-01"])
        try home.run(["settings", "set", "base-currency", "GBP", "--date", "2026-01-01"])
        try home.run(["asset", "value", "cash", "1000.00", "--date", "2026-04-01"])
        try home.run(["asset", "value", "cash", "4200.00", "--date", "2026-04-20"])
        let change = try home.run(["networth", "change", "--as-of", "2026-05-01"]).standardOutput
        #expect(change.contains("1,000.00 GBP to 4,200.00 GBP: +3,200.00 GBP ↑ over 30 days"), "\(change)")
    }

    @Test func namesTickersAPaidOffLiabilityAndAnInstantAsOf() throws {
        let home = try Household()
        try home.refused(["asset", "add", "car", "--name", "   ", "--category", "other", "--type", "custom", "--currency", "USD"],
                         saying: "the asset name is required")
        let long = String(repeating: "A very long name for a car ", count: 3)
        let added = try home.run(["asset", "add", "car", "--name", long, "--category", "other", "--type", "custom", "--currency", "USD", "--symbol", " tsla ", "--date", "2026-01-01"])
        #expect(added.standardError.contains("note: the asset name has 80 characters, more than 50"), "\(added.standardError)")
        let assets = try home.run(["asset", "list", "--json"]).standardOutput
        #expect(assets.contains(#""name":"A very long name for a car A very long name for a""#), "\(assets)")
        try home.run(["asset", "position", "car", "1", "--symbol", " tsla ", "--date", "2026-01-01"])
        try home.run(["price", " tsla", "80.123", "--currency", "USD", "--date", "2026-01-01"])
        let items = try home.run(["asset", "list", "--json", "--as-of", "2026-03-01"]).standardOutput
        #expect(items.contains(#""value":{"amount":"80.12","currency":"USD"}"#) || items.contains("80.12"), "1 TSLA at 80.123 USD: \(items)")
        try home.run(["liability", "add", "card", "--name", "Card", "--category", "credit_card", "--currency", "USD", "--date", "2026-01-01"])
        try home.run(["liability", "value", "card", "250.00", "--date", "2026-02-01"])
        try home.run(["liability", "value", "card", "0", "--date", "2026-03-01"])
        let paid = try home.run(["networth", "--as-of", "2026-03-01T12:00:00Z", "--json"]).standardOutput
        #expect(paid.contains(#""liabilities":{"amount":"0.00","currency":"USD"}"#) || paid.contains(#""liabilities":"0.00""#), "\(paid)")
        let owing = try home.run(["networth", "--as-of", "2026-02-28T23:59:59Z", "--json"]).standardOutput
        #expect(owing.contains("250.00"), "\(owing)")
        try home.refused(["networth", "--as-of", "yesterday"], saying: "--as-of")
    }
}
