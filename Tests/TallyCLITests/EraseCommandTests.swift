import Foundation
import Tally
import Testing

/// `tally erase --everything --yes`, as a user runs it.
@Suite struct EraseCommandTests {
    @Test func eraseEverythingSaysWhatItDeletedAndLeavesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/store"
        let key = directory.path + "/home.key"
        #expect(try TallyProcess.run(["init", "--store", store, "--encrypt", "--key-file", key]).status == 0)
        let readModels = StoreLayout(root: store).runtimeReadModelPath
        #expect(FileManager.default.fileExists(atPath: readModels))

        let unconfirmed = try TallyProcess.run(["erase", "--everything", "--store", store])
        #expect(unconfirmed.status != 0)
        #expect(unconfirmed.standardError.contains("add --yes"), "\(unconfirmed.standardError)")
        #expect(FileManager.default.fileExists(atPath: store + "/KEYS"))
        let nothingNamed = try TallyProcess.run(["erase", "--store", store, "--yes"])
        #expect(nothingNamed.status != 0)
        #expect(nothingNamed.standardError.contains("name what to erase"))

        let erased = try TallyProcess.run(["erase", "--everything", "--yes", "--store", store])
        #expect(erased.status == 0, "\(erased.standardError)")
        let lines = erased.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "deleted \(store)/KEYS")
        #expect(lines.contains("deleted \(readModels)"))
        #expect(lines.contains("deleted \(store)"))
        #expect(erased.standardOutput.contains("its log no longer opens"))
        #expect(!FileManager.default.fileExists(atPath: store))
        #expect(!FileManager.default.fileExists(atPath: readModels))
        #expect(FileManager.default.fileExists(atPath: key), "the key file may open other stores: it is the user's to destroy")

        let again = try TallyProcess.run(["erase", "--everything", "--yes", "--store", store])
        #expect(again.status != 0)
        #expect(again.standardError.contains("no store at"), "\(again.standardError)")
    }

    @Test func eraseRefusesADirectoryThatIsNotAStore() throws {
        let directory = try TemporaryDirectory()
        let notes = try directory.file("notes.txt", "mine")
        let refused = try TallyProcess.run(["erase", "--everything", "--yes", "--store", directory.path])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("not a Tally store"), "\(refused.standardError)")
        #expect(FileManager.default.fileExists(atPath: notes))
    }

    @Test func erasingAPayeeListsItNoMoreAndVerifyStillMatchesTheEarlierDigest() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/store"
        #expect(try TallyProcess.run(["init", "--store", store]).status == 0)
        let events = [
            #"{"type":"pot_created","version":2,"effective_at":"2026-05-01T09:00:00Z","data":{"pot_id":"trip","name":"Lisbon with Marta","target":{"amount":"900.00","currency":"USD"}}}"#,
        ]
        #expect(try TallyProcess.run(["append", try directory.file("pot.ndjson", events.joined(separator: "\n")), "--store", store]).status == 0)
        #expect(try TallyProcess.run(["tx", "add", "--payee", "Marta Quintas", "--category", "dining_out",
                                     "--amount", "-42.00", "--date", "2026-05-02", "--store", store]).status == 0)
        let listed = try TallyProcess.run(["erase", "--list", "--store", store])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput == "owner\npayee:Marta Quintas\n", "\(listed.standardOutput)")
        let kept = try #require(try TallyProcess.run(["verify", "--store", store]).standardOutput
            .split(separator: "\n").first { $0.hasPrefix("head ") }.map { String($0.dropFirst(5)) })

        let erased = try TallyProcess.run(["erase", "payee:Marta Quintas", "--store", store])
        #expect(erased.status == 0, "\(erased.standardError)")
        #expect(erased.standardOutput.hasPrefix("erased payee:Marta Quintas: erasure_recorded at event "), "\(erased.standardOutput)")
        #expect(try TallyProcess.run(["erase", "--list", "--store", store]).standardOutput == "owner\n")
        let verified = try TallyProcess.run(["verify", "--store", store, "--expect", kept])
        #expect(verified.status == 0, "\(verified.standardError)")
        let log = try TallyProcess.run(["log", "--store", store])
        #expect(!log.standardOutput.contains("Marta Quintas") && log.standardOutput.contains("[erased "), "\(log.standardOutput)")
        #expect(log.standardOutput.contains("Lisbon with Marta"), "the owner's pot name is another subject's")

        let again = try TallyProcess.run(["erase", "payee:Marta Quintas", "--store", store])
        #expect(again.status != 0)
        #expect(again.standardError.contains("already erased, or never recorded"), "\(again.standardError)")
        let unknown = try TallyProcess.run(["erase", "colleague:Marta", "--store", store])
        #expect(unknown.status != 0)
        #expect(unknown.standardError.contains("name one as owner or payee:NAME"), "\(unknown.standardError)")
    }
}
