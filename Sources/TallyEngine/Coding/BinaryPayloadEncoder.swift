// Writes the binary form of any `Encodable` payload, so that an event type is declared once
// (its stored properties) and both its JSON and its log form are derived from that
// declaration. The byte layout is `Schemas/log-format.md`'s, which the hand-written writers
// of earlier builds produced: the golden fixtures in the tests hold their bytes.

/// An `Encoder` over a ``BinaryWriter``: fields in declaration order, no keys.
///
/// Values whose type is ``BinaryCodable`` (`Money`, `Commodity`, `ExactDecimal`, `Instant`,
/// `LocalDate`, `Month`, every ``EventEnumeration``, and optionals and arrays of them) are
/// written by their own ``BinaryCodable/encode(to:)``; strings, integers and booleans as
/// ``BinaryWriter`` writes them (signed integers zigzag, unsigned as varints); optionals as a
/// 0/1 marker byte before the value; arrays as a varint count before the elements; any other
/// `Encodable` value (a nested struct) through its own `encode(to:)`, fields inline. The
/// fields named in `personalTextFields` of the payload itself are written as personal text
/// (``BinaryWriter/writePersonal(_:subject:)-(String,_)``). Floating-point numbers have no
/// binary form: amounts are exact.
final class BinaryPayloadEncoder: Encoder {
    var writer: BinaryWriter
    /// The personal text fields of the payload, handed to the first keyed container asked
    /// for (the payload's own) and to no nested one.
    private var pendingPersonalText: [String: PersonalTextSealing]
    /// Why the value has no binary form, once a container found it.
    var refusal: String?

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(writer: BinaryWriter, personalTextFields: [String: PersonalTextSealing]) {
        self.writer = writer
        self.pendingPersonalText = personalTextFields
    }

    /// Appends the binary form of `payload` to `writer`.
    ///
    /// A payload of Tally's value types cannot fail to encode; one that holds a `Double`, or a
    /// custom `encode(to:)` that writes an unkeyed container directly, cannot be written: that
    /// is a programming error in the type's declaration, caught by its first test.
    static func encode<Payload: Encodable>(
        _ payload: Payload, to writer: inout BinaryWriter,
        personalTextFields: [String: PersonalTextSealing] = [:]
    ) {
        let encoder = BinaryPayloadEncoder(writer: writer, personalTextFields: personalTextFields)
        writer.bytes = []  // the encoder holds the only reference to the bytes while it appends
        defer { writer = encoder.writer }
        do {
            try payload.encode(to: encoder)
        } catch {
            preconditionFailure("\(Payload.self) has no binary form: \(error)")
        }
        if let refusal = encoder.refusal { preconditionFailure("\(Payload.self) has no binary form: \(refusal)") }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let personal = pendingPersonalText
        if !personal.isEmpty { pendingPersonalText = [:] }
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, personalText: personal))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { UnsupportedUnkeyedContainer(encoder: self) }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(encoder: self) }

    // MARK: Values

    /// Writes one value of any type, by the rules above.
    @inline(__always)
    func value<T: Encodable>(_ value: T) throws {
        // Asked of the type, not the value: no existential box per field.
        if let binary = T.self as? any BinaryCodable.Type {
            write(value, as: binary)
        } else if let optional = T.self as? any BinaryCodedOptional.Type {
            try write(value, as: optional)
        } else if let list = T.self as? any BinaryCodedList.Type {
            try write(value, as: list)
        } else {
            try value.encode(to: self)
        }
    }

    // `Value` is `T` in the three below: the caller's cast of `T.self` found it so.
    @inline(__always)
    private func write<T, Value: BinaryCodable>(_ value: T, as type: Value.Type) {
        unsafeBitCast(value, to: Value.self).encode(to: &writer)
    }
    private func write<T, Value: BinaryCodedOptional>(_ value: T, as type: Value.Type) throws {
        try unsafeBitCast(value, to: Value.self).encodeBinary(to: self)
    }
    private func write<T, Value: BinaryCodedList>(_ value: T, as type: Value.Type) throws {
        try unsafeBitCast(value, to: Value.self).encodeBinary(to: self)
    }

    func signed<T: FixedWidthInteger & SignedInteger>(_ value: T) { writer.writeZigZag(Int64(value)) }
    func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ value: T) { writer.writeVarint(UInt64(value)) }

    func noFloatingPoint(_ type: Any.Type) -> EncodingError {
        EncodingError.invalidValue(type, EncodingError.Context(
            codingPath: [], debugDescription: "a \(type) field has no binary form: amounts, rates and quantities are exact (Money, ExactDecimal)"))
    }

    // MARK: Containers

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: BinaryPayloadEncoder
        let personalText: [String: PersonalTextSealing]
        var codingPath: [any CodingKey] { [] }

        private func sealing(_ key: Key) -> PersonalTextSealing? {
            personalText.isEmpty ? nil : personalText[key.stringValue]
        }

        mutating func encodeNil(forKey key: Key) throws { encoder.writer.writeByte(0) }
        mutating func encode(_ value: String, forKey key: Key) throws {
            if let sealing = sealing(key) {
                encoder.writer.writePersonal(value, subject: sealing.subject(of: value))
            } else {
                encoder.writer.writeString(value)
            }
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws { value.encode(to: &encoder.writer) }
        mutating func encode(_ value: Int, forKey key: Key) throws { encoder.signed(value) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { encoder.signed(value) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { encoder.signed(value) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { encoder.signed(value) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.signed(value) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { encoder.unsigned(value) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder.unsigned(value) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder.unsigned(value) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder.unsigned(value) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { encoder.unsigned(value) }
        mutating func encode(_ value: Double, forKey key: Key) throws { throw encoder.noFloatingPoint(Double.self) }
        mutating func encode(_ value: Float, forKey key: Key) throws { throw encoder.noFloatingPoint(Float.self) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder.value(value) }

        /// An absent optional is one 0 byte; a present one a 1 byte, then the value.
        private mutating func present<T>(_ value: T?, _ write: (inout Self, T) throws -> Void) throws {
            guard let value else { encoder.writer.writeByte(0); return }
            encoder.writer.writeByte(1)
            try write(&self, value)
        }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try present(value) { try $0.encode($1, forKey: key) } }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { throw encoder.noFloatingPoint(Double.self) }
        mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { throw encoder.noFloatingPoint(Float.self) }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            try present(value) { try $0.encode($1, forKey: key) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, personalText: [:]))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { UnsupportedUnkeyedContainer(encoder: encoder) }
        mutating func superEncoder() -> any Encoder { encoder }
        mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: BinaryPayloadEncoder
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws { encoder.writer.writeByte(0) }
        mutating func encode(_ value: String) throws { encoder.writer.writeString(value) }
        mutating func encode(_ value: Bool) throws { value.encode(to: &encoder.writer) }
        mutating func encode(_ value: Int) throws { encoder.signed(value) }
        mutating func encode(_ value: Int8) throws { encoder.signed(value) }
        mutating func encode(_ value: Int16) throws { encoder.signed(value) }
        mutating func encode(_ value: Int32) throws { encoder.signed(value) }
        mutating func encode(_ value: Int64) throws { encoder.signed(value) }
        mutating func encode(_ value: UInt) throws { encoder.unsigned(value) }
        mutating func encode(_ value: UInt8) throws { encoder.unsigned(value) }
        mutating func encode(_ value: UInt16) throws { encoder.unsigned(value) }
        mutating func encode(_ value: UInt32) throws { encoder.unsigned(value) }
        mutating func encode(_ value: UInt64) throws { encoder.unsigned(value) }
        mutating func encode(_ value: Double) throws { throw encoder.noFloatingPoint(Double.self) }
        mutating func encode(_ value: Float) throws { throw encoder.noFloatingPoint(Float.self) }
        mutating func encode<T: Encodable>(_ value: T) throws { try encoder.value(value) }
    }

    /// A list is written by its count first (``BinaryCodedList``); an unkeyed container asked
    /// for directly cannot know it, so a type that writes one has no binary form: it is
    /// refused (its containers write into a scratch encoder, and ``encode(_:to:personalTextFields:)``
    /// stops on ``refusal``).
    struct UnsupportedUnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: BinaryPayloadEncoder
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }

        private func refuse() -> EncodingError {
            encoder.refusal = "an unkeyed container has no binary form: declare the field as an Array"
            return EncodingError.invalidValue((), EncodingError.Context(codingPath: [], debugDescription: encoder.refusal!))
        }
        private func scratch() -> BinaryPayloadEncoder {
            _ = refuse()
            return BinaryPayloadEncoder(writer: BinaryWriter(), personalTextFields: [:])
        }
        mutating func encodeNil() throws { throw refuse() }
        mutating func encode<T: Encodable>(_ value: T) throws { throw refuse() }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            scratch().container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        mutating func superEncoder() -> any Encoder { scratch() }
    }
}

/// A list the binary coders write as a varint count before its elements, whatever the elements.
protocol BinaryCodedList {
    func encodeBinary(to encoder: BinaryPayloadEncoder) throws
}

extension Array: BinaryCodedList where Element: Encodable {
    func encodeBinary(to encoder: BinaryPayloadEncoder) throws {
        encoder.writer.writeVarint(UInt64(count))
        for element in self { try encoder.value(element) }
    }
}
