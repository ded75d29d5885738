import Crypto
import Foundation
import Synchronization
@testable import TallyLog
import TallyLogTesting

/// What a simulation run did, summed over seeds.
struct SimulationFigures: Sendable, CustomStringConvertible {
    var seeds = 0
    var steps = 0
    var crashes = 0
    var reopens = 0
    var faults = 0
    var acknowledgedChecked = 0
    var bitFlips = 0
    var damageDetected = 0
    var unsyncedTailRepairs = 0
    /// Bytes cut off the log's end after a close (issue 34, item 7), and how many of those cuts took
    /// acknowledged events: each refused by a writer and a reader, reported by verify, accepted by repair.
    var tailCuts = 0
    var tailCutsRefused = 0
    /// Cuts of acknowledged commits whose publication had failed: not told from a torn tail.
    var tailCutsUnseen = 0
    var failures: [String] = []

    mutating func add(_ other: SimulationFigures) {
        seeds += other.seeds
        steps += other.steps
        crashes += other.crashes
        reopens += other.reopens
        faults += other.faults
        acknowledgedChecked += other.acknowledgedChecked
        bitFlips += other.bitFlips
        damageDetected += other.damageDetected
        unsyncedTailRepairs += other.unsyncedTailRepairs
        tailCuts += other.tailCuts
        tailCutsRefused += other.tailCutsRefused
        tailCutsUnseen += other.tailCutsUnseen
        failures += other.failures
    }

    var description: String {
        "seeds \(seeds), steps \(steps), crashes \(crashes), reopens \(reopens), faults injected \(faults), "
            + "acknowledged records checked \(acknowledgedChecked), bit flips \(bitFlips) (damage detected \(damageDetected)), "
            + "unsynced tails repaired \(unsyncedTailRepairs), tail cuts \(tailCuts) (acknowledged events cut, refused and repaired \(tailCutsRefused); unseen after a failed publication \(tailCutsUnseen)), "
            + "failures \(failures.count)"
    }
}

/// A broken invariant, with the seed that replays it and the last steps taken.
struct SimulationFailure: Error, CustomStringConvertible {
    let seed: UInt64
    let message: String
    let trace: [String]
    var description: String {
        "seed \(seed): \(message)\n  replay: LogSimulator(seed: \(seed)).run()\n  last steps:\n    " + trace.suffix(30).joined(separator: "\n    ")
    }
}

/// Drives a `LogWriter` on a `SimulatedDisk` with a random workload from one seed: appends, syncs, clean
/// closes, crashes (with bit flips now and then), and after every reopen checks that the log is every
/// acknowledged record plus at most a prefix of the unacknowledged tail, whole commits only, that the chain
/// verifies, and that damage to stored data is reported rather than read.
struct LogSimulator {
    let seed: UInt64
    var random: SplitMix64
    let disk: SimulatedDisk
    let faults: SimulatedDisk.Faults
    var options: LogOptions
    let directory = "/sim/log"
    /// Steps in one run.
    let stepsLimit: Int
    /// Per crash, in millionths: a bit of a segment file flips.
    let bitFlipPerMillion: Int

    /// Records known durable, by sequence number − 1: acknowledged, or recovered by an open.
    var durable: [[UInt8]] = []
    /// Commits written since the last sync (``LogOptions/SyncMode/none``): in the log, in order, unless a crash takes them.
    var written: [[[UInt8]]] = []
    /// Commits that threw since the last success: not in the log, unless the writer stopped before it could cut them back.
    var failed: [[[UInt8]]] = []
    var writer: LogWriter?
    /// Events a reader beside the writer must see: through the last commit whose publication surely
    /// succeeded (a failed write of `PUBLISHED` only keeps readers a commit behind, by design).
    var published = 0
    var nextPayload: UInt64 = 0
    /// A bit flipped since the last check, and where.
    var flipped: (path: String, offset: Int)?
    var trace: [String] = []
    var figures = SimulationFigures()
    /// Decides the tail cuts, apart from `random`, so that every seed's workload stays what it was.
    var cutRandom: SplitMix64

    /// `sealed`: every frame is sealed under a key made from the seed (encryption at rest), and every
    /// reader, verification and repair opens the log with it.
    init(seed: UInt64, steps: Int = 60, sealed: Bool = false) {
        self.seed = seed
        var random = SplitMix64(seed: seed)
        let profile = Int.random(in: 0..<4, using: &random)
        // Profiles: quiet, write faults, sync faults, everything.
        faults = SimulatedDisk.Faults(
            writeNoSpacePerMillion: profile & 1 == 1 ? Int.random(in: 0...40_000, using: &random) : 0,
            writeIOErrorPerMillion: profile & 1 == 1 ? Int.random(in: 0...40_000, using: &random) : 0,
            syncIOErrorPerMillion: profile & 2 == 2 ? Int.random(in: 0...60_000, using: &random) : 0)
        bitFlipPerMillion = random.chance(perMillion: 250_000) ? 300_000 : 0
        disk = SimulatedDisk(seed: random.next(), faults: faults, roots: ["/sim"])
        let clock = SimulationClock()
        options = LogOptions(
            segmentBytesLimit: Int64.random(in: 256...4096, using: &random),
            clock: { clock.now() },
            syncMode: random.chance(perMillion: 750_000) ? .everyCommit : .none,
            fileSystem: disk)
        if sealed {
            var keyRandom = SplitMix64(seed: seed ^ 0x5EA1_ED00)
            let bytes = (0..<32).map { _ in UInt8(truncatingIfNeeded: keyRandom.next()) }
            options.keys = try! LogKeys(sealingKeyID: 1, keys: [1: SymmetricKey(data: bytes)])
        }
        stepsLimit = steps
        self.random = random
        cutRandom = SplitMix64(seed: seed ^ 0x7A11_C07)
    }

    func fail(_ message: String) -> SimulationFailure {
        SimulationFailure(seed: seed, message: message, trace: trace)
    }

    mutating func note(_ line: String) { trace.append(line) }

    /// Runs the workload; throws ``SimulationFailure`` when an invariant breaks.
    mutating func run() throws -> SimulationFigures {
        figures.seeds = 1
        note("options: segment \(options.segmentBytesLimit) B, sync \(options.syncMode), faults \(faults), flips \(bitFlipPerMillion)")
        disk.faults = .none
        do { writer = try LogWriter.create(directory: directory, options: options) } catch { throw fail("create failed: \(error)") }
        disk.faults = faults
        step: for _ in 0..<stepsLimit {
            figures.steps += 1
            let roll = Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<62: try appendOne()
            case 62..<72: try syncOne()
            case 72..<78: try checkReader()
            case 78..<84:
                note("close and reopen")
                try? writer?.close()
                writer = nil
                if flipped == nil && cutRandom.chance(perMillion: 300_000) { try cutTail() }
                guard try reopen() else { break step }
            default:
                note("crash")
                disk.crash()  // first: releasing the writer closes it, and a close syncs
                writer = nil
                figures.crashes += 1
                if random.chance(perMillion: bitFlipPerMillion) {
                    flipped = disk.flipBit { $0.hasSuffix(".tlog") }
                    figures.bitFlips += 1
                    note("flip bit in \(flipped.map { "\($0.path) at \($0.offset)" } ?? "nothing")")
                }
                guard try reopen() else { break step }
            }
        }
        // The end: a crash, and a last check.
        if flipped == nil {
            disk.crash()
            writer = nil
            figures.crashes += 1
            note("final crash")
            _ = try reopen()
        }
        try? writer?.close()
        writer = nil
        figures.faults = disk.statistics.faults
        return figures
    }

    mutating func makeBatch() -> [[UInt8]] {
        (0..<Int.random(in: 1...4, using: &random)).map { _ in
            nextPayload += 1
            var payload = withUnsafeBytes(of: nextPayload.littleEndian, Array.init)
            payload += (0..<Int.random(in: 0...160, using: &random)).map { _ in UInt8.random(in: 0...5, using: &random) }
            return payload
        }
    }

    func record(_ payload: [UInt8]) -> LogRecord {
        LogRecord(kind: 7, version: 1, effectiveAt: 1_700_000_000_000_000, entity: "sim", idempotencyKey: nil, payload: payload)
    }

    var writtenCount: Int { written.reduce(0) { $0 + $1.count } }

    mutating func appendOne() throws {
        guard let writer else { return }
        let batch = makeBatch()
        let writeFaults = disk.statistics.writeFaults
        do {
            let result = try writer.append(batch.map(record))
            let expected = UInt64(durable.count + writtenCount + 1)
            note("append \(batch.count) -> \(result.first)…\(result.last)")
            guard result.first == expected else {
                throw fail("append landed at \(result.first), expected \(expected): a commit that failed earlier is in the log")
            }
            failed = []
            if options.syncMode == .everyCommit {
                durable += batch
            } else {
                written.append(batch)
            }
            if disk.statistics.writeFaults == writeFaults { published = Int(result.last) }
        } catch let error as LogError {
            note("append \(batch.count) failed: \(error.code) \(error.message)")
            failed.append(batch)
            // A writer that stops cuts back to what it synced: commits written since may go.
            published = min(published, durable.count)
        }
    }

    mutating func syncOne() throws {
        guard let writer else { return }
        do {
            try writer.sync()
            note("sync: \(writtenCount) records acknowledged")
            durable += written.flatMap { $0 }
            written = []
        } catch let error as LogError {
            note("sync failed: \(error.code) \(error.message)")
            published = min(published, durable.count)
        }
    }

    /// A reader beside the live writer sees every acknowledged record, and nothing that is not a commit.
    mutating func checkReader() throws {
        guard writer != nil else { return }
        let events: [LoggedEvent]
        do {
            var collected: [LoggedEvent] = []
            try LogReader.open(directory: directory, fileSystem: disk, keys: options.keys).forEach { collected.append($0) }
            events = collected
        } catch let error as LogError {
            // Only the disk's own damage (a flipped bit not yet found) excuses a reader's error.
            if flipped != nil { return }
            throw fail("a reader beside the writer failed: \(error)")
        }
        note("reader sees \(events.count)")
        if events.count < published {
            throw fail("a reader sees \(events.count) events but \(published) were published")
        }
        try checkContents(events.map(\.payload), context: "reader", prefixOnly: true)
    }

    /// Opens the log again and checks it. Returns false when the run should end (detected damage).
    mutating func reopen() throws -> Bool {
        figures.reopens += 1
        var attempt = 0
        var repaired = false
        while true {
            attempt += 1
            if attempt > 4 { disk.faults = .none }
            do {
                writer = try LogWriter.open(directory: directory, options: options)
                break
            } catch let error as LogError where error.code == .io {
                note("open failed: \(error.message)")
                if attempt > 8 { throw fail("open keeps failing without faults: \(error)") }
                continue
            } catch let error as LogError {
                if flipped != nil {
                    note("open refused the flipped bit: \(error.code) \(error.message)")
                    figures.damageDetected += 1
                    return false
                }
                // Without per-commit syncs, the disk may write unsynced frames back in any order: a crash can
                // leave a hole before a later frame. Open refuses; a repair cuts at the hole, and must keep
                // everything synced (checked below).
                if options.syncMode == .none && !written.isEmpty && !repaired {
                    note("open refused unsynced frames out of order (\(error.message)); repair")
                    disk.faults = .none
                    do { _ = try LogRepair.repair(directory: directory, fileSystem: disk, keys: options.keys) } catch { throw fail("repair failed: \(error)") }
                    disk.faults = faults
                    figures.unsyncedTailRepairs += 1
                    repaired = true
                    continue
                }
                throw fail("open refused the log after a crash: \(error)")
            }
        }
        disk.faults = .none
        defer { disk.faults = faults }
        let verification: LogVerification
        do { verification = try verifyLog(directory: directory, fileSystem: disk, keys: options.keys) } catch { throw fail("verify threw: \(error)") }
        if !verification.problems.isEmpty {
            if flipped != nil {
                note("verify found the flipped bit: \(verification.problems[0])")
                figures.damageDetected += 1
                try? writer?.close()
                writer = nil
                return false
            }
            throw fail("verify found problems after a reopen: \(verification.problems)")
        }
        var payloads: [[UInt8]] = []
        do {
            try LogReader.open(directory: directory, fileSystem: disk, keys: options.keys).forEach { payloads.append($0.payload) }
        } catch {
            if flipped != nil {
                figures.damageDetected += 1
                return false
            }
            throw fail("reading the log after a reopen failed: \(error)")
        }
        guard verification.head == writer!.head else {
            throw fail("verify's head \(verification.head) differs from the writer's \(writer!.head)")
        }
        note("reopened: \(payloads.count) events (durable \(durable.count), written \(writtenCount), failed \(failed.count))")
        try checkContents(payloads, context: "reopen")
        figures.acknowledgedChecked += durable.count
        // What an open recovered is synced: it is the new baseline.
        durable = payloads
        published = payloads.count
        written = []
        failed = []
        flipped = nil
        return true
    }

    /// Cuts 1 to 300 bytes off the end of the last segment (never into its header), as a copy that
    /// stopped early or a disk that lost the file's end would. When that takes events the log had
    /// published as durable, a writer and a reader must refuse the log (`truncated`), verify must
    /// name exactly the missing events, and only a repair accepts the shorter log; otherwise (nothing
    /// acknowledged cut) the next open cuts a torn tail as after a crash.
    mutating func cutTail() throws {
        disk.faults = .none
        defer { disk.faults = faults }
        guard let last = try? StoreDirectory.segments(in: directory, fileSystem: disk).last,
              let bytes = disk.contents(of: last.path), bytes.count > LogFormat.segmentHeaderBytes else { return }
        let cut = Int.random(in: 1...min(bytes.count - LogFormat.segmentHeaderBytes, 300), using: &cutRandom)
        disk.install(last.path, bytes: Array(bytes.prefix(bytes.count - cut)))
        figures.tailCuts += 1
        let scanned: UInt64
        do {
            scanned = try StoreScanner.scan(directory: directory, role: .reader(writerActive: false), fileSystem: disk, keys: options.keys).head.sequence
        } catch { throw fail("scanning a log cut short failed: \(error)") }
        let acknowledged = PublishedHead.readDurable(in: directory, fileSystem: disk)
        note("cut \(cut) bytes off \(last.path): the log ends at \(scanned), published as durable \(acknowledged.map(String.init) ?? "none")")
        guard let acknowledged, acknowledged > scanned else {
            if scanned < UInt64(durable.count) {
                // The published head lags the log by the commits whose publication failed (a full
                // disk: by design a reader is then a commit behind): a cut of just those is not
                // told from a torn tail. Counted; the log as cut is the baseline.
                figures.tailCutsUnseen += 1
                note("the cut took acknowledged events \(scanned + 1)…\(durable.count) whose publication had failed")
                durable = Array(durable.prefix(Int(scanned)))
                written = []
                failed = []
                published = min(published, Int(scanned))
            }
            return
        }
        func refused(_ what: String, _ body: () throws -> Void) throws {
            do {
                try body()
            } catch let error as LogError where error.code == .truncated {
                return
            } catch {
                throw fail("\(what) of a log cut short failed otherwise: \(error)")
            }
            throw fail("\(what) took a log cut short (ends at \(scanned), acknowledged through \(acknowledged)) as whole")
        }
        try refused("a writer's open") { try LogWriter.open(directory: directory, options: options).close() }
        try refused("a reader's open") { _ = try LogReader.open(directory: directory, fileSystem: disk, keys: options.keys) }
        let verification: LogVerification
        do { verification = try verifyLog(directory: directory, fileSystem: disk, keys: options.keys) } catch { throw fail("verify threw: \(error)") }
        guard verification.missingAtEnd == (scanned + 1)...acknowledged, verification.problems.map(\.code) == [.truncated] else {
            throw fail("verify of a log cut short said \(verification.problems), missing \(String(describing: verification.missingAtEnd))")
        }
        do { _ = try LogRepair.repair(directory: directory, fileSystem: disk, keys: options.keys) } catch { throw fail("repair of a log cut short failed: \(error)") }
        figures.tailCutsRefused += 1
        // The events cut are gone for good: what the log holds now is the baseline.
        if scanned <= UInt64(durable.count) {
            durable = Array(durable.prefix(Int(scanned)))
            written = []
        }
        failed = []
        published = min(published, Int(scanned))
    }

    /// `payloads` must be every durable record, then whole commits from the unacknowledged tail, in order
    /// (with `prefixOnly`, a reader's view: any prefix of that).
    func checkContents(_ payloads: [[UInt8]], context: String, prefixOnly: Bool = false) throws {
        for (index, expected) in durable.enumerated() {
            if prefixOnly && index >= payloads.count { return }
            guard index < payloads.count else {
                throw fail("\(context): acknowledged event \(index + 1) is missing (the log ends at \(payloads.count))")
            }
            guard payloads[index] == expected else {
                throw fail("\(context): event \(index + 1) is not what was acknowledged")
            }
        }
        // Then commits written but not yet synced, in order, none skipped; then at most the last commit
        // that failed (a writer that stopped before it could cut it back).
        var position = durable.count
        let candidates = written + (failed.last.map { [$0] } ?? [])
        var next = 0
        while position < payloads.count {
            guard next < candidates.count else {
                throw fail("\(context): event \(position + 1) was never appended, or comes out of order")
            }
            let batch = candidates[next]
            guard position + batch.count <= payloads.count, Array(payloads[position..<(position + batch.count)]) == batch else {
                throw fail("\(context): the log at \(position + 1) is not the next unacknowledged commit, whole")
            }
            next += 1
            position += batch.count
        }
    }
}

/// A deterministic clock for simulations: one millisecond per call.
final class SimulationClock: Sendable {
    private let value = Mutex<Int64>(1_700_000_000_000_000)
    func now() -> Int64 { value.withLock { $0 += 1_000; return $0 } }
}

/// Runs `count` seeds from `first`; failures are collected, not thrown.
func runLogSimulation(first: UInt64, count: Int, steps: Int = 60, sealed: Bool = false) -> SimulationFigures {
    var total = SimulationFigures()
    for seed in first..<(first + UInt64(count)) {
        var simulator = LogSimulator(seed: seed, steps: steps, sealed: sealed)
        do {
            total.add(try simulator.run())
        } catch let failure as SimulationFailure {
            total.add(simulator.figures)
            total.failures.append(failure.description)
        } catch {
            total.add(simulator.figures)
            total.failures.append("seed \(seed): \(error)")
        }
    }
    return total
}
