import Benchmark
import Foundation
import HouseholdJournal
import Tally
import TallyLog

/// What the benchmarks run on: encoded log records, journal files and pre-built stores.
///
/// package-benchmark runs every benchmark in its own process, so a store that takes long to
/// build (an import of a million rows) is built once and kept in `$TALLY_BENCH_CACHE`
/// (default `$TMPDIR/tally-bench-cache`), keyed by the benchmark executable's size and
/// modification time: rebuilding the benchmarks (after any change to Tally) builds new stores.
enum Fixtures {
    /// The seed of every generated journal.
    static let seed: UInt64 = 42
    /// The date of every point-in-time question: the middle of the journal's twenty years.
    static let asOfDate = LocalDate(daysSinceEpoch: 16_982)  // 2016-06-30

    /// A fresh, empty directory for one benchmark process, on the same disk as the cache.
    static func temporaryDirectory(_ label: String) throws -> String {
        let path = scratchRoot + "/\(label)-\(getpid())-\(UInt64.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Removes a directory made by ``temporaryDirectory(_:)``.
    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Imports the journal `csv` into a new ledger under `scratch` (one per iteration, removed
    /// after) and reports an error unless all `rows` came in. With `measuringImportOnly` the
    /// measurement covers the import alone, not the ledger's creation and closing.
    static func importIntoNewLedger(
        _ benchmark: Benchmark, csv: String, scratch: String, name: String, rows: Int,
        batchSize: Int = ImportBatch.defaultSize, measuringImportOnly: Bool = false
    ) {
        let store = scratch + "/store-\(benchmark.currentIteration)"
        defer { remove(store) }
        do {
            let ledger = try Ledger.create(at: store, name: name, baseCurrency: .usd, timeZone: "UTC", options: .standard)
            if measuringImportOnly { benchmark.startMeasurement() }
            let summary = try ledger.importJournal(csvAt: csv, batchSize: batchSize)
            if measuringImportOnly { benchmark.stopMeasurement() }
            try ledger.close()
            if summary.imported != rows { benchmark.error("imported \(summary.imported) of \(rows) rows") }
        } catch {
            benchmark.error("import failed: \(error)")
        }
    }

    /// `count` log records of `journal_entry_posted` events from the household journal, in
    /// their binary form, ready for `LogWriter.append`.
    static func records(count: Int) throws -> [LogRecord] {
        var records: [LogRecord] = []
        records.reserveCapacity(count)
        try HouseholdJournal(transactions: count, seed: seed).forEach { entry in
            records.append(try EventCatalog.standard.record(for: event(for: entry)))
        }
        return records
    }

    /// The event `tally import` appends for one journal row.
    static func event(for entry: HouseholdJournal.Entry) throws -> NewEvent {
        let commodity = try Commodity.named(entry.currency)
        let posted = JournalEntryPosted(
            account: entry.account, counterAccount: entry.counterAccount,
            amount: try Money(parsing: entry.amountText(), commodity: commodity),
            payee: entry.payee, category: entry.category, externalId: entry.externalId
        )
        return NewEvent(
            effectiveAt: LedgerCalendar.utc.startOfDay(entry.date),
            idempotencyKey: entry.externalId.map { "journal:" + $0 },
            body: EventBody(posted)
        )
    }

    /// The household journal of `rows` rows as a journal CSV, written once per cache key.
    static func journalCSV(rows: Int) throws -> String {
        let path = try cacheDirectory() + "/household-\(rows).csv"
        if !FileManager.default.fileExists(atPath: path) {
            try HouseholdJournal(transactions: rows, seed: seed).write(.tallyCSV, to: path + ".partial")
            try FileManager.default.moveItem(atPath: path + ".partial", toPath: path)
        }
        return path
    }

    /// A store holding the household journal of `rows` rows, imported with `tally import`'s
    /// code path (`Ledger.importJournal`): `rows + 1` events with `ledger_created`. Built once
    /// per cache key; read models are up to date.
    static func importedStore(rows: Int) throws -> String {
        let path = try cacheDirectory() + "/store-\(rows)"
        if FileManager.default.fileExists(atPath: path + "/COMPLETE") { return path }
        remove(path)
        let csv = try journalCSV(rows: rows)
        let ledger = try Ledger.create(
            at: path, name: "Benchmark household", baseCurrency: .usd, timeZone: "UTC",
            options: Ledger.Options(syncMode: .none, features: standardFeatures)
        )
        _ = try ledger.importJournal(csvAt: csv, batchSize: ImportBatch.sizeMax)
        try ledger.sync()
        try ledger.close()
        guard FileManager.default.createFile(atPath: path + "/COMPLETE", contents: Data()) else {
            throw FixtureError(description: "cannot mark \(path) complete")
        }
        return path
    }

    /// A copy of ``importedStore(rows:)`` that a benchmark may change.
    static func copyOfImportedStore(rows: Int) throws -> String {
        let source = try importedStore(rows: rows)
        let target = try temporaryDirectory("store-copy") + "/store"
        try FileManager.default.copyItem(atPath: source, toPath: target)
        return target
    }

    /// Whether the 10,000,000-event benchmarks run (their store takes minutes to build):
    /// set `TALLY_BENCH_10M=1`.
    static var includesTenMillion: Bool {
        ProcessInfo.processInfo.environment["TALLY_BENCH_10M"] == "1"
    }

    private static var scratchRoot: String {
        let environment = ProcessInfo.processInfo.environment
        return environment["TALLY_BENCH_CACHE"] ?? ((environment["TMPDIR"] ?? "/tmp") + "/tally-bench-cache")
    }

    /// The cache directory for this build of the benchmarks; caches of other builds are removed.
    static func cacheDirectory() throws -> String {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let attributes = try FileManager.default.attributesOfItem(atPath: executable)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let modified = Int64(((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0).rounded())
        let key = "build-\(size)-\(modified)"
        let root = scratchRoot
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where name.hasPrefix("build-") && name != key {
            remove(root + "/" + name)
        }
        let path = root + "/" + key
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// A fixture that could not be set up.
struct FixtureError: Error, CustomStringConvertible {
    let description: String
}
