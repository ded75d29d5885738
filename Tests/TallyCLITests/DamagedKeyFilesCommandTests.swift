import Foundation
import Tally
import Testing

/// Issue 34, item 8 (the rest): a damaged `KEYS` file is reported as damaged, never as "the
/// wrong key"; with `SUBJECTS` deleted, `export` writes no personal text as erased and
/// `erase --list` reports the loss, each changing nothing.
@Suite struct DamagedKeyFilesCommandTests {
    private static let journal = """
        date,account,counter_account,amount,currency,payee,category,external_id
        2026-05-01,Expenses:Food,Assets:Cash,12.50,USD,Corner Shop,Food,r1

        """

    @Test func oneChangedCharacterOfKEYSIsDamageNotAWrongKey() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/store"
        let key = directory.path + "/home.key"
        try #require(try TallyProcess.run(["init", "--store", store, "--encrypt", "--key-file", key]).status == 0)
        let path = StoreLayout(root: store).keyFilePath
        var text = try String(contentsOfFile: path, encoding: .utf8)
        let wrapped = try #require(text.range(of: #""wrapped" : ""#) ?? text.range(of: #""wrapped":""#), "\(text)")
        // A letter or digit of the wrapped key (base64 in JSON also holds `\/`, whose change
        // would make the file no JSON at all rather than a changed character).
        let at = try #require(text[text.index(wrapped.upperBound, offsetBy: 7)...].firstIndex { $0.isASCII && ($0.isLetter || $0.isNumber) })
        text.replaceSubrange(at...at, with: text[at] == "A" ? "B" : "A")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let before = try directory.snapshot("store")
        for command in [["balances"], ["verify"], ["wealth", "deposit", "5.00"]] {
            let result = try TallyProcess.run(command + ["--store", store, "--key-file", key])
            #expect(result.status != 0, "\(command)")
            #expect(result.standardError.contains("is damaged") && result.standardError.contains("not a wrong key"), "\(command): \(result.standardError)")
            #expect(!result.standardError.contains("does not open this store"), "\(command): \(result.standardError)")
        }
        #expect(try directory.snapshot("store") == before)
    }

    /// A store with two subjects (the owner and a payee) whose `SUBJECTS` is then deleted.
    private func storeWithoutSubjects(_ directory: TemporaryDirectory) throws -> String {
        let store = directory.path + "/home"
        try #require(try TallyProcess.run(["init", "--store", store, "--time-zone", "UTC"]).status == 0)
        let csv = try directory.file("rows.csv", Self.journal)
        try #require(try TallyProcess.run(["import", csv, "--store", store]).status == 0)
        try FileManager.default.removeItem(atPath: store + "/SUBJECTS")
        return store
    }

    @Test func anExportWithoutTheSubjectKeyFileWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try storeWithoutSubjects(directory)
        let file = directory.path + "/export.ndjson"
        let toFile = try TallyProcess.run(["export", file, "--store", store])
        #expect(toFile.status != 0)
        #expect(toFile.standardError.contains("keys are missing from the subject key file (SUBJECTS)"), "\(toFile.standardError)")
        #expect(!FileManager.default.fileExists(atPath: file))
        let toOutput = try TallyProcess.run(["export", "--store", store])
        #expect(toOutput.status != 0)
        #expect(!toOutput.standardOutput.contains("[erased"), "\(toOutput.standardOutput)")
        #expect(toOutput.standardOutput.isEmpty)
    }

    @Test func theListOfSubjectsWithoutTheSubjectKeyFileReportsTheLoss() throws {
        let directory = try TemporaryDirectory()
        let store = try storeWithoutSubjects(directory)
        let before = try directory.snapshot("home")
        let listed = try TallyProcess.run(["erase", "--list", "--store", store])
        #expect(listed.status != 0)
        #expect(listed.standardError.contains("3 sealed texts (text#0, text#1, text#2)"), "\(listed.standardError)")
        #expect(try directory.snapshot("home") == before)
    }

    @Test func aRealErasureStillExportsAndLists() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home"
        try #require(try TallyProcess.run(["init", "--store", store, "--time-zone", "UTC"]).status == 0)
        try #require(try TallyProcess.run(["import", try directory.file("rows.csv", Self.journal), "--store", store]).status == 0)
        try #require(try TallyProcess.run(["erase", "payee:Corner Shop", "--store", store]).status == 0)
        let exported = try TallyProcess.run(["export", "--store", store])
        #expect(exported.status == 0, "\(exported.standardError)")
        #expect(exported.standardOutput.contains("[erased"))
        let listed = try TallyProcess.run(["erase", "--list", "--store", store])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.contains("owner") && !listed.standardOutput.contains("Corner Shop"))
    }
}
