import Testing
import TallyTestSupport
@testable import TallyEngine
import TallyLog

/// The texts and commodities one read's decodes share (`DecodedTexts`): whatever was met
/// before, in whatever order, each answer is the one made afresh.
@Suite struct DecodedTextsTests {
    /// Texts that share a slot (same length, first and last byte), at the edges of what is
    /// kept (15, 16, 48 and 49 bytes), not ASCII, and not UTF-8 at all.
    static let pool: [[UInt8]] = {
        var texts: [String] = [
            "", "USD", "Assets:Checking", "Expenses:Dining", "Expenses:Transport", "Expenses:Transpor",
            "Expenses:AAAAAAAAx", "Expenses:BBBBBBBBx", "Expenses:CCCCCCCCx", "Café Luna, Oakland", "日本の食料品店です",
            String(repeating: "a", count: 15), String(repeating: "a", count: 16), String(repeating: "b", count: 16),
            String(repeating: "c", count: 48), "c" + String(repeating: "d", count: 46) + "c", String(repeating: "e", count: 49),
        ]
        texts += (0..<20).map { "Liabilities:Card:\($0 % 10):x" }
        var pool = texts.map { Array($0.utf8) }
        pool.append(Array("Expenses:Groceries".utf8) + [0xFF])
        pool.append([0x45] + Array(repeating: 0x78, count: 16) + [0xE2, 0x82])
        pool.append(Array("Expenses:Groceries".utf8))
        return pool
    }()

    @Test func aTextMetBeforeReadsAsTheSameTextMadeAfresh() {
        let seed = TestSeed.value(default: 20_261_130)
        var random = SplitMix64(seed: seed)
        let texts = DecodedTexts()
        for step in 0..<20_000 {
            let bytes = Self.pool.randomElement(using: &random)!
            guard DecodedTexts.kept.contains(bytes.count) else { continue }
            let shared = bytes.withUnsafeBufferPointer { texts.text($0) }
            let fresh = bytes.withUnsafeBufferPointer { UTF8Text.string($0) }
            #expect(shared == fresh, "seed \(seed), step \(step): \(bytes)")
            if shared != fresh { return }
        }
    }

    @Test func aCommodityMetBeforeIsTheOneItsCodeNames() {
        let seed = TestSeed.value(default: 20_261_131)
        var random = SplitMix64(seed: seed)
        let texts = DecodedTexts()
        let codes = ["USD", "EUR", "JPY", "KWD", "BTC", "ETH", "USDC", "BRK.B", "XAU", "VWRL", "GBP", "CHF", "usd", "", "1ABC"]
        for step in 0..<5_000 {
            let code = codes.randomElement(using: &random)!
            let shared = Result { try texts.commodity(code) }
            let named = Result { try Commodity.named(code) }
            switch (shared, named) {
            case (.success(let ours), .success(let theirs)):
                #expect(ours == theirs && ours.scale == theirs.scale, "seed \(seed), step \(step): \(code)")
            case (.failure, .failure):
                break
            default:
                Issue.record("seed \(seed), step \(step): \(code) gave \(shared), Commodity.named \(named)")
                return
            }
        }
    }

    @Test func aReaderSharingTextsReadsWhatAReaderAloneReads() throws {
        var writer = BinaryWriter()
        let strings = Self.pool.compactMap { String(validating: $0, as: UTF8.self) }
        for text in strings + strings.reversed() { writer.writeString(text) }
        for code in ["USD", "EUR", "USD", "JPY", "EUR"] { try Commodity.named(code).encode(to: &writer) }
        var alone = BinaryReader(writer.bytes)
        var sharing = BinaryReader(writer.bytes)
        sharing.texts = DecodedTexts()
        for _ in 0..<(2 * strings.count) { #expect(try sharing.readString() == alone.readString()) }
        for _ in 0..<5 { #expect(try Commodity(from: &sharing) == Commodity(from: &alone)) }
        #expect(sharing.isAtEnd && alone.isAtEnd)
    }
}
