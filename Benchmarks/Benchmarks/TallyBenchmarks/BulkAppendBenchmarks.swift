import Benchmark
import Foundation
import Tally
import TallyLog

// MARK: - One `append` of N wealth deposits (issue 34, item 13)

/// N wealth deposits, each with its split, a second apart on one day, as `tally append`
/// reads them: events that arrive decided, each admitted where it lands.
func wealthDeposits(_ count: Int, from start: Instant) throws -> [NewEvent] {
    let amount = try Money(parsing: "100.00", commodity: .usd)
    let spend = try Money(parsing: "70.00", commodity: .usd)
    let invest = try Money(parsing: "30.00", commodity: .usd)
    return (0..<count).flatMap { index -> [NewEvent] in
        let at = Instant(microsecondsSinceEpoch: start.microsecondsSinceEpoch + Int64(index) * 1_000_000)
        return [
            NewEvent(effectiveAt: at, body: EventBody(DepositReceived(account: "main", amount: amount, source: .bankTransfer))),
            NewEvent(effectiveAt: at, cause: .earlierInBatch(2 * index), body: EventBody(DepositSplit(
                account: "main", spend: spend, invest: invest, spendWeight: 70, investWeight: 30))),
        ]
    }
}

func bulkAppendBenchmarks() {
    for deposits in [2_000, 4_000, 8_000, 16_000] {
        var scratch: String?
        Benchmark(
            "Append: \(deposits) wealth deposits in one command",
            configuration: .init(metrics: [.wallClock, .cpuTotal, .throughput], warmupIterations: 0, maxDuration: .seconds(20), maxIterations: 3)
        ) { benchmark in
            guard let scratch else { return benchmark.error("no directory") }
            let store = scratch + "/store-\(benchmark.currentIteration)"
            do {
                let ledger = try Ledger.create(at: store, name: "Bulk append", baseCurrency: .usd, timeZone: "UTC", options: .standard)
                let events = try wealthDeposits(deposits, from: ledger.now)
                benchmark.startMeasurement()
                _ = try ledger.appendEvents(events)
                benchmark.stopMeasurement()
                try ledger.close()
            } catch {
                benchmark.error("append failed: \(error)")
            }
            Fixtures.remove(store)
        } setup: {
            scratch = try Fixtures.temporaryDirectory("bulk-append")
        } teardown: {
            scratch.map(Fixtures.remove)
        }
    }
}
