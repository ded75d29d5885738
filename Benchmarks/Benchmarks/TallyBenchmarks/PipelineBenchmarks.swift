import Benchmark
import Foundation
import Synchronization
import Tally

// MARK: - The write pipeline seen by an embedder: 16 tasks, one consumer

/// What one iteration measured: how long each event took from its command's submission to
/// its delivery to a `committedEvents(after:)` consumer.
struct DeliveryLatencies {
    /// Microseconds, one per command, sorted.
    let sorted: [Int]
    /// Wall time of the iteration, microseconds.
    let elapsed: Int

    /// The latency at or below which `permille`/1000 of the events were delivered (nearest rank).
    func percentile(_ permille: Int) -> Int {
        let rank = max(1, (sorted.count * permille + 999) / 1_000)
        return sorted[rank - 1]
    }
}

/// When each command was submitted, by its idempotency key.
final class SubmissionTimes: Sendable {
    let times = Mutex<[String: ContinuousClock.Instant]>([:])
}

/// Runs `tasks` concurrent tasks of `perTask` durable commands each through the async API,
/// with one consumer of `committedEvents(after:)`, and returns each event's latency from
/// the moment its command was submitted to the moment the consumer got it.
func measureDelivery(_ ledger: Ledger, tasks: Int, perTask: Int) async throws -> DeliveryLatencies {
    let submitted = SubmissionTimes()
    let total = tasks * perTask
    let stream = ledger.committedEvents(after: ledger.head.sequence)
    let start = ContinuousClock.now
    let consumer = Task {
        var latencies: [Int] = []
        latencies.reserveCapacity(total)
        for try await event in stream {
            let now = ContinuousClock.now
            guard let key = event.idempotencyKey, let sent = submitted.times.withLock({ $0[key] }) else { continue }
            let elapsed = now - sent
            latencies.append(Int(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000))
            if latencies.count == total { break }
        }
        return latencies
    }
    let round = UUID().uuidString.prefix(8)
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<tasks {
            group.addTask {
                for index in 0..<perTask {
                    let key = "bench-\(round)-\(task)-\(index)"
                    let event = NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(
                        account: "Assets:Cash", counterAccount: "Income:Salary",
                        amount: try Money(parsing: "1.00", commodity: .usd))))
                    submitted.times.withLock { $0[key] = ContinuousClock.now }
                    _ = try await ledger.run(LedgerCommand(idempotencyKey: key) { _ in [event] })
                }
            }
        }
        try await group.waitForAll()
    }
    let latencies = try await consumer.value
    let elapsed = ContinuousClock.now - start
    return DeliveryLatencies(
        sorted: latencies.sorted(),
        elapsed: Int(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000))
}

/// Runs `callers` concurrent tasks of `perCaller` durable commands each, every task keeping up
/// to `inFlight` commands in flight with `Ledger.submit` (its outcomes taken in its order),
/// and returns the durable commands per second.
func measurePipelined(_ ledger: Ledger, callers: Int, perCaller: Int, inFlight window: Int) async throws -> Int {
    let round = UUID().uuidString.prefix(8)
    let amount = try Money(parsing: "1.00", commodity: .usd)
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for caller in 0..<callers {
            group.addTask {
                var inFlight: [Ledger.SubmittedCommand] = []
                for index in 0..<perCaller {
                    if inFlight.count == window { _ = try await inFlight.removeFirst().result }
                    let event = NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(
                        account: "Assets:Cash", counterAccount: "Income:Salary", amount: amount)))
                    inFlight.append(ledger.submit(LedgerCommand(idempotencyKey: "pipe-\(round)-\(caller)-\(index)") { _ in [event] }))
                }
                for submitted in inFlight { _ = try await submitted.result }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = ContinuousClock.now - start
    let micros = Int(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000)
    return callers * perCaller * 1_000_000 / Swift.max(micros, 1)
}

func pipelineBenchmarks() {
    let p50 = BenchmarkMetric.custom("delivery p50 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let p99 = BenchmarkMetric.custom("delivery p99 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let max = BenchmarkMetric.custom("delivery max (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let rate = BenchmarkMetric.custom("durable commands / s", polarity: .prefersLarger, useScalingFactor: false)
    var fixture: (ledger: Ledger, directory: String)?
    let tasks = 16, perTask = 25
    Benchmark(
        "Async API: 16 tasks × 25 durable commands, one committedEvents(after:) consumer",
        configuration: .init(metrics: [.wallClock, p50, p99, max, rate], maxDuration: .seconds(10), maxIterations: 50)
    ) { benchmark in
        guard let ledger = fixture?.ledger else { return benchmark.error("no ledger") }
        do {
            let measured = try await measureDelivery(ledger, tasks: tasks, perTask: perTask)
            guard measured.sorted.count == tasks * perTask else {
                return benchmark.error("\(measured.sorted.count) of \(tasks * perTask) events delivered")
            }
            benchmark.measurement(p50, measured.percentile(500))
            benchmark.measurement(p99, measured.percentile(990))
            benchmark.measurement(max, measured.sorted.last!)
            benchmark.measurement(rate, tasks * perTask * 1_000_000 / Swift.max(measured.elapsed, 1))
        } catch {
            benchmark.error("commands failed: \(error)")
        }
    } setup: {
        let directory = try Fixtures.temporaryDirectory("pipeline")
        fixture = (try Ledger.create(at: directory + "/store", name: "Pipeline", baseCurrency: .usd, timeZone: "UTC", options: .standard), directory)
    } teardown: {
        try? fixture?.ledger.close()
        fixture.map { Fixtures.remove($0.directory) }
        fixture = nil
    }

    // Issue 12, target 4: durable commands/s with 16 concurrent callers of the async API
    // against one caller, in the same iteration (so the ratio survives a noisy machine).
    // Concurrent commands share one fdatasync: the pipeline takes every command waiting
    // when a commit starts into that commit's frame.
    let oneCaller = BenchmarkMetric.custom("1 caller: durable commands / s", polarity: .prefersLarger, useScalingFactor: false)
    let sixteenCallers = BenchmarkMetric.custom("16 callers: durable commands / s", polarity: .prefersLarger, useScalingFactor: false)
    let ratio = BenchmarkMetric.custom("16 callers ÷ 1 caller (×100)", polarity: .prefersLarger, useScalingFactor: false)
    // Issue 31, item 5: callers that pipeline, up to 8 commands in flight each.
    let onePipelined = BenchmarkMetric.custom("1 caller, 8 in flight: durable commands / s", polarity: .prefersLarger, useScalingFactor: false)
    let sixteenPipelined = BenchmarkMetric.custom("16 callers, 8 in flight each: durable commands / s", polarity: .prefersLarger, useScalingFactor: false)
    let pipelinedRatio = BenchmarkMetric.custom("16 callers × 8 in flight ÷ 1 caller (×100)", polarity: .prefersLarger, useScalingFactor: false)
    var callersFixture: (ledger: Ledger, directory: String)?
    Benchmark(
        "Commands: 1 caller against 16 concurrent callers (one in flight each, then 8), durable, same iteration",
        configuration: .init(
            metrics: [.wallClock, oneCaller, sixteenCallers, ratio, onePipelined, sixteenPipelined, pipelinedRatio],
            maxDuration: .seconds(30), maxIterations: 20)
    ) { benchmark in
        guard let ledger = callersFixture?.ledger else { return benchmark.error("no ledger") }
        do {
            let round = UUID().uuidString.prefix(8)
            let single = 100
            let start = ContinuousClock.now
            for index in 0..<single {
                let event = NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(
                    account: "Assets:Cash", counterAccount: "Income:Salary", amount: try Money(parsing: "1.00", commodity: .usd))))
                _ = try await ledger.run(LedgerCommand(idempotencyKey: "one-\(round)-\(index)") { _ in [event] })
            }
            let elapsed = ContinuousClock.now - start
            let singleMicros = Int(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000)
            let singleRate = single * 1_000_000 / Swift.max(singleMicros, 1)
            let measured = try await measureDelivery(ledger, tasks: 16, perTask: 25)
            let concurrentRate = 16 * 25 * 1_000_000 / Swift.max(measured.elapsed, 1)
            benchmark.measurement(oneCaller, singleRate)
            benchmark.measurement(sixteenCallers, concurrentRate)
            benchmark.measurement(ratio, concurrentRate * 100 / Swift.max(singleRate, 1))
            let onePipelinedRate = try await measurePipelined(ledger, callers: 1, perCaller: 200, inFlight: 8)
            let sixteenPipelinedRate = try await measurePipelined(ledger, callers: 16, perCaller: 100, inFlight: 8)
            benchmark.measurement(onePipelined, onePipelinedRate)
            benchmark.measurement(sixteenPipelined, sixteenPipelinedRate)
            benchmark.measurement(pipelinedRatio, sixteenPipelinedRate * 100 / Swift.max(singleRate, 1))
        } catch {
            benchmark.error("commands failed: \(error)")
        }
    } setup: {
        let directory = try Fixtures.temporaryDirectory("callers")
        callersFixture = (try Ledger.create(at: directory + "/store", name: "Callers", baseCurrency: .usd, timeZone: "UTC", options: .standard), directory)
    } teardown: {
        try? callersFixture?.ledger.close()
        callersFixture.map { Fixtures.remove($0.directory) }
        callersFixture = nil
    }

    // A household's imports as product commands in one commit: 10,000 deposits (each a
    // deposit and its split), built as values and run with run(batch:): validated, keyed,
    // one frame and one fdatasync (issue 12's target: ≥ 200,000 commands/s).
    let batchRate = BenchmarkMetric.custom("commands / s", polarity: .prefersLarger, useScalingFactor: false)
    var batchFixture: (ledger: Ledger, directory: String)?
    Benchmark(
        "Batch: run(batch:) of 10,000 deposit commands (values), one commit",
        configuration: .init(metrics: [.wallClock, batchRate, .peakMemoryResident], maxDuration: .seconds(20), maxIterations: 20)
    ) { benchmark in
        guard let ledger = batchFixture?.ledger else { return benchmark.error("no ledger") }
        do {
            let round = UUID().uuidString.prefix(8)
            let amount = try Money(parsing: "10.00", commodity: .usd)
            let start = ContinuousClock.now
            let commands = try (0..<10_000).map { index in
                try ledger.depositCommand(account: "main", amount: amount, externalId: "tx-\(index)", idempotencyKey: "bank:\(round):\(index)")
            }
            try runBatch(commands, on: ledger, since: start, rate: batchRate, what: "deposit", benchmark)
        } catch {
            benchmark.error("the batch failed: \(error)")
        }
    } setup: {
        let directory = try Fixtures.temporaryDirectory("batch")
        batchFixture = (try Ledger.create(at: directory + "/store", name: "Batch", baseCurrency: .usd, timeZone: "UTC", options: .standard), directory)
    } teardown: {
        try? batchFixture?.ledger.close()
        batchFixture.map { Fixtures.remove($0.directory) }
        batchFixture = nil
    }

    // A household's card purchases as budget transactions in one commit: 10,000
    // `recordTransactionCommand`s with their own ids, a hundred a day, built as values and run
    // with run(batch:).
    var transactionsFixture: (ledger: Ledger, directory: String, round: Int)?
    Benchmark(
        "Batch: run(batch:) of 10,000 recorded budget transactions (values), one commit",
        configuration: .init(metrics: [.wallClock, batchRate, .peakMemoryResident], maxDuration: .seconds(20), maxIterations: 20)
    ) { benchmark in
        guard let fixture = transactionsFixture else { return benchmark.error("no ledger") }
        transactionsFixture?.round += 1
        do {
            let first = try LocalDate(parsing: "2024-01-01").adding(days: fixture.round * 100)
            let start = ContinuousClock.now
            var commands: [LedgerCommand] = []
            commands.reserveCapacity(10_000)
            for index in 0..<10_000 {
                let amount = Money(minorUnits: -Int64(100 + index % 900), commodity: .usd)
                let category: BudgetCategory = index % 2 == 0 ? .groceries : .diningOut
                commands.append(try fixture.ledger.recordTransactionCommand(
                    payee: "Shop \(index % 50)", category: category, amount: amount, date: first.adding(days: index / 100),
                    id: "card-\(fixture.round)-\(index)"))
            }
            try runBatch(commands, on: fixture.ledger, since: start, rate: batchRate, what: "transaction", benchmark)
        } catch {
            benchmark.error("the batch failed: \(error)")
        }
    } setup: {
        let directory = try Fixtures.temporaryDirectory("transactions")
        transactionsFixture = (try Ledger.create(at: directory + "/store", name: "Transactions", baseCurrency: .usd, timeZone: "UTC", options: .standard), directory, 0)
    } teardown: {
        try? transactionsFixture?.ledger.close()
        transactionsFixture.map { Fixtures.remove($0.directory) }
        transactionsFixture = nil
    }
}

/// Runs `commands` as one `run(batch:)` and records the commands per second since `start`
/// (building the commands included), or an error naming `what` was refused.
private func runBatch(
    _ commands: [LedgerCommand], on ledger: Ledger, since start: ContinuousClock.Instant, rate: BenchmarkMetric, what: String,
    _ benchmark: Benchmark
) throws {
    let results = try ledger.run(batch: commands)
    let elapsed = ContinuousClock.now - start
    guard results.allSatisfy({ (try? $0.get()) != nil }) else { return benchmark.error("a \(what) was refused") }
    let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
    benchmark.measurement(rate, Int(commands.count * 1_000_000 / Swift.max(Int(micros), 1)))
}
