import Testing
@testable import TallyLog

struct CRC32CTests {
    /// Bit-at-a-time reference implementation.
    static func reference(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    @Test func standardCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test func rfc3720Vectors() {
        #expect(CRC32C.checksum([UInt8]()) == 0)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(CRC32C.checksum((0..<32).map { UInt8(31 - $0) }) == 0x113F_DB5C)
    }

    @Test func matchesReferenceForEveryLengthAndSplit() {
        let seed: UInt64 = 0xC3C3
        var rng = SplitMix64(seed: seed)
        let data = (0..<200).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        for length in 0...data.count {
            let prefix = Array(data[0..<length])
            let expected = Self.reference(prefix)
            #expect(CRC32C.checksum(prefix) == expected, "length \(length), seed \(seed)")
            for split in stride(from: 0, through: length, by: 7) {
                let chained = CRC32C.update(CRC32C.checksum(prefix[0..<split]), prefix[split...])
                #expect(chained == expected, "length \(length), split \(split), seed \(seed)")
            }
        }
    }
}
