/// CRC-32C (Castagnoli, reflected polynomial `0x82F63B78`), computed with
/// slicing-by-8: eight 256-entry tables let the loop consume eight bytes per step.
///
/// The check value of the ASCII string `"123456789"` is `0xE3069283`.
///
/// ```swift
/// let crc = CRC32C.checksum(Array("123456789".utf8))   // 0xE3069283
/// let same = CRC32C.update(CRC32C.checksum(Array("1234".utf8)), Array("56789".utf8))
/// ```
public enum CRC32C {
    /// The reflected Castagnoli polynomial.
    public static let polynomial: UInt32 = 0x82F6_3B78

    /// Eight tables of 256 entries, flat: table `k` starts at `k * 256`.
    /// Table 0 is the classic byte-at-a-time table; table `k` advances table `k − 1` by one zero byte.
    static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = (crc & 1) == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
            tables[index] = crc
        }
        for table in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(table - 1) * 256 + index]
                tables[table * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The CRC-32C of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        update(0, bytes)
    }

    /// Continues a checksum: `update(checksum(a), b) == checksum(a + b)`.
    public static func update(_ checksum: UInt32, _ bytes: some Sequence<UInt8>) -> UInt32 {
        if let result = bytes.withContiguousStorageIfAvailable({ update(checksum, UnsafeRawBufferPointer($0)) }) {
            return result
        }
        let copy = Array(bytes)
        return copy.withUnsafeBytes { update(checksum, $0) }
    }

    /// Continues a checksum over raw memory.
    public static func update(_ checksum: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = ~checksum
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return checksum }
        tables.withUnsafeBufferPointer { tablePointer in
            let table = tablePointer.baseAddress!
            var index = 0
            while index + 8 <= count {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let low = UInt32(truncatingIfNeeded: word) ^ crc
                let high = UInt32(truncatingIfNeeded: word >> 32)
                crc = table[7 * 256 + Int(low & 0xFF)]
                    ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)]
                    ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)]
                    ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)]
                    ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)]
                index += 1
            }
        }
        return ~crc
    }
}
