import Foundation
import Testing

@Suite struct ReplayCommandTests {
    /// Two journal rows, one in March and one in May: the replay until 31 March sees only
    /// the first, prints the same balances as `balances --as-of`, and changes nothing.
    @Test func replayUntilADatePrintsWhatWasTrueThenAndTouchesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/store"
        try #require(try TallyProcess.run(["init", "--store", store, "--time-zone", "Europe/London"]).status == 0)
        let file = try directory.file("journal.csv", """
            date,account,counter_account,amount,currency,payee,category,external_id
            2026-03-31,Assets:Cash,Income:Gift,40.00,USD,,,
            2026-05-02,Assets:Cash,Income:Gift,2.50,USD,,,

            """)
        try #require(try TallyProcess.run(["import", file, "--store", store]).status == 0)
        let before = try directory.snapshot("store")

        let text = try TallyProcess.run(["replay", "--store", store, "--until", "2026-03-31"])
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.hasPrefix("Replayed 3 events: the end of 2026-03-31\n"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("Assets:Cash  USD         40.00"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("Budgets 2026-03\nno budgets"))

        let json = try TallyProcess.run(["replay", "--store", store, "--until", "2026-05-31", "--json"])
        #expect(json.status == 0)
        #expect(json.standardOutput.contains("{\"account\":\"Assets:Cash\",\"amount\":{\"amount\":\"42.50\",\"currency\":\"USD\"}}"), "\(json.standardOutput)")
        let known = try TallyProcess.run(["replay", "--store", store, "--until", "2026-05-31", "--known-at", "2000-01-01", "--json"])
        #expect(known.standardOutput.contains("\"events_folded\":0,\"balances\":[]"), "\(known.standardOutput)")
        #expect(try directory.snapshot("store") == before, "a replay reads the log only")

        let asOf = try TallyProcess.run(["balances", "--store", store, "--as-of", "2026-03-31", "--format", "json"])
        #expect(asOf.standardOutput.contains("\"balance\":\"40.00\""))
    }

    @Test func aBadDateOrAMissingStoreIsRefused() throws {
        let directory = try TemporaryDirectory()
        let missing = try TallyProcess.run(["replay", "--store", directory.path + "/absent", "--until", "2026-03-31"])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("tally init"))
        let store = directory.path + "/store"
        try #require(try TallyProcess.run(["init", "--store", store]).status == 0)
        let bad = try TallyProcess.run(["replay", "--store", store, "--until", "2026-13-01"])
        #expect(bad.status != 0)
        #expect(bad.standardError.contains("--until"))
    }
}
