import Foundation
import Testing

/// `tally what-if`, run as a user would.
@Suite struct WhatIfCommandTests {
    @Test func aGoalReachedInMonth14IsReportedAndNothingIsRecorded() throws {
        let directory = try TemporaryDirectory()
        let store = ["--store", directory.path + "/store"]
        for arguments in [["init"], ["envelope", "account-open", "Assets:Savings", "--opening", "200.00", "--date", "2026-01-01"]] {
            let run = try TallyProcess.run(arguments + store)
            try #require(run.status == 0, "\(run.standardError)")
        }
        let before = try directory.snapshot("store/log")
        let run = try TallyProcess.run(["what-if", "--goal", "1600.00", "--monthly", "80.00", "--extra-monthly", "20.00",
                                        "--as-of", "2026-01-31"] + store)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("goal 1,600.00 USD reached in month 14, on 2027-03-31"))
        #expect(run.standardOutput.contains("   14  2027-03-31  1,600.00 USD"))
        #expect(try directory.snapshot("store/log") == before)

        let never = try TallyProcess.run(["what-if", "--goal", "1600.00", "--monthly", "0.00", "--horizon", "6", "--as-of", "2026-01-31", "--json"] + store)
        #expect(never.standardOutput.contains(#""reached_month":null,"reached_date":null"#))
        let bad = try TallyProcess.run(["what-if", "--goal", "1600.00", "--horizon", "0"] + store)
        #expect(bad.status != 0)
        #expect(bad.standardError.contains("horizon"))
    }

    @Test func theProjectionAsKnownAtAnEarlierInstantIgnoresALaterBackdatedDeposit() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/store"
        for arguments in [
            ["init"],
            ["envelope", "account-open", "Assets:Savings", "--opening", "200.00", "--date", "2026-01-01"],
            ["envelope", "record", "s1", "--account", "Assets:Savings", "--amount", "100.00", "--date", "2026-02-10"],
        ] {
            let run = try TallyProcess.run(arguments + ["--store", path])
            try #require(run.status == 0, "\(arguments): \(run.standardError)")
        }
        let reads = [
            ["what-if", "--goal", "1600.00", "--as-of", "2026-03-31", "--json"],
            ["what-if", "--goal", "1600.00", "--account", "Assets:Savings", "--monthly", "50.00", "--as-of", "2026-03-31"],
        ]
        try TimeTravelCLI.expectKnownAtKeepsEachFirstAnswer(reads, store: path) {
            let run = try TallyProcess.run(["envelope", "record", "s2", "--account", "Assets:Savings", "--amount", "40.00", "--date", "2026-03-15", "--store", path])
            #expect(run.status == 0, "\(run.standardError)")
        }
    }

    @Test func aBadAsOfOrKnownAtIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        try #require(try TallyProcess.run(["init", "--store", directory.path + "/store"]).status == 0)
        try TimeTravelCLI.expectBadTimesRefused(["what-if", "--goal", "10.00"], store: directory.path + "/store", directory: directory, storeFolder: "store")
    }
}
