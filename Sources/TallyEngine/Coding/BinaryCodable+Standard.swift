/// The longest string an event field may hold, in UTF-8 bytes (names, payees, notes).
public let eventStringBytesLimit = 1_024
/// The most elements a list field of an event may hold.
public let eventListCountLimit = 10_000

extension String: BinaryCodable {
    public func encode(to writer: inout BinaryWriter) { writer.writeString(self) }
    public init(from reader: inout BinaryReader) throws { self = try reader.readString(limit: eventStringBytesLimit) }
    /// Whether the string is within ``eventStringBytesLimit`` bytes (a Swift string is valid
    /// UTF-8, so its bytes read back as the same string); a control character in it is noted
    /// in `reader` when it scans for them, for the record check to find and name.
    public static func readsBack(_ value: String, from reader: inout BinaryReader) -> Bool? {
        var value = value
        return value.withUTF8 { utf8 in
            if reader.scansForControlCharacters && EventText.containsControl(utf8) { reader.sawControlCharacter = true }
            guard utf8.count <= eventStringBytesLimit, (try? reader.readVarint()) == UInt64(utf8.count) else { return false }
            reader.position += utf8.count
            return reader.position <= reader.bytes.count
        }
    }
}

extension Bool: BinaryCodable {
    public func encode(to writer: inout BinaryWriter) { writer.writeByte(self ? 1 : 0) }
    /// Always: both values have a byte of their own.
    public static func readsBack(_ value: Bool, from reader: inout BinaryReader) -> Bool? { (try? reader.readByte()) != nil }
    public init(from reader: inout BinaryReader) throws {
        switch try reader.readByte() {
        case 0: self = false
        case 1: self = true
        case let other: throw EventCodingError(.invalidValue, "boolean byte \(other) is neither 0 nor 1\(reader.where)")
        }
    }
}

extension Int64: BinaryCodable {
    public func encode(to writer: inout BinaryWriter) { writer.writeZigZag(self) }
    /// Always: every value has a zigzag form.
    public static func readsBack(_ value: Int64, from reader: inout BinaryReader) -> Bool? { (try? reader.readVarint()) != nil }
    public init(from reader: inout BinaryReader) throws { self = try reader.readZigZag() }
}

extension Int: BinaryCodable {
    public func encode(to writer: inout BinaryWriter) { writer.writeZigZag(Int64(self)) }
    /// Always: every value has a zigzag form (`Int` is 64 bits on every platform Tally runs on).
    public static func readsBack(_ value: Int, from reader: inout BinaryReader) -> Bool? { (try? reader.readVarint()) != nil }
    public init(from reader: inout BinaryReader) throws { self = Int(try reader.readZigZag()) }
}

extension UInt64: BinaryCodable {
    public func encode(to writer: inout BinaryWriter) { writer.writeVarint(self) }
    /// Always: every value has a varint form.
    public static func readsBack(_ value: UInt64, from reader: inout BinaryReader) -> Bool? { (try? reader.readVarint()) != nil }
    public init(from reader: inout BinaryReader) throws { self = try reader.readVarint() }
}

extension Optional: BinaryCodable where Wrapped: BinaryCodable {
    /// Absent is one 0 byte; present is a 1 byte followed by the value.
    public func encode(to writer: inout BinaryWriter) {
        switch self {
        case .none: writer.writeByte(0)
        case .some(let value):
            writer.writeByte(1)
            value.encode(to: &writer)
        }
    }

    public init(from reader: inout BinaryReader) throws {
        switch try reader.readByte() {
        case 0: self = .none
        case 1: self = .some(try Wrapped(from: &reader))
        case let other: throw EventCodingError(.invalidValue, "optional marker \(other) is neither 0 nor 1\(reader.where)")
        }
    }
    /// Whether the marker reads back, and the value, when present, by its own rule.
    public static func readsBack(_ value: Self, from reader: inout BinaryReader) -> Bool? {
        guard let marker = try? reader.readByte() else { return false }
        switch value {
        case .none: return marker == 0
        case .some(let wrapped): return marker == 1 ? Wrapped.readsBack(wrapped, from: &reader) : false
        }
    }
}

extension Array: BinaryCodable where Element: BinaryCodable {
    /// A varint count followed by the elements.
    public func encode(to writer: inout BinaryWriter) {
        writer.writeVarint(UInt64(count))
        for element in self { element.encode(to: &writer) }
    }

    public init(from reader: inout BinaryReader) throws {
        let count = try reader.readVarint()
        guard count <= UInt64(eventListCountLimit) else {
            throw EventCodingError(.limitExceeded, "list of \(count) elements exceeds the limit of \(eventListCountLimit)\(reader.where)")
        }
        self = []
        reserveCapacity(Int(count))
        for _ in 0..<count { append(try Element(from: &reader)) }
    }
    /// Whether the count is within ``eventListCountLimit`` and every element reads back by
    /// its own rule (nil when an element's type cannot tell).
    public static func readsBack(_ value: Self, from reader: inout BinaryReader) -> Bool? {
        guard value.count <= eventListCountLimit, (try? reader.readVarint()) == UInt64(value.count) else { return false }
        for element in value {
            // nil: the element's type cannot tell (and may not have read its bytes).
            guard let readsBack = Element.readsBack(element, from: &reader) else { return nil }
            if !readsBack { return false }
        }
        return true
    }
}

/// An enumeration stored by its raw string, in JSON and in the log alike, so that new
/// cases can be added without renumbering.
public protocol EventEnumeration: RawRepresentable, CaseIterable, Codable, Hashable, Sendable, BinaryCodable
where RawValue == String {}

extension EventEnumeration {
    public func encode(to writer: inout BinaryWriter) { writer.writeString(rawValue) }

    public init(from reader: inout BinaryReader) throws {
        let raw = try reader.readString(limit: 64)
        guard let value = Self(rawValue: raw) else {
            throw EventCodingError(.invalidValue, "'\(raw)' is not one of \(Self.allRawValues)\(reader.where)")
        }
        self = value
    }

    /// The accepted raw values, for error messages and schemas.
    public static var allRawValues: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
