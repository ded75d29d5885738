// Reads the binary form of any `Decodable` payload: the `Decoder` side of
// `BinaryPayloadEncoder.swift`, so that an event type is declared once (its stored
// properties) and both its JSON and its log form are derived from that declaration.

/// A `Decoder` over a ``BinaryReader``: fields in declaration order, no keys.
///
/// Values whose type is ``BinaryCodable`` (`Money`, `Commodity`, `ExactDecimal`, `Instant`,
/// `LocalDate`, `Month`, every ``EventEnumeration``, and optionals and arrays of them) are
/// read by their own ``BinaryCodable/init(from:)``; strings, integers and booleans as
/// ``BinaryReader`` reads them; optionals as a 0/1 marker byte before the value; arrays as a
/// varint count before the elements; any other `Decodable` value (a nested struct) through
/// its own `init(from:)`, fields inline. The fields named in `personalTextFields` of the
/// payload itself are personal text (``BinaryReader/readPersonal()``).
///
/// Errors are ``EventCodingError``s, as the hand-written readers throw them.
final class BinaryPayloadDecoder: Decoder {
    /// The reader read from: the caller's, for the duration of ``decode(_:from:personalTextFields:)``.
    /// Through a pointer, so that each read neither copies the reader nor checks exclusive
    /// access to a property of this class.
    let input: UnsafeMutablePointer<BinaryReader>
    /// The personal text fields of the payload, handed to the first keyed container asked
    /// for (the payload's own) and to no nested one; nil once handed over, or when none.
    private var pendingPersonalText: [String: PersonalTextSealing]?

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    private init(input: UnsafeMutablePointer<BinaryReader>, personalTextFields: [String: PersonalTextSealing]) {
        self.input = input
        self.pendingPersonalText = personalTextFields.isEmpty ? nil : personalTextFields
    }

    /// The reader, for errors that name where it stands.
    var reader: BinaryReader { input.pointee }

    /// Reads a whole `Payload` from `reader`, advancing it past the payload's bytes.
    static func decode<Payload: Decodable>(
        _ type: Payload.Type, from reader: inout BinaryReader,
        personalTextFields: [String: PersonalTextSealing] = [:]
    ) throws -> Payload {
        // The decoder must not outlive this call: it reads through a pointer to `reader`.
        try withUnsafeMutablePointer(to: &reader) { input in
            try Payload(from: BinaryPayloadDecoder(input: input, personalTextFields: personalTextFields))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let personal = pendingPersonalText
        if personal != nil { pendingPersonalText = nil }
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, personalText: personal))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let count = try input.pointee.readVarint()
        guard count <= UInt64(eventListCountLimit) else {
            throw EventCodingError(.limitExceeded, "list of \(count) elements exceeds the limit of \(eventListCountLimit)\(reader.where)")
        }
        return UnkeyedContainer(decoder: self, count: Int(count))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueContainer(decoder: self) }

    // MARK: Values

    /// Reads one value of any type, by the rules above.
    @inline(__always)
    func value<T: Decodable>(_ type: T.Type) throws -> T {
        // The common leaves by their metadata (a pointer comparison) before the
        // conformance look-ups below.
        if T.self == Money.self { return unsafeBitCast(try Money(from: &input.pointee), to: T.self) }
        if T.self == LocalDate.self { return unsafeBitCast(try LocalDate(from: &input.pointee), to: T.self) }
        if T.self == Instant.self { return unsafeBitCast(try Instant(from: &input.pointee), to: T.self) }
        if T.self == String.self { return unsafeBitCast(try String(from: &input.pointee), to: T.self) }
        if let binary = T.self as? any BinaryCodable.Type {
            return try read(binary, as: T.self)
        }
        if let optional = T.self as? any BinaryCodedOptional.Type {
            return try readOptional(optional, as: T.self)
        }
        return try T(from: self)
    }

    /// Reads an optional of a value that is not ``BinaryCodable``: marker, then the value.
    private func readOptional<Value: BinaryCodedOptional, T>(_ type: Value.Type, as: T.Type) throws -> T {
        let value = try isPresent() ? Value(wrapping: try Value.wrappedValue(from: self)) : Value.absent
        return unsafeBitCast(value, to: T.self)
    }

    /// Reads a ``BinaryCodable`` value; `Value` is `T` (the caller's cast found it so).
    @inline(__always)
    private func read<Value: BinaryCodable, T>(_ type: Value.Type, as: T.Type) throws -> T {
        let value = try Value(from: &input.pointee)
        return unsafeBitCast(value, to: T.self)
    }

    /// Reads an optional's marker byte: whether a value follows.
    @inline(__always)
    func isPresent() throws -> Bool {
        switch try input.pointee.readByte() {
        case 0: return false
        case 1: return true
        case let other: throw EventCodingError(.invalidValue, "optional marker \(other) is neither 0 nor 1\(reader.where)")
        }
    }

    func signed<T: FixedWidthInteger & SignedInteger>(_ type: T.Type) throws -> T {
        let raw = try input.pointee.readZigZag()
        guard let value = T(exactly: raw) else {
            throw EventCodingError(.invalidValue, "\(raw) does not fit a \(T.self)\(reader.where)")
        }
        return value
    }

    func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type) throws -> T {
        let raw = try input.pointee.readVarint()
        guard let value = T(exactly: raw) else {
            throw EventCodingError(.invalidValue, "\(raw) does not fit a \(T.self)\(reader.where)")
        }
        return value
    }

    func noFloatingPoint(_ type: Any.Type) -> EventCodingError {
        EventCodingError(.invalidValue, "a \(type) field has no binary form: amounts, rates and quantities are exact (Money, ExactDecimal)\(reader.where)")
    }

    // MARK: Containers

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: BinaryPayloadDecoder
        /// The payload's personal text fields, nil in a nested container or when none.
        let personalText: [String: PersonalTextSealing]?
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        /// Whether `key`'s field is personal text: a scan of the one or two personal text
        /// fields, comparing names (short strings compare as two words), not a hash of the key.
        @inline(__always)
        private func isPersonal(_ key: Key) -> Bool {
            guard let personalText else { return false }
            let name = key.stringValue
            return personalText.keys.contains { $0 == name }
        }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { try !decoder.isPresent() }

        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            if isPersonal(key) { return try decoder.input.pointee.readPersonal() }
            return try String(from: &decoder.input.pointee)
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Bool(from: &decoder.input.pointee) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.signed(Int.self) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.signed(Int8.self) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.signed(Int16.self) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.signed(Int32.self) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.input.pointee.readZigZag() }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.unsigned(UInt.self) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.unsigned(UInt8.self) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.unsigned(UInt16.self) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.unsigned(UInt32.self) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.input.pointee.readVarint() }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw decoder.noFloatingPoint(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw decoder.noFloatingPoint(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder.value(type) }

        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
            try decoder.isPresent() ? try decode(type, forKey: key) : nil
        }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decoder.isPresent() ? try decode(type, forKey: key) : nil }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decoder.isPresent() ? try decode(type, forKey: key) : nil }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decoder.isPresent() ? try decode(type, forKey: key) : nil }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decoder.isPresent() ? try decode(type, forKey: key) : nil }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decoder.isPresent() ? try decode(type, forKey: key) : nil }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decoder.isPresent() ? try decode(type, forKey: key) : nil }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decoder.isPresent() ? try decode(type, forKey: key) : nil }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decoder.isPresent() ? try decode(type, forKey: key) : nil }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decoder.isPresent() ? try decode(type, forKey: key) : nil }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decoder.isPresent() ? try decode(type, forKey: key) : nil }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decoder.isPresent() ? try decode(type, forKey: key) : nil }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { throw decoder.noFloatingPoint(type) }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { throw decoder.noFloatingPoint(type) }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            try decoder.isPresent() ? try decoder.value(type) : nil
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(KeyedContainer<NestedKey>(decoder: decoder, personalText: nil))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try decoder.unkeyedContainer() }
        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let decoder: BinaryPayloadDecoder
        let count: Int?
        private(set) var currentIndex = 0
        var codingPath: [any CodingKey] { [] }
        var isAtEnd: Bool { currentIndex >= count! }

        init(decoder: BinaryPayloadDecoder, count: Int) {
            self.decoder = decoder
            self.count = count
        }

        /// Counts off the next element, throwing past the last.
        private mutating func advance() throws {
            guard !isAtEnd else {
                throw EventCodingError(.invalidValue, "a list of \(count!) elements read past its end\(decoder.reader.where)")
            }
            currentIndex += 1
        }

        /// Reads an optional element's marker: true (and the element is read) when absent;
        /// when present, the `decode` that follows reads the element.
        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { try advance(); return false }
            guard try !decoder.isPresent() else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try advance()
            return try decoder.value(type)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try advance()
            return KeyedDecodingContainer(KeyedContainer<NestedKey>(decoder: decoder, personalText: nil))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try advance()
            return try decoder.unkeyedContainer()
        }
        mutating func superDecoder() throws -> any Decoder {
            try advance()
            return decoder
        }
    }

    struct SingleValueContainer: SingleValueDecodingContainer {
        let decoder: BinaryPayloadDecoder
        var codingPath: [any CodingKey] { [] }

        func decodeNil() -> Bool { false }
        func decode(_ type: String.Type) throws -> String { try String(from: &decoder.input.pointee) }
        func decode(_ type: Bool.Type) throws -> Bool { try Bool(from: &decoder.input.pointee) }
        func decode(_ type: Int.Type) throws -> Int { try decoder.signed(Int.self) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decoder.signed(Int8.self) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decoder.signed(Int16.self) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decoder.signed(Int32.self) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decoder.input.pointee.readZigZag() }
        func decode(_ type: UInt.Type) throws -> UInt { try decoder.unsigned(UInt.self) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.unsigned(UInt8.self) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.unsigned(UInt16.self) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.unsigned(UInt32.self) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.input.pointee.readVarint() }
        func decode(_ type: Double.Type) throws -> Double { throw decoder.noFloatingPoint(type) }
        func decode(_ type: Float.Type) throws -> Float { throw decoder.noFloatingPoint(type) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.value(type) }
    }
}

/// An optional the binary coders write as a 0/1 marker before its value, whatever the value.
protocol BinaryCodedOptional {
    associatedtype Wrapped
    static var absent: Self { get }
    init(wrapping value: Wrapped)
    static func wrappedValue(from decoder: BinaryPayloadDecoder) throws -> Wrapped
    func encodeBinary(to encoder: BinaryPayloadEncoder) throws
}

extension Optional: BinaryCodedOptional where Wrapped: Codable {
    static var absent: Self { .none }
    init(wrapping value: Wrapped) { self = .some(value) }
    static func wrappedValue(from decoder: BinaryPayloadDecoder) throws -> Wrapped { try decoder.value(Wrapped.self) }
    func encodeBinary(to encoder: BinaryPayloadEncoder) throws {
        switch self {
        case .none: encoder.byte(0)
        case .some(let value):
            encoder.byte(1)
            try encoder.value(value)
        }
    }
}
