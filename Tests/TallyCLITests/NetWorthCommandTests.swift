import Foundation
import Testing

@Suite struct NetWorthCommandTests {
    private func run(_ store: String, _ arguments: [String]) throws -> TallyRun {
        try TallyProcess.run(arguments + ["--store", store])
    }

    @Test func aHouseholdsNetWorthAndXRayFromTheCommandLine() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        for command in [
            ["init", "--base-currency", "GBP"],
            ["asset", "add", "home", "--name", "Home", "--category", "property", "--type", "real_estate", "--currency", "USD", "--country", "US"],
            ["asset", "value", "home", "400000.00"],
            ["fx", "GBP", "USD", "1.25"],
            ["liability", "add", "mortgage", "--name", "Mortgage", "--category", "mortgage", "--currency", "USD", "--linked-asset", "home"],
            ["liability", "value", "mortgage", "250000.00"],
        ] {
            let result = try run(store, command)
            try #require(result.status == 0, "\(command): \(result.standardError)")
        }
        let report = try run(store, ["networth", "--json"])
        #expect(report.standardOutput.contains(#""net_worth":{"amount":"120000.00","currency":"GBP"}"#), "\(report.standardOutput)")
        let xray = try run(store, ["xray", "--json"])
        #expect(xray.standardOutput.contains(#""concentration_hundredths":{"value":10000,"severity":"high"}"#), "\(xray.standardOutput)")
        let table = try run(store, ["networth"])
        #expect(table.standardOutput.contains("Net worth 120,000.00 GBP"))
    }

    @Test func refusalsExitNonZeroAndChangeNothing() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        #expect(try run(store, ["init"]).status == 0)
        #expect(try run(store, ["asset", "add", "cash", "--name", "Cash", "--category", "cash", "--type", "cash", "--currency", "USD"]).status == 0)
        let before = try directory.snapshot("s/log")
        for (command, message) in [
            (["asset", "value", "boat", "10.00"], "no asset 'boat'"),
            (["asset", "value", "cash", "0.00"], "positive"),
            (["asset", "value", "cash", "1.234"], "decimal"),
            (["asset", "add", "cash", "--name", "Again", "--category", "cash", "--type", "cash", "--currency", "USD"], "exists already"),
            (["asset", "add", "x", "--name", "X", "--category", "yacht", "--type", "cash", "--currency", "USD"], "--category"),
            (["fx", "GBP", "USD", "1,25"], "rate"),
            (["networth", "--as-of", "31/03/2026"], "--as-of"),
        ] {
            let result = try run(store, command)
            #expect(result.status != 0, "\(command)")
            #expect(result.standardError.contains(message), "\(command): \(result.standardError)")
        }
        #expect(try directory.snapshot("s/log") == before)
    }

    @Test func everyReadAsKnownAtAnEarlierInstantIgnoresALaterBackdatedValuation() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        for command in [
            ["init", "--base-currency", "GBP"],
            ["asset", "add", "home", "--name", "Home", "--category", "property", "--type", "real_estate", "--currency", "USD", "--country", "US",
             "--date", "2026-01-01"],
            ["asset", "value", "home", "400000.00", "--date", "2026-01-01"],
            ["fx", "GBP", "USD", "1.25", "--at", "2026-01-01"],
        ] {
            let result = try run(store, command)
            try #require(result.status == 0, "\(command): \(result.standardError)")
        }
        let reads = [
            ["networth", "show", "--as-of", "2026-03-31", "--json"],
            ["networth", "--as-of", "2026-03-31"],
            ["networth", "change", "--as-of", "2026-03-31", "--days", "30", "--json"],
            ["networth", "series", "--from", "2026-01", "--to", "2026-03", "--json"],
            ["xray", "--as-of", "2026-03-31", "--json"],
        ]
        try TimeTravelCLI.expectKnownAtKeepsEachFirstAnswer(reads, store: store) {
            let result = try run(store, ["asset", "value", "home", "450000.00", "--date", "2026-03-15"])
            #expect(result.status == 0, "\(result.standardError)")
        }
    }

    @Test(arguments: [["networth", "show"], ["networth", "change"], ["xray"]])
    func aBadAsOfOrKnownAtIsRefusedByName(read: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        #expect(try run(store, ["init"]).status == 0)
        try TimeTravelCLI.expectBadTimesRefused(read, store: store, directory: directory, storeFolder: "s")
    }

    @Test func theReminderListAsKnownAtAnEarlierInstantIgnoresALaterBackdatedChange() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        for command in [
            ["init"],
            ["asset", "add", "home", "--name", "Home", "--category", "property", "--type", "real_estate", "--currency", "USD", "--date", "2026-01-01"],
            ["reminder", "set", "revalue", "--asset", "home", "--due", "2026-03-10", "--note", "Check sales"],
            ["reminder", "set", "appraise", "--asset", "home", "--due", "2026-06-01"],
        ] {
            let result = try run(store, command)
            try #require(result.status == 0, "\(command): \(result.standardError)")
        }
        let reads = [
            ["reminder", "list", "--as-of", "2099-03-12"],
            ["reminder", "list", "--as-of", "2099-03-12", "--due", "--json"],
            ["reminder", "list"],
            ["xray", "--as-of", "2099-03-12", "--json"],
        ]
        let listed = try TimeTravelCLI.answer(reads[1], store: store)
        #expect(listed.contains("\"total_count\":2}"), "\(listed)")
        try TimeTravelCLI.expectKnownAtKeepsEachFirstAnswer(reads, store: store) {
            let result = try run(store, ["reminder", "done", "revalue"])
            #expect(result.status == 0, "\(result.standardError)")
        }
        let now = try TimeTravelCLI.answer(["reminder", "list", "--as-of", "2099-03-12", "--json"], store: store)
        #expect(now == #"{"items":[{"id":"appraise","asset":"home","due":"2026-06-01","note":null,"is_due":true}],"#
                + #""paging":{"page":1,"page_size":10,"page_count":1,"total_count":1}}"# + "\n", "\(now)")
    }

    @Test func aBadAsOfOrKnownAtOfTheReminderListIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        #expect(try run(store, ["init"]).status == 0)
        try TimeTravelCLI.expectBadTimesRefused(["reminder", "list"], store: store, directory: directory, storeFolder: "s")
    }

    @Test func statsCountsTheNetWorthSnapshotsWithoutOpeningTheStore() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        for command in [
            ["init"],
            ["asset", "add", "cash", "--name", "Cash", "--category", "cash", "--type", "cash", "--currency", "USD", "--date", "2025-01-01"],
            ["asset", "value", "cash", "100.00", "--date", "2025-01-02"],
        ] {
            let result = try run(store, command)
            try #require(result.status == 0, "\(command): \(result.standardError)")
        }
        let stats = try run(store, ["stats", "--json"])
        try #require(stats.status == 0, "\(stats.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(stats.standardOutput.utf8)) as? [String: Any]
        let snapshots = (object?["snapshots"] as? [String: Any])?["nw_snapshots"] as? [String: Int]
        #expect((snapshots?["current"] ?? 0) >= 12, "a snapshot at every month end since January 2025: \(stats.standardOutput)")
        #expect(snapshots?["count"] == snapshots.map { 2 * ($0["current"] ?? 0) }, "the valuation dated 2 January retired those taken when the asset was added")
        #expect((snapshots?["stored_bytes"] ?? 0) > 0)
        let table = try run(store, ["stats"])
        #expect(table.standardOutput.contains("nw_snapshots"), "\(table.standardOutput)")
    }
}
