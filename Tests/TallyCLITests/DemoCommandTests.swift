import Foundation
import Testing

@Suite struct DemoCommandTests {
    @Test func theSameSeedPrintsTheSameTourWordForWordAndAnotherSeedAnother() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/demo"
        let first = try TallyProcess.run(["demo", "--store", store, "--months", "3"])
        let again = try TallyProcess.run(["demo", "--store", store, "--months", "3", "--replace"])
        let otherStore = directory.path + "/other"
        let other = try TallyProcess.run(["demo", "--store", otherStore, "--months", "3", "--seed", "7"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(again.status == 0, "\(again.standardError)")
        #expect(first.standardOutput == again.standardOutput, "seed 42 printed two different tours")
        #expect(other.standardOutput.replacingOccurrences(of: otherStore, with: store) != first.standardOutput, "seeds 42 and 7 printed the same tour")
        for section in ["== Wealth account main", "== Budget", "== Envelopes on", "== Net worth on", "== Portfolio X-ray on",
                        "== As of ", "== Audit", "verify: ok", "head digest ", "LZ4 ", "as NDJSON "] {
            #expect(first.standardOutput.contains(section), "the tour has no '\(section)'")
        }
        // The store the demo leaves is a store like any other: verify agrees with the digest printed.
        let head = try #require(first.standardOutput.split(separator: "\n").first { $0.hasPrefix("head digest ") }?.split(separator: " ")[2])
        let verify = try TallyProcess.run(["verify", "--store", store, "--expect", String(head)])
        #expect(verify.status == 0, "\(verify.standardError)")
    }

    @Test func replaceRemovesOnlyAStoreTheDemoMade() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/demo"
        #expect(try TallyProcess.run(["demo", "--store", store, "--months", "2"]).status == 0)
        let before = try directory.snapshot("demo")
        let again = try TallyProcess.run(["demo", "--store", store, "--months", "2"])
        #expect(again.status != 0, "a second demo into the same store must not mix two households")
        #expect(try directory.snapshot("demo") == before)

        let userStore = directory.path + "/mine"
        #expect(try TallyProcess.run(["init", "--store", userStore]).status == 0)
        let mine = try directory.snapshot("mine")
        let refused = try TallyProcess.run(["demo", "--store", userStore, "--replace"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("did not create"))
        #expect(try directory.snapshot("mine") == mine)
    }

    @Test func aTourShorterThanTwoMonthsIsRefused() throws {
        let directory = try TemporaryDirectory()
        let run = try TallyProcess.run(["demo", "--store", directory.path + "/demo", "--months", "1"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("--months"))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/demo"))
    }
}
