import Foundation
import Synchronization
import TallyLog
@testable import Tally
@testable import TallyEngine
@testable import TallyProducts

/// A log backend that fails as a log on PostgreSQL does, at the `LogWriting` interface: its
/// writer keeps its own view of the head, as the PostgreSQL writer does, and a seeded die decides
/// each pinned append's fate:
///
/// - a **lost commit acknowledgement**: the frame is committed and the caller is told `io` (the
///   connection broke during COMMIT and the head could not be read back), the writer's view of
///   the head left where it was, so that its next append finds the head moved;
/// - a **connection lost before the commit**: `io`, nothing appended;
/// - a **fenced writer**: another owner took the ledger over with a newer epoch: this append and
///   every later one of this writer throw `headMoved` (reloading does not help; opening again does);
/// - and the compare-and-set: an append at a head that is not the log's throws `headMoved` and
///   the writer learns the head.
///
/// The events themselves go to a real file log underneath.
final class SimulatedRemoteLog: LogWriting {
    struct Faults: Sendable, CustomStringConvertible {
        var lostAcknowledgementPerMillion = 0
        var lostBeforeCommitPerMillion = 0
        var fencedPerMillion = 0
        var description: String {
            "lost acknowledgement \(lostAcknowledgementPerMillion) ppm, lost before commit \(lostBeforeCommitPerMillion) ppm, fenced \(fencedPerMillion) ppm"
        }
    }

    /// What the backend did, for the figures.
    final class Counters: Sendable {
        let lostAcknowledgements = Mutex(0)
        let lostBeforeCommit = Mutex(0)
        let fences = Mutex(0)
        let headMoved = Mutex(0)
    }

    private struct State {
        var head: LogDigest
        var lastRecordedAt: Int64
        var fenced = false
    }

    private let inner: any LogWriting
    private let dice: SimulationDice
    private let faults: Faults
    let counters: Counters
    private let state: Mutex<State>

    init(_ inner: any LogWriting, dice: SimulationDice, faults: Faults, counters: Counters) {
        self.inner = inner
        self.dice = dice
        self.faults = faults
        self.counters = counters
        state = Mutex(State(head: inner.head, lastRecordedAt: inner.lastRecordedAt))
    }

    var isFenced: Bool { state.withLock { $0.fenced } }
    var head: LogDigest { state.withLock { $0.head } }
    var lastRecordedAt: Int64 { state.withLock { $0.lastRecordedAt } }
    var frameLimits: (events: Int, bytes: Int) { inner.frameLimits }

    func append(_ records: [LogRecord]) throws -> AppendResult {
        let result = try inner.append(records)
        learn(result)
        return result
    }

    func append(_ records: [LogRecord]) async throws -> AppendResult {
        let result = try await inner.append(records)
        learn(result)
        return result
    }

    func append(_ records: [LogRecord], pinnedTo pin: AppendPin, encodedAhead: FrameEncodedAhead?) throws -> AppendResult {
        let (head, last, fenced) = state.withLock { ($0.head, $0.lastRecordedAt, $0.fenced) }
        if fenced {
            counters.headMoved.withLock { $0 += 1 }
            throw LogError(.headMoved, "simulated: the ledger was taken over by another writer (a newer epoch); open it again to write")
        }
        guard pin.firstSequence == head.sequence + 1, pin.recordedAt >= last else {
            throw LogError(.invalidRecord, "the append was pinned to sequence \(pin.firstSequence), but the writer's next sequence is \(head.sequence + 1)")
        }
        // The compare-and-set on the head row.
        if inner.head != head {
            state.withLock {
                $0.head = inner.head
                $0.lastRecordedAt = inner.lastRecordedAt
            }
            counters.headMoved.withLock { $0 += 1 }
            throw LogError(.headMoved, "simulated: the log's head is \(inner.head.sequence), this writer expected \(head.sequence): nothing was appended")
        }
        if dice.chance(perMillion: faults.fencedPerMillion) {
            state.withLock { $0.fenced = true }
            counters.fences.withLock { $0 += 1 }
            throw LogError(.headMoved, "simulated: the ledger was taken over by another writer (a newer epoch): nothing was appended")
        }
        if dice.chance(perMillion: faults.lostBeforeCommitPerMillion) {
            counters.lostBeforeCommit.withLock { $0 += 1 }
            throw LogError(.io, "simulated: the connection broke before the commit was done, and it was not: nothing was appended")
        }
        let result = try inner.append(records, pinnedTo: pin, encodedAhead: nil)
        if dice.chance(perMillion: faults.lostAcknowledgementPerMillion) {
            counters.lostAcknowledgements.withLock { $0 += 1 }
            throw LogError(.io, "simulated: the connection broke during the commit and could not be made again, so whether it committed is unknown")
        }
        learn(result)
        return result
    }

    private func learn(_ result: AppendResult) {
        state.withLock {
            $0.head = result.head
            $0.lastRecordedAt = result.recordedAt
        }
    }

    func encodeAhead(_ records: [LogRecord], pinnedTo pin: AppendPin) -> FrameEncodedAhead? { nil }

    func reloadHead() throws {
        state.withLock {
            $0.head = inner.head
            $0.lastRecordedAt = inner.lastRecordedAt
        }
    }

    func openReader() throws -> any LogReading { try inner.openReader() }
    func sync() throws { try inner.sync() }
    func close() throws { try inner.close() }
}

struct RemoteLogSimulationFailure: Error, CustomStringConvertible {
    let seed: UInt64
    let message: String
    let trace: [String]
    var description: String {
        "seed \(seed): \(message)\n  replay: RemoteLogSimulator(seed: \(seed)).run()\n  last steps:\n    " + trace.suffix(40).joined(separator: "\n    ")
    }
}

/// What a simulation of the PostgreSQL backend's failures did, summed over seeds.
struct RemoteLogSimulationFigures: Sendable, CustomStringConvertible {
    var seeds = 0
    var commands = 0
    var acknowledged = 0
    var alreadyApplied = 0
    var failed = 0
    var lostAcknowledgements = 0
    var lostBeforeCommit = 0
    var fences = 0
    var headMoved = 0
    var reopens = 0
    var inDoubtFoundApplied = 0
    var failures: [String] = []

    mutating func add(_ other: RemoteLogSimulationFigures) {
        seeds += other.seeds; commands += other.commands; acknowledged += other.acknowledged; alreadyApplied += other.alreadyApplied
        failed += other.failed; lostAcknowledgements += other.lostAcknowledgements; lostBeforeCommit += other.lostBeforeCommit
        fences += other.fences; headMoved += other.headMoved; reopens += other.reopens; inDoubtFoundApplied += other.inDoubtFoundApplied
        failures += other.failures
    }

    var description: String {
        "seeds \(seeds), commands \(commands) (acknowledged \(acknowledged), repeats already applied \(alreadyApplied), failed \(failed)), "
            + "lost acknowledgements \(lostAcknowledgements), lost before commit \(lostBeforeCommit), fenced writers \(fences), "
            + "headMoved answers \(headMoved), reopens \(reopens), in-doubt commands found applied on retry \(inDoubtFoundApplied), failures \(failures.count)"
    }
}

/// Runs keyed commands through the public `Ledger` API on a log behind ``SimulatedRemoteLog`` and
/// checks, after every few steps and every reopen: no command's key is in the log twice (never
/// applied twice); every acknowledged command is in the log once, with the events it was
/// acknowledged with (never dropped); a command whose outcome was in doubt, sent again with its
/// key, is either applied then or recognised as already applied, once; a fenced writer's commands
/// fail and are applied by the next writer when sent again; the chain verifies; the read models
/// equal a fresh fold of the log.
struct RemoteLogSimulator {
    let seed: UInt64
    var random: SplitMix64
    let faults: SimulatedRemoteLog.Faults
    let root: String
    let steps: Int
    let dice: SimulationDice
    let counters = SimulatedRemoteLog.Counters()
    let clock = SimulationInstantClock()
    var ledger: Ledger?
    /// Acknowledged commands: key → the events of the first result.
    var acknowledged: [String: [Event]] = [:]
    /// Commands that failed and were never acknowledged since: key → the command.
    var inDoubt: [String: @Sendable (Ledger, String) throws -> Ledger.CommandResult] = [:]
    var commands: [String: @Sendable (Ledger, String) throws -> Ledger.CommandResult] = [:]
    var nextKey = 0
    var trace: [String] = []
    var figures = RemoteLogSimulationFigures()

    init(seed: UInt64, steps: Int = 60) {
        self.seed = seed
        var random = SplitMix64(seed: seed)
        faults = SimulatedRemoteLog.Faults(
            lostAcknowledgementPerMillion: Int.random(in: 20_000...150_000, using: &random),
            lostBeforeCommitPerMillion: Int.random(in: 0...60_000, using: &random),
            fencedPerMillion: Int.random(in: 0...40_000, using: &random))
        dice = SimulationDice(seed: random.next())
        root = simulationDirectory() + "/tally-remote-sim-\(seed)-\(UUID().uuidString)"
        self.steps = steps
        self.random = random
    }

    func fail(_ message: String) -> RemoteLogSimulationFailure {
        RemoteLogSimulationFailure(seed: seed, message: message, trace: trace)
    }

    var options: Ledger.Options {
        let clock = self.clock
        var options = Ledger.Options(clock: { clock.now() }, syncMode: .none, features: standardFeatures)
        let dice = self.dice, faults = self.faults, counters = self.counters
        options.logWriterWrapper = { SimulatedRemoteLog($0, dice: dice, faults: faults, counters: counters) }
        return options
    }

    mutating func run() throws -> RemoteLogSimulationFigures {
        figures.seeds = 1
        defer {
            try? ledger?.close()
            try? FileManager.default.removeItem(atPath: root)
        }
        trace.append("faults: \(faults)")
        let clock = self.clock
        try Ledger.create(
            at: root, name: "Simulated household", baseCurrency: .usd, timeZone: "UTC",
            options: Ledger.Options(clock: { clock.now() }, syncMode: .none, features: standardFeatures)).close()
        try reopen()
        for step in 0..<steps {
            try oneCommand(step)
            if step % 15 == 14 { try check() }
        }
        // Every command in doubt, sent again with its key, lands once.
        for key in inDoubt.keys.sorted() {
            try send(key, commands[key]!, retries: 12)
        }
        try check()
        figures.lostAcknowledgements = counters.lostAcknowledgements.withLock { $0 }
        figures.lostBeforeCommit = counters.lostBeforeCommit.withLock { $0 }
        figures.fences = counters.fences.withLock { $0 }
        figures.headMoved = counters.headMoved.withLock { $0 }
        return figures
    }

    mutating func reopen() throws {
        try? ledger?.close()
        ledger = try Ledger.open(at: root, options: options)
        figures.reopens += 1
        trace.append("reopened")
    }

    var writerIsFenced: Bool {
        guard let ledger, let store = ledger.store else { return false }
        return (store.writer as? SimulatedRemoteLog)?.isFenced ?? false
    }

    mutating func money(_ centsMax: Int) -> Money {
        let cents = Int.random(in: 1...centsMax, using: &random)
        return Money(minorUnits: Int64(cents), commodity: .usd)
    }

    mutating func oneCommand(_ step: Int) throws {
        // Now and then a command in doubt is sent again; otherwise a new one.
        if let key = inDoubt.keys.sorted().first, random.chance(perMillion: 250_000) {
            try send(key, commands[key]!, retries: 0)
            return
        }
        // Now and then an acknowledged one: it is recognised, nothing is appended.
        if !acknowledged.isEmpty, random.chance(perMillion: 100_000) {
            let keys = acknowledged.keys.sorted()
            let key = keys[Int.random(in: 0..<keys.count, using: &random)]
            try send(key, commands[key]!, retries: 0)
            return
        }
        let key = "k\(seed)-\(nextKey)"
        nextKey += 1
        let command: @Sendable (Ledger, String) throws -> Ledger.CommandResult
        if random.chance(perMillion: 600_000) {
            let amount = money(50_000)
            command = { try $0.deposit(account: "main", amount: amount, idempotencyKey: $1) }
        } else {
            let amount = money(5_000)
            command = { try $0.purchase(account: "main", amount: amount, merchant: "Shop", idempotencyKey: $1) }
        }
        commands[key] = command
        try send(key, command, retries: 0)
    }

    /// Runs a command; on a failure, reopens a fenced writer and, with `retries`, sends it again.
    mutating func send(_ key: String, _ command: @escaping @Sendable (Ledger, String) throws -> Ledger.CommandResult, retries: Int) throws {
        for attempt in 0...retries {
            if ledger == nil || writerIsFenced { try reopen() }
            figures.commands += 1
            do {
                let result = try command(ledger!, key)
                if let first = acknowledged[key] {
                    guard result.wasAlreadyApplied, result.events == first else {
                        throw fail("the acknowledged command \(key), sent again, was applied again (or returned other events)")
                    }
                    figures.alreadyApplied += 1
                } else {
                    if inDoubt[key] != nil && result.wasAlreadyApplied { figures.inDoubtFoundApplied += 1 }
                    acknowledged[key] = result.events
                    figures.acknowledged += 1
                }
                inDoubt[key] = nil
                trace.append("\(key): \(result.wasAlreadyApplied ? "already applied" : "acknowledged") at \(result.events.map(\.sequence))")
                return
            } catch let failure as RemoteLogSimulationFailure {
                throw failure
            } catch let error as LedgerError where error.code == .insufficientFunds {
                // Refused by the rules (a purchase past the balance): nothing was appended.
                trace.append("\(key): refused (\(error.code))")
                inDoubt[key] = nil
                return
            } catch {
                figures.failed += 1
                if acknowledged[key] == nil { inDoubt[key] = command }
                trace.append("\(key): failed (attempt \(attempt)): \(error)")
            }
        }
        if retries > 0 { throw fail("the command \(key) failed \(retries + 1) times in a row") }
    }

    mutating func check() throws {
        guard let ledger else { return }
        var events: [Event] = []
        try EventStoreReader.open(at: root, catalog: .standard, fileSystem: PosixFileSystem()).forEach { events.append($0) }
        let verification = try verifyLog(directory: root + "/log")
        guard verification.problems.isEmpty else { throw fail("verify found problems: \(verification.problems)") }
        var byKey: [String: [UInt64]] = [:]
        for event in events {
            if let key = event.idempotencyKey, commands[key] != nil { byKey[key, default: []].append(event.sequence) }
        }
        if let twice = byKey.first(where: { $0.value.count > 1 }) {
            throw fail("the command \(twice.key) is in the log \(twice.value.count) times (events \(twice.value)): applied twice")
        }
        for (key, first) in acknowledged where !first.isEmpty {
            guard let at = byKey[key]?.first else { throw fail("the acknowledged command \(key) is not in the log") }
            let sequences = first.map(\.sequence)
            guard at == sequences[0], sequences.allSatisfy({ Int($0) <= events.count && events[Int($0) - 1] == first[Int($0 - sequences[0])] }) else {
                throw fail("the acknowledged command \(key) is not in the log as acknowledged (at \(at), acknowledged at \(sequences))")
            }
        }
        // The read models equal a fresh fold of the log.
        let freshPath = root + "/fresh-\(figures.reopens)-\(events.count).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: freshPath + suffix) } }
        let fresh = try ReadModelStore(path: freshPath, projectors: try! Ledger.Options.standard.registeredProjectors(), snapshots: SnapshotSettings(calendar: ledger.calendar, interval: .default))
        defer { try? fresh.database.close() }
        try fresh.rebuild(from: try EventStoreReader.open(at: root, catalog: .standard, fileSystem: PosixFileSystem()))
        // A ledger whose last append was in doubt folds it before its next command: reopen to compare.
        try reopen()
        let folded = try fresh.dump()
        let live = try self.ledger!.readModels.dump()
        for table in Set(folded.keys).union(live.keys).sorted() where folded[table] != live[table] {
            throw fail("read model table \(table) differs from a fresh fold of the log")
        }
        guard try self.ledger!.trialBalance().isEmpty else { throw fail("the trial balance does not balance") }
        trace.append("checked: \(events.count) events, \(acknowledged.count) acknowledged, \(inDoubt.count) in doubt")
    }
}

/// Runs `count` seeds from `first`; failures are collected, not thrown.
func runRemoteLogSimulation(first: UInt64, count: Int, steps: Int = 60) -> RemoteLogSimulationFigures {
    var total = RemoteLogSimulationFigures()
    for seed in first..<(first + UInt64(count)) {
        var simulator = RemoteLogSimulator(seed: seed, steps: steps)
        do {
            total.add(try simulator.run())
        } catch {
            total.add(simulator.figures)
            total.failures.append("\(error)")
        }
    }
    return total
}
