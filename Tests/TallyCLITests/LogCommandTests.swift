import Foundation
import Testing

@Suite struct LogCommandTests {
    /// A demo store shared by the read-only tests of this suite.
    private func demoStore(_ directory: TemporaryDirectory) throws -> String {
        let store = directory.path + "/demo"
        let result = try TallyProcess.run(["demo", "--store", store, "--first-month", "2026-07", "--months", "2"])
        try #require(result.status == 0, "\(result.standardError)")
        return store
    }

    @Test func filtersBySequenceTypeAndEntity() throws {
        let directory = try TemporaryDirectory()
        let store = try demoStore(directory)
        let range = try TallyProcess.run(["log", "--store", store, "--from", "2", "--to", "4", "--json"])
        #expect(range.standardOutput.split(separator: "\n").map { $0.prefix(9) } == [#"{"seq":2,"#, #"{"seq":3,"#, #"{"seq":4,"#])
        let splits = try TallyProcess.run(["log", "--store", store, "--type", "deposit_split", "--json"])
        let lines = splits.standardOutput.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.contains("\"type\":\"deposit_split\"") && $0.contains("\"cause\":") })
        let pots = try TallyProcess.run(["log", "--store", store, "--entity", "pot:", "--json"])
        #expect(pots.standardOutput.split(separator: "\n").allSatisfy { $0.contains("\"entity\":\"pot:") })
        #expect(!pots.standardOutput.isEmpty)
    }

    @Test func selectsByRecordedTime() throws {
        let directory = try TemporaryDirectory()
        let store = try demoStore(directory)
        let july = try TallyProcess.run(["log", "--store", store, "--since", "2026-07-01", "--until", "2026-07-01", "--json"])
        #expect(july.status == 0)
        let lines = july.standardOutput.split(separator: "\n")
        #expect(!lines.isEmpty)
        // A day is the ledger's: the demo lives in New York (UTC-4 in July), where 1 July runs
        // from 04:00 UTC on 1 July to 04:00 UTC on 2 July.
        let recorded = lines.map { line in
            line.range(of: #""recorded_at":""#).map { String(line[$0.upperBound...].prefix(27)) } ?? ""
        }
        #expect(recorded.allSatisfy { $0 >= "2026-07-01T04:00:00.000000Z" && $0 < "2026-07-02T04:00:00.000000Z" }, "\(recorded)")
        let limited = try TallyProcess.run(["log", "--store", store, "--limit", "3"])
        #expect(limited.standardOutput.split(separator: "\n").count == 4)  // header + 3
    }

    @Test(arguments: [
        (["--type", "pot_made"], "pot_made"),
        (["--from", "5", "--to", "2"], "--from"),
        (["--since", "yesterday"], "--since"),
    ])
    func rejectsBadFilters(options: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/s"
        try #require(try TallyProcess.run(["init", "--store", store]).status == 0)
        let result = try TallyProcess.run(["log", "--store", store] + options)
        #expect(result.status != 0)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }
}
