import Testing
@testable import TallyEngine
import TallyLog
import TallyTestSupport

@Suite struct MoneyConversionTests {
    static let vea = try! Commodity.named("VEA")

    static let conversionCases: [(amount: String, source: Commodity, target: Commodity, rate: String, rule: RoundingRule, expected: String)] = [
        // 1.005 at rate 1 into scale 2: a tie.
        ("1.005", .bhd, .usd, "1", .halfEven, "1.00"),
        ("1.005", .bhd, .usd, "1", .halfUp, "1.01"),
        ("1.015", .bhd, .usd, "1", .halfEven, "1.02"),
        ("-1.005", .bhd, .usd, "1", .halfEven, "-1.00"),
        ("-1.005", .bhd, .usd, "1", .halfUp, "-1.01"),
        ("-1.005", .bhd, .usd, "1", .floor, "-1.01"),
        ("1.004", .bhd, .usd, "1", .ceiling, "1.01"),
        // EUR → USD
        ("10.00", .eur, .usd, "1.0825", .halfEven, "10.82"),      // 10.825
        ("10.00", .eur, .usd, "1.0835", .halfEven, "10.84"),      // 10.835
        ("10.00", .eur, .usd, "1.0825", .towardZero, "10.82"),
        ("10.00", .eur, .usd, "1.0825", .awayFromZero, "10.83"),
        // JPY
        ("10.00", .usd, .jpy, "151.37", .halfEven, "1514"),       // 1513.7
        ("10.82", .usd, .jpy, "151.37", .halfEven, "1638"),       // 1637.8234
        ("1000", .jpy, .usd, "0.0066", .halfEven, "6.60"),
        ("1", .jpy, .usd, "0.0065", .halfEven, "0.01"),            // 0.65 cents
        ("150", .jpy, .usd, "0.0067", .halfEven, "1.00"),          // 1.005
        ("150", .jpy, .usd, "0.0067", .halfUp, "1.01"),
        ("250", .jpy, .jpy, "0.5", .halfEven, "125"),
        ("5", .jpy, .jpy, "0.5", .halfEven, "2"),                  // 2.5
        ("7", .jpy, .jpy, "0.5", .halfEven, "4"),                  // 3.5
        // Up in scale: exact, no rounding.
        ("12.34", .usd, .usdc, "1", .halfEven, "12.340000"),
        ("1", .jpy, .btc, "0.00000007", .halfEven, "0.00000007"),
        // Crypto
        ("0.5", .btc, .usd, "60000.01", .halfEven, "30000.00"),   // 30000.005
        ("0.5", .btc, .usd, "60000.01", .halfUp, "30000.01"),
        ("1.234567", .usdc, .usd, "1", .halfEven, "1.23"),
        ("1.235000", .usdc, .usd, "1", .halfEven, "1.24"),
        ("0", .usd, .eur, "0.92", .halfEven, "0.00"),
        ("12.34", .usd, .eur, "-1", .halfEven, "-12.34"),
    ]

    @Test(arguments: conversionCases)
    func converts(_ testCase: (amount: String, source: Commodity, target: Commodity, rate: String, rule: RoundingRule, expected: String)) throws {
        let amount = try Money(parsing: testCase.amount, commodity: testCase.source)
        let converted = try amount.converted(to: testCase.target, rate: ExactDecimal(parsing: testCase.rate), rounding: testCase.rule)
        #expect(converted.commodity == testCase.target, "\(testCase)")
        #expect(converted.decimalString == testCase.expected, "\(testCase)")
    }

    @Test func defaultRoundingIsHalfEven() throws {
        let amount = try Money(parsing: "1.005", commodity: .bhd)
        #expect(try amount.converted(to: .usd, rate: .one).decimalString == "1.00")
    }

    @Test func convertingAtRateOneIntoTheSameCommodityIsIdentity() throws {
        let seed: UInt64 = 0x1D_E471
        var random = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            let amount = Money(minorUnits: random.interestingInt64(), commodity: .usd)
            #expect(try amount.converted(to: .usd, rate: .one) == amount, "seed \(seed), \(amount.minorUnits)")
        }
    }

    @Test func extremeScalesDoNotOverflowSilently() throws {
        let fine = try Commodity(code: "FINE", scale: 18)
        let tinyRate = try ExactDecimal(parsing: "0.000000000000000001")
        // 1e-18 × 1e-18 into scale 0: exponent -36.
        let dust = Money(minorUnits: 1, commodity: fine)
        #expect(try dust.converted(to: .jpy, rate: tinyRate).isZero)
        #expect(try dust.converted(to: .jpy, rate: tinyRate, rounding: .ceiling).minorUnits == 1)
        #expect(try Money(minorUnits: Int64.min, commodity: fine).converted(to: .jpy, rate: tinyRate, rounding: .floor).minorUnits == -1)

        // Scale 0 into scale 18 multiplies by 10^18.
        #expect(try Money(minorUnits: 9, commodity: .jpy).converted(to: fine, rate: .one).minorUnits == 9_000_000_000_000_000_000)
        for (amount, rate) in [(Int64(10), "1"), (Int64.max, "1"), (Int64.min, "9223372036854775807"), (Int64.max, "-9223372036854775808")] {
            let error = #expect(throws: MoneyError.self, "\(amount) at \(rate)") {
                try Money(minorUnits: amount, commodity: .jpy).converted(to: fine, rate: ExactDecimal(parsing: rate))
            }
            #expect(error?.code == .overflow)
            #expect(error?.message.contains("FINE") == true)
        }
        let error = #expect(throws: MoneyError.self) {
            try Money(minorUnits: Int64.max, commodity: .usd).converted(to: .jpy, rate: ExactDecimal(parsing: "151.37"))
        }
        #expect(error?.code == .overflow)
    }

    static let valuationCases: [(quantity: String, price: String, priceCommodity: Commodity, rule: RoundingRule, expected: String)] = [
        ("1.5", "102.37", .usd, .halfEven, "153.56"),         // 153.555
        ("1.5", "102.37", .usd, .halfUp, "153.56"),
        ("1.5", "102.37", .usd, .towardZero, "153.55"),
        ("1.5", "102.33", .usd, .halfEven, "153.50"),         // 153.495
        ("1.5", "102.33", .usd, .halfUp, "153.50"),
        ("-1.5", "102.37", .usd, .halfEven, "-153.56"),
        ("-1.5", "102.37", .usd, .towardZero, "-153.55"),
        ("-1.5", "102.37", .usd, .ceiling, "-153.55"),
        ("0.33333333", "3.00", .usd, .halfEven, "1.00"),      // 0.99999999
        ("0.33333333", "3.00", .usd, .floor, "0.99"),
        ("0.00000001", "0.01", .usd, .halfEven, "0.00"),
        ("0.00000001", "0.01", .usd, .ceiling, "0.01"),
        ("2.5", "101", .jpy, .halfEven, "252"),               // 252.5
        ("3.5", "101", .jpy, .halfEven, "354"),               // 353.5
        ("10", "1.005", .bhd, .halfEven, "10.050"),
        ("0", "102.37", .usd, .halfEven, "0.00"),
        ("12.5", "-3.01", .usd, .halfEven, "-37.62"),         // -37.625
    ]

    @Test(arguments: valuationCases)
    func valuesQuantityAtUnitPrice(_ testCase: (quantity: String, price: String, priceCommodity: Commodity, rule: RoundingRule, expected: String)) throws {
        let quantity = try Money(parsing: testCase.quantity, commodity: Self.vea)
        let price = try Money(parsing: testCase.price, commodity: testCase.priceCommodity)
        let value = try Money.value(ofQuantity: quantity, atUnitPrice: price, rounding: testCase.rule)
        #expect(value.commodity == testCase.priceCommodity, "\(testCase)")
        #expect(value.decimalString == testCase.expected, "\(testCase)")
    }

    @Test func valuationOverflowThrows() throws {
        let quantity = try Money(parsing: "92233720368", commodity: Self.vea)
        let price = try Money(parsing: "100000000.00", commodity: .usd)
        let error = #expect(throws: MoneyError.self) { try Money.value(ofQuantity: quantity, atUnitPrice: price) }
        #expect(error?.code == .overflow)
        let huge = Money(minorUnits: Int64.min, commodity: .jpy)
        let again = #expect(throws: MoneyError.self) { try Money.value(ofQuantity: huge, atUnitPrice: Money(minorUnits: -1, commodity: .jpy)) }
        #expect(again?.code == .overflow)
    }

    // MARK: Chains of factors, rounded once

    @Test func aChainOfOneFactorIsTheSingleConversionEitherWayRound() throws {
        let seed = TestSeed.value(default: 77)
        var random = SplitMix64(seed: seed)
        let commodities: [Commodity] = [.usd, .eur, .jpy, .bhd, .usdc, .btc, Self.vea]
        for _ in 0..<5_000 {
            let source = commodities[Int(random.next() % UInt64(commodities.count))]
            let target = commodities[Int(random.next() % UInt64(commodities.count))]
            let amount = Money(minorUnits: Int64(random.next() % 2_000_000_000_000) - 1_000_000_000_000, commodity: source)
            let rate = try ExactDecimal(significand: Int64(random.next() % 10_000_000) + 1, scale: Int(random.next() % 9))
            /// The amount, or the error's code: both paths must give the same.
            func outcome(_ convert: () throws -> Money) -> String {
                do { return try convert().description } catch let error as MoneyError { return "\(error.code)" } catch { return "\(error)" }
            }
            #expect(outcome { try amount.converted(to: target, through: [ConversionFactor(rate: rate)]) }
                == outcome { try amount.converted(to: target, rate: rate) }, "\(amount) × \(rate) → \(target), seed \(seed)")
            #expect(outcome { try amount.converted(to: target, through: [ConversionFactor(rate: rate, isInverted: true)]) }
                == outcome { try amount.converted(to: target, inverseOf: rate) }, "\(amount) ÷ \(rate) → \(target), seed \(seed)")
        }
    }

    @Test func aHopIsRoundedOnceNotPerStep() throws {
        let shares = try Money(parsing: "0.007", commodity: Self.vea)
        let steps = [ConversionFactor(rate: try ExactDecimal(parsing: "50.15")), ConversionFactor(rate: try ExactDecimal(parsing: "1.08"), isInverted: true)]
        // 0.007 × 50.15 / 1.08 = 0.32504… → 0.33; per step 0.35 / 1.08 = 0.324… → 0.32.
        #expect(try shares.converted(to: .eur, through: steps) == Money(parsing: "0.33", commodity: .eur))
        // 2.5 × 1 / 1 at scale 0 is a tie: half-even 2, half-up 3.
        let tie = try Money(parsing: "2.5", commodity: Self.vea)
        let ones = [ConversionFactor(rate: .one), ConversionFactor(rate: .one, isInverted: true)]
        #expect(try tie.converted(to: .jpy, through: ones) == Money(minorUnits: 2, commodity: .jpy))
        #expect(try tie.converted(to: .jpy, through: ones, rounding: .halfUp) == Money(minorUnits: 3, commodity: .jpy))
    }

    @Test func aChainRefusesAZeroDivisorAndReportsOverflow() throws {
        let amount = Money(minorUnits: 100, commodity: .usd)
        let zero = #expect(throws: MoneyError.self) {
            try amount.converted(to: .eur, through: [ConversionFactor(rate: try ExactDecimal(significand: 0, scale: 0), isInverted: true)])
        }
        #expect(zero?.code == .divisionByZero)
        let huge = Money(minorUnits: Int64.max, commodity: .jpy)
        let big = try ExactDecimal(significand: Int64.max, scale: 0)
        let overflow = #expect(throws: MoneyError.self) {
            try huge.converted(to: .jpy, through: [ConversionFactor(rate: big), ConversionFactor(rate: big)])
        }
        #expect(overflow?.code == .overflow)
        // Common factors cancel before multiplying: huge × big ÷ big is exact.
        #expect(try huge.converted(to: .jpy, through: [ConversionFactor(rate: big), ConversionFactor(rate: big, isInverted: true)]) == huge)
    }
}
