internal import Foundation
public import TallyEngine
public import TallyLog

/// The seed of a randomized test: `TALLY_TEST_SEED` when set (to replay a failure), else
/// the test's fixed default.
public enum TestSeed {
    public static func value(default seed: UInt64) -> UInt64 {
        guard let text = ProcessInfo.processInfo.environment["TALLY_TEST_SEED"] else { return seed }
        if text.hasPrefix("0x"), let parsed = UInt64(text.dropFirst(2), radix: 16) { return parsed }
        return UInt64(text) ?? seed
    }

    /// The seed of the `index`th random ledger of a suite seeded with `master`.
    public static func ledger(_ index: Int, of master: UInt64) -> UInt64 {
        master &+ UInt64(index) &* 0x9E37_79B9
    }

    /// "Known at" instants to compare a ledger's answers at: now (nil), just before its first
    /// recorded event, then a microsecond either side of (or at) random recorded instants.
    public static func knownAts(_ count: Int, recorded: [Instant], random: inout SplitMix64) -> [Instant?] {
        (0..<count).map { position in
            switch position {
            case 0: return nil
            case 1: return Instant(microsecondsSinceEpoch: recorded[0].microsecondsSinceEpoch - 1)
            default:
                let instant = recorded.randomElement(using: &random)!.microsecondsSinceEpoch
                return Instant(microsecondsSinceEpoch: instant + [-1, 0, 0, 1].randomElement(using: &random)!)
            }
        }
    }
}
