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
        #expect(asOf.standardOutput.contains("\"balance\":{\"amount\":\"40.00\""), "\(asOf.standardOutput)")
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

    @Test func aReplayAsKnownAtAnEarlierInstantIgnoresALaterBackdatedEntry() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/store"
        try #require(try TallyProcess.run(["init", "--store", store, "--time-zone", "Europe/London"]).status == 0)
        func importRow(_ row: String, _ name: String) throws {
            let file = try directory.file(name, "date,account,counter_account,amount,currency,payee,category,external_id\n\(row)\n")
            try #require(try TallyProcess.run(["import", file, "--store", store]).status == 0)
        }
        try importRow("2026-03-01,Assets:Cash,Income:Gift,40.00,USD,,,", "march.csv")
        let first = try TimeTravelCLI.answer(["replay", "--until", "2026-03-31", "--json"], store: store)
        let firstText = try TimeTravelCLI.answer(["replay", "--as-of", "2026-03-31"], store: store)
        #expect(first.contains(#""known_at":null"#))
        let before = try TimeTravelCLI.lastRecordedAt(store)
        try importRow("2026-03-15,Assets:Cash,Income:Gift,2.50,USD,,,", "late.csv")

        // The same answer, but for the point it names.
        let known = try TimeTravelCLI.answer(["replay", "--as-of", "2026-03-31", "--known-at", before, "--json"], store: store)
        #expect(known == first.replacingOccurrences(of: #""known_at":null"#, with: #""known_at":"\#(before)""#))
        let knownText = try TimeTravelCLI.answer(["replay", "--until", "2026-03-31", "--known-at", before], store: store)
        #expect(knownText == firstText.replacingOccurrences(of: "the end of 2026-03-31\n", with: "the end of 2026-03-31 as known at \(before)\n"))
        let plain = try TimeTravelCLI.answer(["replay", "--as-of", "2026-03-31", "--json"], store: store)
        #expect(plain != first)
        #expect(plain.contains(#"{"account":"Assets:Cash","amount":{"amount":"42.50","currency":"USD"}}"#), "\(plain)")
    }

    @Test func aBadAsOfOrKnownAtIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/store"
        try #require(try TallyProcess.run(["init", "--store", store]).status == 0)
        try TimeTravelCLI.expectBadTimesRefused(["replay"], store: store, directory: directory, storeFolder: "store", legacy: "--until")
        let neither = try TallyProcess.run(["replay", "--store", store])
        #expect(neither.status != 0)
        #expect(neither.standardError.contains("--until DATE or --as-of DATE"), "\(neither.standardError)")
    }
}
