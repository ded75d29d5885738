import Foundation
import Testing
import PostgresTestSupport

@Suite struct PotCommandTests {
    @Test(arguments: LogBackend.allCases) func potsFillEmptyAndReturnTheirMoney(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["reference", "set", "1000.00"])
        try store.run(["pot", "create", "holiday", "--name", "Summer holiday", "--target", "500.00"])
        try store.run(["pot", "add", "holiday", "125.00"])
        let listed = try store.run(["pot", "list"])
        #expect(listed.contains("Summer holiday"))
        #expect(listed.contains("25.00%"))
        let json = try store.run(["pot", "list", "--json"])
        #expect(json.contains("\"total\":{\"amount\":\"125.00\",\"currency\":\"USD\"}") && json.contains("\"progress_basis_points\":2500"))
        try store.run(["pot", "withdraw", "holiday", "25.00"])
        let deleted = try store.run(["pot", "delete", "holiday", "--json"])
        #expect(deleted.contains("\"returned\":{\"amount\":\"100.00\""))
        #expect(try store.run(["pot", "list", "--json"]).contains("\"items\":[]"))
    }

    @Test(arguments: LogBackend.allCases) func movesThatBalancesCannotCoverAreRefused(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["reference", "set", "100.00"])
        try store.run(["pot", "create", "car", "--target", "5000.00"])
        try store.expectRefused(["pot", "add", "car", "100.01"], "the current balance cannot cover")
        try store.run(["pot", "add", "car", "60.00"])
        try store.expectRefused(["pot", "withdraw", "car", "60.01"], "holds less than this amount")
        try store.expectRefused(["pot", "add", "boat", "1.00"], "no pot 'boat'")
        try store.expectRefused(["pot", "create", "car", "--target", "1.00"], "exists already")
    }
}
