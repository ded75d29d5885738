import Foundation
import Testing
import TallyLog
import TallyTestSupport
@testable import TallyEngine

/// The CSV import's fast paths against the general ones they stand in for: the reader's
/// (whole simple records split in the read chunk) against its byte-by-byte path, on any text
/// the same records at the same lines or the same error; the amount parser's against
/// `Money(parsing:commodity:)`.
@Suite struct CSVFastPathTests {
    /// What reading a whole file gives: its records, or the error that stopped it.
    private struct Outcome: Equatable {
        var records: [[String]] = []
        var lines: [Int] = []
        var error: String?
        var bytesRead: Int64 = 0
        /// The SHA-256 of the file as read (each byte hashed once, however the chunk moved).
        var digest: String?
    }

    private func read(_ path: String, fast: Bool, chunkBytes: Int) -> Outcome {
        var outcome = Outcome()
        do {
            let reader = try CSVReader(path: path, usesFastPath: fast, chunkBytes: chunkBytes)
            while let record = try reader.next() {
                outcome.records.append(record.fields)
                outcome.lines.append(record.line)
            }
            outcome.bytesRead = reader.bytesRead
            outcome.digest = reader.hexDigest()
        } catch {
            outcome.error = "\(error)"
        }
        return outcome
    }

    /// Pieces a random CSV text is made of: plain and multi-byte text, separators, quotes
    /// (paired, doubled and stray), line ends of both kinds, lone CRs and bytes that are not UTF-8.
    private static let pieces: [[UInt8]] = [
        Array("abc".utf8), Array("Assets:Checking".utf8), Array("12.50".utf8), Array("é".utf8), Array("€".utf8),
        Array(",".utf8), Array(",".utf8), Array(",".utf8), Array("\n".utf8), Array("\r\n".utf8), Array("\n".utf8),
        Array("\"".utf8), Array("\"quoted, text\"".utf8), Array("\"\"".utf8), Array("\r".utf8), [0xFF], [0xC3],
        Array("\u{FEFF}".utf8), Array(" ".utf8), Array("\t".utf8),
    ]

    @Test func bothPathsReadEveryRandomTextAlike() throws {
        let seed = TestSeed.value(default: 0x5EED_C5F0)
        var generator = SplitMix64(seed: seed)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("csv-fast-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for round in 0..<1_000 {
            var bytes: [UInt8] = []
            // Mostly well-formed rows, so that the fast path runs; now and then any piece.
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    for _ in 0..<Int.random(in: 1...6, using: &generator) {
                        bytes += Self.pieces[Int.random(in: 0..<Self.pieces.count, using: &generator)]
                    }
                } else {
                    let fields = (0..<Int.random(in: 1...8, using: &generator)).map { _ in
                        Self.pieces[Int.random(in: 0..<5, using: &generator)] + (Bool.random(using: &generator) ? [] : Array("x".utf8))
                    }
                    bytes += Array(fields.joined(separator: Array(",".utf8)))
                    bytes += Bool.random(using: &generator) ? Array("\n".utf8) : Array("\r\n".utf8)
                }
            }
            let path = directory.appendingPathComponent("\(round).csv").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let chunkBytes = [1, 2, 3, 7, 16, 64, 1 << 20][Int.random(in: 0..<7, using: &generator)]
            let slow = read(path, fast: false, chunkBytes: chunkBytes)
            let fast = read(path, fast: true, chunkBytes: chunkBytes)
            #expect(fast == slow, "seed \(seed), round \(round), chunk \(chunkBytes) bytes: \(Array(bytes))")
            if fast != slow { return }
        }
    }

    @Test func aRecordLongerThanTheChunkIsReadWhole() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("csv-long-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("long.csv").path
        let long = String(repeating: "y", count: 100)
        try Data("a,\(long)\nb,c\n".utf8).write(to: URL(fileURLWithPath: path))
        let outcome = read(path, fast: true, chunkBytes: 16)
        #expect(outcome.records == [["a", long], ["b", "c"]])
        #expect(outcome.lines == [1, 2])
        #expect(outcome.error == nil)
    }

    /// Every text of up to five characters from digits, sign, point and strays, in
    /// commodities of scale 0, 2, 3 and 8: where the fast parser answers, it is the answer
    /// `Money(parsing:)` gives.
    @Test func simpleAmountsParseAsTheGeneralParserDoes() throws {
        let alphabet: [Character] = ["0", "1", "9", "-", ".", "+", "x"]
        let commodities = [try Commodity(code: "JPY", scale: 0), Commodity.usd, try Commodity(code: "BHD", scale: 3), try Commodity(code: "VEA", scale: 8)]
        var texts: [String] = [""]
        var frontier: [String] = [""]
        for _ in 1...5 {
            frontier = frontier.flatMap { prefix in alphabet.map { prefix + String($0) } }
            texts += frontier
        }
        // Long ones, around the 18-digit bound and Int64's limit.
        texts += ["999999999999999999", "9999999999999999999", "-999999999999999999", "9223372036854775807",
                  "99999999999999999.9", "9999999999999999.99", "1234567890.12345678", "0000000000000000001.5"]
        var answered = 0
        for commodity in commodities {
            for text in texts {
                guard let fast = CSVFields.simpleMoney(text, commodity) else { continue }
                answered += 1
                let general = try? Money(parsing: text, commodity: commodity)
                #expect(fast == general, "'\(text)' in \(commodity.code) (scale \(commodity.scale))")
            }
        }
        #expect(answered > 1_000)
        #expect(CSVFields.simpleMoney("42.10", .usd) == Money(minorUnits: 4_210, commodity: .usd))
        #expect(CSVFields.simpleMoney("-7", .usd) == Money(minorUnits: -700, commodity: .usd))
        #expect(CSVFields.simpleMoney("5.", .usd) == nil)
        #expect(CSVFields.simpleMoney("5.000", .usd) == nil)
    }
}
