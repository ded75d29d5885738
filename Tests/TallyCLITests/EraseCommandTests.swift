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
}
