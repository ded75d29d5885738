import Testing
@testable import TallyEngine
import TallyLog

@Suite struct MoneyRoundingTests {
    /// numerator / denominator, then the expected result for
    /// halfEven, halfUp, towardZero, awayFromZero, floor, ceiling.
    static let table: [(numerator: Int128, denominator: Int128, expected: [Int128])] = [
        (5, 10, [0, 1, 0, 1, 0, 1]),            //  0.5
        (-5, 10, [0, -1, 0, -1, -1, 0]),        // -0.5
        (15, 10, [2, 2, 1, 2, 1, 2]),           //  1.5
        (-15, 10, [-2, -2, -1, -2, -2, -1]),    // -1.5
        (25, 10, [2, 3, 2, 3, 2, 3]),           //  2.5
        (-25, 10, [-2, -3, -2, -3, -3, -2]),    // -2.5
        (149, 100, [1, 1, 1, 2, 1, 2]),         //  1.49
        (-149, 100, [-1, -1, -1, -2, -2, -1]),  // -1.49
        (151, 100, [2, 2, 1, 2, 1, 2]),         //  1.51
        (-151, 100, [-2, -2, -1, -2, -2, -1]),  // -1.51
        (249, 100, [2, 2, 2, 3, 2, 3]),         //  2.49
        (-249, 100, [-2, -2, -2, -3, -3, -2]),  // -2.49
        (251, 100, [3, 3, 2, 3, 2, 3]),         //  2.51
        (-251, 100, [-3, -3, -2, -3, -3, -2]),  // -2.51
        (35, 10, [4, 4, 3, 4, 3, 4]),           //  3.5
        (-35, 10, [-4, -4, -3, -4, -4, -3]),    // -3.5
        (3, 1, [3, 3, 3, 3, 3, 3]),
        (-3, 1, [-3, -3, -3, -3, -3, -3]),
        (0, 7, [0, 0, 0, 0, 0, 0]),
        (1, 3, [0, 0, 0, 1, 0, 1]),
        (2, 3, [1, 1, 0, 1, 0, 1]),
        (-2, 3, [-1, -1, 0, -1, -1, 0]),
    ]
    static let rules: [RoundingRule] = [.halfEven, .halfUp, .towardZero, .awayFromZero, .floor, .ceiling]

    @Test(arguments: table)
    func roundsEveryRule(_ testCase: (numerator: Int128, denominator: Int128, expected: [Int128])) {
        for (rule, expected) in zip(Self.rules, testCase.expected) {
            let result = RationalRounding.rounded(testCase.numerator, dividedBy: testCase.denominator, rule: rule)
            #expect(result == expected, "\(testCase.numerator)/\(testCase.denominator) \(rule)")
        }
    }

    @Test func everyRuleIsInTheTable() {
        #expect(Set(Self.rules.map { "\($0)" }) == Set(RoundingRule.allCases.map { "\($0)" }))
    }

    /// Independent reference: floor division, then decide by comparing twice
    /// the remainder with the denominator.
    static func reference(_ numerator: Int128, _ denominator: Int128, _ rule: RoundingRule) -> Int128 {
        let floorRemainder = ((numerator % denominator) + denominator) % denominator
        let floor = (numerator - floorRemainder) / denominator
        if floorRemainder == 0 { return floor }
        let ceiling = floor + 1
        let twice = 2 * floorRemainder
        switch rule {
        case .floor: return floor
        case .ceiling: return ceiling
        case .towardZero: return numerator < 0 ? ceiling : floor
        case .awayFromZero: return numerator < 0 ? floor : ceiling
        case .halfUp:
            if twice == denominator { return numerator < 0 ? floor : ceiling }
            return twice < denominator ? floor : ceiling
        case .halfEven:
            if twice == denominator { return floor % 2 == 0 ? floor : ceiling }
            return twice < denominator ? floor : ceiling
        }
    }

    @Test func agreesWithReferenceOnRandomRationals() {
        let seed: UInt64 = 0x2042_D1CE
        var random = SplitMix64(seed: seed)
        for _ in 0..<20_000 {
            let numerator = Int128(random.interestingInt64()) * Int128(random.interestingInt64())
            let denominator = random.next() % 2 == 0
                ? PowerOfTen.int128(Int.random(in: 0...36, using: &random))
                : Int128(Int64.random(in: 1...1_000, using: &random))
            for rule in RoundingRule.allCases {
                let result = RationalRounding.rounded(numerator, dividedBy: denominator, rule: rule)
                #expect(result == Self.reference(numerator, denominator, rule),
                        "seed \(seed), \(numerator)/\(denominator) \(rule)")
            }
        }
    }

    @Test func moneyRoundsThroughEveryRule() throws {
        // 0.05 USD × 0.5 = 2.5 cents; -0.05 USD × 0.5 = -2.5 cents.
        let half = try ExactDecimal(parsing: "0.5")
        let nickel = try Money(parsing: "0.05", commodity: .usd)
        let expected: [(RoundingRule, Int64, Int64)] = [
            (.halfEven, 2, -2), (.halfUp, 3, -3), (.towardZero, 2, -2),
            (.awayFromZero, 3, -3), (.floor, 2, -3), (.ceiling, 3, -2),
        ]
        for (rule, positive, negative) in expected {
            #expect(try nickel.multiplied(by: half, rounding: rule).minorUnits == positive, "\(rule)")
            #expect(try nickel.negated().multiplied(by: half, rounding: rule).minorUnits == negative, "\(rule)")
        }
    }

    @Test func nonPositiveDenominatorTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = RationalRounding.rounded(1, dividedBy: 0, rule: .halfEven)
        }
    }
}
