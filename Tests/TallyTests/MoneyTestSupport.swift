// Shared helpers for the money-layer tests.

/// A tiny deterministic PRNG (SplitMix64). Every random test states its seed,
/// and prints it with the failing value, so a failure reproduces exactly.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An Int64 biased toward interesting values: small numbers, numbers near
    /// the limits, and anything in between.
    mutating func interestingInt64() -> Int64 {
        switch next() % 6 {
        case 0: return Int64.random(in: -1_000...1_000, using: &self)
        case 1: return Int64.max - Int64.random(in: 0...1_000, using: &self)
        case 2: return Int64.min + Int64.random(in: 0...1_000, using: &self)
        case 3: return Int64.random(in: -10_000_000_000...10_000_000_000, using: &self)
        default: return Int64(bitPattern: next())
        }
    }
}
