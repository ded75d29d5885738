import Benchmark
import Foundation
import Tally
import TallyLog

// MARK: - Market value: `balances --value` against the plain point-in-time balances

/// The 1,000,000-event household store plus ten symbols held in ten brokerage accounts
/// (1,000 postings) and ten years of daily prices for each (2011-01-01 to 2020-12-31, priced
/// in USD) with a daily EUR/USD rate: 40,180 price and rate events. The question is asked at
/// the middle of the prices (2016-06-30) in EUR, so every symbol goes through USD (a hop) and
/// USD converts through the inverted EUR/USD rate.
enum MarketValueFixture {
    static let symbolCount = 10
    static let firstPriceDay = LocalDate(daysSinceEpoch: 14_975)  // 2011-01-01
    static let lastPriceDay = LocalDate(daysSinceEpoch: 18_627)   // 2020-12-31

    static func store() throws -> String {
        let path = try Fixtures.cacheDirectory() + "/market-1M"
        if FileManager.default.fileExists(atPath: path + "/COMPLETE") { return path }
        Fixtures.remove(path)
        try FileManager.default.copyItem(atPath: try Fixtures.importedStore(rows: 1_000_000), toPath: path)
        Fixtures.remove(path + "/COMPLETE")
        try build(at: path)
        guard FileManager.default.createFile(atPath: path + "/COMPLETE", contents: Data()) else {
            throw FixtureError(description: "cannot mark \(path) complete")
        }
        return path
    }

    private static func build(at path: String) throws {
        let ledger = try Ledger.open(at: path, options: Ledger.Options(syncMode: .none, features: standardFeatures))
        let calendar = ledger.calendar
        var random = SplitMix64(seed: Fixtures.seed)
        let symbols = try (0..<symbolCount).map { try Commodity.named("SYM\($0)") }
        var postings: [NewEvent] = []
        for index in 0..<1_000 {
            let symbol = symbols[index % symbolCount]
            let day = firstPriceDay.adding(days: Int(random.next() % 3_650))
            postings.append(NewEvent(effectiveAt: calendar.startOfDay(day), body: EventBody(JournalEntryPosted(
                account: "Assets:Broker\(index % symbolCount)", counterAccount: "Equity:Opening",
                amount: Money(minorUnits: Int64(random.next() % 10_000_000_000) + 1, commodity: symbol)))))
        }
        _ = try ledger.appendEvents(postings)
        var prices = symbols.map { _ in Int64(5_000 + random.next() % 20_000) }
        var rate: Int64 = 11_000
        var batch: [NewEvent] = []
        for days in 0...(lastPriceDay.daysSinceEpoch - firstPriceDay.daysSinceEpoch) {
            let effective = calendar.startOfDay(firstPriceDay.adding(days: days))
            for index in symbols.indices {
                prices[index] = max(100, prices[index] + random.step(50))
                batch.append(NewEvent(effectiveAt: effective, body: EventBody(PriceQuoted(
                    symbol: symbols[index], price: Money(minorUnits: prices[index], commodity: .usd), source: .manual))))
            }
            rate = max(5_000, rate + random.step(40))
            batch.append(NewEvent(effectiveAt: effective, body: EventBody(FXRateSet(base: .eur, quote: .usd, rate: try ExactDecimal(significand: rate, scale: 4)))))
            if batch.count >= 10_000 {
                _ = try ledger.appendEvents(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { _ = try ledger.appendEvents(batch) }
        try ledger.sync()
        try ledger.close()
    }
}

func marketValueBenchmarks() {
    var ledger: Ledger?
    func setUp() throws { ledger = try Ledger.open(at: try MarketValueFixture.store(), options: .standard) }
    func tearDown() {
        try? ledger?.close()
        ledger = nil
    }
    Benchmark(
        "Market value: plain balances as of a date, 1M events + 10 symbols' daily prices",
        configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(10), maxIterations: 500)
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
        try setUp()
    } teardown: {
        tearDown()
    }

    Benchmark(
        "Market value: balances --value EUR as of a date, 1M events + 10 symbols' daily prices",
        configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(10), maxIterations: 500)
    ) { benchmark in
        guard let ledger else { return benchmark.error("no ledger") }
        do {
            let report = try ledger.marketValues(in: .eur, asOf: ledger.calendar.endOfDay(Fixtures.asOfDate))
            if report.accounts.isEmpty || !report.notConverted.isEmpty { benchmark.error("an incomplete valuation: \(report.notConverted)") }
            blackHole(report)
        } catch {
            benchmark.error("query failed: \(error)")
        }
    } setup: {
        try setUp()
    } teardown: {
        tearDown()
    }
}
