import Testing
import TallyEngine
import TallyLog

@Suite struct MoneyArithmeticTests {
    static let max = Money(minorUnits: Int64.max, commodity: .usd)
    static let min = Money(minorUnits: Int64.min, commodity: .usd)
    static let cent = Money(minorUnits: 1, commodity: .usd)

    private func expectOverflow(_ label: String, _ body: () throws -> Money) {
        let error = #expect(throws: MoneyError.self, "\(label)") { try body() }
        #expect(error?.code == .overflow, "\(label)")
        #expect(error?.message.contains("9223372036854775807") == false, "no amounts in messages: \(label)")
    }

    @Test func addsAndSubtracts() throws {
        let a = try Money(parsing: "12.34", commodity: .usd)
        let b = try Money(parsing: "-0.35", commodity: .usd)
        #expect(try a.adding(b) == Money(parsing: "11.99", commodity: .usd))
        #expect(try a.subtracting(b) == Money(parsing: "12.69", commodity: .usd))
        #expect(try Self.max.adding(Self.min) == Money(minorUnits: -1, commodity: .usd))
        #expect(try Self.max.subtracting(Self.max).isZero)
        #expect(try Self.min.adding(Self.max).minorUnits == -1)
    }

    @Test func overflowThrowsAtTheLimits() {
        expectOverflow("max + 1") { try Self.max.adding(Self.cent) }
        expectOverflow("min + -1") { try Self.min.adding(Money(minorUnits: -1, commodity: .usd)) }
        expectOverflow("min - 1") { try Self.min.subtracting(Self.cent) }
        expectOverflow("max - -1") { try Self.max.subtracting(Money(minorUnits: -1, commodity: .usd)) }
        expectOverflow("0 - min") { try Money.zero(.usd).subtracting(Self.min) }
        expectOverflow("-min") { try Self.min.negated() }
        expectOverflow("max * 2") { try Self.max.multiplied(by: 2) }
        expectOverflow("min * -1") { try Self.min.multiplied(by: -1) }
        expectOverflow("2 * min") { try Money(minorUnits: 2, commodity: .usd).multiplied(by: Int64.min) }
        expectOverflow("max * 1.01") { try Self.max.multiplied(by: ExactDecimal(parsing: "1.01")) }
        expectOverflow("min * -1.0") { try Self.min.multiplied(by: ExactDecimal(parsing: "-1.0")) }
    }

    @Test func limitsThatStillFit() throws {
        #expect(try Self.max.negated().minorUnits == -Int64.max)
        #expect(try Self.min.multiplied(by: 1) == Self.min)
        #expect(try Self.max.multiplied(by: -1).minorUnits == -Int64.max)
        #expect(try Self.min.multiplied(by: ExactDecimal.one) == Self.min)
        #expect(try Self.max.multiplied(by: ExactDecimal(parsing: "0.5"), rounding: .halfEven).minorUnits == Int64.max / 2 + 1)
        #expect(try Money(minorUnits: -5, commodity: .jpy).multiplied(by: 3).minorUnits == -15)
        #expect(try Money.zero(.usd).negated().isZero)
    }

    @Test func mixingCommoditiesThrows() throws {
        let usd = Money(minorUnits: 100, commodity: .usd)
        let eur = Money(minorUnits: 100, commodity: .eur)
        let usdAtScale8 = Money(minorUnits: 100, commodity: try Commodity(code: "USD", scale: 8))
        for other in [eur, usdAtScale8] {
            for (label, operation) in [
                ("add", { try usd.adding(other) }),
                ("subtract", { try usd.subtracting(other) }),
            ] as [(String, () throws -> Money)] {
                let error = #expect(throws: MoneyError.self, "\(label) \(other.commodity.code)") { try operation() }
                #expect(error?.code == .commodityMismatch, "\(label)")
                #expect(error?.message.contains("USD") == true && error?.message.contains("100") == false, "\(error?.message ?? "")")
            }
            let error = #expect(throws: MoneyError.self) { try usd.isLess(than: other) }
            #expect(error?.code == .commodityMismatch)
        }
        #expect(usd != eur, "== is total: different commodities are unequal")
    }

    @Test func isLessOrdersWithinACommodity() throws {
        let small = try Money(parsing: "3.39", commodity: .usd)
        let large = try Money(parsing: "3.40", commodity: .usd)
        #expect(try small.isLess(than: large))
        #expect(try !large.isLess(than: small))
        #expect(try !large.isLess(than: large))
        #expect(try Self.min.isLess(than: Self.max))
    }

    @Test func multipliedByDecimalRoundsOnce() throws {
        let amount = try Money(parsing: "10.05", commodity: .usd)
        let half = try ExactDecimal(parsing: "0.5")
        #expect(try amount.multiplied(by: half).decimalString == "5.02")   // 5.025, half-even
        #expect(try amount.multiplied(by: half, rounding: .halfUp).decimalString == "5.03")
        #expect(try amount.multiplied(by: half, rounding: .floor).decimalString == "5.02")
        let tiny = try ExactDecimal(parsing: "0.000000000000000001")
        #expect(try amount.multiplied(by: tiny, rounding: .ceiling).decimalString == "0.01")
        #expect(try amount.multiplied(by: tiny, rounding: .halfEven).isZero)
        #expect(try amount.multiplied(by: ExactDecimal(parsing: "-1.5")).decimalString == "-15.08")   // -15.075
    }

    static let roundUpCases: [(text: String, commodity: Commodity, expected: String)] = [
        ("3.40", .usd, "0.60"), ("3.00", .usd, "0.00"), ("0.01", .usd, "0.99"), ("0", .usd, "0.00"),
        ("0.99", .usd, "0.01"), ("-3.40", .usd, "0.60"), ("-3.00", .usd, "0.00"),
        ("1234", .jpy, "0"), ("-7", .jpy, "0"), ("1.005", .bhd, "0.995"), ("0.5", .btc, "0.50000000"),
        ("92233720368547758.07", .usd, "0.93"), ("-92233720368547758.08", .usd, "0.92"),
    ]

    @Test(arguments: roundUpCases)
    func remainderToNextWholeUnit(_ testCase: (text: String, commodity: Commodity, expected: String)) throws {
        let amount = try Money(parsing: testCase.text, commodity: testCase.commodity)
        let roundUp = try amount.remainderToNextWholeUnit()
        #expect(roundUp.decimalString == testCase.expected, "\(testCase.text) \(testCase.commodity.code)")
        #expect(roundUp.commodity == testCase.commodity)
        #expect(!roundUp.isNegative)
    }

    @Test func roundUpCompletesTheWholeUnit() throws {
        let seed: UInt64 = 0x20_0D_0F
        var random = SplitMix64(seed: seed)
        for _ in 0..<5_000 {
            let minorUnits = Int64.random(in: 0...1_000_000_000, using: &random)
            let amount = Money(minorUnits: minorUnits, commodity: .usd)
            let total = try amount.adding(amount.remainderToNextWholeUnit())
            #expect(total.minorUnits % 100 == 0, "seed \(seed), minorUnits \(minorUnits)")
            #expect(total.minorUnits - minorUnits < 100, "seed \(seed), minorUnits \(minorUnits)")
        }
    }
}
