import Foundation
import Testing

@Suite struct RebuildCommandTests {
    @Test func rebuildRefoldsTheLogAndReportsTheRate() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/store"
        try #require(try TallyProcess.run(["init", "--store", store]).status == 0)
        var rows = ["date,account,counter_account,amount,currency,payee,category,external_id"]
        for index in 0..<120 { rows.append("2026-05-01,Assets:Cash,Income:Gift,\(index).25,USD,,,") }
        let file = try directory.file("gifts.csv", rows.joined(separator: "\n") + "\n")
        try #require(try TallyProcess.run(["import", file, "--store", store]).status == 0)
        let before = try TallyProcess.run(["balances", "--store", store, "--format", "csv"]).standardOutput

        let result = try TallyProcess.run(["rebuild", "--store", store])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("Rebuilt read models: 121 events in "), "\(result.standardOutput)")
        #expect(result.standardOutput.hasSuffix(" events/s)\n"))
        #expect(try TallyProcess.run(["balances", "--store", store, "--format", "csv"]).standardOutput == before)
        #expect(before.contains("Assets:Cash,USD,7170.00"))

        let json = try TallyProcess.run(["rebuild", "--store", store, "--progress", "json"])
        #expect(json.standardOutput == "{\"folded_seq\": 121}\n")
    }

    @Test func rebuildingAMissingStoreSaysHowToCreateOne() throws {
        let directory = try TemporaryDirectory()
        let result = try TallyProcess.run(["rebuild", "--store", directory.path + "/absent"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("tally init"))
    }
}
