import Testing
import TallyEngine
import TallyLog

@Suite struct ExactDecimalTests {
    static let validCases: [(text: String, significand: Int64, scale: Int)] = [
        ("1.2345", 12345, 4), ("-0.5", -5, 1), ("0.000001", 1, 6), ("12", 12, 0), ("0", 0, 0),
        ("1.50", 150, 2), ("-0", 0, 0), ("007", 7, 0),
        ("0.000000000000000001", 1, 18), ("0.1000000000000000000000", 100_000_000_000_000_000, 18),
        ("9223372036854775807", Int64.max, 0), ("-9223372036854775808", Int64.min, 0),
        ("-9.223372036854775808", Int64.min, 18), ("1.000000000000000001", 1_000_000_000_000_000_001, 18),
        ("10000000000.000000000", 10_000_000_000, 0), ("92233720368.5477580700", 9_223_372_036_854_775_807, 8),
    ]

    @Test(arguments: validCases)
    func parsesValidDecimal(_ testCase: (text: String, significand: Int64, scale: Int)) throws {
        let decimal = try ExactDecimal(parsing: testCase.text)
        #expect(decimal.significand == testCase.significand, "\(testCase)")
        #expect(decimal.scale == testCase.scale, "\(testCase)")
    }

    static let invalidCases: [(text: String, code: MoneyError.Code)] = [
        ("1e3", .invalidNumber), ("1,000", .invalidNumber), (".5", .invalidNumber), ("5.", .invalidNumber),
        ("+5", .invalidNumber), (" 1", .invalidNumber), ("1 ", .invalidNumber), ("", .invalidNumber),
        ("-", .invalidNumber), ("--1", .invalidNumber), ("٣", .invalidNumber), ("0.5%", .invalidNumber),
        ("1/3", .invalidNumber),
        ("0.0000000000000000001", .tooManyDecimals), ("1.1234567890123456789", .tooManyDecimals),
        ("9223372036854775808", .overflow), ("-9223372036854775809", .overflow),
        ("10.000000000000000001", .overflow), ("9.223372036854775808", .overflow), ("12345678901234567890", .overflow),
    ]

    @Test(arguments: invalidCases)
    func rejectsInvalidDecimal(_ testCase: (text: String, code: MoneyError.Code)) {
        let error = #expect(throws: MoneyError.self, "\(testCase)") { try ExactDecimal(parsing: testCase.text) }
        #expect(error?.code == testCase.code, "\(testCase): \(error?.message ?? "no error")")
    }

    @Test func comparesValuesNotDigits() throws {
        let a = try ExactDecimal(parsing: "1.50")
        let b = try ExactDecimal(parsing: "1.5")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
        #expect(a.decimalString == "1.50" && b.decimalString == "1.5", "the scale is kept as written")
        #expect(try ExactDecimal(parsing: "0") == ExactDecimal(significand: 0, scale: 18))
        #expect(try ExactDecimal(parsing: "0.99") < ExactDecimal(parsing: "1"))
        #expect(try ExactDecimal(parsing: "-1") < ExactDecimal(parsing: "-0.999999999999999999"))
        #expect(try ExactDecimal(significand: Int64.min, scale: 0) < ExactDecimal(significand: Int64.min, scale: 18))
        #expect(try ExactDecimal(significand: Int64.max, scale: 18) < ExactDecimal(significand: 10, scale: 0))
        #expect(ExactDecimal.one == (try ExactDecimal(parsing: "1.000000000000000000")))
        #expect(ExactDecimal.one.decimalString == "1")
    }

    @Test func orderAgreesWithEqualityOnRandomPairs() throws {
        let seed: UInt64 = 0xDEC1_4A11
        var random = SplitMix64(seed: seed)
        for _ in 0..<5_000 {
            let a = try ExactDecimal(significand: Int64.random(in: -2_000...2_000, using: &random), scale: Int.random(in: 0...3, using: &random))
            let b = try ExactDecimal(significand: Int64.random(in: -2_000...2_000, using: &random), scale: Int.random(in: 0...3, using: &random))
            // Reference: compare at scale 3 in plain Int64.
            let aScaled = a.significand * [1000, 100, 10, 1][a.scale]
            let bScaled = b.significand * [1000, 100, 10, 1][b.scale]
            #expect((a == b) == (aScaled == bScaled), "seed \(seed), \(a) vs \(b)")
            #expect((a < b) == (aScaled < bScaled), "seed \(seed), \(a) vs \(b)")
            if a == b {
                #expect(a.hashValue == b.hashValue, "seed \(seed), \(a) vs \(b)")
            }
        }
    }

    @Test func roundTripsRandomValues() throws {
        let seed: UInt64 = 0xE4AC_7DEC
        var random = SplitMix64(seed: seed)
        for _ in 0..<10_000 {
            let decimal = try ExactDecimal(significand: random.interestingInt64(), scale: Int.random(in: 0...18, using: &random))
            let parsed = try ExactDecimal(parsing: decimal.decimalString)
            #expect(parsed.significand == decimal.significand && parsed.scale == decimal.scale,
                    "seed \(seed), significand \(decimal.significand), scale \(decimal.scale), text \(decimal.decimalString)")
        }
    }

    @Test(arguments: [-1, 19, Int.max])
    func rejectsInvalidScale(_ scale: Int) {
        let error = #expect(throws: MoneyError.self) { try ExactDecimal(significand: 1, scale: scale) }
        #expect(error?.code == .invalidScale)
    }

    @Test func printsWithItsScale() throws {
        #expect(try ExactDecimal(significand: -5, scale: 3).decimalString == "-0.005")
        #expect(try ExactDecimal(significand: 12, scale: 0).description == "12")
        #expect(try ExactDecimal(significand: Int64.min, scale: 18).decimalString == "-9.223372036854775808")
    }
}
