import Foundation
import Tally
import TallyLog
import Testing

@Suite struct InitCommandTests {
    @Test func createsAStoreWhoseFirstEventIsLedgerCreated() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home"
        let created = try TallyProcess.run(["init", "--store", store, "--name", "Home", "--base-currency", "GBP", "--time-zone", "Europe/London"])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput.contains("base currency GBP"))
        let log = try TallyProcess.run(["log", "--store", store, "--json"])
        #expect(log.status == 0)
        #expect(log.standardOutput.contains("\"type\":\"ledger_created\""))
        #expect(log.standardOutput.contains("\"time_zone\":\"Europe/London\""))
    }

    @Test func refusesAnExistingStoreAndLeavesItAlone() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home"
        try TallyProcess.run(["init", "--store", store])
        let before = try directory.snapshot("home")
        let again = try TallyProcess.run(["init", "--store", store])
        #expect(again.status != 0)
        #expect(again.standardError.contains("already exists"))
        #expect(try directory.snapshot("home") == before)
    }

    @Test(arguments: [
        (["--base-currency", "usd"], "usd"),
        (["--base-currency", "VEA"], "not an ISO 4217 currency"),
        (["--time-zone", "Mars/Olympus"], "Mars/Olympus"),
    ])
    func rejectsBadOptionsWithoutCreatingAnything(options: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home"
        let result = try TallyProcess.run(["init", "--store", store] + options)
        #expect(result.status != 0)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func usesTallyStoreFromTheEnvironment() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/from-env"
        let result = try TallyProcess.run(["init"], environment: ["TALLY_STORE": store])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(FileManager.default.fileExists(atPath: store + "/STORE"))
    }

    // MARK: Issue 10, finding 6: init creates a whole store or nothing

    /// Starts `tally init --store store` without waiting for it.
    private func startInit(_ store: String) throws -> (process: Process, output: Pipe, errors: Pipe) {
        let process = Process()
        process.executableURL = TallyProcess.executable
        process.arguments = ["init", "--store", store]
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TALLY_STORE")
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    /// Whatever is at `store` is a whole store whose only event is `ledger_created`.
    private func expectWholeStore(_ store: String, _ context: String) throws {
        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 0, "\(context): \(verified.standardError)")
        #expect(verified.standardOutput.contains("ok: 1 events"), "\(context): \(verified.standardOutput)")
    }

    /// Before: two inits on one directory sometimes both printed "Created store" and the directory
    /// was gone (the loser's clean-up deleted the winner's store).
    @Test func concurrentInitsOfOneDirectoryHaveExactlyOneWinner() throws {
        let seed: UInt64 = 0x1417_0006
        var random = SplitMix64(seed: seed)
        for round in 0..<6 {
            let directory = try TemporaryDirectory()
            let store = directory.path + "/home"
            if Bool.random(using: &random) { try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: false) }
            let runs = try (0..<6).map { _ in try startInit(store) }
            var created = 0
            for run in runs {
                let output = String(decoding: run.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                let errors = String(decoding: run.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                run.process.waitUntilExit()
                if run.process.terminationStatus == 0 {
                    created += 1
                    #expect(output.contains("Created store"), "seed \(seed), round \(round): \(output)")
                } else {
                    #expect(errors.contains("already exists"), "seed \(seed), round \(round): \(errors)")
                }
            }
            #expect(created == 1, "seed \(seed), round \(round)")
            try expectWholeStore(store, "seed \(seed), round \(round)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["home"], "seed \(seed), round \(round)")
        }
    }

    /// Before: SIGKILL during init left stores that could be neither opened nor initialised again,
    /// or an empty log without `ledger_created` that verify called ok.
    @Test func anInitKilledAtAnyMomentLeavesNoStoreOrAWholeOne() throws {
        let seed: UInt64 = 0x6_0000_0006
        var random = SplitMix64(seed: seed)
        var outcomes: [Bool: Int] = [:]
        // Kill moments are drawn over the second half of an init's run time on this machine now,
        // where it creates the store (the first half is mostly the process starting).
        let sample = try TemporaryDirectory()
        let timings = try (0..<3).map { index in
            let start = ContinuousClock.now
            try #require(try TallyProcess.run(["init", "--store", sample.path + "/\(index)"]).status == 0)
            return (ContinuousClock.now - start).components.attoseconds / 1_000_000_000_000 + (ContinuousClock.now - start).components.seconds * 1_000_000
        }
        let duration = UInt32(clamping: timings.sorted()[1])
        for round in 0..<24 {
            let directory = try TemporaryDirectory()
            let store = directory.path + "/home"
            let run = try startInit(store)
            usleep(UInt32.random(in: duration / 2 ..< max(duration, duration / 2 + 1), using: &random))
            kill(run.process.processIdentifier, SIGKILL)
            run.process.waitUntilExit()
            let context = "seed \(seed), round \(round)"
            let exists = FileManager.default.fileExists(atPath: store)
            outcomes[exists, default: 0] += 1
            if exists { try expectWholeStore(store, context) }
            // Whatever the kill left, init again either creates the store or finds the whole one.
            let again = try TallyProcess.run(["init", "--store", store])
            #expect(exists ? again.standardError.contains("already exists") : again.status == 0, "\(context): \(again.standardError)")
            try expectWholeStore(store, context)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "home" }
            #expect(leftovers.allSatisfy { $0.hasPrefix(".home.tally-init.") }, "\(context): \(leftovers)")
        }
        print("seed \(seed): init takes \(duration) µs; killed inits left a store \(outcomes[true] ?? 0) times, nothing \(outcomes[false] ?? 0) times")
    }

    /// A staging directory a killed init left is ignored while it may belong to a live init, and
    /// removed by a later init of the same store once it is stale, even one refused because the
    /// store exists; the store itself is left exactly as it was.
    @Test func aLeftoverOfAKilledInitIsIgnoredThenRemovedWhenStale() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/home"
        let leftover = directory.path + "/.home.tally-init.00000000000000aa"
        try FileManager.default.createDirectory(atPath: leftover + "/log", withIntermediateDirectories: true)
        _ = try directory.file(".home.tally-init.00000000000000aa/STORE", "tally store format 1\n")
        _ = try directory.file(".home.tally-init.00000000000000aa/log/00000000000000000001.tlog", "")
        let created = try TallyProcess.run(["init", "--store", store])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(FileManager.default.fileExists(atPath: leftover))
        let before = try directory.snapshot("home")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -600)], ofItemAtPath: leftover)
        let again = try TallyProcess.run(["init", "--store", store])
        #expect(again.status != 0 && again.standardError.contains("already exists"))
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(try directory.snapshot("home") == before)
    }
}
