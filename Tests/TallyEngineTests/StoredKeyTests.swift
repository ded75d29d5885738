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
        let starts = ["journal:", "journal:row:", "journa", "journal", "\u{1}", "\u{2}", "\u{3}", "\u{1}row:", "", "recurring:", "j"]
        let letters = ["a", "b", ":", "1", "\u{1}", "\u{2}", "\u{3}", "é", "row:"]
        if Int.random(in: 0..<4, using: &random) == 0 { return datedKey(&random) }
        var key = starts.randomElement(using: &random)!
        for _ in 0..<Int.random(in: 0...4, using: &random) { key += letters.randomElement(using: &random)! }
        return key
    }

    /// Dated content keys and near-misses: a digest from a two-letter alphabet (so that keys
    /// repeat), days that are and are not calendar dates, counts with and without leading zeros.
    private static func datedKey(_ random: inout SplitMix64) -> String {
        let characters = ["A", "_", "A", "_", "A", "_", "A", "+"]
        let length = [15, 16, 16, 16, 17].randomElement(using: &random)!
        let digest = (0..<length).map { _ in characters.randomElement(using: &random)! }.joined()
        let date = ["20260501", "20260502", "00010101", "99991231", "20260230", "2026050", "2026-5-1"].randomElement(using: &random)!
        let count = ["1", "2", "10", "01", "0", "4294967295", "4294967296", ""].randomElement(using: &random)!
        return "journal:row:~:\(date)\(digest):\(count)"
    }

    /// The stored spelling's bytes.
    private static func bytes(_ key: String) -> [UInt8] { StoredKey.withSpelling(of: key) { Array($0) } }

    @Test func noTwoKeysShareASpelling() {
        let seed = TestSeed.value(default: 20_261_127)
        var random = SplitMix64(seed: seed)
        var keysBySpelling: [[UInt8]: String] = [:]
        for _ in 0..<20_000 {
            let key = Self.key(&random)
            let spelling = Self.bytes(key)
            if let other = keysBySpelling[spelling] {
                #expect(other == key, "seed \(seed): '\(other.debugDescription)' and '\(key.debugDescription)' are both stored as \(spelling)")
            }
            keysBySpelling[spelling] = key
        }
        #expect(keysBySpelling.count > 1_000, "seed \(seed): the generator made too few distinct keys to tell anything")
        #expect(keysBySpelling.keys.count { $0.first == StoredKey.datedMarker } > 50, "seed \(seed): too few dated keys")
    }

    /// A dated content key is stored as `0x03`, its day from 0001-01-01 in 3 bytes, the 96
    /// bits of its 16 characters and its count as a varint; only a key exactly as the import
    /// writes it (a calendar date, 16 base64url characters, a count from 1 without leading
    /// zeros that fits 32 bits) is; any other is text behind `0x01`, and a key that begins
    /// with `0x03` itself is behind `0x02`.
    @Test func aDatedContentKeyIsStoredInSeventeenBytes() throws {
        // The digest of JournalCSVTests' row: e505d8dd8ecfeb6ef7b46729 are its first 12 bytes.
        let key = "journal:row:~:20260501" + "5QXY3Y7P6273tGcp" + ":1"
        let day = try LocalDate(year: 2026, month: 5, day: 1).daysSinceEpoch - (try LocalDate(year: 1, month: 1, day: 1).daysSinceEpoch)
        let expected: [UInt8] = [3, UInt8(day >> 16), UInt8(day >> 8 & 0xFF), UInt8(day & 0xFF),
                                 0xe5, 0x05, 0xd8, 0xdd, 0x8e, 0xcf, 0xeb, 0x6e, 0xf7, 0xb4, 0x67, 0x29, 1]
        #expect(Self.bytes(key) == expected)
        #expect(Self.bytes("journal:row:~:20260501" + "5QXY3Y7P6273tGcp" + ":300") == Array(expected.dropLast()) + [0xAC, 0x02])
        for text in ["row:~:20260230AAAAAAAAAAAAAAAA:1", "row:~:20260501AAAAAAAAAAAAAAAA:01", "row:~:20260501AAAAAAAAAAAAAAAA:0",
                     "row:~:20260501AAAAAAAAAAAAAAA:1", "row:~:20260501AAAAAAAAAAAAAAA+:1", "row:~:20260501AAAAAAAAAAAAAAAA:4294967296",
                     "row:~:20260501AAAAAAAAAAAAAAAA:", "row:~:20260501AAAAAAAAAAAAAAAA1", "row:~:2026050AAAAAAAAAAAAAAAAA:1"] {
            #expect(Self.bytes("journal:" + text) == [1] + Array(text.utf8), "\(text)")
        }
        #expect(Self.bytes("\u{3}x") == [2, 3, UInt8(ascii: "x")])
        // Dated keys keep the order of their days.
        #expect(Self.bytes("journal:row:~:20260430________________:9").lexicographicallyPrecedes(Self.bytes("journal:row:~:20260501AAAAAAAAAAAAAAAA:1")))
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
    /// lands where the batch before it did rather than all over the table. (Dated content
    /// keys, stored in bytes, keep the order of their days: the next test.)
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
