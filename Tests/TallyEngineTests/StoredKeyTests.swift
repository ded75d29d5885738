import Testing
import TallyLog
import TallyTestSupport
@testable import TallyEngine

/// How the idempotency read model spells keys (``StoredKey``): a journal's `journal:`
/// prefix in one byte, no two keys spelled alike, and the journal's keys in their order.
@Suite struct StoredKeyTests {
    /// Random keys from a small alphabet that makes near-misses likely: keys with and
    /// without the journal prefix, its first letters only, and the marker bytes themselves.
    private static func key(_ random: inout SplitMix64) -> String {
        let starts = ["journal:", "journal:row:", "journa", "journal", "\u{1}", "\u{2}", "\u{1}row:", "", "recurring:", "j"]
        let letters = ["a", "b", ":", "1", "\u{1}", "\u{2}", "é", "row:"]
        var key = starts.randomElement(using: &random)!
        for _ in 0..<Int.random(in: 0...4, using: &random) { key += letters.randomElement(using: &random)! }
        return key
    }

    @Test func noTwoKeysShareASpelling() {
        let seed = TestSeed.value(default: 20_261_127)
        var random = SplitMix64(seed: seed)
        var keysBySpelling: [[UInt8]: String] = [:]
        for _ in 0..<20_000 {
            let key = Self.key(&random)
            let spelling = Array(StoredKey.spelling(of: key).utf8)
            if let other = keysBySpelling[spelling] {
                #expect(other == key, "seed \(seed): '\(other.debugDescription)' and '\(key.debugDescription)' are both stored as \(spelling)")
            }
            keysBySpelling[spelling] = key
        }
        #expect(keysBySpelling.count > 1_000, "seed \(seed): the generator made too few distinct keys to tell anything")
    }

    @Test func aJournalKeyLosesItsPrefixToOneByteAndOthersStayAsTheyAre() {
        #expect(Array(StoredKey.spelling(of: "journal:bank-42-100").utf8) == [1] + Array("bank-42-100".utf8))
        #expect(Array(StoredKey.spelling(of: "journal:row:Qdmk:1").utf8) == [1] + Array("row:Qdmk:1".utf8))
        #expect(Array(StoredKey.spelling(of: "journal:").utf8) == [1])
        #expect(StoredKey.spelling(of: "recurring:rent:2026-05") == "recurring:rent:2026-05")
        #expect(StoredKey.spelling(of: "journal") == "journal")
        #expect(Array(StoredKey.spelling(of: "\u{1}bank-42-100").utf8) == [2, 1] + Array("bank-42-100".utf8))
        #expect(Array(StoredKey.spelling(of: "\u{2}x").utf8) == [2, 2, UInt8(ascii: "x")])
    }

    /// The journal's keys keep their order among themselves, so an import's batch of rows
    /// lands where the batch before it did rather than all over the table.
    @Test func journalKeysKeepTheirOrder() {
        let seed = TestSeed.value(default: 11)
        var random = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            let a = "journal:" + Self.key(&random), b = "journal:" + Self.key(&random)
            let (storedA, storedB) = (StoredKey.spelling(of: a), StoredKey.spelling(of: b))
            #expect(Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) == Array(storedA.utf8).lexicographicallyPrecedes(Array(storedB.utf8)),
                    "seed \(seed): \(a.debugDescription) and \(b.debugDescription)")
        }
    }
}
