import Foundation
import Testing

/// Issue 32, rule 7: the `page_size` setting is the default page size of every list, not
/// only of `tx list`. A household in Auckland keeps three of everything, sets two rows a page
/// from February, and reads each list as a table, as CSV and as JSON, page by page.
@Suite struct ListPagingCommandTests {
    /// A list's JSON answer: its items and its paging.
    private static func json(_ home: BudgetStore, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> (items: [[String: Any]], paging: [String: Int]) {
        let output = try home.run(arguments + ["--format", "json"], sourceLocation: sourceLocation)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)", sourceLocation: sourceLocation)
        let items = try #require(answer["items"] as? [[String: Any]], "\(output)", sourceLocation: sourceLocation)
        let paging = try #require(answer["paging"] as? [String: Int], "\(output)", sourceLocation: sourceLocation)
        return (items, paging)
    }

    /// Every list command, with three items of each kind the household keeps (dated in January,
    /// or made today), read today.
    private static let lists: [[String]] = [
        ["pot", "list"], ["asset", "list"], ["liability", "list"], ["liability", "milestones"], ["envelope", "list"],
        ["challenge", "list"], ["recurring", "list"], ["recurring", "bills"], ["rates"], ["bank", "list"], ["account", "list"],
        ["reminder", "list"], ["notifications"], ["networth", "series", "--from", "2026-01", "--to", "2026-03"],
        ["tx", "list", "--from", "2026-01-01"],
    ]

    private static func household() throws -> BudgetStore {
        let home = try BudgetStore(initArguments: ["--time-zone", "Pacific/Auckland", "--base-currency", "NZD"])
        for number in 1...3 {
            try home.run(["pot", "create", "pot\(number)", "--name", "Pot \(number)", "--target", "100.00"])
            try home.run(["asset", "add", "asset\(number)", "--name", "Asset \(number)", "--category", "cash", "--type", "cash", "--currency", "NZD", "--date", "2026-01-0\(number)"])
            try home.run(["liability", "add", "loan\(number)", "--name", "Loan \(number)", "--category", "loan", "--currency", "NZD", "--date", "2026-01-0\(number)"])
            try home.run(["liability", "value", "loan\(number)", "500.00", "--date", "2026-01-0\(number)"])
            try home.run(["envelope", "create", "envelope\(number)", "--budget", "100.00", "--start", "2026-01-0\(number)"])
            try home.run(["challenge", "start", "challenge\(number)", "--template", "52_week", "--unit", "1.00", "--date", "2026-01-0\(number)"])
            try home.run(["recurring", "define", "bill\(number)", "--payee", "Vendor \(number)", "--category", "Bills", "--amount", "-10.00", "--day", "\(number)", "--start", "2026-01"])
            try home.run(["fx", ["USD", "AUD", "JPY"][number - 1], "NZD", "1.5", "--date", "2026-01-0\(number)"])
            try home.run(["bank", "connect", "bank\(number)"])
            try home.run(["envelope", "account-open", "Assets:Bank\(number)", "--opening", "100.00", "--date", "2026-01-0\(number)"])
            try home.run(["reminder", "set", "reminder\(number)", "--asset", "asset\(number)", "--due", "2026-01-1\(number)"])
            try home.run(["tx", "add", "--payee", "Market \(number)", "--category", "General", "--amount", "-5.00", "--date", "2026-01-0\(number)"])
        }
        try home.run(["settings", "set", "page-size", "2", "--date", "2026-02-01"])
        return home
    }

    @Test func everyListPagesByTheSettingInForceAtItsAsOfInEveryForm() throws {
        let home = try Self.household()
        for list in Self.lists {
            let arguments = list
            let first = try Self.json(home, arguments)
            let total = try #require(first.paging["total_count"], "\(list)")
            #expect(list == ["notifications"] || total >= 3, "\(list): the household keeps three: \(first.paging)")
            let pages = max(1, (total + 1) / 2)
            #expect(first.paging == ["page": 1, "page_size": 2, "page_count": pages, "total_count": total], "\(list): \(first.paging)")
            #expect(first.items.count == min(2, total), "\(list): \(first.items.count) items")
            let second = try Self.json(home, arguments + ["--page", "2"])
            #expect(second.paging["page"] == 2 && second.items.count == max(0, min(2, total - 2)), "\(list): \(second.paging)")
            let beyond = try Self.json(home, arguments + ["--page", String(pages + 1)])
            #expect(beyond.items.isEmpty && beyond.paging["total_count"] == total, "\(list): a page beyond the last is empty: \(beyond.paging)")
            let whole = try Self.json(home, arguments + ["--page-size", "500"])
            #expect(whole.items.count == total && whole.paging["page_count"] == 1, "\(list): \(whole.paging)")

            let table = try home.run(arguments)
            if total > 0 {
                #expect(table.hasSuffix("page 1 of \(pages) (\(total) item\(total == 1 ? "" : "s"))\n"), "\(list): \(table)")
            }
            let csv = try TallyProcess.run(arguments + ["--format", "csv"] + home.storeArguments)
            let lines = csv.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == 1 + first.items.count, "\(list): the page's rows: \(csv.standardOutput)")
            #expect(csv.standardError.contains(total > 2 ? "note: page 1 of \(pages) (\(total) items)" : ""), "\(list): \(csv.standardError)")
        }
    }

    @Test func beforeTheSettingTookEffectAListIsOnePageOfTheDefaultTenRows() throws {
        let home = try Self.household()
        let january = try Self.json(home, ["asset", "list", "--as-of", "2026-01-31"])
        #expect(january.paging == ["page": 1, "page_size": 10, "page_count": 1, "total_count": 3], "\(january.paging)")
        #expect(january.items.count == 3)
        let asked = try Self.json(home, ["asset", "list", "--page-size", "1", "--page", "3"])
        #expect(asked.paging == ["page": 3, "page_size": 1, "page_count": 3, "total_count": 3], "\(asked.paging)")
        #expect(asked.items.first?["asset"] as? String == "asset3", "\(asked.items)")
        for (arguments, message) in [(["--page", "0"], "the page must be 1 or more"), (["--page-size", "501"], "the page size must be 1 to 500")] {
            let refused = try TallyProcess.run(["pot", "list"] + arguments + home.storeArguments)
            #expect(refused.status != 0 && refused.standardError.contains(message), "\(arguments): \(refused.standardError)")
        }
    }
}
