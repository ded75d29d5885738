import Foundation
import Testing

/// Issue 32, the recurring screen's search and six orders (docs/domain.md §2) on every
/// recurring answer: a household with rent, a phone plan, a streaming service and a salary
/// searches and sorts `recurring status` and `recurring list` exactly as `recurring bills`.
@Suite struct RecurringOrderCommandTests {
    private static func household() throws -> BudgetStore {
        let store = try BudgetStore()
        for (id, payee, amount, day) in [("rent", "Landlord", "-1200.00", "1"), ("phone", "Phone Co", "-35.00", "20"),
                                         ("stream", "Netflix", "-15.99", "12"), ("salary", "Employer", "3000.00", "25")] {
            try store.run(["recurring", "define", id, "--payee", payee, "--category", id == "salary" ? "General" : "Bills",
                           "--amount", amount, "--day", day, "--start", "2027-03"])
        }
        return store
    }

    /// The ids in the order a command printed them (CSV, the id column named `id`).
    private static func ids(_ csv: String) -> [String] {
        let lines = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first, let column = header.firstIndex(of: "id") else { return [] }
        return lines.dropFirst().map { $0[column] }
    }

    @Test func statusAndListSortAsTheBillsListDoes() throws {
        let store = try Self.household()
        let orders: [(String, [String])] = [
            ("name-az", ["salary", "rent", "stream", "phone"]),
            ("name-za", ["phone", "stream", "rent", "salary"]),
            ("amount-high", ["salary", "rent", "phone", "stream"]),
            ("amount-low", ["stream", "phone", "rent", "salary"]),
            ("due-soonest", ["rent", "stream", "phone", "salary"]),
            ("due-latest", ["salary", "phone", "stream", "rent"]),
        ]
        for (sort, expected) in orders {
            let status = try store.run(["recurring", "status", "--month", "2027-03", "--today", "2027-03-01", "--sort", sort, "--format", "csv"])
            #expect(Self.ids(status) == expected, "status --sort \(sort): \(status)")
            let list = try store.run(["recurring", "list", "--as-of", "2027-03-01", "--sort", sort, "--format", "csv"])
            #expect(Self.ids(list) == expected, "list --sort \(sort): \(list)")
            let bills = try store.run(["recurring", "bills", "--today", "2027-03-01", "--sort", sort, "--format", "csv"])
            let vendors = bills.split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[0]) }
            let payees = ["rent": "Landlord", "phone": "Phone Co", "stream": "Netflix", "salary": "Employer"]
            #expect(vendors == expected.map { payees[$0]! }, "bills --sort \(sort): \(bills)")
        }
    }

    @Test func aSearchFindsByPayeeIgnoringCaseAndTheTotalsStayTheMonths() throws {
        let store = try Self.household()
        let all = try store.run(["recurring", "status", "--month", "2027-03", "--today", "2027-03-01", "--json"])
        let found = try store.run(["recurring", "status", "--month", "2027-03", "--today", "2027-03-01", "--search", "  fLiX ", "--json"])
        #expect(found.contains(#""payee":"Netflix""#) && !found.contains(#""payee":"Landlord""#), "\(found)")
        // The totals are the month's whatever the search: the same as without it.
        let totals = { (json: String) in json.components(separatedBy: #""paid":"#).last?.components(separatedBy: #","items":"#).first ?? "" }
        #expect(totals(found) == totals(all), "\(found)\n\(all)")
        #expect(Self.ids(try store.run(["recurring", "list", "--as-of", "2027-03-01", "--search", "CO", "--format", "csv"])) == ["phone"])
        #expect(try store.run(["recurring", "list", "--as-of", "2027-03-01", "--search", "nobody", "--format", "csv"]).split(separator: "\n").count == 1)
        let refused = try TallyProcess.run(["recurring", "status", "--sort", "cheapest"] + store.storeArguments)
        #expect(refused.status != 0 && refused.standardError.contains("--sort must be one of"), "\(refused.standardError)")
    }
}
