import Foundation
import Synchronization
import Testing

/// The seam between the log and the read models, through the real `tally` command: an
/// overflow refused before the log, a shortened log refused until rebuilt, readers beside a
/// writer, appended events admitted at their position, a damaged read-model file rebuilt.
@Suite struct WritePipelineCommandTests {
    private func newStore(_ directory: TemporaryDirectory) throws -> String {
        let store = directory.path + "/store"
        let created = try TallyProcess.run(["init", "--store", store])
        try #require(created.status == 0, "\(created.standardError)")
        return store
    }

    private func journal(_ directory: TemporaryDirectory, _ name: String, rows: [String]) throws -> String {
        try directory.file(name, (["date,account,counter_account,amount,currency,payee,category,external_id"] + rows).joined(separator: "\n") + "\n")
    }

    @Test func anOverflowingImportIsRefusedAndEveryCommandStillWorks() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let file = try journal(directory, "big.csv", rows: [
            "2026-01-01,Assets:A,Income:B,92233720368547758.07,USD,,,big1",
            "2026-01-02,Assets:A,Income:B,0.01,USD,,,big2",
        ])
        let before = try directory.snapshot("store")
        let imported = try TallyProcess.run(["import", file, "--store", store, "--progress", "none"])
        #expect(imported.status != 0)
        #expect(try directory.snapshot("store") == before, "nothing reached the log or the read models")
        for command in [["balances"], ["rebuild", "--progress", "none"], ["replay", "--until", "2026-12-31"], ["networth"], ["verify"]] {
            let result = try TallyProcess.run(command + ["--store", store])
            #expect(result.status == 0, "\(command): \(result.standardError)")
        }
        let small = try journal(directory, "small.csv", rows: ["2026-01-03,Assets:A,Income:B,0.01,USD,,,small1"])
        #expect(try TallyProcess.run(["import", small, "--store", store, "--progress", "none"]).status == 0)
    }

    @Test func anOlderLogUnderNewerReadModelsIsRefusedUntilRebuilt() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let first = try journal(directory, "first.csv", rows: ["2026-01-01,Assets:A,Income:B,1.00,USD,,,a1"])
        #expect(try TallyProcess.run(["import", first, "--store", store, "--progress", "none"]).status == 0)
        try FileManager.default.copyItem(atPath: store + "/log", toPath: directory.path + "/old-log")
        let second = try journal(directory, "second.csv", rows: ["2026-01-02,Assets:A,Income:B,2.00,USD,,,a2"])
        #expect(try TallyProcess.run(["import", second, "--store", store, "--progress", "none"]).status == 0)
        try FileManager.default.removeItem(atPath: store + "/log")
        try FileManager.default.copyItem(atPath: directory.path + "/old-log", toPath: store + "/log")

        let balances = try TallyProcess.run(["balances", "--store", store])
        #expect(balances.status != 0)
        #expect(balances.standardError.contains("tally rebuild"), "\(balances.standardError)")
        let reimport = try TallyProcess.run(["import", second, "--store", store, "--progress", "none"])
        #expect(reimport.status != 0, "no import on a log the read models are ahead of")
        #expect(try TallyProcess.run(["rebuild", "--store", store, "--progress", "none"]).status == 0)
        #expect(try TallyProcess.run(["import", second, "--store", store, "--progress", "none"]).status == 0)
        let after = try TallyProcess.run(["balances", "--store", store, "--format", "csv"])
        #expect(after.standardOutput.contains("Assets:A,USD,3.00"), "\(after.standardOutput)")
    }

    @Test func eightReadersRunBesideAnImportAndEachOther() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let rows = (0..<4_000).map { "2026-01-\(String(format: "%02d", 1 + $0 % 28)),Assets:A\($0 % 4),Income:B,1.00,USD,,,r\($0)" }
        let file = try journal(directory, "rows.csv", rows: rows)
        let importer = Process()
        importer.executableURL = TallyProcess.executable
        importer.arguments = ["import", file, "--store", store, "--progress", "none", "--batch-size", "100"]
        importer.standardOutput = FileHandle.nullDevice
        importer.standardError = FileHandle.nullDevice
        try importer.run()
        var failures: [String] = []
        var rounds = 0
        repeat {
            let results = Mutex<[TallyRun]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let arguments = index % 2 == 0 ? ["balances", "--store", store, "--format", "csv"] : ["log", "--store", store, "--limit", "5"]
                let result = (try? TallyProcess.run(arguments)) ?? TallyRun(status: -1, standardOutput: "", standardError: "could not start \(arguments)")
                results.withLock { $0.append(result) }
            }
            let finished = results.withLock { $0 }
            for result in finished where result.status != 0 { failures.append(result.standardError) }
            // Every answer is the balances of a committed prefix: whole batches of 100 rows, 25 per account.
            for result in finished where result.standardOutput.hasPrefix("account,") {
                for line in result.standardOutput.split(separator: "\n").dropFirst() where line.hasPrefix("Assets:") {
                    let amount = line.split(separator: ",")[2]
                    let units = Int(amount.split(separator: ".")[0]) ?? -1
                    if units % 25 != 0 { failures.append("not a committed prefix: \(line)") }
                }
            }
            rounds += 1
        } while importer.isRunning && rounds < 50
        importer.waitUntilExit()
        #expect(importer.terminationStatus == 0)
        #expect(failures.isEmpty, "\(failures.prefix(3))")
    }

    /// The short run of scripts/load/readers_during_import.py (docs/testing.md, "Crash and fuzz harnesses"):
    /// four readers loop over `balances`, `audit` and `log` while 2,000 rows are imported; every
    /// reader exits 0, every balances answer is the balances of a committed prefix of the file (and
    /// never an earlier one than the reader saw before), every audit the account's first rows, every
    /// logged event the file's row at its sequence number.
    @Test func readersDuringAnImportAnswerFromCommittedPrefixes() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/load/readers_during_import.py")
        let directory = try TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--tally", TallyProcess.executable.path, "--rows", "2000", "--readers", "4",
                             "--batch-size", "50", "--seed", "2026", "--workdir", directory.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let summaryLine = printed.split(separator: "\n").last { $0.hasPrefix("{") }
        let summary = try summaryLine.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? [:]
        #expect(process.terminationStatus == 0, "\(printed)")
        #expect(summary["import_exit"] as? Int == 0, "\(printed)")
        #expect(summary["failures"] as? Int == 0, "\(printed)")
        #expect((summary["balances_matched"] as? Int ?? 0) > 0, "\(printed)")
    }

    @Test func appendedEventsMustBeAdmissibleAndAKeyedFileAppendsOnce() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let negative = #"{"type":"deposit_received","version":2,"effective_at":"2026-05-01T09:00:00Z","data":{"account":"main","amount":{"amount":"-5.00","currency":"USD"},"source":"bank_transfer"}}"#
        let overdraw = #"{"type":"withdrawal_made","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"account":"main","amount":{"amount":"1000000.00","currency":"USD"}}}"#
        let noPot = #"{"type":"pot_withdrawn","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"pot_id":"ghost","amount":{"amount":"1.00","currency":"USD"}}}"#
        let created = #"{"type":"ledger_created","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"name":"Again","base_currency":"USD","time_zone":"UTC"}}"#
        for (line, message) in [(negative, "more than zero"), (overdraw, "below zero"), (noPot, "no pot 'ghost'"), (created, "created once")] {
            let file = try directory.file("bad.ndjson", line + "\n")
            let before = try directory.snapshot("store")
            let result = try TallyProcess.run(["append", file, "--store", store])
            #expect(result.status != 0)
            #expect(result.standardError.contains(message), "\(result.standardError)")
            #expect(try directory.snapshot("store") == before)
        }
        let file = try directory.file("good.ndjson", AppendCommandTests.deposit + "\n" + AppendCommandTests.split + "\n")
        #expect(try TallyProcess.run(["append", file, "--store", store]).status == 0)
        let again = try TallyProcess.run(["append", try directory.file("again.ndjson", AppendCommandTests.deposit + "\n"), "--store", store])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput.contains("nothing appended"), "\(again.standardOutput)")
        let verify = try TallyProcess.run(["verify", "--store", store])
        #expect(verify.standardOutput.contains("head 3:"), "\(verify.standardOutput)")
    }

    @Test func aDamagedReadModelFileIsRebuilt() throws {
        let directory = try TemporaryDirectory()
        let store = try newStore(directory)
        let file = try journal(directory, "rows.csv", rows: ["2026-01-01,Assets:A,Income:B,1.00,USD,,,a1"])
        #expect(try TallyProcess.run(["import", file, "--store", store, "--progress", "none"]).status == 0)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + "/readmodels.sqlite" + suffix) }
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: store + "/readmodels.sqlite"))
        let balances = try TallyProcess.run(["balances", "--store", store])
        #expect(balances.status != 0)
        #expect(balances.standardError.contains("tally rebuild"), "\(balances.standardError)")
        #expect(try TallyProcess.run(["rebuild", "--store", store, "--progress", "none"]).status == 0)
        #expect(try TallyProcess.run(["verify", "--store", store]).status == 0)
        #expect(try TallyProcess.run(["balances", "--store", store, "--format", "csv"]).standardOutput.contains("Assets:A,USD,1.00"))
    }
}
