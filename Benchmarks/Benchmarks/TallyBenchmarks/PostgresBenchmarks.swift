import Benchmark
import Foundation
import Synchronization
import Tally
import TallyLog

// MARK: - The log on PostgreSQL, each figure beside the file backend's in the same iteration

/// A throwaway PostgreSQL cluster for the benchmarks (`scripts/postgres/cluster.sh`), started
/// by the first benchmark that needs it and stopped when the benchmark process exits.
enum BenchmarkCluster {
    private static let started = Mutex<String?>(nil)

    /// The server's URL (`postgresql://tally@127.0.0.1:PORT/postgres`).
    static func serverURL() throws -> String {
        try started.withLock { url in
            if let url { return url }
            let directory = "/tmp/tally-bench-pg-\(getpid())"
            let printed = try run(["start", directory])
            guard let line = printed.split(separator: "\n").last, line.hasPrefix("postgresql://") else {
                throw BenchmarkClusterError(description: "cluster.sh printed no URL: \(printed)")
            }
            url = String(line)
            atexit { _ = try? BenchmarkCluster.run(["stop", "/tmp/tally-bench-pg-\(getpid())"]) }
            return url!
        }
    }

    /// A new ledger's location on the cluster.
    static func location(_ name: String) throws -> PostgresLogLocation {
        try PostgresLogLocation(try serverURL() + "?ledger=\(name)-\(UUID().uuidString.prefix(8).lowercased())")
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/postgres/cluster.sh").path
    }

    /// Runs the script with `posix_spawn`, its output through a file (the server outlives it).
    static func run(_ arguments: [String]) throws -> String {
        let output = "/tmp/tally-bench-pg-\(getpid())-\(UUID().uuidString.prefix(8)).out"
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv = ["/bin/bash", script] + arguments
        var pointers = argv.indices.map { strdup(argv[$0]) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        argv.removeAll()
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/bash", &actions, nil, &pointers, environ) == 0 else {
            throw BenchmarkClusterError(description: "cannot run \(script)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw BenchmarkClusterError(description: "cluster.sh \(arguments) failed: \(printed)") }
        return printed
    }
}

struct BenchmarkClusterError: Error, CustomStringConvertible {
    let description: String
}

/// Durable commands per second with `callers` concurrent callers of the async API, each
/// running `perCaller` keyed commands one after another.
func durableCommandRate(_ ledger: Ledger, callers: Int, perCaller: Int) async throws -> Int {
    let round = UUID().uuidString.prefix(8)
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for caller in 0..<callers {
            group.addTask {
                for index in 0..<perCaller {
                    let event = NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(
                        account: "Assets:Cash", counterAccount: "Income:Salary", amount: try Money(parsing: "1.00", commodity: .usd))))
                    _ = try await ledger.run(LedgerCommand(idempotencyKey: "c-\(round)-\(caller)-\(index)") { _ in [event] })
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = ContinuousClock.now - start
    let micros = Int(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000)
    return callers * perCaller * 1_000_000 / max(micros, 1)
}

/// Microseconds of a duration.
func benchmarkMicros(_ duration: Duration) -> Int {
    Int(duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
}

func postgresBenchmarks() {
    // Durable commands/s per ledger with 1, 16 and 64 concurrent callers, on PostgreSQL and on
    // files, all in one iteration (the ratios survive a noisy machine). A command is durable
    // when it returns: fdatasync for files, a committed transaction (synchronous_commit = on,
    // the server's WAL flushed) for PostgreSQL.
    let shapes = [(callers: 1, perCaller: 60), (callers: 16, perCaller: 25), (callers: 64, perCaller: 16)]
    var metrics: [BenchmarkMetric] = [.wallClock]
    for backend in ["files", "PostgreSQL"] {
        for shape in shapes {
            metrics.append(.custom("\(backend), \(shape.callers) callers: commands / s", polarity: .prefersLarger, useScalingFactor: false))
        }
    }
    var fixture: (files: Ledger, postgres: Ledger, directory: String)?
    Benchmark(
        "PostgreSQL: durable commands/s per ledger with 1, 16 and 64 callers, beside files",
        configuration: .init(metrics: metrics, maxDuration: .seconds(60), maxIterations: 8)
    ) { benchmark in
        guard let fixture else { return benchmark.error("no ledgers") }
        do {
            var position = 1
            for ledger in [fixture.files, fixture.postgres] {
                for shape in shapes {
                    benchmark.measurement(metrics[position], try await durableCommandRate(ledger, callers: shape.callers, perCaller: shape.perCaller))
                    position += 1
                }
            }
        } catch {
            benchmark.error("commands failed: \(error)")
        }
    } setup: {
        let directory = try Fixtures.temporaryDirectory("postgres-commands")
        let files = try Ledger.create(at: directory + "/files", name: "Files", baseCurrency: .usd, timeZone: "UTC", options: .standard)
        var options = Ledger.Options.standard
        options.postgres = try BenchmarkCluster.location("commands")
        let postgres = try Ledger.create(at: directory + "/postgres", name: "PostgreSQL", baseCurrency: .usd, timeZone: "UTC", options: options)
        fixture = (files, postgres, directory)
    } teardown: {
        try? fixture?.files.close()
        try? fixture?.postgres.close()
        fixture.map { Fixtures.remove($0.directory) }
        fixture = nil
    }

    // Import of the household journal into a ledger on PostgreSQL and into files, then a
    // rebuild of each from its log, and a point-in-time balance on a second node (a follower
    // that folded the database's log into read models of its own).
    let rows = 100_000
    let importFiles = BenchmarkMetric.custom("import, files: rows / s", polarity: .prefersLarger, useScalingFactor: false)
    let importPostgres = BenchmarkMetric.custom("import, PostgreSQL: rows / s", polarity: .prefersLarger, useScalingFactor: false)
    let rebuildFiles = BenchmarkMetric.custom("rebuild, files: events / s", polarity: .prefersLarger, useScalingFactor: false)
    let rebuildPostgres = BenchmarkMetric.custom("rebuild, PostgreSQL: events / s", polarity: .prefersLarger, useScalingFactor: false)
    let followerBalances = BenchmarkMetric.custom("follower: balances as of a date (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    var csv: String?
    var scratch: String?
    Benchmark(
        "PostgreSQL: import, rebuild and a follower's balances at a date, 100k rows, beside files",
        configuration: .init(
            metrics: [.wallClock, importFiles, importPostgres, rebuildFiles, rebuildPostgres, followerBalances],
            warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 3)
    ) { benchmark in
        guard let csv, let scratch else { return benchmark.error("no journal") }
        func micros(_ duration: Duration) -> Int {
            Int(duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
        }
        do {
            let round = benchmark.currentIteration
            var postgresOptions = Ledger.Options.standard
            postgresOptions.postgres = try BenchmarkCluster.location("import")
            for (metric, rebuildMetric, store, options) in [
                (importFiles, rebuildFiles, scratch + "/files-\(round)", Ledger.Options.standard),
                (importPostgres, rebuildPostgres, scratch + "/postgres-\(round)", postgresOptions),
            ] {
                var start = ContinuousClock.now
                let ledger = try Ledger.create(at: store, name: "Benchmark household", baseCurrency: .usd, timeZone: "UTC", options: options)
                let summary = try ledger.importJournal(csvAt: csv)
                try ledger.close()
                guard summary.imported == rows else { return benchmark.error("imported \(summary.imported) of \(rows) rows") }
                benchmark.measurement(metric, rows * 1_000_000 / max(micros(ContinuousClock.now - start), 1))
                start = ContinuousClock.now
                _ = try Ledger.rebuild(at: store, options: .standard)
                benchmark.measurement(rebuildMetric, (rows + 1) * 1_000_000 / max(micros(ContinuousClock.now - start), 1))
            }
            let follower = scratch + "/follower-\(round)"
            try PostgresStore.attach(postgresOptions.postgres!, at: follower)
            let reader = try Ledger.openForReading(at: follower, options: .standard)
            defer { try? reader.close() }
            let asOf = reader.calendar.endOfDay(Fixtures.asOfDate)
            _ = try reader.balances(asOf: asOf)
            let start = ContinuousClock.now
            for _ in 0..<20 { _ = try reader.balances(asOf: asOf) }
            benchmark.measurement(followerBalances, micros(ContinuousClock.now - start) / 20)
        } catch {
            benchmark.error("failed: \(error)")
        }
    } setup: {
        csv = try Fixtures.journalCSV(rows: rows)
        scratch = try Fixtures.temporaryDirectory("postgres-import")
    } teardown: {
        scratch.map(Fixtures.remove)
    }

    // A one-million-row import of the household journal into each backend, one iteration.
    let millionRows = 1_000_000
    let millionFiles = BenchmarkMetric.custom("import 1M, files: events / s", polarity: .prefersLarger, useScalingFactor: false)
    let millionPostgres = BenchmarkMetric.custom("import 1M, PostgreSQL: events / s", polarity: .prefersLarger, useScalingFactor: false)
    var millionCSV: String?
    var millionScratch: String?
    Benchmark(
        "PostgreSQL: import of 1M rows, beside files",
        configuration: .init(metrics: [.wallClock, millionFiles, millionPostgres], warmupIterations: 0, maxDuration: .seconds(600), maxIterations: 1)
    ) { benchmark in
        guard let millionCSV, let millionScratch else { return benchmark.error("no journal") }
        do {
            var postgresOptions = Ledger.Options.standard
            postgresOptions.postgres = try BenchmarkCluster.location("million")
            for (metric, store, options) in [
                (millionFiles, millionScratch + "/files", Ledger.Options.standard),
                (millionPostgres, millionScratch + "/postgres", postgresOptions),
            ] {
                let start = ContinuousClock.now
                let ledger = try Ledger.create(at: store, name: "Benchmark household", baseCurrency: .usd, timeZone: "UTC", options: options)
                let summary = try ledger.importJournal(csvAt: millionCSV)
                let events = ledger.head.sequence - 1
                try ledger.close()
                guard summary.imported == millionRows else { return benchmark.error("imported \(summary.imported) of \(millionRows) rows") }
                benchmark.measurement(metric, Int(events) * 1_000_000 / max(benchmarkMicros(ContinuousClock.now - start), 1))
            }
        } catch {
            benchmark.error("failed: \(error)")
        }
    } setup: {
        millionCSV = try Fixtures.journalCSV(rows: millionRows)
        millionScratch = try Fixtures.temporaryDirectory("postgres-million")
    } teardown: {
        millionScratch.map(Fixtures.remove)
    }

    // Follower lag: from a command's acknowledgement on the node that writes (node A) to its fold
    // into a second node's read models (node B, a LedgerFollower woken by the commit notice,
    // polling only every 10 s), one sample per command.
    let lag = BenchmarkMetric.custom("follower lag after an acknowledged command (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    var followed: (writer: Ledger, follower: LedgerFollower, directory: String)?
    Benchmark(
        "PostgreSQL: follower lag, a command acknowledged on node A until folded on node B",
        configuration: .init(metrics: [lag], warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 1)
    ) { benchmark in
        guard let followed else { return benchmark.error("no ledgers") }
        do {
            for _ in 0..<500 {
                let event = NewEvent(effectiveAt: followed.writer.now, body: EventBody(JournalEntryPosted(
                    account: "Assets:Cash", counterAccount: "Income:Salary", amount: try Money(parsing: "1.00", commodity: .usd))))
                let result = try await followed.writer.run(LedgerCommand { _ in [event] })
                let acknowledged = ContinuousClock.now
                guard let last = result.events.last?.sequence, followed.follower.waitUntilFolded(through: last, timeoutMilliseconds: 10_000) else {
                    return benchmark.error("node B did not fold the command in 10 s")
                }
                benchmark.measurement(lag, benchmarkMicros(ContinuousClock.now - acknowledged))
            }
        } catch {
            benchmark.error("failed: \(error)")
        }
    } setup: {
        let directory = try Fixtures.temporaryDirectory("postgres-follow")
        var options = Ledger.Options.standard
        options.postgres = try BenchmarkCluster.location("follow")
        let writer = try Ledger.create(at: directory + "/node-a", name: "Followed", baseCurrency: .usd, timeZone: "UTC", options: options)
        try PostgresStore.attach(options.postgres!, at: directory + "/node-b")
        let follower = try LedgerFollower.start(at: directory + "/node-b", options: .standard, pollMilliseconds: 10_000)
        followed = (writer, follower, directory)
    } teardown: {
        followed?.follower.stop()
        try? followed?.writer.close()
        followed.map { Fixtures.remove($0.directory) }
        followed = nil
    }
}
