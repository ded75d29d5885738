import Testing
@testable import Tally
import TallyLog
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, rule 5 (round-ups for every currency): a purchase rounds up to the next
/// multiple of its currency's round-up increment, a setting in force from its effective
/// date (default: one major unit for an ISO currency with minor units, none for JPY, crypto
/// and other codes); without one, the round-up is recorded as not defined and nothing moves.
@Suite struct RoundUpsForEveryCurrencyTests {
    private func money(_ text: String, _ code: String) -> Money { try! Money(parsing: text, commodity: try! Commodity.named(code)) }

    /// Runs a story on a fresh ledger and ends it with the consistency check.
    private func story(_ start: String = "2026-05-04T09:00:00Z", _ body: (Ledger, ManualClock) throws -> Void) throws {
        try withTemporaryStore { root in
            let clock = ManualClock(start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try body(ledger, clock)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func aHouseholdPayingInPoundsDinarsYenAndBitcoinRoundsUpWhereACurrencyHasAnIncrementAndSaysWhereNot() throws {
        try story { ledger, _ in
            for deposit in [money("100.00", "GBP"), money("10.000", "BHD"), money("10000", "JPY"), money("0.5", "BTC")] {
                try ledger.deposit(account: "main", amount: deposit)
            }
            try ledger.setRoundUps(account: "main", enabled: true)

            let pounds = try ledger.purchase(account: "main", amount: money("3.40", "GBP"), merchant: "Cafe")
            #expect(pounds.events.last?.body.as(RoundUpApplied.self)?.amount == money("0.60", "GBP"))
            let dinars = try ledger.purchase(account: "main", amount: money("2.345", "BHD"), merchant: "Souk")
            #expect(dinars.events.last?.body.as(RoundUpApplied.self)?.amount == money("0.655", "BHD"), "a dinar rounds up to the next whole dinar")

            let yen = try ledger.purchase(account: "main", amount: money("1234", "JPY"), merchant: "Konbini")
            #expect(yen.events.map(\.type.name) == ["purchase_made", "round_up_not_defined"])
            #expect(yen.events.last?.cause == yen.events.first?.sequence, "the skip names its purchase")
            let bitcoin = try ledger.purchase(account: "main", amount: money("0.00012345", "BTC"), merchant: "Node shop")
            #expect(bitcoin.events.last?.body.as(RoundUpNotDefined.self) == RoundUpNotDefined(account: "main", currency: try Commodity.named("BTC")))

            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.balance(in: try Commodity.named("BTC")).invest == money("0.15", "BTC"), "not a fraction of a bitcoin swept to Invest")
            #expect(summary.balance(in: try Commodity.named("BTC")).spend == money("0.34987655", "BTC"))
            #expect(summary.balance(in: .jpy).invest == money("3000", "JPY"))
            #expect(summary.balances.map(\.roundUpIncrement) == [money("1.000", "BHD"), nil, money("1.00", "GBP"), nil])
            let history = try ledger.wealthHistory(account: "main", filter: .all, page: 1, pageSize: 50)
            #expect(history.entries.filter { $0.kind == .roundUpNotDefined }.map(\.amount.commodity.code).sorted() == ["BTC", "JPY"])

            // The user sets 100 yen: the next yen purchase rounds up to the next hundred.
            try ledger.setRoundUpIncrement(currency: .jpy, increment: money("100", "JPY"))
            let again = try ledger.purchase(account: "main", amount: money("1234", "JPY"), merchant: "Konbini")
            #expect(again.events.last?.body.as(RoundUpApplied.self)?.amount == money("66", "JPY"))
            #expect(try ledger.wealthSummary(account: "main").balance(in: .jpy).invest == money("3066", "JPY"))
        }
    }

    @Test func anIncrementIsInForceFromItsEffectiveDateAndABackdatedPurchaseUsesTheOneOfItsDay() throws {
        try story("2026-05-20T09:00:00Z") { ledger, clock in
            let calendar = ledger.calendar
            let btc = try Commodity.named("BTC")
            try ledger.deposit(account: "main", amount: money("1", "BTC"), effectiveAt: calendar.startOfDay(day("2026-05-01")))
            try ledger.setRoundUps(account: "main", enabled: true, effectiveAt: calendar.startOfDay(day("2026-05-01")))
            try ledger.setRoundUpIncrement(currency: btc, increment: money("0.001", "BTC"), effectiveAt: calendar.startOfDay(day("2026-05-10")))

            let before = try ledger.purchase(account: "main", amount: money("0.0102", "BTC"), merchant: "A", effectiveAt: calendar.startOfDay(day("2026-05-05")))
            #expect(before.events.last?.type.name == "round_up_not_defined", "on 5 May BTC had no increment yet")
            let after = try ledger.purchase(account: "main", amount: money("0.0102", "BTC"), merchant: "B", effectiveAt: calendar.startOfDay(day("2026-05-12")))
            #expect(after.events.last?.body.as(RoundUpApplied.self)?.amount == money("0.0008", "BTC"))

            #expect(try ledger.roundUpIncrement(currency: btc, asOf: calendar.endOfDay(day("2026-05-09"))).increment == nil)
            let inForce = try ledger.roundUpIncrement(currency: btc, asOf: calendar.endOfDay(day("2026-05-10")))
            #expect(inForce.increment == money("0.001", "BTC") && !inForce.isDefault)
            let onTheNinth = try ledger.wealthSummary(account: "main", asOf: calendar.endOfDay(day("2026-05-09")))
            #expect(onTheNinth.balance(in: btc).roundUpIncrement == nil)

            // A change dated in the future is not in force today.
            try ledger.setRoundUpIncrement(currency: .gbp, increment: nil, effectiveAt: calendar.startOfDay(day("2026-06-01")))
            #expect(try ledger.roundUpIncrement(currency: .gbp).increment == gbp("1.00"))
            clock.set("2026-06-02T09:00:00Z")
            #expect(try ledger.roundUpIncrement(currency: .gbp).increment == nil)
        }
    }

    @Test func aBackdatedIncrementThatWouldContradictALaterRoundUpIsRefusedNamingItsDayAndRecordsNothing() throws {
        try story("2026-05-20T09:00:00Z") { ledger, _ in
            let calendar = ledger.calendar
            try ledger.deposit(account: "main", amount: gbp("100.00"), effectiveAt: calendar.startOfDay(day("2026-05-01")))
            try ledger.setRoundUps(account: "main", enabled: true, effectiveAt: calendar.startOfDay(day("2026-05-01")))
            try ledger.purchase(account: "main", amount: gbp("3.40"), merchant: "Cafe", effectiveAt: calendar.startOfDay(day("2026-05-12")))
            let head = ledger.head
            #expect { try ledger.setRoundUpIncrement(currency: .gbp, increment: gbp("5.00"), effectiveAt: calendar.startOfDay(day("2026-05-10"))) } throws: { error in
                let error = error as? LedgerError
                return error?.code == .notAllowed && error?.message.contains("2026-05-10") == true && error?.message.contains("2026-05-12") == true
            }
            #expect(ledger.head == head)
            // The same increment as the purchase met (1.00 GBP, written out), or one dated after it, is taken.
            try ledger.setRoundUpIncrement(currency: .gbp, increment: gbp("5.00"), effectiveAt: calendar.startOfDay(day("2026-05-13")))
            let later = try ledger.purchase(account: "main", amount: gbp("3.40"), merchant: "Cafe", effectiveAt: calendar.startOfDay(day("2026-05-14")))
            #expect(later.events.last?.body.as(RoundUpApplied.self)?.amount == gbp("1.60"))
        }
    }

    @Test(arguments: [
        ("0.00", "GBP", "more than zero"), ("-1.00", "GBP", "more than zero"), ("1.00", "USD", "not in GBP"),
    ])
    func aBadIncrementIsRefusedAndRecordsNothing(text: String, code: String, message: String) throws {
        try story { ledger, _ in
            let head = ledger.head
            #expect { try ledger.setRoundUpIncrement(currency: .gbp, increment: money(text, code)) } throws: { error in
                let error = error as? LedgerError
                return error?.code == .invalidArgument && error?.message.contains(message) == true
            }
            #expect(ledger.head == head)
        }
    }

    @Test func anUndeclaredCurrencyIsRefused() throws {
        try story { ledger, _ in
            let head = ledger.head
            #expect { try ledger.setRoundUpIncrement(currency: try Commodity(code: "ZZQ", scale: 8), increment: nil) } throws: { error in
                (error as? LedgerError)?.code == .invalidArgument
            }
            #expect(ledger.head == head)
        }
    }

    /// Random increments (some none) set at random days for six currencies, then random
    /// backdated purchases: each purchase's round-up is the next multiple of the increment
    /// in force on its day minus the amount, or not defined without one; Invest holds the
    /// splits plus exactly those round-ups; a rebuild from the log answers the same.
    @Test func everyPurchaseRoundsUpByTheIncrementInForceOnItsDay() throws {
        let master = TestSeed.value(default: 0x32_05)
        for index in 0..<4 {
            let seed = TestSeed.ledger(index, of: master)
            var random = SplitMix64(seed: seed)
            try story("2026-03-01T12:00:00Z") { ledger, clock in
                let calendar = ledger.calendar
                let currencies = try ["USD", "GBP", "BHD", "JPY", "BTC", "USDC"].map(Commodity.named)
                let first = day("2026-01-01")
                for currency in currencies {
                    try ledger.deposit(account: "main", amount: Money(minorUnits: 1_000_000_000, commodity: currency), effectiveAt: calendar.startOfDay(first))
                }
                try ledger.setRoundUps(account: "main", enabled: true, effectiveAt: calendar.startOfDay(first))
                // Settings first: (currency, day, increment) in the order recorded.
                var settings: [(currency: Commodity, date: LocalDate, increment: Money?)] = []
                for _ in 0..<12 {
                    let currency = currencies.randomElement(using: &random)!
                    let date = first.adding(days: Int.random(in: 0...58, using: &random))
                    let increment: Money? = Int.random(in: 0..<4, using: &random) == 0
                        ? nil : Money(minorUnits: Int64.random(in: 1...5_000, using: &random), commodity: currency)
                    try ledger.setRoundUpIncrement(currency: currency, increment: increment, effectiveAt: calendar.startOfDay(date))
                    settings.append((currency, date, increment))
                }
                func increment(_ currency: Commodity, on date: LocalDate) -> Money? {
                    // The latest by day; on a tie, the later recorded.
                    guard let setting = settings.enumerated().filter({ $0.element.currency == currency && $0.element.date <= date })
                        .max(by: { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }) else {
                        return WealthRules.defaultRoundUpIncrement(for: currency)
                    }
                    return setting.element.increment
                }
                var invested: [Commodity: Int64] = [:]
                for currency in currencies { invested[currency] = 300_000_000 }
                for step in 0..<40 {
                    clock.advance(seconds: 60)
                    let currency = currencies.randomElement(using: &random)!
                    let date = first.adding(days: Int.random(in: 0...58, using: &random))
                    let amount = Money(minorUnits: Int64.random(in: 1...20_000, using: &random), commodity: currency)
                    let result = try ledger.purchase(account: "main", amount: amount, merchant: "M\(step)", effectiveAt: Instant(microsecondsSinceEpoch: calendar.startOfDay(date).microsecondsSinceEpoch + 3_600_000_000))
                    let context = "seed \(seed), step \(step): \(amount) on \(date)"
                    guard let inForce = increment(currency, on: date) else {
                        #expect(result.events.map(\.type.name) == ["purchase_made", "round_up_not_defined"], "\(context)")
                        continue
                    }
                    let excess = amount.minorUnits % inForce.minorUnits
                    let expected = excess == 0 ? 0 : inForce.minorUnits - excess
                    if expected == 0 {
                        #expect(result.events.map(\.type.name) == ["purchase_made"], "\(context)")
                    } else {
                        #expect(result.events.last?.body.as(RoundUpApplied.self)?.amount == Money(minorUnits: expected, commodity: currency), "\(context)")
                        invested[currency, default: 0] += expected
                    }
                }
                let summary = try ledger.wealthSummary(account: "main")
                for currency in currencies {
                    #expect(summary.balance(in: currency).invest.minorUnits == invested[currency], "seed \(seed): Invest in \(currency.code)")
                }
                try ledger.rebuild()
                #expect(try ledger.wealthSummary(account: "main") == summary, "seed \(seed): a replay answers the same")
            }
        }
    }
}
