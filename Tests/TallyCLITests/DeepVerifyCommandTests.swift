import Foundation
import Testing

/// Issue 34, item 11: `verify` checks what answers are made of. Adding 1 to one roll-up cell
/// made `balances --as-of` wrong while `verify` exited 0; `verify --deep` folds the log again
/// and compares every table, and the default run says which read models it compared.
@Suite struct DeepVerifyCommandTests {
    private func store(in directory: TemporaryDirectory) throws -> String {
        let store = directory.path + "/home"
        try #require(try TallyProcess.run(["init", "--store", store, "--time-zone", "UTC"]).status == 0)
        var rows = ["date,account,counter_account,amount,currency,payee,category,external_id"]
        for day in 1...20 {
            rows.append("2026-03-\(String(format: "%02d", day)),Expenses:Food,Assets:Cash,\(day).25,USD,Shop \(day % 3),Food,r\(day)")
        }
        let csv = try directory.file("rows.csv", rows.joined(separator: "\n") + "\n")
        try #require(try TallyProcess.run(["import", csv, "--store", store]).status == 0)
        return store
    }

    /// Runs SQL on the store's read models (as a stray write or a disk error would change them).
    private func sql(_ statement: String, _ store: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit(); c.close()",
                             store + "/readmodels.sqlite", statement]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
    }

    @Test func theDefaultRunNamesWhatItComparedAndDeepComparesEveryTable() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let plain = try TallyProcess.run(["verify", "--store", store])
        #expect(plain.status == 0, "\(plain.standardOutput)\(plain.standardError)")
        #expect(plain.standardOutput.contains("compared with the log: the checkpoints") && plain.standardOutput.contains("balances")
                && plain.standardOutput.contains("verify --deep"), "\(plain.standardOutput)")
        let deep = try TallyProcess.run(["verify", "--deep", "--store", store])
        #expect(deep.status == 0, "\(deep.standardOutput)\(deep.standardError)")
        #expect(deep.standardOutput.contains("folded again (--deep):") && deep.standardOutput.contains("every row compared"), "\(deep.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: store + "/readmodels.sqlite.verifying"))
    }

    @Test(arguments: [("balance_rollup_days", "day"), ("balance_rollup_blocks", "block")])
    func oneRollUpCellChangedByOneIsFound(table: String, period: String) throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory)
        let key = "(\(period), pair, recorded_block)"
        try sql("UPDATE \(table) SET amount = amount + 1 WHERE \(key) IN (SELECT \(period), pair, recorded_block FROM \(table) LIMIT 1)", store)
        let plain = try TallyProcess.run(["verify", "--store", store])
        #expect(plain.status == 0, "the checkpoints still match: only the deep run reads the rows")
        let deep = try TallyProcess.run(["verify", "--deep", "--store", store])
        #expect(deep.status == 2, "\(deep.standardOutput)\(deep.standardError)")
        #expect(deep.standardError.contains("read model balances differs from the log folded again: table \(table) has 1 row"), "\(deep.standardError)")
        let json = try TallyProcess.run(["verify", "--deep", "--json", "--store", store])
        #expect(json.standardOutput.contains(#""table":"\#(table)","extra_rows":1,"missing_rows":1"#), "\(json.standardOutput)")
        // A rebuild makes them again from the log.
        #expect(try TallyProcess.run(["rebuild", "--store", store]).status == 0)
        #expect(try TallyProcess.run(["verify", "--deep", "--store", store]).status == 0)
    }
}
