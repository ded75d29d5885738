import Foundation
import Testing

@Suite struct InitCommandTests {
    @Test func createsAStoreWhoseFirstEventIsLedgerCreated() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home"
        let created = try TallyProcess.run(["init", "--store", store, "--name", "Home", "--base-currency", "GBP", "--time-zone", "Europe/London"])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput.contains("base currency GBP"))
        let log = try TallyProcess.run(["log", "--store", store, "--json"])
        #expect(log.status == 0)
        #expect(log.standardOutput.contains("\"type\":\"ledger_created\""))
        #expect(log.standardOutput.contains("\"time_zone\":\"Europe/London\""))
    }

    @Test func refusesAnExistingStoreAndLeavesItAlone() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home"
        try TallyProcess.run(["init", "--store", store])
        let before = try directory.snapshot("home")
        let again = try TallyProcess.run(["init", "--store", store])
        #expect(again.status != 0)
        #expect(again.standardError.contains("already exists"))
        #expect(try directory.snapshot("home") == before)
    }

    @Test(arguments: [
        (["--base-currency", "usd"], "usd"),
        (["--base-currency", "VEA"], "not an ISO 4217 currency"),
        (["--time-zone", "Mars/Olympus"], "Mars/Olympus"),
    ])
    func rejectsBadOptionsWithoutCreatingAnything(options: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home"
        let result = try TallyProcess.run(["init", "--store", store] + options)
        #expect(result.status != 0)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func usesTallyStoreFromTheEnvironment() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/from-env"
        let result = try TallyProcess.run(["init"], environment: ["TALLY_STORE": store])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(FileManager.default.fileExists(atPath: store + "/STORE"))
    }
}
