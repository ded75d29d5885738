import Testing
@testable import Tally
import TallyLog
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, "Net worth of the whole household": the wealth account's wallet, Spend and
/// Invest, the envelope accounts and cards count in net worth beside the items added by
/// hand, each once with its origin, converted by the one rule at the date; an account the
/// rule cannot convert is named, never dropped.
@Suite struct HouseholdNetWorthTests {
    @Test func theWealthAccountEnvelopeAccountsAndTheCardCountBesideTheHouse() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            // Pay lands in the wealth account: 1,000.00 split 70/30; a coffee with round-ups on.
            try ledger.deposit(account: "main", amount: usd("1000.00"))
            try ledger.setRoundUps(account: "main", enabled: true)
            try ledger.purchase(account: "main", amount: usd("3.40"), merchant: "Blue Bottle")
            // The envelope app's bank account, a card owing 300.00, pounds and francs.
            try ledger.openEnvelopeAccount("Assets:Bank", commodity: .usd, openingBalance: usd("1500.00"))
            try ledger.openEnvelopeAccount("Liabilities:Card", commodity: .usd, openingBalance: usd("300.00"))
            try ledger.openEnvelopeAccount("Assets:Pounds", commodity: .gbp, openingBalance: gbp("100.00"))
            let chf = try Commodity.named("CHF")
            try ledger.openEnvelopeAccount("Assets:Francs", commodity: chf, openingBalance: try Money(parsing: "50.00", commodity: chf))
            try ledger.setFXRate(base: .gbp, quote: .usd, rate: rate("1.25"))
            // The house, added by hand.
            try ledger.addAsset(assetId: "home", name: "Home", category: .property, type: .realEstate, currency: .usd)
            try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd("200000.00"), source: .manual)

            let report = try ledger.netWorth()
            func line(_ id: String) throws -> NetWorthLine { try #require(report.lines.first { $0.itemId == id }, "\(id) in \(report.lines)") }
            let spend = try line("Wealth:main:Spend"), invest = try line("Wealth:main:Invest")
            #expect(spend.origin == .wealthAccount && spend.kind == .asset && spend.converted == usd("696.00"))
            #expect(invest.origin == .wealthAccount && invest.category == "investments" && invest.converted == usd("300.60"))
            let bank = try line("Assets:Bank"), card = try line("Liabilities:Card"), home = try line("home")
            #expect(bank.origin == .account && bank.converted == usd("1500.00"))
            #expect(try line("Assets:Pounds").converted == usd("125.00"))  // 100.00 GBP × 1.25
            #expect(card.origin == .account && card.kind == .liability && card.value.value == usd("300.00") && card.value.source == .balance)
            #expect(home.origin == .item && home.converted == usd("200000.00"))
            // Each once: no line twice, the wallet (empty once split) and product accounts absent.
            #expect(Set(report.lines.map(\.itemId)).count == report.lines.count)
            #expect(!report.lines.contains { $0.itemId == "Wealth:main:Wallet" } && !report.lines.contains { $0.itemId.hasPrefix("Envelopes:") || $0.itemId.hasPrefix("External:") })
            // Francs have no rate: named with the reason, not counted.
            #expect(report.excluded.map { "\($0.itemId) \($0.origin.rawValue): \($0.reason)" } == ["Assets:Francs account: no CHF/USD rate by then"])
            #expect(report.assets == usd("202621.60"))  // 696.00 + 300.60 + 1,500.00 + 125.00 + 200,000.00
            #expect(report.liabilities == usd("300.00"))
            #expect(report.netWorth == usd("202321.60"))
            try ledger.expectConsistent()
        }
    }

    @Test func aDepositNotSplitYetCountsInTheWallet() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-03-01T12:00:00Z"))
            try ledger.pauseAutomation(account: "main")
            try ledger.deposit(account: "main", amount: usd("80.00"))
            let report = try ledger.netWorth()
            #expect(report.lines.map { "\($0.itemId) \($0.origin.rawValue) \($0.converted)" } == ["Wealth:main:Wallet wealth_account \(usd("80.00"))"])
            #expect(report.netWorth == usd("80.00"))
        }
    }

    /// Randomised: households with a wealth account, envelope accounts in three currencies
    /// and a card, items added by hand, backdated records and base-currency changes. At
    /// random (as-of, known-at) pairs each counted account appears once, valued exactly as
    /// `balances --value` values it (``Ledger/marketValues(in:asOf:knownAt:)``) or named as
    /// excluded; the total is the items plus the accounts; the answer equals a full replay,
    /// and the monthly series and the 30-day change agree with it.
    @Test(arguments: LogBackend.allCases) func everyAccountCountsOnceAsBalancesValueSaysAndAsAReplayDoes(on backend: LogBackend) throws {
        try withRandomLedgers(3, master: 0x32_b1, on: backend) { ledger, clock, random, seed in
            let start = day("2026-01-02")
            let recorded = try Self.randomHousehold(ledger, clock: clock, start: start, random: &random)
            let today = ledger.calendar.date(of: clock.now)
            for knownAt in TestSeed.knownAts(3, recorded: recorded, random: &random) {
                for _ in 0..<4 {
                    let date = start.adding(days: Int.random(in: -2...(today.daysSinceEpoch - start.daysSinceEpoch + 5), using: &random))
                    try Self.expectHouseholdCounted(ledger, on: date, knownAt: knownAt, context: "seed \(seed), \(date), known at \(String(describing: knownAt))")
                }
            }
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    private static func randomHousehold(_ ledger: Ledger, clock: ManualClock, start: LocalDate, random: inout SplitMix64) throws -> [Instant] {
        let opening = ledger.calendar.startOfDay(start)
        let currencies: [Commodity] = [.usd, .gbp, .eur]
        for currency in currencies {
            try ledger.openEnvelopeAccount("Assets:\(currency.code)", commodity: currency,
                                           openingBalance: Money(minorUnits: Int64.random(in: 0...5_000_000, using: &random), commodity: currency), effectiveAt: opening)
        }
        try ledger.openEnvelopeAccount("Liabilities:Card", commodity: .usd, openingBalance: Money(minorUnits: Int64.random(in: 0...200_000, using: &random), commodity: .usd),
                                       effectiveAt: opening)
        try ledger.addAsset(assetId: "home", name: "Home", category: .property, type: .realEstate, currency: .gbp, effectiveAt: opening)
        try ledger.recordValuation(itemKind: .asset, itemId: "home", value: gbp("250000.00"), source: .manual, effectiveAt: opening)
        var recorded: [Instant] = []
        for _ in 0..<30 {
            clock.advance(seconds: Int64.random(in: 3_600...(3 * 86_400), using: &random))
            let today = ledger.calendar.date(of: clock.now)
            let day = max(start, today.adding(days: -Int.random(in: 0...20, using: &random)))
            let at = Instant(microsecondsSinceEpoch: ledger.calendar.startOfDay(day).microsecondsSinceEpoch + 3_600_000_000)
            let amount = Int64.random(in: 100...300_000, using: &random)
            do {
                switch Int.random(in: 0..<7, using: &random) {
                case 0, 1: try ledger.deposit(account: "main", amount: Money(minorUnits: amount, commodity: [Commodity.usd, .gbp].randomElement(using: &random)!), effectiveAt: at)
                case 2: try ledger.purchase(account: "main", amount: Money(minorUnits: amount / 10, commodity: .usd), merchant: "Shop", effectiveAt: at)
                case 3:
                    let pair = currencies.shuffled(using: &random)
                    try ledger.setFXRate(base: pair[0], quote: pair[1],
                                             rate: try ExactDecimal(significand: Int64.random(in: 5_000...20_000, using: &random), scale: 4), effectiveAt: at)
                case 4: try ledger.setBaseCurrency(currencies.randomElement(using: &random)!, effectiveAt: at)
                case 5: try ledger.setRoundUps(account: "main", enabled: Bool.random(using: &random), effectiveAt: at)
                default: try ledger.recordValuation(itemKind: .asset, itemId: "home", value: Money(minorUnits: amount * 100, commodity: .gbp), source: .manual, effectiveAt: at)
                }
                recorded.append(clock.now)
            } catch is LedgerError {
                continue
            }
        }
        return recorded
    }

    private static func expectHouseholdCounted(_ ledger: Ledger, on date: LocalDate, knownAt: Instant?, context: String) throws {
        let bound = ledger.calendar.endOfDay(date)
        let report = try ledger.netWorth(asOf: bound, knownAt: knownAt)
        let market = try ledger.marketValues(in: report.baseCurrency, asOf: bound, knownAt: knownAt)
        for balance in try ledger.balances(asOf: bound, knownAt: knownAt) where !balance.amount.isZero {
            let counted = report.lines.filter { $0.itemId == balance.account }
            let excluded = report.excluded.filter { $0.itemId == balance.account }
            guard balance.kind == .wallet || balance.kind == .spend || balance.kind == .invest || balance.account.hasPrefix("Assets:") || balance.account.hasPrefix("Liabilities:") else {
                #expect(counted.isEmpty && excluded.isEmpty, "\(balance.account) is not the household's money, \(context)")
                continue
            }
            // Single-currency accounts here but the wealth ones; per commodity, once.
            let value = try #require(market.accounts.first { $0.account == balance.account }?.holdings.first { $0.units == balance.amount }, "\(context)")
            let line = counted.filter { $0.value.value.commodity == balance.amount.commodity }
            let left = excluded.filter { $0.value?.commodity == balance.amount.commodity }
            if let expected = value.value {
                let sign: Int64 = balance.kind == .liability ? -1 : 1
                #expect(line.count == 1 && left.isEmpty && line.first?.converted == Money(minorUnits: sign * expected.minorUnits, commodity: expected.commodity),
                        "\(balance.account) \(balance.amount) counted once as balances --value says, \(context)")
            } else {
                #expect(line.isEmpty && left.count == 1, "\(balance.account) \(balance.amount) named as not converted, \(context)")
            }
        }
        let items = report.lines.filter { $0.origin == .item }
        #expect(items.map(\.itemId).allSatisfy { $0 == "home" }, "\(context)")
        let assets = try report.lines.filter { $0.kind == .asset }.reduce(Money.zero(report.baseCurrency)) { try $0.adding($1.converted) }
        let liabilities = try report.lines.filter { $0.kind == .liability }.reduce(Money.zero(report.baseCurrency)) { try $0.adding($1.converted) }
        let netWorth = try assets.subtracting(liabilities)
        #expect(report.assets == assets && report.liabilities == liabilities && report.netWorth == netWorth, "\(context)")
        #expect(try ledger.replay(until: bound, knownAt: knownAt).netWorth == report, "replay, \(context)")
        let month = date.month
        if date == month.lastDay {
            #expect(try ledger.netWorthSeries(from: month, through: month, knownAt: knownAt).first?.report == report, "series, \(context)")
        }
        #expect(try ledger.netWorthChange(asOf: bound, knownAt: knownAt).end == report, "change, \(context)")
    }
}
