import Testing
import TallyEngine
import TallyLog

@Suite struct MoneyParsingTests {
    static func commodity(scale: Int) -> Commodity {
        switch scale {
        case 0: Commodity.jpy
        case 2: Commodity.usd
        case 3: Commodity.bhd
        case 6: Commodity.usdc
        case 8: Commodity.btc
        default: try! Commodity(code: "S\(scale)", scale: scale)
        }
    }

    static let validCases: [(text: String, scale: Int, minorUnits: Int64)] = [
        // scale 2
        ("12.34", 2, 1234), ("-0.5", 2, -50), ("1000", 2, 100_000), ("0.10", 2, 10),
        ("1.230", 2, 123), ("1.2300000", 2, 123), ("0", 2, 0), ("-0", 2, 0), ("-0.00", 2, 0),
        ("007.50", 2, 750), ("0.01", 2, 1), ("-0.01", 2, -1),
        ("92233720368547758.07", 2, Int64.max), ("-92233720368547758.08", 2, Int64.min),
        // scale 0
        ("1000", 0, 1000), ("1000.0", 0, 1000), ("-7", 0, -7), ("0.000", 0, 0),
        ("9223372036854775807", 0, Int64.max), ("-9223372036854775808", 0, Int64.min),
        // scale 3
        ("1.005", 3, 1005), ("-0.001", 3, -1), ("2.5", 3, 2500), ("1.0050", 3, 1005),
        // scale 6
        ("1.000001", 6, 1_000_001), ("0.5", 6, 500_000), ("-12.3456780", 6, -12_345_678),
        // scale 8
        ("0.00000001", 8, 1), ("1.5", 8, 150_000_000), ("92233720368.54775807", 8, Int64.max),
        ("-92233720368.54775808", 8, Int64.min),
        // scale 18
        ("9.223372036854775807", 18, Int64.max), ("0.000000000000000001", 18, 1),
    ]

    @Test(arguments: validCases)
    func parsesValidAmount(_ testCase: (text: String, scale: Int, minorUnits: Int64)) throws {
        let commodity = Self.commodity(scale: testCase.scale)
        let money = try Money(parsing: testCase.text, commodity: commodity)
        #expect(money == Money(minorUnits: testCase.minorUnits, commodity: commodity), "\(testCase)")
    }

    static let invalidCases: [(text: String, scale: Int, code: MoneyError.Code)] = [
        ("1,000.00", 2, .invalidNumber), ("1e3", 2, .invalidNumber), ("1E3", 0, .invalidNumber),
        (" 1", 2, .invalidNumber), ("1 ", 2, .invalidNumber), ("\t1", 2, .invalidNumber),
        ("1\n", 2, .invalidNumber), ("\u{A0}1", 2, .invalidNumber), ("", 2, .invalidNumber),
        ("-", 2, .invalidNumber), ("1.", 2, .invalidNumber), (".5", 2, .invalidNumber),
        ("-.5", 2, .invalidNumber), ("+1", 2, .invalidNumber), ("--1", 2, .invalidNumber),
        ("1-", 2, .invalidNumber), ("1.2.3", 2, .invalidNumber), ("1_000", 0, .invalidNumber),
        ("NaN", 2, .invalidNumber), ("inf", 2, .invalidNumber), ("0x10", 0, .invalidNumber),
        ("١٢", 0, .invalidNumber), ("１", 0, .invalidNumber), ("1.٥", 2, .invalidNumber),
        ("$1", 2, .invalidNumber), ("1USD", 2, .invalidNumber), (".", 2, .invalidNumber),
        (String(repeating: "0", count: 65), 2, .invalidNumber),
        ("12.345", 2, .tooManyDecimals), ("0.001", 2, .tooManyDecimals), ("1.5", 0, .tooManyDecimals),
        ("1.0001", 3, .tooManyDecimals), ("0.0000001", 6, .tooManyDecimals),
        ("0.000000001", 8, .tooManyDecimals), ("-1.0000000010", 8, .tooManyDecimals),
        ("92233720368547758.08", 2, .overflow), ("-92233720368547758.09", 2, .overflow),
        ("9223372036854775808", 0, .overflow), ("-9223372036854775809", 0, .overflow),
        ("99999999999999999999999", 0, .overflow), ("100000000000", 8, .overflow),
        ("10", 18, .overflow), ("92233720368.54775808", 8, .overflow),
    ]

    @Test(arguments: invalidCases)
    func rejectsInvalidAmount(_ testCase: (text: String, scale: Int, code: MoneyError.Code)) {
        let commodity = Self.commodity(scale: testCase.scale)
        // An embedder sees the engine's one error type; the finer MoneyError code is underneath.
        let error = #expect(throws: LedgerError.self, "\(testCase)") {
            try Money(parsing: testCase.text, commodity: commodity)
        }
        #expect(error?.code == (testCase.code == .overflow ? .overflow : .invalidArgument), "\(testCase)")
        #expect((error?.underlying as? MoneyError)?.code == testCase.code, "\(testCase): \(error.map(String.init(describing:)) ?? "no error")")
        #expect(error?.message.isEmpty == false)
        // The engine's own readers keep the MoneyError itself.
        #expect(throws: MoneyError.self) { try Money(exactly: testCase.text, commodity: commodity) }
    }

    @Test func errorMessagesQuoteTheTextAndPosition() throws {
        let grouping = #expect(throws: LedgerError.self) { try Money(parsing: "1,000.00", commodity: .usd) }
        #expect(grouping?.message.contains("\"1,000.00\"") == true, "\(grouping?.message ?? "")")
        #expect(grouping?.message.contains("position 2") == true, "\(grouping?.message ?? "")")
        #expect(grouping?.message.contains("grouping") == true, "\(grouping?.message ?? "")")

        let space = #expect(throws: LedgerError.self) { try Money(parsing: " 1", commodity: .usd) }
        #expect(space?.message.contains("position 1") == true, "\(space?.message ?? "")")

        let decimals = #expect(throws: LedgerError.self) { try Money(parsing: "12.345", commodity: .usd) }
        #expect(decimals?.message.contains("\"12.345\"") == true, "\(decimals?.message ?? "")")
        #expect(decimals?.message.contains("USD allows at most 2") == true, "\(decimals?.message ?? "")")
        #expect(decimals?.description == decimals?.message)

        let long = String(repeating: "9", count: 200)
        let tooLong = #expect(throws: LedgerError.self) { try Money(parsing: long, commodity: .usd) }
        #expect((tooLong?.message.count ?? 0) < 200, "a long input is cut in the message")
    }

    static let printCases: [(minorUnits: Int64, scale: Int, text: String)] = [
        (-50, 2, "-0.50"), (100_000, 2, "1000.00"), (1234, 2, "12.34"), (0, 2, "0.00"), (5, 2, "0.05"),
        (1000, 0, "1000"), (-1, 0, "-1"), (0, 0, "0"),
        (1005, 3, "1.005"), (-1, 3, "-0.001"),
        (1, 6, "0.000001"), (1_500_000, 6, "1.500000"),
        (1, 8, "0.00000001"), (150_000_000, 8, "1.50000000"),
        (Int64.max, 2, "92233720368547758.07"), (Int64.min, 2, "-92233720368547758.08"),
        (Int64.min, 0, "-9223372036854775808"), (Int64.min, 18, "-9.223372036854775808"),
    ]

    @Test(arguments: printCases)
    func printsFullScale(_ testCase: (minorUnits: Int64, scale: Int, text: String)) {
        let money = Money(minorUnits: testCase.minorUnits, commodity: Self.commodity(scale: testCase.scale))
        #expect(money.decimalString == testCase.text, "\(testCase)")
    }

    @Test func descriptionHasCode() throws {
        #expect(Money(minorUnits: 1234, commodity: .usd).description == "12.34 USD")
        #expect(Money(minorUnits: -5, commodity: .jpy).description == "-5 JPY")
        #expect(try Money(parsing: "1.005", commodity: .bhd).description == "1.005 BHD")
    }

    @Test(arguments: [0, 1, 2, 3, 6, 8, 18])
    func roundTripsRandomValues(scale: Int) throws {
        let seed: UInt64 = 0x7A11_0000 + UInt64(scale)
        var random = SplitMix64(seed: seed)
        let commodity = Self.commodity(scale: scale)
        for _ in 0..<3_000 {
            let minorUnits = random.interestingInt64()
            let money = Money(minorUnits: minorUnits, commodity: commodity)
            let text = money.decimalString
            let parsed = try Money(parsing: text, commodity: commodity)
            #expect(parsed == money, "seed \(seed), minorUnits \(minorUnits), scale \(scale), text \(text)")
            let fractionDigits = text.split(separator: ".", omittingEmptySubsequences: false).dropFirst().first?.count ?? 0
            #expect(fractionDigits == scale, "seed \(seed), minorUnits \(minorUnits), text \(text)")
        }
    }

    @Test func zeroAndSignPredicates() throws {
        let zero = Money.zero(.eur)
        #expect(zero.isZero && !zero.isNegative && !zero.isPositive)
        #expect(zero.commodity == .eur)
        let negative = try Money(parsing: "-0.01", commodity: .eur)
        #expect(negative.isNegative && !negative.isZero && !negative.isPositive)
        let positive = try Money(parsing: "0.01", commodity: .eur)
        #expect(positive.isPositive && !positive.isZero && !positive.isNegative)
        #expect(try Money(parsing: "-0", commodity: .eur) == zero)
    }
}
