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

    @Test func askedAboutATimeBeforeTheLedgerExistedTheSettingsAreWhatItWasCreatedWithAndNoneIsSinceALaterTime() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        #expect(try run(store, ["init", "--base-currency", "KWD", "--time-zone", "Pacific/Auckland"]).status == 0)
        #expect(try run(store, ["settings", "set", "page-size", "25", "--date", "2019-06-01"]).status == 0)
        let json = try run(store, ["settings", "--as-of", "2020-01-01", "--json"])
        try #require(json.status == 0, "\(json.standardError)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let settings = try #require(answer["settings"] as? [[String: Any]])
        let values = Dictionary(uniqueKeysWithValues: settings.map { ($0["setting"] as? String ?? "", $0) })
        #expect(values["base_currency"]?["value"] as? String == "KWD" && values["time_zone"]?["value"] as? String == "Pacific/Auckland")
        for setting in ["name", "time_zone", "base_currency"] {
            #expect(values[setting]?["since"] is NSNull, "\(setting): set at the creation, after the day asked about: \(json.standardOutput)")
        }
        #expect(values["page_size"]?["value"] as? String == "25" && values["page_size"]?["since"] as? String == "2019-05-31T12:00:00.000000Z",
                "a change dated before the creation is in force from its day: \(json.standardOutput)")
        let created = try #require(answer["created_at"] as? String)
        #expect(created > "2020-01-01", "\(created)")
        let table = try run(store, ["settings", "--as-of", "2020-01-01"])
        #expect(table.standardError.contains("note: the ledger was created at \(created), after 2020-01-01T"), "\(table.standardError)")
        #expect(!table.standardOutput.contains(created), "no SINCE after the day asked about: \(table.standardOutput)")
        let now = try run(store, ["settings", "--json"])
        #expect(now.standardOutput.contains(#"{"setting":"base_currency","value":"KWD","since":"\#(created)""#), "\(now.standardOutput)")
        #expect(try run(store, ["settings"]).standardError.isEmpty)
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
