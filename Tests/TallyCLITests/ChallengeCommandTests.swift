import Foundation
import Testing

/// `tally challenge`, run as a user would.
@Suite struct ChallengeCommandTests {
    @Test func aFiftyTwoWeekChallengeSavesInStepsAndShowsItsProgress() throws {
        let directory = try TemporaryDirectory()
        let store = ["--store", directory.path + "/store"]
        for arguments in [
            ["init"],
            ["envelope", "account-open", "Assets:Bank", "--opening", "100.00", "--date", "2026-01-01"],
            ["envelope", "account-open", "Assets:Savings", "--date", "2026-01-01"],
            ["challenge", "start", "save", "--template", "52_week", "--unit", "1.00", "--account", "Assets:Savings", "--date", "2026-01-01"],
            ["challenge", "step", "save", "--from", "Assets:Bank", "--date", "2026-01-01"],
            ["challenge", "step", "save", "--from", "Assets:Bank", "--date", "2026-01-08"],
        ] {
            let run = try TallyProcess.run(arguments + store)
            try #require(run.status == 0, "\(arguments): \(run.standardError)")
        }
        let progress = try TallyProcess.run(["challenge", "progress", "--as-of", "2026-01-08"] + store)
        #expect(progress.standardOutput == """
            CHALLENGE  TEMPLATE  STEPS     SAVED        TARGET  STATE
            save       52_week    2/52  3.00 USD  1,378.00 USD  next: 3

            """)
        let earlier = try TallyProcess.run(["challenge", "progress", "save", "--as-of", "2026-01-07", "--json"] + store)
        #expect(earlier.standardOutput.contains(#""completed":[1],"saved":{"amount":"1.00","currency":"USD"}"#))
        let total = try TallyProcess.run(["envelope", "total", "--as-of", "2026-01-08", "--json"] + store)
        #expect(total.standardOutput.contains(#"{"account":"Assets:Savings","kind":"asset","balance":{"amount":"3.00","currency":"USD"}"#))

        // Step 2 again is refused and records nothing.
        let before = try directory.snapshot("store/log")
        let again = try TallyProcess.run(["challenge", "step", "save", "--step", "2", "--from", "Assets:Bank"] + store)
        #expect(again.status != 0)
        #expect(again.standardError.contains("step 2"))
        #expect(try directory.snapshot("store/log") == before)
    }

    @Test func templatesListTheTableWithWhatEachSaves() throws {
        let run = try TallyProcess.run(["challenge", "templates", "--json"])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains(#"{"template":"52_week","name":"52-week challenge","cadence":"week","steps":52,"first_multiple":1,"increment":1,"total_units":1378}"#))
    }

    @Test func progressAsKnownAtAnEarlierInstantIgnoresALaterBackdatedStep() throws {
        let directory = try TemporaryDirectory()
        let store = ["--store", directory.path + "/store"]
        for arguments in [
            ["init"],
            ["envelope", "account-open", "Assets:Bank", "--opening", "100.00", "--date", "2026-01-01"],
            ["challenge", "start", "save", "--template", "52_week", "--unit", "1.00", "--date", "2026-01-01"],
            ["challenge", "start", "more", "--template", "52_week", "--unit", "2.00", "--date", "2026-01-01"],
            ["challenge", "step", "save", "--date", "2026-01-01"],
        ] {
            let run = try TallyProcess.run(arguments + store)
            try #require(run.status == 0, "\(arguments): \(run.standardError)")
        }
        let reads = [
            ["challenge", "progress", "--as-of", "2026-01-10"],
            ["challenge", "progress", "save", "--as-of", "2026-01-31", "--json"],
            ["challenge", "progress", "save"],
        ]
        try TimeTravelCLI.expectKnownAtKeepsEachFirstAnswer(reads, store: directory.path + "/store") {
            let run = try TallyProcess.run(["challenge", "step", "save", "--date", "2026-01-08"] + store)
            #expect(run.status == 0, "\(run.standardError)")
        }
        let before = try TallyProcess.run(["challenge", "progress", "save", "--as-of", "2026-01-07", "--json"] + store)
        #expect(before.standardOutput.contains(#""completed":[1],"#), "\(before.standardOutput)")
    }

    @Test func aBadAsOfOrKnownAtIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        try #require(try TallyProcess.run(["init", "--store", directory.path + "/store"]).status == 0)
        try TimeTravelCLI.expectBadTimesRefused(["challenge", "progress"], store: directory.path + "/store", directory: directory, storeFolder: "store")
    }
}
