import Foundation
import Testing

/// Issue 15, missing 5: `tally settings` lists each setting in force, since when, and
/// whether it is the default; `tally settings set` records a change from a day.
@Suite struct SettingsCommandTests {
    private func run(_ store: String, _ arguments: [String]) throws -> TallyRun {
        try TallyProcess.run(arguments + ["--store", store])
    }

    @Test func iSetTheDueSoonWindowFromADayAndTheListShowsItAsOfThatDay() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        #expect(try run(store, ["init", "--time-zone", "Europe/London"]).status == 0)
        let set = try run(store, ["settings", "set", "due-soon-days", "7", "--date", "2026-01-10"])
        try #require(set.status == 0, "\(set.standardError)")
        let now = try run(store, ["settings", "--json"])
        #expect(now.standardOutput.contains(#"{"setting":"due_soon_days","value":"7","since":"2026-01-10T00:00:00.000000Z""#), "\(now.standardOutput)")
        #expect(now.standardOutput.contains(#""default":false"#))
        #expect(now.standardOutput.contains(#"{"setting":"page_size","value":"10","since":null,"recorded_at":null,"default":true}"#), "\(now.standardOutput)")
        let before = try run(store, ["settings", "--as-of", "2026-01-09", "--json"])
        #expect(before.standardOutput.contains(#"{"setting":"due_soon_days","value":"5","since":null"#), "\(before.standardOutput)")
        let table = try run(store, ["settings"])
        #expect(table.standardOutput.contains("time_zone") && table.standardOutput.contains("Europe/London"), "\(table.standardOutput)")
    }

    @Test func fixedAndWealthSettingsAreRefusedWithWhereToChangeThem() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        #expect(try run(store, ["init"]).status == 0)
        let before = try directory.snapshot("s/log")
        for (command, message) in [
            (["settings", "set", "time-zone", "UTC"], "fixed when the ledger is created"),
            (["settings", "set", "split-rule", "70"], "tally wealth split-rule"),
            (["settings", "set", "page-size", "0"], "page size must be 1 to 500"),
            (["settings", "set", "due-soon-days", "soon"], "not a whole number"),
        ] {
            let result = try run(store, command)
            #expect(result.status != 0, "\(command)")
            #expect(result.standardError.contains(message), "\(command): \(result.standardError)")
        }
        #expect(try directory.snapshot("s/log") == before)
    }
}
