/// Appends the compact binary form of event payloads: LEB128 varints, zigzag for signed
/// integers, length-prefixed UTF-8 strings. Byte layout: `Schemas/log-format.md`.
public struct BinaryWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8]
    /// The keys personal text is sealed under (``writePersonal(_:subject:)-(String,_)``); nil writes
    /// it plain (a catalog that never reaches a store).
    public var subjectKeys: SubjectKeys?
    /// Writes personal text as the plain strings of the version before sealing (``PlainTextVersion``).
    var writesPlainPersonalText = false
    /// The record check's measures of what is written (``EventCatalog/record(for:)``); nil
    /// when no check is asked.
    var check: BinaryPayloadCheck?

    /// An empty writer with room for `capacity` bytes before it grows.
    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Writes one byte.
    @inlinable
    public mutating func writeByte(_ byte: UInt8) { bytes.append(byte) }

    /// Writes an unsigned LEB128 varint (1 to 10 bytes).
    @inlinable
    public mutating func writeVarint(_ value: UInt64) {
        var remaining = value
        while remaining >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(remaining))
    }

    /// Writes a signed integer as a zigzag varint, so small magnitudes take one byte.
    @inlinable
    public mutating func writeZigZag(_ value: Int64) {
        writeVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Writes a varint byte count followed by the string's UTF-8 bytes.
    @inlinable
    public mutating func writeString(_ value: String) {
        var copy = value
        copy.withUTF8 { utf8 in
            writeVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Writes any value with a binary form.
    @inlinable
    public mutating func write<Value: BinaryCodable>(_ value: Value) {
        value.encode(to: &self)
    }
}

/// A value with a compact binary form in the log. Field order is the contract:
/// a payload writes its fields in the order its JSON Schema lists them.
public protocol BinaryCodable {
    /// Appends this value's binary form.
    func encode(to writer: inout BinaryWriter)
    /// Reads a value, throwing ``EventCodingError`` on short or invalid input.
    init(from reader: inout BinaryReader) throws
    /// Whether `value`, whose binary form `reader` holds from where it stands, reads back
    /// equal to it; nil when the type cannot tell (it is not `Equatable`). The record check
    /// (``EventCatalog/record(for:)``) asks it of every such value of a payload as the
    /// payload is written, instead of reading the whole payload back.
    ///
    /// The default reads the value (`init(from:)`) and compares it, for an `Equatable` type;
    /// a type whose every value reads back may answer true without reading.
    static func readsBack(_ value: Self, from reader: inout BinaryReader) -> Bool?
}

extension BinaryCodable {
    /// Cannot tell: the type is not `Equatable`; the record check reads the whole payload back.
    public static func readsBack(_ value: Self, from reader: inout BinaryReader) -> Bool? { nil }
}

extension BinaryCodable where Self: Equatable {
    /// Reads the value back and compares it with `value`.
    public static func readsBack(_ value: Self, from reader: inout BinaryReader) -> Bool? {
        (try? Self(from: &reader)) == value
    }
}
