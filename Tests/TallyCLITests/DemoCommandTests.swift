import Foundation
import Testing

@Suite struct DemoCommandTests {
    private func head(_ run: TallyRun) -> Substring? {
        run.standardOutput.split(separator: "\n").first { $0.hasPrefix("head digest ") }
    }

    @Test func theSameSeedGivesTheSameLogDigest() throws {
        let directory = try TemporaryDirectory()
        let first = try TallyProcess.run(["demo", "--store", directory.path + "/one", "--months", "1"])
        let second = try TallyProcess.run(["demo", "--store", directory.path + "/two", "--months", "1"])
        let other = try TallyProcess.run(["demo", "--store", directory.path + "/three", "--months", "1", "--seed", "7"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("verify: ok"))
        #expect(head(first) != nil && head(first) == head(second))
        #expect(head(first) != head(other))
    }

    @Test func replaceRemovesOnlyAStoreTheDemoMade() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/demo"
        #expect(try TallyProcess.run(["demo", "--store", store, "--months", "1"]).status == 0)
        let again = try TallyProcess.run(["demo", "--store", store, "--months", "1"])
        #expect(again.status != 0, "a second demo into the same store must not mix two households")
        #expect(try TallyProcess.run(["demo", "--store", store, "--months", "1", "--replace"]).status == 0)

        let userStore = directory.path + "/mine"
        #expect(try TallyProcess.run(["init", "--store", userStore]).status == 0)
        let before = try directory.snapshot("mine")
        let refused = try TallyProcess.run(["demo", "--store", userStore, "--replace"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("did not create"))
        #expect(try directory.snapshot("mine") == before)
    }
}
