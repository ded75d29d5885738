import Benchmark
import Foundation
import Glibc
import HouseholdJournal
import Tally
import TallyLog

// Tally's benchmarks (targets and figures: Benchmarks/README.md). Run from Benchmarks/:
//
//   swift package benchmark                      # everything but the 10M-event store
//   TALLY_BENCH_10M=1 swift package benchmark    # also the 10,000,000-event balance query
//
// Throughput figures are events per second: a benchmark whose iteration handles 1,000
// events has scalingFactor .kilo, one that handles 1,000,000 has .mega.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 1,
        maxDuration: .seconds(5),
        maxIterations: 1_000
    )
    appendBenchmarks()
    readBenchmarks()
    ledgerBenchmarks()
    bulkAppendBenchmarks()
    payeeImportBenchmarks()
    readScalingBenchmarks()
    envelopeBenchmarks()
    netWorthBenchmarks()
    pipelineBenchmarks()
    marketValueBenchmarks()
    postgresBenchmarks()
}

// MARK: - Appending (TallyLog)

/// A writer and the records it cycles through.
final class AppendFixture {
    let directory: String
    let writer: LogWriter
    let batches: [[LogRecord]]
    var next = 0

    init(label: String, syncMode: LogOptions.SyncMode, batchSize: Int, batchCount: Int) throws {
        directory = try Fixtures.temporaryDirectory(label)
        var options = LogOptions()
        options.syncMode = syncMode
        writer = try LogWriter.create(directory: directory + "/log", options: options)
        let records = try Fixtures.records(count: batchSize * batchCount)
        batches = stride(from: 0, to: records.count, by: batchSize).map { Array(records[$0 ..< $0 + batchSize]) }
    }

    func nextBatch() -> [LogRecord] {
        defer { next = (next + 1) % batches.count }
        return batches[next]
    }

    func close() {
        try? writer.close()
        Fixtures.remove(directory)
    }
}

/// A file in the same kind of directory as the log, for one bare append + fdatasync.
final class SyncFixture {
    let directory: String
    let descriptor: Int32
    let block = [UInt8](repeating: 0x5A, count: 256)

    init() throws {
        directory = try Fixtures.temporaryDirectory("fdatasync")
        descriptor = open(directory + "/file", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FixtureError(description: "cannot create \(directory)/file (errno \(errno))") }
    }

    func appendAndSync() -> Bool {
        let written = block.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        return written == block.count && fdatasync(descriptor) == 0
    }

    func close() {
        _ = Glibc.close(descriptor)
        Fixtures.remove(directory)
    }
}

func appendBenchmarks() {
    var batched: AppendFixture?
    Benchmark(
        "Log append: 1,000-event batches, fdatasync per batch",
        configuration: .init(metrics: [.throughput, .wallClock], scalingFactor: .kilo, maxDuration: .seconds(5))
    ) { benchmark in
        guard let fixture = batched else { return benchmark.error("no fixture") }
        do {
            _ = try fixture.writer.append(fixture.nextBatch())
            try fixture.writer.sync()
        } catch {
            benchmark.error("append failed: \(error)")
        }
    } setup: {
        batched = try AppendFixture(label: "append-batched", syncMode: .none, batchSize: 1_000, batchCount: 50)
    } teardown: {
        batched?.close()
        batched = nil
    }

    // 10,000 events is not a scaling factor: this one reports events/s as its own metric.
    let eventsPerSecond = BenchmarkMetric.custom("events / s", polarity: .prefersLarger, useScalingFactor: false)
    var large: AppendFixture?
    Benchmark(
        "Log append: 10,000-event batches, fdatasync per batch",
        configuration: .init(metrics: [.wallClock, eventsPerSecond], maxDuration: .seconds(5))
    ) { benchmark in
        guard let fixture = large else { return benchmark.error("no fixture") }
        do {
            let batch = fixture.nextBatch()
            let start = ContinuousClock.now
            _ = try fixture.writer.append(batch)
            try fixture.writer.sync()
            let elapsed = ContinuousClock.now - start
            let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
            benchmark.measurement(eventsPerSecond, Int(Int64(batch.count) * 1_000_000_000 / max(nanoseconds, 1)))
        } catch {
            benchmark.error("append failed: \(error)")
        }
    } setup: {
        large = try AppendFixture(label: "append-large", syncMode: .none, batchSize: 10_000, batchCount: 10)
    } teardown: {
        large?.close()
        large = nil
    }

    var single: AppendFixture?
    Benchmark(
        "Log append: 1 event, durable (fdatasync per commit)",
        configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(5), maxIterations: 5_000)
    ) { benchmark in
        guard let fixture = single else { return benchmark.error("no fixture") }
        do {
            _ = try fixture.writer.append(fixture.nextBatch())
        } catch {
            benchmark.error("append failed: \(error)")
        }
    } setup: {
        single = try AppendFixture(label: "append-single", syncMode: .everyCommit, batchSize: 1, batchCount: 1_000)
    } teardown: {
        single?.close()
        single = nil
    }

    var bare: SyncFixture?
    Benchmark(
        "Bare write of 256 bytes + fdatasync, same disk",
        configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(5), maxIterations: 5_000)
    ) { benchmark in
        guard let fixture = bare, fixture.appendAndSync() else { return benchmark.error("write or fdatasync failed") }
    } setup: {
        bare = try SyncFixture()
    } teardown: {
        bare?.close()
        bare = nil
    }
}

// MARK: - Reading the log

/// The rows of the journal behind the read and rebuild benchmarks: 1,000,000 events.
let millionRows = 1_000_000

func readBenchmarks() {
    var store: String?
    Benchmark(
        "Log decode: LogReader.forEach, 1M events",
        configuration: .init(metrics: [.throughput, .wallClock, .peakMemoryResident], scalingFactor: .mega, maxIterations: 5)
    ) { benchmark in
        guard let store else { return benchmark.error("no store") }
        do {
            var count: UInt64 = 0
            try LogReader.open(directory: StoreLayout(root: store).logDirectory).forEach { event in
                count &+= UInt64(event.payload.count)
            }
            blackHole(count)
        } catch {
            benchmark.error("decode failed: \(error)")
        }
    } setup: {
        store = try Fixtures.importedStore(rows: millionRows)
    }

    Benchmark(
        "Event decode: EventStoreReader.forEach (log + catalog), 1M events",
        configuration: .init(metrics: [.throughput, .wallClock, .peakMemoryResident], scalingFactor: .mega, maxIterations: 5)
    ) { benchmark in
        guard let store else { return benchmark.error("no store") }
        do {
            var count = 0
            try EventStoreReader.open(at: store, catalog: .standard).forEach { event in
                if event.body.is(JournalEntryPosted.self) { count &+= 1 }
            }
            blackHole(count)
        } catch {
            benchmark.error("decode failed: \(error)")
        }
    } setup: {
        store = try Fixtures.importedStore(rows: millionRows)
    }

    Benchmark(
        "Log size against NDJSON, 1M events",
        configuration: .init(
            metrics: [
                .custom("NDJSON bytes / log bytes on disk (x100)", polarity: .prefersLarger, useScalingFactor: false),
                .custom("log bytes on disk per event", polarity: .prefersSmaller, useScalingFactor: false),
                .custom("NDJSON bytes per event", polarity: .prefersSmaller, useScalingFactor: false),
            ],
            warmupIterations: 0, maxIterations: 1
        )
    ) { benchmark in
        guard let store else { return benchmark.error("no store") }
        do {
            let reader = try EventStoreReader.open(at: store, catalog: .standard)
            let statistics = try reader.statistics()
            var ndjsonBytes: Int64 = 0
            try reader.forEach { event in ndjsonBytes += Int64(try EventJSON.encode(event).utf8.count + 1) }
            let events = Int64(statistics.events)
            benchmark.measurement(.custom("NDJSON bytes / log bytes on disk (x100)", polarity: .prefersLarger, useScalingFactor: false),
                                  Int(ndjsonBytes * 100 / statistics.bytesOnDisk))
            benchmark.measurement(.custom("log bytes on disk per event", polarity: .prefersSmaller, useScalingFactor: false),
                                  Int(statistics.bytesOnDisk / events))
            benchmark.measurement(.custom("NDJSON bytes per event", polarity: .prefersSmaller, useScalingFactor: false),
                                  Int(ndjsonBytes / events))
        } catch {
            benchmark.error("size comparison failed: \(error)")
        }
    } setup: {
        store = try Fixtures.importedStore(rows: millionRows)
    }
}

// MARK: - The ledger: import, rebuild, point-in-time balances

func ledgerBenchmarks() {
    for rows in [100_000, millionRows] {
        let label = rows == millionRows ? "1M" : "100k"
        var csv: String?
        var scratch: String?
        Benchmark(
            "Import journal CSV (tally import), \(label) rows",
            configuration: .init(
                metrics: [.throughput, .wallClock, .peakMemoryResident],
                warmupIterations: 0,
                scalingFactor: rows == millionRows ? .mega : .one,
                maxIterations: rows == millionRows ? 1 : 3
            )
        ) { benchmark in
            guard let csv, let scratch else { return benchmark.error("no journal") }
            Fixtures.importIntoNewLedger(benchmark, csv: csv, scratch: scratch, name: "Benchmark household", rows: rows)
        } setup: {
            csv = try Fixtures.journalCSV(rows: rows)
            scratch = try Fixtures.temporaryDirectory("import")
        } teardown: {
            scratch.map(Fixtures.remove)
        }

        var copy: String?
        var ledger: Ledger?
        Benchmark(
            "Rebuild through all projectors, \(label) events",
            configuration: .init(
                metrics: [.throughput, .wallClock, .peakMemoryResident],
                warmupIterations: 0,
                scalingFactor: rows == millionRows ? .mega : .one,
                maxIterations: 3
            )
        ) { benchmark in
            guard let ledger else { return benchmark.error("no ledger") }
            do { try ledger.rebuild() } catch { benchmark.error("rebuild failed: \(error)") }
        } setup: {
            copy = try Fixtures.copyOfImportedStore(rows: rows)
            ledger = try Ledger.open(at: copy!, options: .standard)
        } teardown: {
            try? ledger?.close()
            ledger = nil
            copy.map { Fixtures.remove(URL(fileURLWithPath: $0).deletingLastPathComponent().path) }
        }
    }

    let pointInTimeSizes = [millionRows] + (Fixtures.includesTenMillion ? [10_000_000] : [])
    for rows in pointInTimeSizes {
        let label = rows == millionRows ? "1M" : "10M"
        var ledger: Ledger?
        Benchmark(
            "Balance of every account as of a date, \(label) events",
            configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(10), maxIterations: 200)
        ) { benchmark in
            guard let ledger else { return benchmark.error("no ledger") }
            do {
                let balances = try ledger.balances(asOf: ledger.calendar.endOfDay(Fixtures.asOfDate))
                if balances.isEmpty { benchmark.error("no balances") }
                blackHole(balances)
            } catch {
                benchmark.error("query failed: \(error)")
            }
        } setup: {
            ledger = try Ledger.open(at: try Fixtures.importedStore(rows: rows), options: .standard)
        } teardown: {
            try? ledger?.close()
            ledger = nil
        }
    }
}

// MARK: - Net worth series: snapshots against point lookups

func netWorthBenchmarks() {
    for (label, interval) in [("monthly snapshots", SnapshotInterval.months(1)), ("point lookups", .never)] {
        var ledger: Ledger?
        Benchmark(
            "Net worth series, 10 years monthly, 30 items, 100k events, \(label)",
            configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(10), maxIterations: 200)
        ) { benchmark in
            guard let ledger else { return benchmark.error("no ledger") }
            do {
                let series = try ledger.netWorthSeries(from: NetWorthFixture.firstMonth, through: NetWorthFixture.lastMonth)
                if series.count != 120 || series.contains(where: { !$0.report.isComplete }) { benchmark.error("an incomplete series") }
                blackHole(series)
            } catch {
                benchmark.error("series failed: \(error)")
            }
        } setup: {
            ledger = try NetWorthFixture.ledger(interval: interval)
        } teardown: {
            try? ledger?.close()
            ledger = nil
        }
    }
}
