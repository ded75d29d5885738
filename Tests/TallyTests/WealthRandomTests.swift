import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Seeded random sequences of wealth commands against a plain model of the account: the
/// ledger must refuse exactly what the model refuses, agree with it after every command,
/// never let Spend go negative, and keep wallet + Spend + Invest = deposits − withdrawals −
/// purchases in every currency.
@Suite struct WealthRandomTests {
    /// The account as the rules say it should be, kept without the ledger.
    struct Model {
        var wallet: [Commodity: Int64] = [:]
        var spend: [Commodity: Int64] = [:]
        var invest: [Commodity: Int64] = [:]
        var deposited: [Commodity: Int64] = [:]
        var paidOut: [Commodity: Int64] = [:]
        var pending: [(amount: Money, rule: SplitRule)] = []
        var rule = WealthRules.defaultSplitRule
        var roundUps = false
        var paused = false
        var frozen = false

        mutating func split(_ amount: Money, _ rule: SplitRule) throws {
            let parts = try WealthRules.split(amount, by: rule)
            wallet[amount.commodity, default: 0] -= amount.minorUnits
            spend[amount.commodity, default: 0] += parts.spend.minorUnits
            invest[amount.commodity, default: 0] += parts.invest.minorUnits
        }
    }

    static let currencies: [Commodity] = [.usd, .gbp, .usdc]

    @Test(arguments: [UInt64(0x5EED_0001), 0xC0FFEE, 42])
    func fiveHundredRandomCommandsKeepTheBooksAndNeverOverdrawSpend(seed: UInt64) throws {
        try withTemporaryStore { root in
            var random = SplitMix64(seed: seed)
            let clock = ManualClock("2026-01-01T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            var model = Model()
            var depositKeys: [(key: String, money: Money)] = []
            // Until its first event the account does not exist: a payment from it is `notFound`.
            let createdHead = ledger.head
            var shortOfFunds: LedgerError.Code { ledger.head == createdHead ? .notFound : .insufficientFunds }

            func amount(_ commodity: Commodity, upTo limit: Int64) -> Money {
                Money(minorUnits: Int64.random(in: 1...max(1, limit), using: &random), commodity: commodity)
            }
            func expectRefusal(_ code: LedgerError.Code, step: Int, _ command: () throws -> Void) {
                let head = ledger.head
                do {
                    try command()
                    Issue.record("seed \(seed) step \(step): the command was not refused")
                } catch let error as LedgerError {
                    #expect(error.code == code, "seed \(seed) step \(step): \(error)")
                } catch {
                    Issue.record("seed \(seed) step \(step): \(error)")
                }
                #expect(ledger.head == head, "seed \(seed) step \(step): a refusal appended")
            }

            for step in 0..<500 {
                clock.advance(seconds: Int64.random(in: 1...7200, using: &random))
                let commodity = Self.currencies.randomElement(using: &random)!
                let unit: Int64 = commodity.scale == 6 ? 10_000 : 1
                let spendNow = model.spend[commodity, default: 0]
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<28:
                    let money = amount(commodity, upTo: 50_000 * unit)
                    let key = "dep-\(step)"
                    let result = try ledger.deposit(account: "main", amount: money, idempotencyKey: key)
                    depositKeys.append((key, money))
                    #expect(result.events.count == (model.paused ? 1 : 2), "seed \(seed) step \(step)")
                    model.deposited[commodity, default: 0] += money.minorUnits
                    model.wallet[commodity, default: 0] += money.minorUnits
                    if model.paused { model.pending.append((money, model.rule)) } else { try model.split(money, model.rule) }
                case 28..<31 where !depositKeys.isEmpty:
                    // A repeat of a key: the same deposit returns the first result; another
                    // amount under that key is a conflict. Neither appends anything.
                    let (key, first) = depositKeys.randomElement(using: &random)!
                    let head = ledger.head
                    let other = amount(commodity, upTo: 100)
                    let result = try ledger.deposit(account: "main", amount: first, idempotencyKey: key)
                    #expect(result.wasAlreadyApplied, "seed \(seed) step \(step)")
                    if other != first {
                        #expect(throws: LedgerError.self, "seed \(seed) step \(step)") {
                            try ledger.deposit(account: "main", amount: other, idempotencyKey: key)
                        }
                    }
                    #expect(ledger.head == head, "seed \(seed) step \(step)")
                case 31..<56:
                    // A third of purchases take nearly all of Spend, where round-ups get skipped.
                    let nearAll = spendNow - Int64.random(in: 0...150, using: &random) * unit
                    let money = nearAll > 0 && Int.random(in: 0..<3, using: &random) == 0
                        ? Money(minorUnits: nearAll, commodity: commodity)
                        : amount(commodity, upTo: spendNow + spendNow / 5 + 100 * unit)
                    if model.frozen {
                        expectRefusal(.cardFrozen, step: step) { try ledger.purchase(account: "main", amount: money, merchant: "M") }
                    } else if money.minorUnits > spendNow {
                        expectRefusal(shortOfFunds, step: step) { try ledger.purchase(account: "main", amount: money, merchant: "M") }
                    } else {
                        try ledger.purchase(account: "main", amount: money, merchant: "M\(step)")
                        model.spend[commodity, default: 0] -= money.minorUnits
                        model.paidOut[commodity, default: 0] += money.minorUnits
                        // USDC has no default increment: its round-ups are recorded as not defined and move nothing.
                        let roundUp = try WealthRules.defaultRoundUpIncrement(for: commodity).map { try WealthRules.roundUp(for: money, increment: $0).minorUnits } ?? 0
                        if model.roundUps, roundUp > 0, model.spend[commodity, default: 0] >= roundUp {
                            model.spend[commodity, default: 0] -= roundUp
                            model.invest[commodity, default: 0] += roundUp
                        }
                    }
                case 56..<68:
                    let money = amount(commodity, upTo: spendNow + 100 * unit)
                    if money.minorUnits > spendNow {
                        expectRefusal(shortOfFunds, step: step) { try ledger.withdraw(account: "main", amount: money) }
                    } else {
                        try ledger.withdraw(account: "main", amount: money)
                        model.spend[commodity, default: 0] -= money.minorUnits
                        model.paidOut[commodity, default: 0] += money.minorUnits
                    }
                case 68..<76:
                    let enabled = Bool.random(using: &random)
                    try ledger.setRoundUps(account: "main", enabled: enabled)
                    model.roundUps = enabled
                case 76..<82:
                    try ledger.pauseAutomation(account: "main")
                    model.paused = true
                case 82..<88:
                    try ledger.resumeAutomation(account: "main")
                    for deposit in model.pending { try model.split(deposit.amount, deposit.rule) }
                    model.pending.removeAll()
                    model.paused = false
                case 88..<94:
                    if Bool.random(using: &random) { try ledger.freezeCard(account: "main"); model.frozen = true }
                    else { try ledger.unfreezeCard(account: "main"); model.frozen = false }
                case 94..<98:
                    let rule = SplitRule(spendWeight: Int64.random(in: 0...100, using: &random), investWeight: Int64.random(in: 0...100, using: &random))
                    if rule.spendWeight == 0 && rule.investWeight == 0 {
                        expectRefusal(.invalidArgument, step: step) { try ledger.setSplitRule(account: "main", spendWeight: 0, investWeight: 0) }
                    } else {
                        try ledger.setSplitRule(account: "main", spendWeight: rule.spendWeight, investWeight: rule.investWeight)
                        model.rule = rule
                    }
                default:
                    expectRefusal(.invalidArgument, step: step) { try ledger.withdraw(account: "main", amount: .zero(commodity)) }
                }
                guard !model.deposited.isEmpty else { continue }
                let summary = try ledger.wealthSummary(account: "main")
                for currency in Self.currencies where model.deposited[currency] != nil {
                    let balance = summary.balance(in: currency)
                    #expect(balance.spend.minorUnits == model.spend[currency, default: 0], "seed \(seed) step \(step) \(currency)")
                    #expect(balance.invest.minorUnits == model.invest[currency, default: 0], "seed \(seed) step \(step) \(currency)")
                    #expect(balance.wallet.minorUnits == model.wallet[currency, default: 0], "seed \(seed) step \(step) \(currency)")
                    #expect(!balance.spend.isNegative, "seed \(seed) step \(step): Spend went negative")
                    #expect(
                        balance.total.minorUnits == model.deposited[currency, default: 0] - model.paidOut[currency, default: 0],
                        "seed \(seed) step \(step) \(currency): the books do not add up"
                    )
                }
                #expect(summary.status == WealthRules.status(isPaused: model.paused, hasUnsplitDeposits: !model.pending.isEmpty),
                        "seed \(seed) step \(step)")
                #expect(summary.cardFrozen == model.frozen, "seed \(seed) step \(step)")
                #expect(summary.roundUpsEnabled == model.roundUps, "seed \(seed) step \(step)")
            }

            try ledger.resumeAutomation(account: "main")
            let summary = try ledger.wealthSummary(account: "main")
            for balance in summary.balances {
                let expected = model.deposited[balance.commodity, default: 0] - model.paidOut[balance.commodity, default: 0]
                #expect(balance.wallet.isZero, "seed \(seed)")
                #expect(try balance.spend.adding(balance.invest).minorUnits == expected, "seed \(seed) \(balance.commodity)")
            }
            try ledger.expectConsistent()
            try ledger.close()
        }
    }
}
