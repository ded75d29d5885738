import Testing
@testable import TallyLog

/// `UTF8Text.string`, the hot paths' string maker, against `String(validating:as:)`.
@Suite struct UTF8TextTests {
    @Test func everyOneAndTwoByteSequenceReadsAsTheStandardLibraryReadsIt() {
        var sequences: [[UInt8]] = [[]]
        for first in 0...255 {
            sequences.append([UInt8(first)])
            for second in 0...255 { sequences.append([UInt8(first), UInt8(second)]) }
        }
        var mismatches = 0
        for bytes in sequences {
            let ours = bytes.withUnsafeBufferPointer { UTF8Text.string($0) }
            if ours != String(validating: bytes, as: UTF8.self) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func longerTextMixingASCIIAndOtherScalarsReadsAlike() {
        let samples: [[UInt8]] = [
            Array("Assets:Checking".utf8), Array("Café Luna".utf8), Array("€ 12,50".utf8), Array("日本".utf8),
            Array("abc".utf8) + [0xE2, 0x82], Array("abc".utf8) + [0xFF] + Array("def".utf8), [0xED, 0xA0, 0x80],
            Array(String(repeating: "x", count: 100).utf8), [0xF0, 0x9F, 0x98, 0x80],
        ]
        for bytes in samples {
            let ours = bytes.withUnsafeBufferPointer { UTF8Text.string($0) }
            #expect(ours == String(validating: bytes, as: UTF8.self), "\(bytes)")
        }
    }
}
