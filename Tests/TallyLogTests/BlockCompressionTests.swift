import Testing
@testable import TallyLog

/// LZ4 blocks of both efforts: the same format, read back by the one decompressor; the
/// high effort, which the log's frames use, stores repetitive records in fewer bytes.
struct BlockCompressionTests {
    /// Records like a journal's: a few account names and payees over and over, amounts and
    /// ids that change, and a random tail that does not compress.
    private static func recordLikeBytes(_ rng: inout SplitMix64, count: Int) -> [UInt8] {
        let words = ["Assets:Checking", "Expenses:Groceries", "Whole Foods Market", "Income:Salary", "journal:bank-42-", "USD", "EUR"]
        var bytes: [UInt8] = []
        while bytes.count < count {
            bytes += Array(words[Int(rng.next() % UInt64(words.count))].utf8)
            bytes += Array(String(rng.next() % 100_000).utf8)
            if rng.next() % 4 == 0 { bytes += (0..<Int(rng.next() % 24)).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
        }
        return Array(bytes.prefix(count))
    }

    @Test func bothEffortsReadBackThroughTheOneDecompressor() throws {
        let seed: UInt64 = 20_261_127
        var rng = SplitMix64(seed: seed)
        var stored: [BlockCompression.Effort: Int] = [.fast: 0, .high: 0]
        for round in 0..<40 {
            let bytes = Self.recordLikeBytes(&rng, count: 1 + Int(rng.next() % 200_000))
            for effort in [BlockCompression.Effort.fast, .high] {
                guard let packed = BlockCompression.compress(bytes, effort: effort) else {
                    Issue.record("round \(round), seed \(seed): \(bytes.count) record-like bytes did not compress (\(effort))")
                    continue
                }
                #expect(try BlockCompression.decompress(packed, count: bytes.count) == bytes, "round \(round), seed \(seed), \(effort)")
                stored[effort, default: 0] += packed.count
            }
        }
        #expect(stored[.high]! < stored[.fast]!, "seed \(seed): high effort stored \(stored[.high]!) bytes, fast \(stored[.fast]!)")
    }

    @Test func bytesThatDoNotShrinkAreLeftAsTheyAre() {
        var rng = SplitMix64(seed: 5)
        let noise = (0..<4_096).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        #expect(BlockCompression.compress(noise, effort: .high) == nil)
        #expect(BlockCompression.compress(noise, effort: .fast) == nil)
        #expect(BlockCompression.compress([], effort: .high) == nil)
    }
}
