import Testing
@testable import TallyEngine

@Suite struct CommodityTests {
    static let namedCases: [(code: String, scale: Int, isISO: Bool)] = [
        ("USD", 2, true), ("EUR", 2, true), ("GBP", 2, true), ("CHF", 2, true),
        ("JPY", 0, true), ("KRW", 0, true), ("ISK", 0, true), ("VND", 0, true), ("CLP", 0, true),
        ("BHD", 3, true), ("KWD", 3, true), ("JOD", 3, true), ("OMR", 3, true), ("TND", 3, true),
        ("LYD", 3, true), ("IQD", 3, true),
        ("CLF", 4, true), ("UYW", 4, true), ("UYI", 0, true), ("XAF", 0, true), ("XCG", 2, true),
        ("USDC", 6, false), ("USDT", 6, false), ("EURC", 6, false), ("PYUSD", 6, false),
        ("BTC", 8, false), ("ETH", 8, false),
        ("VEA", 8, false), ("IRAUSD", 8, false), ("BRK.B", 8, false), ("XAU", 8, false), ("XDR", 8, false),
        ("A", 8, false), ("ABCDEFGHIJKLMNOP", 8, false), ("X_1-2.3", 8, false),
    ]

    @Test(arguments: namedCases)
    func namedUsesStandardScale(_ testCase: (code: String, scale: Int, isISO: Bool)) throws {
        let commodity = try Commodity.named(testCase.code)
        #expect(commodity.code == testCase.code, "\(testCase)")
        #expect(commodity.scale == testCase.scale, "\(testCase)")
        #expect(commodity.isISOCurrency == testCase.isISO, "\(testCase)")
        #expect(commodity.description == testCase.code)
    }

    static let invalidCodes = [
        "", "usd", "Usd", "1BTC", "US D", " USD", "USD ", "ABCDEFGHIJKLMNOPQ", "É", "EURÉ",
        "-USD", ".USD", "_USD", "US$", "US/D", "USD\n", "€",
    ]

    @Test(arguments: invalidCodes)
    func rejectsInvalidCode(_ code: String) {
        let named = #expect(throws: MoneyError.self, "\(code.debugDescription)") { try Commodity.named(code) }
        #expect(named?.code == .invalidCommodity, "\(code.debugDescription)")
        let built = #expect(throws: MoneyError.self, "\(code.debugDescription)") { try Commodity(code: code, scale: 2) }
        #expect(built?.code == .invalidCommodity, "\(code.debugDescription)")
    }

    /// Each way a code can be wrong has its own message (built only when the check fails).
    @Test(arguments: [
        ("", "a commodity code is empty"),
        ("ABCDEFGHIJKLMNOPQ", "is too long"),
        ("ABCDEFGHIJKLMNOPÉ", "is too long"),
        ("1BTC", "is invalid"),
        ("US D", "is invalid"),
        ("É", "is invalid"),
    ])
    func eachInvalidCodeSaysWhatIsWrong(_ code: String, _ expected: String) {
        let error = #expect(throws: MoneyError.self) { try Commodity.named(code) }
        #expect(error?.message.contains(expected) == true, "\(code.debugDescription): \(error?.message ?? "")")
        #expect(error?.message.contains("use 1 to 16 characters") == true, "\(code.debugDescription)")
    }

    @Test func lowercaseSuggestsUppercase() {
        let error = #expect(throws: MoneyError.self) { try Commodity.named("usd") }
        #expect(error?.message.contains("did you mean \"USD\"") == true, "\(error?.message ?? "")")
    }

    @Test(arguments: [-1, 19, 100, Int.min, Int.max])
    func rejectsInvalidScale(_ scale: Int) {
        let error = #expect(throws: MoneyError.self) { try Commodity(code: "PTS", scale: scale) }
        #expect(error?.code == .invalidScale, "scale \(scale)")
    }

    @Test(arguments: 0...18)
    func acceptsEveryValidScale(_ scale: Int) throws {
        let commodity = try Commodity(code: "PTS", scale: scale)
        #expect(commodity.scale == scale)
    }

    @Test func constantsMatchNamed() throws {
        let constants: [Commodity] = [.usd, .eur, .gbp, .jpy, .chf, .bhd, .usdc, .btc]
        for constant in constants {
            #expect(try Commodity.named(constant.code) == constant, "\(constant.code)")
        }
    }

    @Test func equalityIncludesScale() throws {
        let usd8 = try Commodity(code: "USD", scale: 8)
        #expect(usd8 != Commodity.usd)
        #expect(usd8.isISOCurrency, "isISOCurrency looks at the code only")
        #expect(try Commodity(code: "USD", scale: 2) == Commodity.usd)
    }

    @Test func isoTableIsWellFormed() {
        let table = ISOCurrencyTable.minorUnits
        #expect(table.count >= 150, "the full active list, not a sample")
        for (code, scale) in table {
            #expect(code.utf8.count == 3 && code.utf8.allSatisfy { $0 >= 0x41 && $0 <= 0x5A }, "\(code)")
            #expect((0...4).contains(scale), "\(code) \(scale)")
        }
        for code in ["XAU", "XAG", "XPT", "XPD", "XDR", "XTS", "XXX", "HRK"] {
            #expect(table[code] == nil, "\(code) has no minor unit or is withdrawn")
        }
        // Withdrawn codes stay readable at their former exponents, as ISO currencies.
        for code in ["HRK", "BGN", "SLL"] {
            #expect(ISOCurrencyTable.withdrawnMinorUnits[code] == 2)
            #expect((try? Commodity.named(code))?.scale == 2, "\(code)")
            #expect((try? Commodity.named(code))?.isISOCurrency == true, "\(code)")
        }
        #expect((try? Commodity.named("XAD"))?.scale == 2, "the Arab Accounting Dinar, added in 2025")
    }
}
