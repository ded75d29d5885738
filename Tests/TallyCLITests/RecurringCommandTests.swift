import Foundation
import Testing
import PostgresTestSupport

@Suite struct RecurringCommandTests {
    @Test(arguments: LogBackend.allCases) func generatingAMonthTwiceGeneratesOnceAndStatusFollowsToday(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["recurring", "define", "rent", "--payee", "Landlord", "--category", "bills", "--amount", "-1200.00",
                       "--day", "1", "--start", "2026-01"])
        try store.run(["recurring", "define", "phone", "--payee", "Phone Co", "--category", "bills", "--amount", "-35.00",
                       "--day", "23", "--start", "2026-01"])
        #expect(try store.run(["recurring", "generate", "--month", "2026-05"]).hasPrefix("Generated 2 transactions"))
        #expect(try store.run(["recurring", "generate", "--month", "2026-05"]) == "nothing to do: every recurring item due in 2026-05 is generated already\n")
        let status = try store.run(["recurring", "status", "--month", "2026-05", "--today", "2026-05-20", "--json"])
        #expect(status.contains("{\"id\":\"rent\",\"payee\":\"Landlord\",\"amount\":{\"amount\":\"-1200.00\",\"currency\":\"USD\"},\"due\":\"2026-05-01\",\"state\":\"paid\""))
        #expect(status.contains("\"id\":\"phone\",\"payee\":\"Phone Co\",\"amount\":{\"amount\":\"-35.00\",\"currency\":\"USD\"},\"due\":\"2026-05-23\",\"state\":\"due_soon\""))
        #expect(status.contains("\"paid\":{\"income\":{\"amount\":\"0.00\",\"currency\":\"USD\"},\"bills\":{\"amount\":\"1200.00\",\"currency\":\"USD\"}},\"due_soon\":{\"income\":{\"amount\":\"0.00\",\"currency\":\"USD\"},\"bills\":{\"amount\":\"35.00\",\"currency\":\"USD\"}},\"upcoming\":{\"income\":{\"amount\":\"0.00\",\"currency\":\"USD\"},\"bills\":{\"amount\":\"0.00\",\"currency\":\"USD\"}}"))
        try store.run(["recurring", "remove", "phone"])
        try store.expectRefused(["recurring", "remove", "phone"], "no recurring item 'phone'")
        try store.expectRefused(["recurring", "define", "gym", "--payee", "Gym", "--category", "bills", "--amount", "-10.00",
                                 "--day", "32", "--start", "2026-01"], "1 to 31")
    }
}
