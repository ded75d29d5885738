import Testing
@testable import TallyLog

/// The texts a run of decodes met last (`RecentTexts`: a frame's entities, a read's names): each reads as
/// the standard library reads its bytes, whatever came before it.
@Suite struct RecentTextsTests {
    static let pool: [[UInt8]] = {
        var texts = [
            "", "account:Assets:Checking", "account:Expenses:Dining", "account:Expenses:AAAAx", "account:Expenses:BBBBx",
            "pot:holiday", "wealth:main", "café:Luna", "account:日本の銀行", String(repeating: "x", count: 15),
            String(repeating: "x", count: 16), String(repeating: "y", count: 16), String(repeating: "z", count: 200),
        ]
        texts += (0..<12).map { "account:Card:\($0):x" }
        var pool = texts.map { Array($0.utf8) }
        pool.append(Array("account:Expenses:Dining".utf8) + [0xC3])
        pool.append([0xFF] + Array("account:Expenses:Dining".utf8))
        pool.append(Array("account:Assets:Checking".utf8.dropLast()) + [0x80])
        return pool
    }()

    /// The frame decoder's window, and a narrow one (four slots, texts of 16 to 24 bytes) where
    /// texts collide more and lengths fall on both sides of what is kept.
    @Test(arguments: [(16, 16...LogFormat.entityBytesMax), (4, 16...24)])
    func everyTextReadsAsTheStandardLibraryReadsIt(slotCount: Int, kept: ClosedRange<Int>) {
        var random = SplitMix64(seed: 20_261_130)
        var texts = RecentTexts(slotCount: slotCount, kept: kept)
        for step in 0..<20_000 {
            let bytes = Self.pool.randomElement(using: &random)!
            let ours = bytes.withUnsafeBytes { texts.text($0) }
            #expect(ours == String(validating: bytes, as: UTF8.self), "seed 20261130, step \(step): \(bytes)")
            if ours != String(validating: bytes, as: UTF8.self) { return }
        }
    }
}
