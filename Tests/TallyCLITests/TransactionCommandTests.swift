import Foundation
import Testing
import PostgresTestSupport

@Suite struct TransactionCommandTests {
    @Test(arguments: LogBackend.allCases) func aManualTransactionIsRecordedAmendedAndListed(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        let added = try store.run(["tx", "add", "--payee", "Corner shop", "--category", "Groceries", "--amount", "-12.40", "--date", "2026-05-03"])
        #expect(added.hasPrefix("Recorded manual:2"))
        try store.run(["tx", "amend", "manual:2", "--amount", "-13.40"])
        let listed = try store.run(["tx", "list", "--month", "2026-05"])
        #expect(listed.contains("Corner shop"))
        #expect(listed.contains("-13.40"))
        #expect(!listed.contains("-12.40"))
        let history = try store.run(["tx", "history", "manual:2", "--json"])
        #expect(history.contains("\"total_count\":2"), "\(history)")
        #expect(history.contains("\"change\":\"recorded\"") && history.contains("\"change\":\"amended\""))
    }

    @Test(arguments: LogBackend.allCases) func aBankTransactionImportsOnceAndRefusesAmendment(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["bank", "connect", "chase", "--name", "Chase"])
        let arguments = ["tx", "import-bank", "--bank", "chase", "--external-id", "T-1", "--payee", "Netflix",
                         "--category", "entertainment", "--amount", "-15.49", "--date", "2026-05-04"]
        #expect(try store.run(arguments).contains("(seq 3)"))
        #expect(try store.run(arguments).contains("already applied with this idempotency key"))
        try store.expectRefused(["tx", "amend", "bank:chase:T-1", "--amount", "-1.00"], "can only be re-categorised")
        try store.expectRefused(["tx", "delete", "bank:chase:T-1"], "can only be re-categorised")
        try store.run(["tx", "recategorise", "bank:chase:T-1", "--category", "bills"])
        try store.run(arguments)
        let json = try store.run(["tx", "list", "--json"])
        #expect(json.contains("\"total_count\":1"))
        #expect(json.contains("\"category\":\"bills\""))
        try store.run(["bank", "disconnect", "chase"])
        #expect(try store.run(["tx", "list", "--json"]).contains("\"total_count\":1"))
    }

    @Test(arguments: LogBackend.allCases) func aDeletedTransactionLeavesTheList(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["tx", "add", "--payee", "Cafe", "--category", "dining out", "--amount", "-4.50", "--date", "2026-05-03", "--id", "coffee"])
        try store.run(["tx", "delete", "coffee"])
        #expect(try store.run(["tx", "list", "--json"]).contains("\"total_count\":0"))
        try store.expectRefused(["tx", "delete", "coffee"], "no budget transaction 'coffee'")
    }

    @Test(arguments: LogBackend.allCases) func listPagesSearchesAndSorts(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        for (payee, amount, date) in [("Alpha", "-10.00", "2026-05-01"), ("beta", "-30.00", "2026-05-02"), ("Gamma", "-20.00", "2026-05-03")] {
            try store.run(["tx", "add", "--payee", payee, "--category", "shopping", "--amount", amount, "--date", date])
        }
        let byAmount = try store.run(["tx", "list", "--sort", "amount", "--ascending", "--json"])
        let order = ["beta", "Gamma", "Alpha"].map { byAmount.range(of: "\"payee\":\"\($0)\"")!.lowerBound }
        #expect(order == order.sorted())
        let page = try store.run(["tx", "list", "--sort", "name", "--page", "2", "--page-size", "2", "--json"])
        #expect(page.contains("\"page_count\":2"))
        #expect(page.contains("\"payee\":\"Alpha\""))
        #expect(!page.contains("\"payee\":\"Gamma\""))
        let found = try store.run(["tx", "list", "--search", "ETA", "--json"])
        #expect(found.contains("\"total_count\":1") && found.contains("\"payee\":\"beta\""))
    }

    @Test(arguments: LogBackend.allCases) func badInputIsRefusedAndTheStoreIsUnchanged(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["tx", "add", "--payee", "Gym", "--category", "personal care", "--amount", "-30.00", "--date", "2026-05-01", "--id", "gym"])
        try store.expectRefused(["tx", "add", "--payee", "Gym", "--category", "Rent", "--amount", "-1.00", "--date", "2026-05-01"], "'Rent' is not a category")
        try store.expectRefused(["tx", "add", "--payee", "Gym", "--category", "bills", "--amount", "-1.001", "--date", "2026-05-01"], "decimal places")
        try store.expectRefused(["tx", "add", "--payee", "Gym", "--category", "bills", "--amount", "-1.00", "--date", "2026-02-30"], "not a calendar date")
        try store.expectRefused(["tx", "add", "--payee", "Gym", "--category", "bills", "--amount", "-1.00", "--date", "2026-05-01", "--id", "gym"], "exists already")
        try store.expectRefused(["tx", "import-bank", "--bank", "citi", "--external-id", "1", "--payee", "X", "--category", "bills",
                                 "--amount", "-1.00", "--date", "2026-05-01"], "never connected")
        try store.expectRefused(["tx", "list", "--page-size", "0"], "page size")
    }
}
