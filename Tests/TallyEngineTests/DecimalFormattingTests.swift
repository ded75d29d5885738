import Testing
import TallyLog
import TallyTestSupport
@testable import TallyEngine

/// A scaled integer as plain decimal text (`DecimalFormatting`), written right to left into a
/// stack buffer, agrees with the spelling built from strings (the reference below) at every
/// scale, for the extremes of `Int64` and seeded values of every length.
@Suite struct DecimalFormattingTests {
    /// The spelling as strings make it: sign, whole part, and the fraction padded to `scale`.
    static func reference(_ value: Int64, scale: Int) -> String {
        let magnitude = value.magnitude
        let sign = value < 0 ? "-" : ""
        guard scale > 0 else { return sign + String(magnitude) }
        var unit: UInt64 = 1
        for _ in 0..<scale { unit *= 10 }
        let fraction = String(magnitude % unit)
        return sign + String(magnitude / unit) + "." + String(repeating: "0", count: scale - fraction.count) + fraction
    }

    @Test func everyValueAtEveryScaleIsSpelledAsTheReferenceSpellsIt() {
        let seed = TestSeed.value(default: 20_261_201)
        var random = SplitMix64(seed: seed)
        let edges: [Int64] = [0, 1, -1, 5, -5, 9, 10, 99, 100, 12_345, -12_345, .max, .min, .max - 1, .min + 1]
        for index in 0..<20_000 {
            // Values of every digit count up to 18 (the edges have 19): a random magnitude cut
            // to a random number of digits.
            let digits = Int(random.next() % 18) + 1
            var limit: UInt64 = 1
            for _ in 0..<digits { limit *= 10 }
            let magnitude = Int64(random.next() % limit)
            let value = index < edges.count ? edges[index] : (random.next() % 2 == 0 ? magnitude : -magnitude)
            let scale = Int(random.next() % 19)
            let spelled = DecimalFormatting.string(value, scale: scale)
            #expect(spelled == Self.reference(value, scale: scale), "seed \(seed): \(value) at scale \(scale)")
            #expect(spelled.utf8.count <= DecimalFormatting.bytesMax, "seed \(seed): \(value) at scale \(scale)")
            if spelled != Self.reference(value, scale: scale) { return }
        }
    }

    @Test func theExamplesOfTheDocumentation() {
        #expect(DecimalFormatting.string(5, scale: 2) == "0.05")
        #expect(DecimalFormatting.string(-1250, scale: 2) == "-12.50")
        #expect(DecimalFormatting.string(0, scale: 2) == "0.00")
        #expect(DecimalFormatting.string(42, scale: 0) == "42")
        #expect(DecimalFormatting.string(.min, scale: 18) == "-9.223372036854775808")
    }
}
