// Shared helpers for the money-layer tests.

import TallyEngine
import TallyLog

/// Money-test helpers on the engine's seeded generator (SplitMix64): every random test
/// states its seed and prints it with the failing value, so a failure reproduces exactly.
extension SplitMix64 {
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
