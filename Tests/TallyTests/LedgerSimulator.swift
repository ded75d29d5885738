import Foundation
import Synchronization
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts
import TallyLogTesting

/// What a ledger simulation run did, summed over seeds.
struct LedgerSimulationFigures: Sendable, CustomStringConvertible {
    var seeds = 0
    var commands = 0
    var acknowledged = 0
    var refused = 0
    var failed = 0
    var repeats = 0
    var crashes = 0
    var crashesInsideCommit = 0
    var reopens = 0
    var readModelsKept = 0
    var readModelsDeleted = 0
    var readModelsRestored = 0
    var aheadRefused = 0
    var unsyncedTailRepairs = 0
    var faults = 0
    var acknowledgedChecked = 0
    /// Checks that found idempotency keys packed in blocks (the live read models).
    var checksWithPackedKeys = 0
    var failures: [String] = []

    mutating func add(_ other: LedgerSimulationFigures) {
        seeds += other.seeds; commands += other.commands; acknowledged += other.acknowledged; refused += other.refused
        failed += other.failed; repeats += other.repeats; crashes += other.crashes
        crashesInsideCommit += other.crashesInsideCommit; reopens += other.reopens
        readModelsKept += other.readModelsKept; readModelsDeleted += other.readModelsDeleted
        readModelsRestored += other.readModelsRestored; aheadRefused += other.aheadRefused; unsyncedTailRepairs += other.unsyncedTailRepairs; faults += other.faults
        acknowledgedChecked += other.acknowledgedChecked; checksWithPackedKeys += other.checksWithPackedKeys; failures += other.failures
    }

    var description: String {
        "seeds \(seeds), commands \(commands) (acknowledged \(acknowledged), refused \(refused), failed \(failed), "
            + "idempotent repeats \(repeats)), crashes \(crashes) (\(crashesInsideCommit) inside a group commit), reopens \(reopens), "
            + "read models kept \(readModelsKept) / deleted \(readModelsDeleted) / restored older \(readModelsRestored), "
            + "read models ahead refused \(aheadRefused), unsynced tails repaired \(unsyncedTailRepairs), faults injected \(faults), acknowledged events checked \(acknowledgedChecked), "
            + "checks with packed keys \(checksWithPackedKeys), "
            + "failures \(failures.count)"
    }
}

struct LedgerSimulationFailure: Error, CustomStringConvertible {
    let seed: UInt64
    let message: String
    let trace: [String]
    var description: String {
        "seed \(seed): \(message)\n  replay: LedgerSimulator(seed: \(seed)).run()\n  last steps:\n    " + trace.suffix(60).joined(separator: "\n    ")
    }
}

/// A seeded source of randomness that a `@Sendable` hook can share with the simulator.
final class SimulationDice: Sendable {
    private let random: Mutex<SplitMix64>
    init(seed: UInt64) { random = Mutex(SplitMix64(seed: seed)) }
    func chance(perMillion: Int) -> Bool { random.withLock { $0.chance(perMillion: perMillion) } }
}

/// A flag a `@Sendable` hook sets for the simulator.
final class SimulationFlag: Sendable {
    private let state = Mutex(false)
    var value: Bool { state.withLock { $0 } }
    func set(_ value: Bool) { state.withLock { $0 = value } }
}

/// A clock for simulations: one second per reading.
final class SimulationInstantClock: Sendable {
    private let value = Mutex<Int64>(1_779_000_000_000_000)
    func now() -> Instant { value.withLock { $0 += 1_000_000; return Instant(microsecondsSinceEpoch: $0) } }
}

/// Where the read models of a simulation live: memory-backed `/dev/shm` when there is one (SQLite's syncs
/// cost nothing there, and SQLite's own durability is not what is simulated), else the temporary directory.
func simulationDirectory() -> String {
    if let directory = ProcessInfo.processInfo.environment["TALLY_SIM_DIRECTORY"] { return directory }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue,
       FileManager.default.isWritableFile(atPath: "/dev/shm") {
        return "/dev/shm"
    }
    return FileManager.default.temporaryDirectory.path
}

/// A store made once per process on the real disk: every run starts from a copy of it.
enum LedgerSimulationTemplate {
    struct Files: Sendable {
        let marker: [UInt8]
        /// The subject keys personal text (the ledger's name) is sealed under.
        let subjects: [UInt8]
        let log: [(name: String, bytes: [UInt8])]
        let readModels: [(name: String, bytes: [UInt8])]
    }

    static let files: Files = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tally-sim-template-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let clock = SimulationInstantClock()
        let ledger = try! Ledger.create(
            at: root, name: "Simulated household", baseCurrency: .usd, timeZone: "UTC", options: Ledger.Options(clock: { clock.now() }, features: standardFeatures))
        // A few loose idempotency keys are packed, so that a seed's few hundred commands
        // pack and look up packed keys as a store's millions do (kept until a rebuild).
        try! ledger.readModels.database.write { db in try PackedKeys.setLooseMinimum(4, db) }
        try! ledger.close()
        func bytes(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path)!) }
        let log = try! FileManager.default.contentsOfDirectory(atPath: root + "/log").sorted()
            .filter { $0 != "LOCK" }.map { (name: $0, bytes: bytes(root + "/log/" + $0)) }
        let readModels = try! FileManager.default.contentsOfDirectory(atPath: root).sorted()
            .filter { $0.hasPrefix("readmodels.sqlite") }.map { (name: $0, bytes: bytes(root + "/" + $0)) }
        return Files(marker: bytes(root + "/STORE"), subjects: bytes(root + "/SUBJECTS"), log: log, readModels: readModels)
    }()
}

/// Runs random commands through the public `Ledger` API on a log kept on a `SimulatedDisk` (read models
/// on the real disk, in a temporary directory), crashes at random points, some inside a group commit, and
/// after every reopen checks: every acknowledged command's events are in the log where they were
/// acknowledged; the log holds nothing else but the baseline and at most an unacknowledged tail; the chain
/// verifies; the read models equal a fresh fold of the log; idempotent repeats return the first result; and
/// read models ahead of the log are refused, never used.
struct LedgerSimulator {
    let seed: UInt64
    var random: SplitMix64
    let disk: SimulatedDisk
    let faults: SimulatedDisk.Faults
    let options: Ledger.Options
    let root: String
    let stepsLimit: Int
    /// Set by the commit hook when it crashed the disk inside a group commit.
    let crashedInside = SimulationFlag()

    var ledger: Ledger?
    /// The log at the last reopen (all of it durable then), by sequence − 1.
    var baseline: [Event] = []
    /// Events of acknowledged commands since, by sequence.
    var acknowledged: [UInt64: Event] = [:]
    /// The last acknowledged event that is surely durable: every one with per-commit syncs, else through the
    /// last `sync()` (a crash, or a writer stopped by a failed sync, may take the rest).
    var syncedThrough: UInt64 = 0
    /// Commands with keys that were acknowledged, to repeat: the run and its first result.
    var keyed: [(key: String, run: @Sendable (Ledger, String) throws -> Ledger.CommandResult, events: [Event])] = []
    /// Commands that failed (not refused) since the last reopen: their events may be in the log's tail.
    var failedSinceReopen = 0
    var nextKey = 0
    var snapshots: [String] = []
    var trace: [String] = []
    var figures = LedgerSimulationFigures()

    init(seed: UInt64, steps: Int = 40) {
        self.seed = seed
        var random = SplitMix64(seed: seed)
        let profile = Int.random(in: 0..<4, using: &random)
        faults = SimulatedDisk.Faults(
            writeNoSpacePerMillion: profile & 1 == 1 ? Int.random(in: 0...30_000, using: &random) : 0,
            writeIOErrorPerMillion: profile & 1 == 1 ? Int.random(in: 0...30_000, using: &random) : 0,
            syncIOErrorPerMillion: profile & 2 == 2 ? Int.random(in: 0...40_000, using: &random) : 0)
        root = simulationDirectory() + "/tally-sim-\(seed)-\(UUID().uuidString)"
        disk = SimulatedDisk(seed: random.next(), faults: .none, roots: [root, root + "/log"])
        let dice = SimulationDice(seed: random.next())
        let insideCommitPerMillion = random.chance(perMillion: 500_000) ? 60_000 : 0
        let failCommitPerMillion = random.chance(perMillion: 500_000) ? 80_000 : 0
        let clock = SimulationInstantClock()
        var options = Ledger.Options(
            clock: { clock.now() }, syncMode: random.chance(perMillion: 800_000) ? .everyCommit : .none,
            segmentBytesLimit: Int64.random(in: 512...8192, using: &random), features: standardFeatures, logFileSystem: disk)
        let disk = self.disk
        let crashedInside = self.crashedInside
        options.faultAfterAppend = {
            if dice.chance(perMillion: insideCommitPerMillion) {
                disk.crash()
                crashedInside.set(true)
                throw LogError(.io, "simulated power loss inside a group commit")
            }
            if dice.chance(perMillion: failCommitPerMillion) {
                throw CocoaError(.fileWriteOutOfSpace)
            }
        }
        self.options = options
        stepsLimit = steps
        self.random = random
    }

    func fail(_ message: String) -> LedgerSimulationFailure {
        LedgerSimulationFailure(seed: seed, message: message, trace: trace)
    }

    mutating func note(_ line: String) { trace.append(line) }

    mutating func run() throws -> LedgerSimulationFigures {
        figures.seeds = 1
        defer {
            try? ledger?.close()
            try? FileManager.default.removeItem(atPath: root)
        }
        note("options: sync \(options.syncMode), segment \(options.segmentBytesLimit) B, faults \(faults)")
        try install()
        try EventStoreReader.open(at: root, catalog: .standard, fileSystem: disk).forEach { baseline.append($0) }
        syncedThrough = UInt64(baseline.count)
        guard try reopen(afterCrash: false) else { return figures }
        for _ in 0..<stepsLimit {
            if crashedInside.value {
                figures.crashesInsideCommit += 1
                guard try crashAndReopen(alreadyCrashed: true) else { break }
                continue
            }
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<70: try runCommand()
            case 70..<76: try repeatCommand()
            case 76..<80:
                guard let ledger else { break }
                do {
                    try ledger.sync()
                    syncedThrough = max(syncedThrough, acknowledged.keys.max() ?? 0)
                    note("sync through \(syncedThrough)")
                } catch { note("sync failed (\(error))") }
            case 80..<86:
                note("close and reopen")
                try? ledger?.close()
                ledger = nil
                guard try reopen(afterCrash: false) else { return finish() }
            default:
                guard try crashAndReopen(alreadyCrashed: false) else { return finish() }
            }
        }
        _ = try crashAndReopen(alreadyCrashed: crashedInside.value)
        return finish()
    }

    mutating func finish() -> LedgerSimulationFigures {
        figures.faults = disk.statistics.faults
        return figures
    }

    /// A copy of the template store: its marker, subject keys and read models on the real disk, its log on the simulated one.
    func install() throws {
        let files = LedgerSimulationTemplate.files
        try FileManager.default.createDirectory(atPath: root + "/log", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/STORE", contents: Data(files.marker))
        _ = FileManager.default.createFile(atPath: root + "/SUBJECTS", contents: Data(files.subjects))
        for file in files.readModels { _ = FileManager.default.createFile(atPath: root + "/" + file.name, contents: Data(file.bytes)) }
        for file in files.log { disk.install(root + "/log/" + file.name, bytes: file.bytes) }
    }

    // MARK: Commands

    mutating func money(_ centsMax: Int) -> Money {
        let cents = Int.random(in: 1...centsMax, using: &random)
        let text = "\(cents / 100)." + (cents % 100 < 10 ? "0" : "") + "\(cents % 100)"
        return try! Money(parsing: text, commodity: .usd)
    }

    /// A random command with its inputs fixed, so that a repeat is the same command.
    mutating func makeCommand() -> (name: String, run: @Sendable (Ledger, String?) throws -> Ledger.CommandResult) {
        let pot = "p\(Int.random(in: 0..<3, using: &random))"
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1:
            let amount = money(50_000)
            return ("deposit \(amount)", { l, k in try l.deposit(account: "main", amount: amount, idempotencyKey: k) })
        case 2:
            let amount = money(5_000)
            return ("purchase \(amount)", { l, k in try l.purchase(account: "main", amount: amount, merchant: "Shop", idempotencyKey: k) })
        case 3:
            let amount = money(10_000)
            return ("withdraw \(amount)", { l, k in try l.withdraw(account: "main", amount: amount, destination: "checking", idempotencyKey: k) })
        case 4:
            let target = money(100_000)
            return ("create pot \(pot)", { l, k in try l.createPot(id: pot, target: target, idempotencyKey: k) })
        case 5:
            let amount = money(10_000)
            return ("add \(amount) to \(pot)", { l, k in try l.addToPot(id: pot, amount: amount, idempotencyKey: k) })
        case 6:
            let amount = money(5_000)
            return ("take \(amount) from \(pot)", { l, k in try l.withdrawFromPot(id: pot, amount: amount, idempotencyKey: k) })
        default:
            let maximum = money(80_000)
            let month = try! Month(parsing: "2026-0\(Int.random(in: 1...9, using: &random))")
            return ("budget \(maximum)", { l, k in try l.setBudget(category: .groceries, month: month, maximum: maximum, idempotencyKey: k) })
        }
    }

    mutating func runCommand() throws {
        guard let ledger else { return }
        if random.chance(perMillion: 150_000) { return try runBatch(ledger) }
        let command = makeCommand()
        let key: String? = random.chance(perMillion: 500_000) ? "k\(nextKey)" : nil
        if key != nil { nextKey += 1 }
        figures.commands += 1
        do {
            let result = try command.run(ledger, key)
            try acknowledge(result, "\(command.name) [\(key ?? "-")]")
            if let key, !result.events.isEmpty {
                let run = command.run
                keyed.append((key, { l, k in try run(l, k) }, result.events))
            }
        } catch let error as LedgerError where ![.store, .locked, .readModels].contains(error.code) {
            figures.refused += 1
            note("\(command.name): refused (\(error.code))")
        } catch {
            figures.failed += 1
            failedSinceReopen += 1
            note("\(command.name): failed (\(error))")
        }
    }

    /// Several journal entries through `run(batch:)`: one commit, a result per command.
    mutating func runBatch(_ ledger: Ledger) throws {
        let count = Int.random(in: 2...4, using: &random)
        let now = ledger.now
        let commands = (0..<count).map { index in
            let amount = money(20_000)
            let event = NewEvent(effectiveAt: now, body: EventBody(JournalEntryPosted(
                account: "Assets:Cash", counterAccount: "Income:Salary", amount: amount)))
            return LedgerCommand { _ in [event] }
        }
        figures.commands += count
        let results = try ledger.run(batch: commands)
        for result in results {
            switch result {
            case .success(let value): try acknowledge(value, "batch entry")
            case .failure(let error as LedgerError):
                figures.refused += 1
                note("batch entry refused (\(error.code))")
            case .failure(let error):
                figures.failed += 1
                failedSinceReopen += 1
                note("batch entry failed (\(error))")
            }
        }
    }

    mutating func acknowledge(_ result: Ledger.CommandResult, _ name: String) throws {
        figures.acknowledged += 1
        note("\(name): \(result.wasAlreadyApplied ? "already applied" : "ok") \(result.events.map(\.sequence))")
        guard !result.wasAlreadyApplied else { return }
        for event in result.events {
            guard acknowledged[event.sequence] == nil, Int(event.sequence) > baseline.count else {
                throw fail("\(name): sequence \(event.sequence) was acknowledged twice")
            }
            acknowledged[event.sequence] = event
            if options.syncMode == .everyCommit { syncedThrough = max(syncedThrough, event.sequence) }
        }
    }

    /// A keyed command acknowledged earlier, run again with the same input: the first result, nothing appended.
    mutating func repeatCommand() throws {
        guard let ledger, !keyed.isEmpty else { return }
        let entry = keyed[Int.random(in: 0..<keyed.count, using: &random)]
        figures.repeats += 1
        do {
            let result = try entry.run(ledger, entry.key)
            note("repeat \(entry.key): \(result.wasAlreadyApplied ? "already applied" : "applied again!") \(result.events.map(\.sequence))")
            guard result.wasAlreadyApplied, result.events == entry.events else {
                throw fail("repeating key \(entry.key) did not return the first result (\(result.events.map(\.sequence)) vs \(entry.events.map(\.sequence)))")
            }
        } catch let failure as LedgerSimulationFailure {
            throw failure
        } catch {
            note("repeat \(entry.key): failed (\(error))")
        }
    }

    // MARK: Crashes and reopens

    mutating func crashAndReopen(alreadyCrashed: Bool) throws -> Bool {
        if !alreadyCrashed { disk.crash() }
        crashedInside.set(false)
        figures.crashes += 1
        try? ledger?.close()
        ledger = nil
        // What the crash did to the read models (SQLite, on the real disk).
        let readModelFiles = ["", "-wal", "-shm", "-journal"].map { root + "/readmodels.sqlite" + $0 }
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            figures.readModelsDeleted += 1
            note("crash: read models deleted")
            for path in readModelFiles { try? FileManager.default.removeItem(atPath: path) }
        case 1 where !snapshots.isEmpty:
            figures.readModelsRestored += 1
            let snapshot = snapshots[Int.random(in: 0..<snapshots.count, using: &random)]
            note("crash: read models restored from \(snapshot)")
            for path in readModelFiles { try? FileManager.default.removeItem(atPath: path) }
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: snapshot + suffix) {
                try FileManager.default.copyItem(atPath: snapshot + suffix, toPath: root + "/readmodels.sqlite" + suffix)
            }
        default:
            figures.readModelsKept += 1
            note(alreadyCrashed ? "crash inside a group commit: read models kept" : "crash: read models kept")
        }
        return try reopen(afterCrash: true)
    }

    /// The highest checkpoint of the read models on the disk, or nil when there are none.
    func readModelCheckpoint() -> UInt64? {
        guard let store = try? ReadModelStore.openForReading(path: root + "/readmodels.sqlite", projectors: try! Ledger.Options.standard.registeredProjectors(), snapshots: nil)
        else { return nil }
        defer { try? store.database.close() }
        return try? store.database.read { db in try ReadModelStore.checkpointDigests(db) }.map(\.sequence).max()
    }

    /// Opens the ledger again and checks everything. Returns false when the run cannot go on.
    mutating func reopen(afterCrash: Bool) throws -> Bool {
        figures.reopens += 1
        // An older copy of the read models, for a later crash to restore.
        if random.chance(perMillion: 300_000), FileManager.default.fileExists(atPath: root + "/readmodels.sqlite") {
            let snapshot = root + "/snapshot-\(snapshots.count).sqlite"
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: root + "/readmodels.sqlite" + suffix) {
                try FileManager.default.copyItem(atPath: root + "/readmodels.sqlite" + suffix, toPath: snapshot + suffix)
            }
            snapshots.append(snapshot)
        }
        // Read models ahead of the log must be refused.
        disk.faults = .none
        var logHead: UInt64
        do { logHead = try LogReader.open(directory: root + "/log", fileSystem: disk).head.sequence } catch let error as LogError {
            try repairUnsyncedTail(error)
            do { logHead = try LogReader.open(directory: root + "/log", fileSystem: disk).head.sequence } catch {
                throw fail("the log cannot be read after a repair: \(error)")
            }
        }
        var checkpoint = readModelCheckpoint()
        disk.faults = faults
        var attempt = 0
        while true {
            attempt += 1
            if attempt > 4 { disk.faults = .none }
            do {
                ledger = try Ledger.open(at: root, options: options)
                if let checkpoint, checkpoint > logHead {
                    throw fail("read models at \(checkpoint) ahead of the log at \(logHead) were accepted")
                }
                break
            } catch let error as LedgerError where underlying(error, as: StoreError.self)?.code == .readModelsAhead {
                guard let folded = checkpoint, folded > logHead else { throw fail("a false 'read models ahead': \(error)") }
                guard options.syncMode == .none else {
                    throw fail("read models ahead of a log that syncs every commit: an acknowledged commit was lost (\(folded) > \(logHead))")
                }
                // Without per-commit syncs the log may lose what the read models folded: refused, then rebuilt.
                note("read models ahead (\(folded) > \(logHead)) refused; rebuilding")
                figures.aheadRefused += 1
                forgetSnapshots()
                for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: root + "/readmodels.sqlite" + suffix) }
                checkpoint = nil
            } catch let error as LedgerError where underlying(error, as: LogError.self)?.code == .io {
                note("open failed: \(error.message)")
                if attempt > 8 { throw fail("open keeps failing without faults: \(error)") }
            } catch let error as LedgerError where underlying(error, as: LogError.self) != nil {
                // The writer checks every frame of the last segment; a reader only its last.
                disk.faults = .none
                try repairUnsyncedTail(underlying(error, as: LogError.self)!)
                do { logHead = try LogReader.open(directory: root + "/log", fileSystem: disk).head.sequence } catch {
                    throw fail("the log cannot be read after a repair: \(error)")
                }
                disk.faults = faults
            } catch let failure as LedgerSimulationFailure {
                throw failure
            } catch {
                throw fail("the ledger did not open after \(afterCrash ? "a crash" : "a clean close"): \(error)")
            }
        }
        disk.faults = .none
        defer { disk.faults = faults }
        try check()
        return true
    }

    /// Without per-commit syncs, the disk may write unsynced frames back in any order, and a crash can leave
    /// a hole before a later frame: open refuses, and a repair cuts at the hole. Anything else is a failure.
    /// The checks that follow make sure that the cut kept everything synced.
    mutating func repairUnsyncedTail(_ error: LogError) throws {
        let unsynced = (acknowledged.keys.max() ?? 0) > syncedThrough || failedSinceReopen > 0
        guard options.syncMode == .none, unsynced else { throw fail("the log was refused after a crash: \(error)") }
        note("unsynced frames came back out of order (\(error.message)); repair")
        do { _ = try LogRepair.repair(directory: root + "/log", fileSystem: disk) } catch { throw fail("repair failed: \(error)") }
        figures.unsyncedTailRepairs += 1
        forgetSnapshots()
    }

    /// Copies of the read models from a history the log has since lost (unsynced commits) would disagree
    /// with the log, rightly: they are not "older read models" any more.
    mutating func forgetSnapshots() {
        for snapshot in snapshots {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: snapshot + suffix) }
        }
        snapshots.removeAll()
    }

    /// The checks after every reopen.
    mutating func check() throws {
        guard let ledger else { return }
        var events: [Event] = []
        do {
            try EventStoreReader.open(at: root, catalog: .standard, fileSystem: disk).forEach { events.append($0) }
        } catch { throw fail("reading the log failed: \(error)") }
        let verification = try verifyLog(directory: root + "/log", fileSystem: disk)
        guard verification.problems.isEmpty else { throw fail("verify found problems: \(verification.problems)") }
        // The baseline, then every acknowledged event where it was acknowledged.
        for (index, event) in baseline.enumerated() {
            guard index < events.count, events[index] == event else { throw fail("event \(index + 1) of the baseline changed or is gone") }
        }
        guard events.count >= Int(syncedThrough) else {
            throw fail("the log ends at \(events.count) but event \(syncedThrough) was acknowledged durable")
        }
        // Without per-commit syncs the unsynced acknowledged tail may be gone, but only from its end.
        let lastAcknowledged = min(acknowledged.keys.max() ?? UInt64(baseline.count), UInt64(max(events.count, Int(syncedThrough))))
        for sequence in UInt64(baseline.count + 1)...max(lastAcknowledged, UInt64(baseline.count + 1)) where sequence <= lastAcknowledged {
            guard let expected = acknowledged[sequence] else {
                throw fail("event \(sequence), before the last acknowledged one, belongs to no acknowledged command")
            }
            guard events[Int(sequence) - 1] == expected else { throw fail("acknowledged event \(sequence) differs in the log") }
        }
        // Past it, only what failed commands (or unsynced commits) may have left.
        if events.count > Int(lastAcknowledged) && failedSinceReopen == 0 && options.syncMode == .everyCommit {
            throw fail("the log holds \(events.count - Int(lastAcknowledged)) events past the last acknowledged one, and no command failed")
        }
        figures.acknowledgedChecked += acknowledged.count
        if Int(acknowledged.keys.max() ?? 0) > events.count { forgetSnapshots() }
        // The read models equal a fresh fold of the log.
        let freshPath = root + "/fresh-\(figures.reopens).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: freshPath + suffix) } }
        let fresh = try ReadModelStore(path: freshPath, projectors: try! Ledger.Options.standard.registeredProjectors(), snapshots: SnapshotSettings(calendar: ledger.calendar, interval: .default))
        defer { try? fresh.database.close() }
        try fresh.rebuild(from: try EventStoreReader.open(at: root, catalog: .standard, fileSystem: disk))
        let folded = try fresh.dump()
        let live = try ledger.readModels.dump()
        if try ledger.readModels.database.read({ db in try PackedKeys.counts(db).packed }) > 0 { figures.checksWithPackedKeys += 1 }
        for table in Set(folded.keys).union(live.keys).sorted() where folded[table] != live[table] {
            throw fail("read model table \(table) differs from a fresh fold of the log")
        }
        guard try ledger.trialBalance().isEmpty else { throw fail("the trial balance does not balance") }
        note("reopened: \(events.count) events, \(acknowledged.count) acknowledged since the last reopen")
        // Idempotent repeats return the first result after a reopen. (A keyed command acknowledged but not
        // synced, and lost, is no longer applied: it is forgotten.)
        keyed.removeAll { entry in
            !entry.events.allSatisfy { Int($0.sequence) <= events.count && events[Int($0.sequence) - 1] == $0 }
        }
        for entry in keyed.suffix(2) {
            let result: Ledger.CommandResult
            do { result = try entry.run(ledger, entry.key) } catch { throw fail("repeating \(entry.key) after a reopen failed: \(error)") }
            figures.repeats += 1
            guard result.wasAlreadyApplied, result.events == entry.events else {
                throw fail("repeating key \(entry.key) after a reopen did not return the first result")
            }
        }
        baseline = events
        syncedThrough = UInt64(events.count)
        acknowledged = [:]
        failedSinceReopen = 0
    }
}

/// Runs `count` seeds from `first`; failures are collected, not thrown.
func runLedgerSimulation(first: UInt64, count: Int, steps: Int = 40) -> LedgerSimulationFigures {
    var total = LedgerSimulationFigures()
    for seed in first..<(first + UInt64(count)) {
        var simulator = LedgerSimulator(seed: seed, steps: steps)
        do {
            total.add(try simulator.run())
        } catch {
            total.add(simulator.figures)
            total.failures.append("\(error)")
        }
    }
    return total
}
