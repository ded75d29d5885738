import Benchmark
import Foundation
import Tally
import TallyLog

// MARK: - Envelopes: statuses at a date resume from snapshots

/// A ledger with 12 envelopes (weekly, bi-weekly, monthly, one-time) and `transactions`
/// envelope expenses spread over the ten years 2016–2025, appended in 10,000-event commits
/// as an import would; the clock stands on 2026-01-15.
enum EnvelopeFixture {
    static let first = LocalDate(daysSinceEpoch: 16_801)  // 2016-01-01
    static let days = 3_653

    static func ledger(transactions: Int, interval: SnapshotInterval, label: String) throws -> (Ledger, String) {
        let directory = try Fixtures.temporaryDirectory("envelopes-\(label)")
        let clock: @Sendable () -> Instant = { Instant(microsecondsSinceEpoch: 1_768_478_400_000_000) }  // 2026-01-15T12:00:00Z
        let ledger = try Ledger.create(at: directory + "/store", name: "Envelope household", baseCurrency: .usd, timeZone: "America/New_York",
                                       options: Ledger.Options(clock: clock, syncMode: .none, snapshotInterval: interval, features: standardFeatures))
        try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: Money(minorUnits: 100_000_000, commodity: .usd), effectiveAt: ledger.calendar.startOfDay(first))
        let intervals: [EnvelopeInterval] = [.weekly, .biweekly, .monthly, .oneTime]
        for index in 0..<12 {
            try ledger.createEnvelope("e\(index)", name: "Envelope \(index)", interval: intervals[index % 4],
                                      budgeted: Money(minorUnits: Int64(10_000 + index * 2_500), commodity: .usd), startDate: first)
        }
        var random = SplitMix64(seed: Fixtures.seed)
        var batch: [NewEvent] = []
        for number in 0..<transactions {
            let day = first.adding(days: number * days / transactions)
            batch.append(NewEvent(effectiveAt: ledger.calendar.startOfDay(day), body: EventBody(TransactionRecorded(
                transactionId: "x\(number)", payee: "Shop", category: .general,
                amount: Money(minorUnits: -Int64.random(in: 100...9_000, using: &random), commodity: .usd),
                source: .manual, account: "Assets:Bank", envelope: "e\(Int.random(in: 0..<12, using: &random))"
            ))))
            if batch.count == 10_000 || number == transactions - 1 {
                try ledger.appendEvents(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        return (ledger, directory)
    }
}

func envelopeBenchmarks() {
    let transactions = 100_000
    for (interval, label) in [(SnapshotInterval.months(1), "monthly snapshots"), (.never, "no snapshots: fold from the start")] {
        var fixture: (ledger: Ledger, directory: String)?
        var random = SplitMix64(seed: 7)
        Benchmark(
            "Envelope statuses at a date, 100k transactions over 10 years, \(label)",
            configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(10), maxIterations: 200)
        ) { benchmark in
            guard let ledger = fixture?.ledger else { return benchmark.error("no ledger") }
            let date = EnvelopeFixture.first.adding(days: Int.random(in: 30..<EnvelopeFixture.days, using: &random))
            do {
                let statuses = try ledger.envelopeStatuses(asOf: ledger.calendar.endOfDay(date))
                if statuses.count != 12 { benchmark.error("\(statuses.count) envelopes on \(date)") }
                blackHole(statuses)
            } catch {
                benchmark.error("query failed: \(error)")
            }
        } setup: {
            fixture = try EnvelopeFixture.ledger(transactions: transactions, interval: interval, label: interval == .never ? "never" : "monthly")
        } teardown: {
            try? fixture?.ledger.close()
            fixture.map { Fixtures.remove($0.directory) }
            fixture = nil
        }
    }
}
