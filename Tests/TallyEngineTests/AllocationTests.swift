import Testing
import TallyEngine
import TallyLog

@Suite struct AllocationTests {
    static let ratioVectors: [[Int64]] = [
        [70, 30], [1, 1, 1], [0, 1], [3, 0, 2], [1], [5], [1, 0], [0, 0, 7], [1, 2, 3, 4],
        [33, 33, 34], [1, 1], [2, 1], [1, 1, 1, 1, 1, 1, 1], [50, 50], [99, 1], [1, 99], [0, 3, 0, 3, 0],
    ]

    /// Checks every property of one allocation; `context` names the inputs
    /// (and the seed, for random cases) so a failure can be replayed.
    static func checkAllocation(_ amount: Money, ratios: [Int64], context: String) throws {
        let parts = try amount.allocated(byRatios: ratios)
        #expect(parts.count == ratios.count, "\(context)")
        #expect(parts.allSatisfy { $0.commodity == amount.commodity }, "\(context)")

        // The parts add up to the whole, exactly.
        let sum = parts.reduce(Int128(0)) { $0 + Int128($1.minorUnits) }
        #expect(sum == Int128(amount.minorUnits), "sum \(sum) != whole; \(context)")

        // Each part is within one minor unit of its exact share: |part·T − a·r| < T.
        let total = ratios.reduce(Int128(0)) { $0 + Int128($1) }
        for (index, (part, ratio)) in zip(parts, ratios).enumerated() {
            let error = Int128(part.minorUnits) * total - Int128(amount.minorUnits) * Int128(ratio)
            #expect(error.magnitude < total.magnitude, "part \(index) = \(part.minorUnits) too far from its share; \(context)")
            if ratio == 0 {
                #expect(part.isZero, "a zero ratio got \(part.minorUnits); \(context)")
            }
            // Sign symmetric: a part never has the opposite sign of the whole.
            #expect(!(amount.isNegative && part.isPositive) && !(amount.isPositive && part.isNegative), "part \(index) sign; \(context)")
        }

        // Largest remainder, earlier index first: if part i got an extra unit
        // and part j did not, i's remainder is larger, or equal with i < j.
        let magnitude = Int128(amount.minorUnits.magnitude)
        let remainders = ratios.map { (magnitude * Int128($0)) % total }
        let gotExtra = zip(parts, ratios).map { part, ratio in
            Int128(part.minorUnits.magnitude) * total > magnitude * Int128(ratio)
        }
        for i in ratios.indices where gotExtra[i] {
            for j in ratios.indices where !gotExtra[j] {
                let ordered = remainders[i] > remainders[j] || (remainders[i] == remainders[j] && i < j)
                #expect(ordered, "extra unit went to \(i) before \(j); \(context)")
            }
        }

        // Deterministic, and negation commutes with allocation.
        #expect(try amount.allocated(byRatios: ratios) == parts, "not deterministic; \(context)")
        if amount.minorUnits != Int64.min {
            let negatedParts = try amount.negated().allocated(byRatios: ratios)
            #expect(try negatedParts == parts.map { try $0.negated() }, "not sign symmetric; \(context)")
        }
    }

    @Test(arguments: ratioVectors)
    func exhaustiveSmallAmounts(ratios: [Int64]) throws {
        for minorUnits in Int64(-50)...50 {
            for commodity in [Commodity.usd, .jpy] {
                try Self.checkAllocation(Money(minorUnits: minorUnits, commodity: commodity), ratios: ratios,
                                         context: "amount \(minorUnits) \(commodity.code), ratios \(ratios)")
            }
        }
    }

    @Test func randomAllocations() throws {
        let seed: UInt64 = 0xA110_CA7E
        var random = SplitMix64(seed: seed)
        for iteration in 0..<6_000 {
            let count = Int.random(in: 1...8, using: &random)
            var ratios: [Int64] = (0..<count).map { _ in
                switch random.next() % 4 {
                case 0: 0
                case 1: Int64.random(in: 1...10, using: &random)
                case 2: Int64.random(in: 1...1_000_000, using: &random)
                default: Int64.random(in: 1...Int64.max, using: &random)
                }
            }
            if ratios.allSatisfy({ $0 == 0 }) {
                ratios[Int.random(in: 0..<count, using: &random)] = Int64.random(in: 1...100, using: &random)
            }
            let minorUnits = random.interestingInt64()
            try Self.checkAllocation(Money(minorUnits: minorUnits, commodity: .usdc), ratios: ratios,
                                     context: "seed \(seed), iteration \(iteration), amount \(minorUnits), ratios \(ratios)")
        }
    }

    @Test func documentedResults() throws {
        func split(_ text: String, _ ratios: [Int64], _ commodity: Commodity = .usd) throws -> [String] {
            try Money(parsing: text, commodity: commodity).allocated(byRatios: ratios).map(\.decimalString)
        }
        // 0.01 split 70/30: the 70 share (0.007) has the larger remainder.
        #expect(try split("0.01", [70, 30]) == ["0.01", "0.00"])
        #expect(try split("-0.01", [70, 30]) == ["-0.01", "0.00"])
        // 0.01 split 30/70: the unit follows the larger remainder, not the index.
        #expect(try split("0.01", [30, 70]) == ["0.00", "0.01"])
        // 0.01 split 50/50: a tie goes to the earlier index.
        #expect(try split("0.01", [50, 50]) == ["0.01", "0.00"])
        #expect(try split("100.01", [70, 30]) == ["70.01", "30.00"])
        #expect(try split("100.00", [70, 30]) == ["70.00", "30.00"])
        #expect(try split("0.05", [70, 30]) == ["0.04", "0.01"])     // 0.035 / 0.015: tie → earlier
        #expect(try split("1.00", [1, 1, 1]) == ["0.34", "0.33", "0.33"])
        #expect(try split("-1.00", [1, 1, 1]) == ["-0.34", "-0.33", "-0.33"])
        #expect(try split("0.02", [1, 1, 1]) == ["0.01", "0.01", "0.00"])
        #expect(try split("0.00", [3, 0, 2]) == ["0.00", "0.00", "0.00"])
        #expect(try split("10", [1, 1, 1], .jpy) == ["4", "3", "3"])
        #expect(try split("0.000001", [70, 30], .usdc) == ["0.000001", "0.000000"])
    }

    @Test func extremeAmountsAndRatios() throws {
        let min = Money(minorUnits: Int64.min, commodity: .usd)
        #expect(try min.allocated(byRatios: [1, 1]).map(\.minorUnits) == [Int64.min / 2, Int64.min / 2])
        try Self.checkAllocation(min, ratios: [1, 1, 1], context: "Int64.min by thirds")
        let max = Money(minorUnits: Int64.max, commodity: .usd)
        try Self.checkAllocation(max, ratios: [Int64.max, Int64.max, 1], context: "Int64.max by huge ratios")
        try Self.checkAllocation(min, ratios: [Int64.max, 0, Int64.max - 1], context: "Int64.min by huge ratios")
        let many = try Money(parsing: "1.00", commodity: .usd).allocated(byRatios: Array(repeating: 1, count: 10_000))
        #expect(many.count == 10_000)
        #expect(many.prefix(100).allSatisfy { $0.minorUnits == 1 } && many.dropFirst(100).allSatisfy(\.isZero))
    }

    static let invalidRatios: [[Int64]] = [[], [0], [0, 0, 0], [-1, 2], [70, -30], [Int64.min], Array(repeating: 1, count: 10_001)]

    @Test(arguments: invalidRatios)
    func rejectsInvalidRatios(_ ratios: [Int64]) {
        let error = #expect(throws: MoneyError.self, "\(ratios.prefix(5)) count \(ratios.count)") {
            try Money(minorUnits: 100, commodity: .usd).allocated(byRatios: ratios)
        }
        #expect(error?.code == .invalidRatios, "\(ratios.prefix(5))")
        #expect(error?.message.isEmpty == false)
    }
}
