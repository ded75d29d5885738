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
        #expect(run.standardOutput.contains("goal 1600.00 USD reached in month 14, on 2027-03-31"))
        #expect(run.standardOutput.contains("   14  2027-03-31  1600.00 USD"))
        #expect(try directory.snapshot("store/log") == before)

        let never = try TallyProcess.run(["what-if", "--goal", "1600.00", "--monthly", "0.00", "--horizon", "6", "--as-of", "2026-01-31", "--json"] + store)
        #expect(never.standardOutput.contains(#""reached_month":null,"reached_date":null"#))
        let bad = try TallyProcess.run(["what-if", "--goal", "1600.00", "--horizon", "0"] + store)
        #expect(bad.status != 0)
        #expect(bad.standardError.contains("horizon"))
    }
}
