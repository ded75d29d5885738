import Foundation
import TallyLog
import Testing

/// Issue 34, item 10: a command that was committed is never reported as failed. With the disk
/// too small for the read models' commit (the log's append fits, SQLite's write-ahead log does
/// not: a file size limit, as a nearly full disk would), `wealth deposit` exited 1 with "no
/// wealth account 'main'" although its events were durable, and a retry deposited twice.
@Suite struct FullDiskCommandTests {
    /// Runs `tally` with a file size limit of `blocks` × 512 bytes (SIGXFSZ ignored, so a write
    /// past it fails with EFBIG as a full disk's fails with ENOSPC).
    private func runLimited(_ arguments: [String], blocks: Int) throws -> TallyRun {
        let quoted = ([TallyProcess.executable.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -f \(blocks); trap '' XFSZ; exec " + quoted.joined(separator: " ")]
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TALLY_STORE")
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return TallyRun(status: process.terminationStatus, standardOutput: String(decoding: out, as: UTF8.self), standardError: String(decoding: err, as: UTF8.self))
    }

    @Test func aDepositCommittedBeforeTheDiskFilledExitsZeroNamingItsEvents() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home"
        try #require(try TallyProcess.run(["init", "--store", store]).status == 0)
        // The read models' write-ahead log emptied into the database, so the next commit writes it
        // from its start: past 32 KiB (the limit) within a deposit's pages, while the log's
        // segment (a few hundred bytes) and the shared-memory index (32 KiB) fit.
        let checkpoint = Process()
        checkpoint.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        checkpoint.arguments = ["python3", "-c", "import sqlite3; c = sqlite3.connect('\(store)/readmodels.sqlite'); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()"]
        try checkpoint.run()
        checkpoint.waitUntilExit()
        try #require(checkpoint.terminationStatus == 0)

        let deposit = try runLimited(["wealth", "deposit", "100.00", "--store", store], blocks: 64)
        #expect(deposit.status == 0, "committed, so not failed: \(deposit.standardOutput)\(deposit.standardError)")
        #expect(deposit.standardOutput.contains("seq 2  deposit of 100.00 USD received"), "\(deposit.standardOutput)")
        #expect(deposit.standardError.contains("the command was committed (events 2…3 are in the log, durable), but then failed"), "\(deposit.standardError)")
        #expect(deposit.standardError.contains("Do not run it again"), "\(deposit.standardError)")

        // With room again the read models catch up, and the deposit is there once.
        let summary = try TallyProcess.run(["wealth", "summary", "--json", "--store", store])
        #expect(summary.status == 0 && summary.standardOutput.contains(#""spend":{"amount":"70.00","currency":"USD"},"invest":{"amount":"30.00","currency":"USD"},"total":{"amount":"100.00","currency":"USD"}"#), "\(summary.standardOutput)\(summary.standardError)")
        let log = try TallyProcess.run(["log", "--store", store])
        #expect(log.standardOutput.components(separatedBy: "deposit_received").count == 2, "\(log.standardOutput)")
        #expect(try TallyProcess.run(["verify", "--store", store]).status == 0)
    }

    /// An import is the exception: it is not finished when the disk fills after some of its
    /// commits, so it fails (exit 1), naming the rows committed, what stopped it and that running
    /// it again finishes it; "do not run it again" would leave the rest of the file out. With
    /// room again the same command adds exactly the rest, and the balances are the file's.
    @Test func anImportThatFillsTheDiskPartwayFailsSayingHowFarItGotAndRunningItAgainFinishesIt() throws {
        let seed: UInt64 = 4_000
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home", reference = directory.path + "/reference"
        var random = SplitMix64(seed: seed)
        let accounts = ["Assets:Checking", "Assets:Savings", "Expenses:Food", "Income:Salary"]
        var lines = ["date,account,counter_account,amount,currency,payee,category,external_id"]
        for index in 0..<4_000 {
            let target = accounts[Int(random.next() % 4)]
            let source = accounts[(accounts.firstIndex(of: target)! + 1 + Int(random.next() % 3)) % 4]
            lines.append("2026-0\(1 + index % 9)-1\(index % 9),\(target),\(source),\(random.next() % 10_000).\(10 + random.next() % 90),USD,Shop \(index),Cat \(index % 5),")
        }
        let file = directory.path + "/export.csv"
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: file))
        for path in [store, reference] { try #require(try TallyProcess.run(["init", "--store", path]).status == 0) }

        // 1 MiB per file: the first batches fit, the log or the read models' write-ahead log
        // outgrows it before the last.
        let stopped = try runLimited(["import", file, "--batch-size", "100", "--progress", "none", "--store", store], blocks: 2_048)
        #expect(stopped.status == 1, "seed \(seed): \(stopped.standardOutput)\(stopped.standardError)")
        #expect(!stopped.standardError.contains("Do not run it again"), "\(stopped.standardError)")
        let said = stopped.standardError.firstMatch(of: /the import stopped after its first (\d+) rows were committed \(events 2-(\d+), durable\): .+ Those rows stay; run the same import again to finish/)
        let committed = try #require(said.flatMap { Int($0.1) }, "seed \(seed): \(stopped.standardError)")
        #expect(committed > 0 && committed < 4_000 && committed % 100 == 0, "seed \(seed): \(committed)")
        #expect(said.flatMap { Int($0.2) } == committed + 1)

        let rest = try TallyProcess.run(["import", file, "--batch-size", "100", "--progress", "none", "--store", store])
        #expect(rest.status == 0, "\(rest.standardError)")
        #expect(rest.standardOutput.contains("rows imported: \(4_000 - committed)\nskipped as duplicates: \(committed)\n"), "seed \(seed): \(rest.standardOutput)")
        #expect(try TallyProcess.run(["import", file, "--progress", "none", "--store", reference]).status == 0)
        let balances = try TallyProcess.run(["balances", "--format", "csv", "--store", store]).standardOutput
        let expected = try TallyProcess.run(["balances", "--format", "csv", "--store", reference]).standardOutput
        #expect(!balances.isEmpty && balances == expected, "seed \(seed)")
        #expect(try TallyProcess.run(["verify", "--store", store]).status == 0)
    }
}
