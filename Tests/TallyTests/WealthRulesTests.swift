import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

@Suite struct WealthRulesTests {
    @Test func theDefaultRuleSplits100Into70And30() throws {
        let parts = try WealthRules.split(usd("100.00"), by: WealthRules.defaultSplitRule)
        #expect(parts.spend == usd("70.00"))
        #expect(parts.invest == usd("30.00"))
    }

    @Test func theOddCentOfATinyDepositGoesToSpend() throws {
        let cent = try WealthRules.split(usd("0.01"), by: WealthRules.defaultSplitRule)
        #expect(cent.spend == usd("0.01"))
        #expect(cent.invest == usd("0.00"))
        let even = try WealthRules.split(usd("0.01"), by: SplitRule(spendWeight: 1, investWeight: 1))
        #expect(even.spend == usd("0.01"), "on equal remainders Spend comes first")
        let mostlyInvest = try WealthRules.split(usd("0.01"), by: SplitRule(spendWeight: 30, investWeight: 70))
        #expect(mostlyInvest.invest == usd("0.01"), "the larger remainder wins")
    }

    /// Every deposit of 0.00 to 3.00 under every rule with weights 0 to 12: the parts add up
    /// to the deposit and each is within one minor unit of its exact share.
    @Test func everySmallSplitAddsUpAndStaysWithinOneCentOfItsShare() throws {
        for cents in Int64(0)...300 {
            for spendWeight in Int64(0)...12 {
                for investWeight in Int64(0)...12 where spendWeight + investWeight > 0 {
                    let rule = SplitRule(spendWeight: spendWeight, investWeight: investWeight)
                    let parts = try WealthRules.split(Money(minorUnits: cents, commodity: .usd), by: rule)
                    let total = spendWeight + investWeight
                    let exactSpendTimesTotal = cents * spendWeight
                    #expect(parts.spend.minorUnits + parts.invest.minorUnits == cents, "\(cents) at \(rule)")
                    #expect(abs(parts.spend.minorUnits * total - exactSpendTimesTotal) < total, "\(cents) at \(rule)")
                    #expect(parts.spend.minorUnits >= 0 && parts.invest.minorUnits >= 0, "\(cents) at \(rule)")
                }
            }
        }
    }

    @Test func aUSDCDepositSplitsToTheMillionth() throws {
        let parts = try WealthRules.split(try Money(parsing: "0.000001", commodity: .usdc), by: WealthRules.defaultSplitRule)
        #expect(parts.spend.minorUnits == 1)
        #expect(parts.invest.minorUnits == 0)
        #expect(parts.spend.commodity == .usdc)
    }

    @Test(arguments: [
        (SplitRule(spendWeight: -1, investWeight: 30), "zero or more"),
        (SplitRule(spendWeight: 0, investWeight: 0), "both be zero"),
        (SplitRule(spendWeight: 1_000_001, investWeight: 1), "at most"),
    ])
    func aBadRuleIsRefused(rule: SplitRule, message: String) throws {
        #expect { try WealthRules.validate(rule) } throws: { error in
            let error = error as? LedgerError
            return error?.code == .invalidArgument && error?.message.contains(message) == true
        }
    }

    @Test func aPurchaseOf3_40RoundsUpBy0_60AndAWholeAmountByZero() throws {
        let dollar = usd("1.00")
        #expect(try WealthRules.roundUp(for: usd("3.40"), increment: dollar) == usd("0.60"))
        #expect(try WealthRules.roundUp(for: usd("0.01"), increment: dollar) == usd("0.99"))
        #expect(try WealthRules.roundUp(for: usd("5.00"), increment: dollar) == usd("0.00"))
        let hundredYen = Money(minorUnits: 100, commodity: .jpy)
        #expect(try WealthRules.roundUp(for: Money(minorUnits: 1_234, commodity: .jpy), increment: hundredYen) == Money(minorUnits: 66, commodity: .jpy))
        #expect(try WealthRules.roundUp(for: try Money(parsing: "3.4", commodity: .usdc), increment: try Money(parsing: "1", commodity: .usdc))
                == (try Money(parsing: "0.6", commodity: .usdc)))
    }

    @Test(arguments: [
        ("USD", "1.00"), ("GBP", "1.00"), ("EUR", "1.00"), ("BHD", "1.000"), ("KWD", "1.000"), ("CLF", "1.0000"),
        ("JPY", nil), ("KRW", nil), ("BTC", nil), ("USDC", nil), ("ETH", nil), ("VEA", nil),
    ] as [(String, String?)])
    func theDefaultIncrementIsOneMajorUnitForFiatWithMinorUnitsAndNoneOtherwise(code: String, expected: String?) throws {
        let currency = try Commodity.named(code)
        #expect(WealthRules.defaultRoundUpIncrement(for: currency) == (try expected.map { try Money(parsing: $0, commodity: currency) }))
    }

    @Test func aRoundUpIsAppliedWholeOrSkippedWhole() throws {
        #expect(try WealthRules.roundUpOutcome(usd("0.60"), spendAfterPurchase: usd("0.60")) == .applied)
        #expect(try WealthRules.roundUpOutcome(usd("0.60"), spendAfterPurchase: usd("0.59")) == .skipped)
        #expect(try WealthRules.roundUpOutcome(usd("0.00"), spendAfterPurchase: usd("10.00")) == nil)
    }

    @Test func pausedWinsOverAllocatingWhichWinsOverActive() {
        #expect(WealthRules.status(isPaused: true, hasUnsplitDeposits: true) == .paused)
        #expect(WealthRules.status(isPaused: true, hasUnsplitDeposits: false) == .paused)
        #expect(WealthRules.status(isPaused: false, hasUnsplitDeposits: true) == .allocating)
        #expect(WealthRules.status(isPaused: false, hasUnsplitDeposits: false) == .active)
    }

    @Test(arguments: ["", "has space", "a:b", String(repeating: "x", count: 65), "café"])
    func aBadAccountNameIsRefused(name: String) {
        #expect(throws: LedgerError.self) { try WealthRules.validate(accountName: name) }
    }

    @Test func goodAccountNamesPass() throws {
        for name in ["main", "joint-2", "Savings_1.b", String(repeating: "x", count: 64)] {
            try WealthRules.validate(accountName: name)
        }
    }
}
