import Foundation
import Testing

/// Issue 34, item 9, through the command line: a row imported without an external id is keyed
/// by a digest no list of candidate names reproduces once its payee is erased: the log holds no
/// SHA-256 of the row with the payee in clear (what `journal:row:<digest>` held before).
@Suite struct ContentKeyPrivacyCommandTests {
    /// The first 128 bits of SHA-256 of `bytes`, base64url without padding (`sha256sum`).
    private func digest(_ text: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let result = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let hex = Array(result.prefix(32))
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            bytes.append(UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16)!)
        }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The digest the older key held: the row's fields as netstrings, payee and category in clear.
    private func clearDigest(payee: String) throws -> String {
        try digest(["2026-05-01", "Expenses:Food", "Assets:Cash", "12.50", "USD", payee, "Food"].map { "\($0.utf8.count):\($0)," }.joined())
    }

    @Test func anErasedPayeeIsNotFoundByHashingCandidateNames() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home"
        try #require(try TallyProcess.run(["init", "--store", store, "--time-zone", "UTC"]).status == 0)
        let payee = "Marta Quintas"
        let csv = try directory.file("rows.csv", "date,account,counter_account,amount,currency,payee,category,external_id\n2026-05-01,Expenses:Food,Assets:Cash,12.50,USD,\(payee),Food,\n")
        let imported = try TallyProcess.run(["import", csv, "--store", store])
        #expect(imported.status == 0, "\(imported.standardError)")
        let again = try TallyProcess.run(["import", csv, "--store", store])
        #expect(again.status == 0 && again.standardOutput.contains("skipped as duplicates: 1"), "\(again.standardOutput)\(again.standardError)")
        #expect(try TallyProcess.run(["erase", "payee:\(payee)", "--store", store]).status == 0)
        let log = try TallyProcess.run(["log", "--store", store, "--json"])
        #expect(log.status == 0)
        #expect(log.standardOutput.contains(#""idempotency_key":"journal:row:~"#), "\(log.standardOutput)")
        #expect(!log.standardOutput.contains(payee))
        for candidate in ["Corner Shop", "Acme Corp", payee, "Quillon Bistro"] {
            let clear = try clearDigest(payee: candidate)
            #expect(!log.standardOutput.contains(clear), "the log holds the in-clear digest of '\(candidate)'")
        }
    }
}
