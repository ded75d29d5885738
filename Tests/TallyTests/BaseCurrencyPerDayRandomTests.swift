import Testing
@testable import Tally
import TallyLog
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, rule 1 (one base currency per day, for every product), randomised: households
/// switch their base currency between USD, EUR and GBP at random dates, backdated and in
/// the future, while assets, envelope accounts, budget income and FX rates arrive at
/// random past dates. At random (as-of, known-at) pairs every product answers in the one
/// base currency a fold of the log computes from scratch (the change with the latest
/// effective time at or before as-of among those recorded by known-at, else the creation's),
/// and net worth and the envelope answers equal a full replay.
@Suite struct BaseCurrencyPerDayRandomTests {
    /// The base currency in force at `asOf` as known at `knownAt`, folded from the log
    /// alone: the reference the products are held to. The creation's currency is the one
    /// before any change, whatever the day.
    private static func referenceBase(_ events: [Event], asOf: Instant, knownAt: Instant?) -> Commodity {
        var created: Commodity?
        var best: (at: Instant, sequence: UInt64, currency: Commodity)?
        for event in events {
            let currency: Commodity
            switch event.body.payload {
            case let ledger as LedgerCreated:
                created = created ?? ledger.baseCurrency
                continue
            case let change as BaseCurrencySet:
                currency = change.currency
            default:
                continue
            }
            guard knownAt.map({ event.recordedAt <= $0 }) ?? true, event.effectiveAt <= asOf else { continue }
            if best.map({ ($0.at, $0.sequence) < (event.effectiveAt, event.sequence) }) ?? true {
                best = (event.effectiveAt, event.sequence, currency)
            }
        }
        return best?.currency ?? created!
    }

    @Test(arguments: LogBackend.allCases) func everyProductAnswersInTheBaseCurrencyOfTheDayAskedAbout(on backend: LogBackend) throws {
        let currencies: [Commodity] = [.usd, .eur, .gbp]
        try withRandomLedgers(3, master: 0x32_01, on: backend) { ledger, clock, random, seed in
            let start = day("2026-01-02")
            let opening = ledger.calendar.startOfDay(start)
            try ledger.openEnvelopeAccount("Assets:Dollars", commodity: .usd, openingBalance: usd("2000.00"), effectiveAt: opening)
            try ledger.openEnvelopeAccount("Assets:Pounds", commodity: .gbp, openingBalance: gbp("1000.00"), effectiveAt: opening)
            try ledger.addAsset(assetId: "flat", name: "Flat", category: .property, type: .realEstate, currency: .gbp, effectiveAt: opening)
            try ledger.recordValuation(itemKind: .asset, itemId: "flat", value: gbp("200000.00"), source: .manual, effectiveAt: opening)
            try ledger.addLiability(liabilityId: "loan", name: "Loan", category: .loan, currency: .eur, effectiveAt: opening)
            try ledger.recordValuation(itemKind: .liability, itemId: "loan", value: try Money(parsing: "5000.00", commodity: .eur), source: .manual, effectiveAt: opening)
            var recorded: [Instant] = []
            for _ in 0..<40 {
                clock.advance(seconds: Int64.random(in: 3_600...(4 * 86_400), using: &random))
                let today = ledger.calendar.date(of: clock.now)
                let past = ledger.calendar.startOfDay(max(start, today.adding(days: -Int.random(in: 0...45, using: &random))))
                do {
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0:
                        // Backdated, today, or from a day up to three months ahead.
                        let offset = Int.random(in: -45...90, using: &random)
                        let at = offset > 0 ? ledger.calendar.startOfDay(today.adding(days: offset)) : ledger.calendar.startOfDay(max(start, today.adding(days: offset)))
                        try ledger.setBaseCurrency(currencies.randomElement(using: &random)!, effectiveAt: at)
                    case 1, 2:
                        let pair = currencies.shuffled(using: &random)
                        try ledger.setFXRate(base: pair[0], quote: pair[1], rate: try ExactDecimal(significand: Int64.random(in: 5_000...20_000, using: &random), scale: 4),
                                             effectiveAt: past)
                    case 3:
                        try ledger.recordValuation(itemKind: .asset, itemId: "flat", value: Money(minorUnits: Int64.random(in: 10_000_000...40_000_000, using: &random), commodity: .gbp),
                                                   source: .manual, effectiveAt: past)
                    default:
                        try ledger.recordEnvelopeTransaction("t\(recorded.count)", account: "Assets:Dollars",
                                                             amount: Money(minorUnits: -Int64.random(in: 1...9_999, using: &random), commodity: .usd),
                                                             rateToBase: nil, effectiveAt: past)
                    }
                    recorded.append(clock.now)
                } catch is LedgerError {
                    continue
                }
            }
            let events = try ledger.loggedEvents()
            let today = ledger.calendar.date(of: clock.now)
            for knownAt in TestSeed.knownAts(3, recorded: recorded, random: &random) {
                let days = (0..<5).map { _ in start.adding(days: Int.random(in: -3...(today.daysSinceEpoch - start.daysSinceEpoch + 100), using: &random)) }
                let bounds = days.map { ledger.calendar.endOfDay($0) }
                let replays = try Replay.run(at: ledger.layout.root, key: nil, untilEach: bounds, knownAt: knownAt)
                for (position, date) in days.enumerated() {
                    let bound = bounds[position]
                    let expected = Self.referenceBase(events, asOf: bound, knownAt: knownAt)
                    let context = "seed \(seed), \(date), known at \(String(describing: knownAt))"
                    #expect(try ledger.baseCurrency(asOf: bound, knownAt: knownAt) == expected, "baseCurrency, \(context)")
                    #expect(try ledger.settings(asOf: bound, knownAt: knownAt).baseCurrency == expected, "settings, \(context)")
                    let netWorth = try ledger.netWorth(asOf: bound, knownAt: knownAt)
                    #expect(netWorth.baseCurrency == expected, "net worth, \(context)")
                    #expect(netWorth == replays[position].netWorth, "net worth equals a full replay, \(context)")
                    #expect(try ledger.xray(asOf: bound, knownAt: knownAt).baseCurrency == expected, "X-ray, \(context)")
                    #expect(try ledger.envelopeAccountsTotal(asOf: bound, knownAt: knownAt).total.commodity == expected, "envelope total, \(context)")
                    if date >= start {
                        #expect(try ledger.budgetOverviewInBase(month: date.month, asOf: bound, knownAt: knownAt).baseCurrency == expected,
                                "budget overview, \(context)")
                        let projection = try ledger.whatIf(goal: Money(minorUnits: 1_000_000_00, commodity: expected), on: date, knownAt: knownAt)
                        #expect(projection.plan.startBalance.commodity == expected, "what-if, \(context)")
                    }
                    try ledger.expectAnswersMatchReplay(on: date, knownAt: knownAt, context: context)
                }
            }
            // Now: a change dated in the future is not in force yet.
            #expect(try ledger.settings().baseCurrency == Self.referenceBase(events, asOf: clock.now, knownAt: nil), "seed \(seed)")
            try ledger.expectConsistent()
            try ledger.close()
        }
    }
}
