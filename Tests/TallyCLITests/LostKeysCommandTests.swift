import Foundation
import Testing

/// Issue 34, item 8: lost keys are not erasures. A deleted `SUBJECTS` made every payee read
/// `[erased …]` exactly as a real erasure would while `verify` said intact; one changed
/// character of a key did the same. Verify now tells a lost key from an erased one (the log
/// records every erasure) and key material carries a checksum.
@Suite struct LostKeysCommandTests {
    /// A store with two subjects (the owner, whose name the ledger holds, and a payee), read models made.
    private func store(in directory: TemporaryDirectory) throws -> String {
        let store = directory.path + "/home"
        try #require(try TallyProcess.run(["init", "--store", store, "--time-zone", "UTC"]).status == 0)
        let csv = try directory.file("rows.csv", "date,account,counter_account,amount,currency,payee,category,external_id\n2026-05-01,Expenses:Food,Assets:Cash,12.50,USD,Corner Shop,Food,r1\n")
        try #require(try TallyProcess.run(["import", csv, "--store", store]).status == 0)
        let verified = try TallyProcess.run(["verify", "--store", store])
        try #require(verified.status == 0, "\(verified.standardOutput)\(verified.standardError)")
        return store
    }

    @Test func aDeletedSubjectKeyFileIsDamageNotAnErasure() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        try FileManager.default.removeItem(atPath: store + "/SUBJECTS")
        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 1, "\(verified.standardOutput)\(verified.standardError)")
        #expect(verified.standardOutput.contains("ok: "), "the log itself is intact: \(verified.standardOutput)")
        // The log names its three texts (the ledger's name, the payee, the category) by reference,
        // sealed in the file that is gone: each is lost, none erased.
        #expect(verified.standardError.contains("3 sealed texts (text#0, text#1, text#2)") && verified.standardError.contains("keys are missing from the subject key file (SUBJECTS)"), "\(verified.standardError)")
        let json = try TallyProcess.run(["verify", "--store", store, "--json"])
        #expect(json.standardOutput.contains(#""status":"keys_missing""#), "\(json.standardOutput)")
    }

    @Test func aRecordedErasureIsNoDamage() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let erased = try TallyProcess.run(["erase", "payee:Corner Shop", "--store", store])
        #expect(erased.status == 0, "\(erased.standardError)")
        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 0, "\(verified.standardOutput)\(verified.standardError)")
    }

    @Test func oneChangedCharacterOfAKeyIsReportedAsDamage() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let path = store + "/SUBJECTS"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        let key = try #require(text.range(of: #""key":""#))
        let at = text.index(key.upperBound, offsetBy: 5)
        let changed: Character = text[at] == "A" ? "B" : "A"
        text.replaceSubrange(at...at, with: String(changed))
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let read = try TallyProcess.run(["balances", "--store", store])
        #expect(read.status != 0 && read.standardError.contains("is damaged: the key of subject"), "\(read.standardError)")
        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 1 && verified.standardError.contains("does not match its checksum"), "\(verified.standardOutput)\(verified.standardError)")
    }
}
