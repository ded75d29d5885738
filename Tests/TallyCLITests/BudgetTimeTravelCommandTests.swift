import Foundation
import Testing

/// `--as-of` and `--known-at` on every budget read command: what the ledger said before an
/// amendment, and clear refusals of bad values.
@Suite struct BudgetTimeTravelCommandTests {
    /// The recorded instant of the first event a `--json` command printed.
    private func recordedAt(_ output: String) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let events = try #require(object["events"] as? [[String: Any]])
        return try #require(events.first?["recorded_at"] as? String)
    }

    @Test func readCommandsAnswerAsTheLedgerKnewItBeforeAnAmendment() throws {
        let store = try BudgetStore()
        try store.run(["budget", "set", "--category", "groceries", "--month", "2026-05", "--maximum", "100.00"])
        try store.run(["pot", "create", "car", "--target", "500.00"])
        try store.run(["recurring", "define", "rent", "--payee", "Landlord", "--category", "bills", "--amount", "-900.00",
                       "--day", "3", "--start", "2026-05"])
        let before = try recordedAt(try store.run(["tx", "add", "--payee", "Market", "--category", "groceries", "--amount", "-12.40",
                                                   "--date", "2026-05-03", "--json"]))
        try store.run(["tx", "amend", "manual:5", "--amount", "-30.00"])
        try store.run(["pot", "delete", "car"])

        let old = ["--known-at", before]
        #expect(try store.run(["tx", "show", "manual:5", "--json"] + old).contains("\"amount\":\"-12.40\""))
        #expect(try store.run(["tx", "show", "manual:5", "--json"]).contains("\"amount\":\"-30.00\""))
        #expect(try store.run(["tx", "list", "--json"] + old).contains("\"amount\":\"-12.40\""))
        #expect(try store.run(["tx", "list", "--as-of", "2026-05-02", "--json"]).contains("\"total_count\":0"))
        #expect(try store.run(["tx", "history", "manual:5", "--json"] + old).contains("\"total_count\":1}"))
        #expect(try store.run(["budget", "show", "--as-of", "2026-05-20", "--json"] + old).contains("\"spent\":{\"amount\":\"12.40\",\"currency\":\"USD\"}"))
        #expect(try store.run(["budget", "show", "--month", "2026-05", "--json"]).contains("\"spent\":{\"amount\":\"30.00\",\"currency\":\"USD\"}"))
        #expect(try store.run(["overview", "--month", "2026-05", "--json"] + old).contains("\"expenses\":{\"amount\":\"12.40\",\"currency\":\"USD\"}"))
        #expect(try store.run(["overview", "--as-of", "2026-05-02", "--json"]).contains("\"expenses\":{\"amount\":\"0.00\",\"currency\":\"USD\"}"))
        #expect(try store.run(["pot", "list", "--json"] + old).contains("\"id\":\"car\""))
        #expect(try store.run(["pot", "list", "--json"]).contains("\"items\":[]"))
        #expect(try store.run(["pot", "show", "car", "--json"] + old).contains("\"target\":{\"amount\":\"500.00\",\"currency\":\"USD\"}"))
        #expect(try store.run(["recurring", "list", "--json"] + old).contains("\"id\":\"rent\""))
        #expect(try store.run(["recurring", "list", "--json", "--known-at", "2000-01-01"]).contains("\"items\":[]"))
        #expect(try store.run(["recurring", "status", "--as-of", "2026-05-01", "--json"] + old).contains("\"state\":\"due_soon\""))
        #expect(try store.run(["suggest", "budgets", "--as-of", "2026-08-01", "--json"] + old).contains("\"items\":["))
        #expect(try store.run(["suggest", "recurring", "--as-of", "2026-08-01", "--json"]).contains("\"items\":["))
    }

    @Test func badTimeTravelValuesAreRefusedAndChangeNothing() throws {
        let store = try BudgetStore()
        try store.run(["tx", "add", "--payee", "Market", "--category", "groceries", "--amount", "-12.40", "--date", "2026-05-03"])
        let reads: [[String]] = [
            ["budget", "show", "--month", "2026-05"], ["overview", "--month", "2026-05"], ["tx", "list"], ["tx", "show", "manual:2"],
            ["tx", "history", "manual:2"], ["pot", "list"], ["pot", "show", "car"], ["recurring", "status", "--month", "2026-05"],
            ["recurring", "list"], ["suggest", "budgets", "--month", "2026-05"], ["suggest", "recurring"],
        ]
        for read in reads {
            try store.expectRefused(read + ["--as-of", "31/05/2026"], "--as-of")
            try store.expectRefused(read + ["--as-of", "2026-05-31", "--known-at", "yesterday"], "--known-at 'yesterday'")
        }
        // Issue 32, rule 4: a month after today's is refused by the overview, except with --include-future.
        try store.expectRefused(["overview", "--month", "2099-01"], "2099-01 is after today's month")
        try store.expectRefused(["overview", "--as-of", "2099-01-15"], "--as-of 2099-01-15 is in a month after today's")
        try store.expectRefused(["overview", "--month", "2026-05", "--as-of", "2026-06-01"], "--as-of 2026-06-01 is not in --month 2026-05")
        try store.expectRefused(["recurring", "status", "--today", "2026-05-03", "--as-of", "2026-05-03"], "give --today or --as-of, not both")
        try store.expectRefused(["suggest", "recurring", "--through", "2026-05-03", "--as-of", "2026-05-03"], "give --through or --as-of, not both")
        try store.expectRefused(["tx", "show", "manual:2", "--known-at", "2000-01-01"], "no budget transaction 'manual:2' at that point")
    }
}
