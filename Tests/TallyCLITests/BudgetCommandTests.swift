import Foundation
import Testing
import PostgresTestSupport

@Suite struct BudgetCommandTests {
    @Test(arguments: LogBackend.allCases) func aBudgetShowsSpentAndRemaining(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["budget", "set", "--category", "Groceries", "--month", "2026-05", "--maximum", "400.00"])
        try store.run(["tx", "add", "--payee", "Market", "--category", "groceries", "--amount", "-50.00", "--date", "2026-05-02"])
        try store.run(["tx", "add", "--payee", "Market", "--category", "groceries", "--amount", "-70.00", "--date", "2026-06-02"])
        let shown = try store.run(["budget", "show", "--month", "2026-05", "--json"])
        #expect(shown.contains("\"spent\":{\"amount\":\"50.00\",\"currency\":\"USD\"}"))
        #expect(shown.contains("\"remaining\":{\"amount\":\"350.00\",\"currency\":\"USD\"}"))
        #expect(try store.run(["budget", "show", "--month", "2026-05"]).contains("Groceries"))
        try store.run(["budget", "delete", "--category", "groceries", "--month", "2026-05"])
        #expect(try store.run(["budget", "show", "--month", "2026-05", "--json"]).contains("\"items\":[],\"paging\":{\"page\":1,\"page_size\":0,\"page_count\":1,\"total_count\":0}"))
        #expect(try store.run(["tx", "list", "--json"]).contains("\"total_count\":2"))
        try store.expectRefused(["budget", "delete", "--category", "groceries", "--month", "2026-05"], "no Groceries budget for 2026-05")
        try store.expectRefused(["budget", "set", "--category", "groceries", "--month", "2026-13", "--maximum", "1.00"], "not a month")
    }

    @Test(arguments: LogBackend.allCases) func theOverviewGivesTheMonthsFlows(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["tx", "add", "--payee", "Employer", "--category", "general", "--amount", "2000.00", "--date", "2026-05-01"])
        try store.run(["tx", "add", "--payee", "Landlord", "--category", "bills", "--amount", "-900.00", "--date", "2026-05-02"])
        let overview = try store.run(["overview", "--month", "2026-05", "--json"])
        #expect(overview.contains("\"income\":{\"amount\":\"2000.00\",\"currency\":\"USD\"}"))
        #expect(overview.contains("\"expenses\":{\"amount\":\"900.00\",\"currency\":\"USD\"}"))
        #expect(overview.contains("\"net\":{\"amount\":\"1100.00\",\"currency\":\"USD\"}"))
        #expect(try store.run(["overview", "--month", "2026-05"]).contains("current balance"))
    }
}
