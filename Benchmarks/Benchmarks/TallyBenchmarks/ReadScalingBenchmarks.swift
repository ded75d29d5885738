import Benchmark
import Foundation
import Tally
import TallyLog

// MARK: - Reads at 1k and 20k events (issue 36, item 8)

/// The reads an app screen makes — balances, the wealth summary, a 10-row audit page from
/// the middle of the account — on one ledger of 1,000 and one of 20,000 events: a read
/// that costs what it returns takes about as long on both.
func readScalingBenchmarks() {
    for events in [1_000, 20_000] {
        var scratch: String?
        var ledger: Ledger?
        var middle: AuditPosition?
        let account = LedgerAccounts.spend("main")
        func prepare() throws {
            let directory = try Fixtures.temporaryDirectory("read-scaling")
            scratch = directory
            let store = try Ledger.create(at: directory + "/store", name: "Read scaling", baseCurrency: .usd, timeZone: "UTC", options: .standard)
            let start = Instant(microsecondsSinceEpoch: store.now.microsecondsSinceEpoch - Int64(events) * 600_000_000)
            _ = try store.appendEvents(try wealthDeposits(events / 2, from: start), batchSize: 5_000)
            middle = try store.auditPage(account: account, limit: events / 4).next
            ledger = store
        }
        func finish() {
            try? ledger?.close()
            scratch.map(Fixtures.remove)
        }
        let configuration = Benchmark.Configuration(metrics: [.wallClock, .throughput], maxDuration: .seconds(5), maxIterations: 2_000)
        Benchmark("Read at \(events) events: balances", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try? ledger?.balances()) }
        } setup: { try prepare() } teardown: { finish() }
        Benchmark("Read at \(events) events: wealth summary", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try? ledger?.wealthSummary(account: "main")) }
        } setup: { try prepare() } teardown: { finish() }
        Benchmark("Read at \(events) events: audit page of 10 from the middle", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try? ledger?.auditPage(account: account, after: middle, limit: 10)) }
        } setup: { try prepare() } teardown: { finish() }
    }
}
