/// A small, fast, seedable generator (SplitMix64): the same seed gives the same sequence on
/// every machine. Fault simulation draws its faults from it; tests, benchmarks and the demo
/// draw their synthetic ledgers.
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let amount = Int64.random(in: 1...10_000, using: &random)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// True with probability `perMillion` / 1,000,000.
    public mutating func chance(perMillion: Int) -> Bool {
        perMillion > 0 && Int.random(in: 0..<1_000_000, using: &self) < perMillion
    }
}
