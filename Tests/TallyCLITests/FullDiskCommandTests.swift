import Foundation
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
}
