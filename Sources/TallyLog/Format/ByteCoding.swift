/// Little-endian fixed-width and LEB128 varint encoding onto a byte array.
struct ByteWriter {
    var bytes: [UInt8]

    init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inline(__always) mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always) mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    @inline(__always) mutating func appendZigzag(_ value: Int64) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func append(contentsOf other: some Sequence<UInt8>) { bytes.append(contentsOf: other) }

    static func varintBytes(_ value: UInt64) -> Int {
        var value = value
        var count = 1
        while value >= 0x80 { value >>= 7; count += 1 }
        return count
    }
}

/// Reads little-endian fixed-width integers and varints; returns `nil` on short or malformed input.
/// Package access: the engine reads its packed read-model rows with it.
package struct ByteReader {
    let base: UnsafeRawBufferPointer
    package var position: Int

    package init(_ base: UnsafeRawBufferPointer, position: Int = 0) {
        self.base = base
        self.position = position
    }

    package var remaining: Int { base.count - position }

    @inline(__always) mutating func read<T: FixedWidthInteger>(_: T.Type = T.self) -> T? {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { return nil }
        let value = T(littleEndian: base.loadUnaligned(fromByteOffset: position, as: T.self))
        position += size
        return value
    }

    @inline(__always) package mutating func readVarint() -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < base.count {
            let byte = base[position]
            position += 1
            if shift == 63 && byte > 1 { return nil }   // more than 64 bits
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }

    @inline(__always) package mutating func readByte() -> UInt8? {
        read(UInt8.self)
    }

    @inline(__always) package mutating func readZigzag() -> Int64? {
        guard let raw = readVarint() else { return nil }
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    mutating func readBytes(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, remaining >= count else { return nil }
        let slice = UnsafeRawBufferPointer(rebasing: base[position..<position + count])
        position += count
        return slice
    }
}

extension Array where Element == UInt8 {
    /// Reads a little-endian integer at `offset` (the caller guarantees the bounds).
    func loadLittleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }

    mutating func storeLittleEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self) }
    }
}
