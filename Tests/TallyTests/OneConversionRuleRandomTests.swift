import Testing
@testable import Tally
import TallyLog
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, rule 2 (one conversion rule everywhere), randomised: households hold the same
/// amounts in five currencies as envelope accounts and as net worth assets, with FX rates
/// between a random few pairs of currencies (so that many conversions need one hop through
/// a third, and some none), set at random past dates, while the base currency changes. At
/// random (as-of, known-at) pairs the envelope total, net worth, the budget and what-if
/// convert each amount exactly as `balances --value` (``Ledger/marketValues(in:asOf:knownAt:)``)
/// does, and an amount it does not convert is named by each of them, never counted as zero.
@Suite struct OneConversionRuleRandomTests {
    /// A household in Bahrain holds 12.5 VWRL.L, priced at 80.12345 GBP, with 1 GBP = 0.4712
    /// BHD: the position is worth 12.5 × 80.12345 × 0.4712 = 471.92712… BHD, so 471.927 in
    /// net worth and in the X-ray alike, from lookups and from snapshots. Rounded first to 1,001.54 GBP
    /// and then converted it would be 471.926: the value is rounded once.
    @Test func aPositionPricedInAnotherCurrencyIsRoundedOnceWhereverItIsValued() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-11-20T09:00:00Z")
            let bhd = try Commodity.named("BHD")
            let ledger = try Ledger.forTesting(at: root, clock: clock, baseCurrency: bhd, timeZone: "Asia/Bahrain")
            let vwrl = try Commodity.named("VWRL.L")
            try ledger.addAsset(assetId: "vwrl", name: "World tracker", category: .investments, type: .stockOrETF, currency: .gbp, symbol: "VWRL.L")
            try ledger.setPosition(assetId: "vwrl", quantity: try Money(parsing: "12.5", commodity: vwrl))
            try ledger.quotePrice(symbol: vwrl, price: try ExactDecimal(parsing: "80.12345"), currency: .gbp, source: .manual)
            try ledger.setFXRate(base: .gbp, quote: bhd, rate: try ExactDecimal(parsing: "0.4712"))
            clock.advance(seconds: 3_600)
            let expected = try Money(parsing: "471.927", commodity: bhd)
            let netWorth = try ledger.netWorth()
            #expect(netWorth.lines.map(\.converted) == [expected])
            #expect(netWorth.netWorth == expected)
            #expect(try ledger.xray().holdings.map(\.converted) == [expected])
            // A month-end snapshot taken later answers the same as the lookups.
            clock.advance(seconds: 40 * 86_400)
            #expect(try ledger.netWorth(asOf: ledger.calendar.endOfDay(day("2026-11-30"))).netWorth == expected)
            try ledger.close()
        }
    }

    @Test(arguments: LogBackend.allCases) func everyProductConvertsAsBalancesValueDoes(on backend: LogBackend) throws {
        let currencies: [Commodity] = [.usd, .eur, .gbp, .jpy, try Commodity.named("CHF")]
        try withRandomLedgers(3, master: 0x32_02, on: backend) { ledger, clock, random, seed in
            let start = day("2026-01-02")
            let opening = ledger.calendar.startOfDay(start)
            for currency in currencies {
                let amount = Money(minorUnits: Int64.random(in: 1_000...90_000_000, using: &random), commodity: currency)
                try ledger.openEnvelopeAccount("Assets:\(currency.code)", commodity: currency, openingBalance: amount, effectiveAt: opening)
                try ledger.addAsset(assetId: currency.code.lowercased(), name: currency.code, category: .cash, type: .cash, currency: currency, effectiveAt: opening)
                try ledger.recordValuation(itemKind: .asset, itemId: currency.code.lowercased(), value: amount, source: .manual, effectiveAt: opening)
            }
            // A few pairs only: most conversions go through a third currency, some find none.
            let pairs = (0..<Int.random(in: 2...4, using: &random)).map { _ in Array(currencies.shuffled(using: &random).prefix(2)) }
            var recorded: [Instant] = []
            for _ in 0..<25 {
                clock.advance(seconds: Int64.random(in: 3_600...(3 * 86_400), using: &random))
                let today = ledger.calendar.date(of: clock.now)
                let at = ledger.calendar.startOfDay(max(start, today.adding(days: -Int.random(in: 0...30, using: &random))))
                do {
                    if Int.random(in: 0..<5, using: &random) == 0 {
                        try ledger.setBaseCurrency([Commodity.usd, .eur, .gbp].randomElement(using: &random)!, effectiveAt: at)
                    } else {
                        let pair = pairs.randomElement(using: &random)!
                        try ledger.setFXRate(base: pair[0], quote: pair[1], rate: try ExactDecimal(significand: Int64.random(in: 1...3_000_000, using: &random), scale: 4),
                                             effectiveAt: at)
                    }
                    recorded.append(clock.now)
                } catch is LedgerError {
                    continue
                }
            }
            let today = ledger.calendar.date(of: clock.now)
            for knownAt in TestSeed.knownAts(3, recorded: recorded, random: &random) {
                for _ in 0..<4 {
                    let date = start.adding(days: Int.random(in: 0...(today.daysSinceEpoch - start.daysSinceEpoch + 5), using: &random))
                    let bound = ledger.calendar.endOfDay(date)
                    let context = "seed \(seed), \(date), known at \(String(describing: knownAt))"
                    let base = try ledger.baseCurrency(asOf: bound, knownAt: knownAt)
                    let market = try ledger.marketValues(in: base, asOf: bound, knownAt: knownAt)
                    func marketValue(of currency: Commodity) -> Money? {
                        market.accounts.first { $0.account == "Assets:\(currency.code)" }?.value
                    }
                    let total = try ledger.envelopeAccountsTotal(asOf: bound, knownAt: knownAt)
                    let netWorth = try ledger.netWorth(asOf: bound, knownAt: knownAt)
                    var expectedTotal = Money.zero(base)
                    for currency in currencies {
                        let expected = marketValue(of: currency)
                        if let expected { expectedTotal = try expectedTotal.adding(expected) }
                        let line = total.lines.first { $0.account == "Assets:\(currency.code)" }
                        #expect(line?.inBase == expected, "envelope total, \(currency.code), \(context)")
                        let counted = netWorth.lines.first { $0.itemId == currency.code.lowercased() }
                        let excluded = netWorth.excluded.contains { $0.itemId == currency.code.lowercased() }
                        #expect(counted?.converted == expected && excluded == (expected == nil), "net worth, \(currency.code), \(context)")
                    }
                    // Net worth counts each amount twice here: as an asset added by hand and as the
                    // household's envelope account (HouseholdNetWorthTests).
                    let twice = try expectedTotal.multiplied(by: 2)
                    #expect(total.total == expectedTotal && netWorth.assets == twice, "totals, \(context)")
                    #expect(total.unconverted.map(\.amount.commodity).sorted { $0.code < $1.code } == market.notConverted, "named, not dropped: \(context)")
                    let usd = try #require(ledger.envelopeAccountsTotal(asOf: bound, knownAt: knownAt).lines.first { $0.account == "Assets:USD" }).amount
                    #expect(try ledger.budgetBaseConversion(at: bound, knownAt: knownAt).convert(usd) == marketValue(of: .usd), "budget, \(context)")
                    let projection = try ledger.whatIf(goal: Money(minorUnits: 1, commodity: base), monthlySaving: .zero(base), on: date, knownAt: knownAt)
                    #expect(projection.plan.startBalance == expectedTotal, "what-if, \(context)")
                    #expect(Set(projection.notConverted.filter { $0.date == date }.map(\.balance.commodity)) == Set(market.notConverted), "what-if names, \(context)")
                    try ledger.expectAnswersMatchReplay(on: date, knownAt: knownAt, context: context)
                }
            }
            try ledger.expectConsistent()
            try ledger.close()
        }
    }
}
