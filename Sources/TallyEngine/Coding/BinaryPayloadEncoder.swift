// Writes the binary form of any `Encodable` payload, so that an event type is declared once
// (its stored properties) and both its JSON and its log form are derived from that
// declaration. The byte layout is `Schemas/log-format.md`'s, which the hand-written writers
// of earlier builds produced: the golden fixtures in the tests hold their bytes.
//
// Every event passes through here on its way to the log (twice in an import: the validating
// pass and the appending one), so the coder is built for speed: containers hand each field
// straight to the encoder's concrete methods (no closure, no key string built or hashed, no
// existential box per field); the bytes go through a pointer to the caller's writer (no
// copy, no exclusivity check per write); the common leaf types are recognised by their
// metadata before any protocol conformance is looked up.

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
///
/// While it writes, the encoder also takes the record check's measure of each value
/// (``BinaryPayloadCheck``, when the writer carries one): the strings with a control character or past their limit, the
/// lists past theirs, and whether a value was written that only a full read-back can vouch for.
final class BinaryPayloadEncoder: Encoder {
    /// The writer appended to: the caller's, for the duration of ``encode(_:to:personalTextFields:)``.
    let output: UnsafeMutablePointer<BinaryWriter>
    /// Whether ``output`` is this encoder's own (a scratch encoder's), freed with it.
    private let ownsOutput: Bool
    /// The personal text fields of the payload, handed to the first keyed container asked
    /// for (the payload's own) and to no nested one; nil once handed over, or when none.
    private var pendingPersonalText: [String: PersonalTextSealing]?
    /// What the record check learns while the payload is written (nil: no check asked):
    /// the writer's, set by ``EventCatalog/record(for:)``.
    private var check: BinaryPayloadCheck? {
        get { output.pointee.check }
        set { output.pointee.check = newValue }
    }
    /// Why the value has no binary form, once a container found it.
    var refusal: String?

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    private init(output: UnsafeMutablePointer<BinaryWriter>, ownsOutput: Bool, personalTextFields: [String: PersonalTextSealing]) {
        self.output = output
        self.ownsOutput = ownsOutput
        self.pendingPersonalText = personalTextFields.isEmpty ? nil : personalTextFields
    }

    /// An encoder writing into a writer of its own, whose bytes are thrown away.
    private static func scratch() -> BinaryPayloadEncoder {
        let output = UnsafeMutablePointer<BinaryWriter>.allocate(capacity: 1)
        output.initialize(to: BinaryWriter())
        return BinaryPayloadEncoder(output: output, ownsOutput: true, personalTextFields: [:])
    }

    deinit {
        if ownsOutput {
            output.deinitialize(count: 1)
            output.deallocate()
        }
    }

    /// Appends the binary form of `payload` to `writer`.
    ///
    /// A payload of Tally's value types cannot fail to encode; one that holds a `Double`, or a
    /// custom `encode(to:)` that writes an unkeyed container directly, cannot be written: that
    /// is a programming error in the type's declaration, caught by its first test.
    ///
    /// When the writer carries a record check (``BinaryWriter/check``), the encoder takes its
    /// measure of every value written and records the bytes it vouches for
    /// (``BinaryPayloadCheck/vouched``).
    static func encode<Payload: Encodable>(
        _ payload: Payload, to writer: inout BinaryWriter, personalTextFields: [String: PersonalTextSealing] = [:]
    ) {
        // The encoder must not outlive this call: it writes through a pointer to `writer`.
        // It is handed only to `payload.encode(to:)`, which has no reason to keep an encoder.
        writer.writeVouched { writer in
            withUnsafeMutablePointer(to: &writer) { output in
                let encoder = BinaryPayloadEncoder(output: output, ownsOutput: false, personalTextFields: personalTextFields)
                do {
                    try payload.encode(to: encoder)
                } catch {
                    preconditionFailure("\(Payload.self) has no binary form: \(error)")
                }
                if let refusal = encoder.refusal { preconditionFailure("\(Payload.self) has no binary form: \(refusal)") }
            }
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let personal = pendingPersonalText
        if personal != nil { pendingPersonalText = nil }
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, personalText: personal))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { UnsupportedUnkeyedContainer(encoder: self) }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(encoder: self) }

    // MARK: Values

    /// Writes one value of any type, by the rules above.
    @inline(__always)
    func value<T: Encodable>(_ value: T) throws {
        // The common leaves by their metadata (a pointer comparison), before the
        // conformance look-ups below; then asked of the type, not the value: no
        // existential box per field.
        if T.self == Money.self {
            leaf(unsafeBitCast(value, to: Money.self))
        } else if T.self == LocalDate.self {
            leaf(unsafeBitCast(value, to: LocalDate.self))
        } else if T.self == Instant.self {
            leaf(unsafeBitCast(value, to: Instant.self))
        } else if T.self == String.self {
            string(unsafeBitCast(value, to: String.self))
        } else if let binary = T.self as? any BinaryCodable.Type {
            write(value, as: binary)
        } else if let optional = T.self as? any BinaryCodedOptional.Type {
            try write(value, as: optional)
        } else if let list = T.self as? any BinaryCodedList.Type {
            try write(value, as: list)
        } else {
            try value.encode(to: self)
        }
    }

    /// Writes a ``BinaryCodable`` value by its own ``BinaryCodable/encode(to:)``, and, for the
    /// record check, reads it back from the bytes just written (``BinaryCodable/readsBack(_:from:)``).
    @inline(__always)
    func leaf<Value: BinaryCodable>(_ value: Value) { output.pointee.writeLeaf(value) }

    // `Value` is `T` in the three below: the caller's cast of `T.self` found it so.
    @inline(__always)
    private func write<T, Value: BinaryCodable>(_ value: T, as type: Value.Type) {
        leaf(unsafeBitCast(value, to: Value.self))
    }
    private func write<T, Value: BinaryCodedOptional>(_ value: T, as type: Value.Type) throws {
        try unsafeBitCast(value, to: Value.self).encodeBinary(to: self)
    }
    private func write<T, Value: BinaryCodedList>(_ value: T, as type: Value.Type) throws {
        try unsafeBitCast(value, to: Value.self).encodeBinary(to: self)
    }

    /// Writes a string field, as ``BinaryWriter/writeString(_:)`` does, measuring it for the record check.
    @inline(__always)
    func string(_ value: String) { output.pointee.writeStringField(value) }

    /// Writes a personal text field (``BinaryWriter/writePersonal(_:subject:)-(String,_)``),
    /// measuring its text for the record check.
    func personal(_ value: String, sealing: PersonalTextSealing) { output.pointee.writePersonalField(value, sealing: sealing) }

    @inline(__always)
    func byte(_ byte: UInt8) { output.pointee.writeByte(byte) }
    @inline(__always)
    func signed<T: FixedWidthInteger & SignedInteger>(_ value: T) { output.pointee.writeZigZag(Int64(value)) }
    @inline(__always)
    func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ value: T) { output.pointee.writeVarint(UInt64(value)) }

    /// Writes a list's count, measuring it for the record check.
    func count(_ count: Int) {
        output.pointee.writeVarint(UInt64(count))
        if count > eventListCountLimit { check?.lossy = true }
    }

    /// A value written through a single-value container of a type that is not
    /// ``BinaryCodable``: its custom coding may not read back, so the record check reads
    /// the whole payload back.
    func customValue() { check?.needsReadBack = true }

    func noFloatingPoint(_ type: Any.Type) -> EncodingError {
        EncodingError.invalidValue(type, EncodingError.Context(
            codingPath: [], debugDescription: "a \(type) field has no binary form: amounts, rates and quantities are exact (Money, ExactDecimal)"))
    }

    // MARK: Containers

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: BinaryPayloadEncoder
        /// The payload's personal text fields, nil in a nested container or when none.
        let personalText: [String: PersonalTextSealing]?
        var codingPath: [any CodingKey] { [] }

        /// The sealing of `key`'s field: a scan of the one or two personal text fields,
        /// comparing names (short strings compare as two words), not a hash of the key.
        @inline(__always)
        private func sealing(_ key: Key) -> PersonalTextSealing? {
            guard let personalText else { return nil }
            let name = key.stringValue
            for (field, sealing) in personalText where field == name { return sealing }
            return nil
        }

        mutating func encodeNil(forKey key: Key) throws { encoder.byte(0) }
        mutating func encode(_ value: String, forKey key: Key) throws {
            if let sealing = sealing(key) {
                encoder.personal(value, sealing: sealing)
            } else {
                encoder.string(value)
            }
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.byte(value ? 1 : 0) }
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

        // An absent optional is one 0 byte; a present one a 1 byte, then the value.
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
            if let sealing = sealing(key) {
                encoder.output.pointee.writePersonalField(value, sealing: sealing)
            } else {
                encoder.output.pointee.writeStringField(value)
            }
        }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
            guard let value else { encoder.byte(0); return }
            encoder.byte(1)
            encoder.byte(value ? 1 : 0)
        }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { signed(value) }
        mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { signed(value) }
        mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { signed(value) }
        mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { signed(value) }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { signed(value) }
        mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { unsigned(value) }
        mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { unsigned(value) }
        mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { unsigned(value) }
        mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { unsigned(value) }
        mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { unsigned(value) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { throw encoder.noFloatingPoint(Double.self) }
        mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { throw encoder.noFloatingPoint(Float.self) }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            guard let value else { encoder.byte(0); return }
            encoder.byte(1)
            try encoder.value(value)
        }

        private func signed<T: FixedWidthInteger & SignedInteger>(_ value: T?) {
            guard let value else { encoder.byte(0); return }
            encoder.byte(1)
            encoder.signed(value)
        }
        private func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ value: T?) {
            guard let value else { encoder.byte(0); return }
            encoder.byte(1)
            encoder.unsigned(value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, personalText: nil))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { UnsupportedUnkeyedContainer(encoder: encoder) }
        mutating func superEncoder() -> any Encoder { encoder }
        mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: BinaryPayloadEncoder
        var codingPath: [any CodingKey] { [] }

        // Asked for only by a type with a coding of its own (``BinaryCodable`` leaves are
        // written by ``BinaryPayloadEncoder/leaf(_:)``): the record check reads it back.
        mutating func encodeNil() throws { encoder.customValue(); encoder.byte(0) }
        mutating func encode(_ value: String) throws { encoder.customValue(); encoder.string(value) }
        mutating func encode(_ value: Bool) throws { encoder.customValue(); encoder.byte(value ? 1 : 0) }
        mutating func encode(_ value: Int) throws { encoder.customValue(); encoder.signed(value) }
        mutating func encode(_ value: Int8) throws { encoder.customValue(); encoder.signed(value) }
        mutating func encode(_ value: Int16) throws { encoder.customValue(); encoder.signed(value) }
        mutating func encode(_ value: Int32) throws { encoder.customValue(); encoder.signed(value) }
        mutating func encode(_ value: Int64) throws { encoder.customValue(); encoder.signed(value) }
        mutating func encode(_ value: UInt) throws { encoder.customValue(); encoder.unsigned(value) }
        mutating func encode(_ value: UInt8) throws { encoder.customValue(); encoder.unsigned(value) }
        mutating func encode(_ value: UInt16) throws { encoder.customValue(); encoder.unsigned(value) }
        mutating func encode(_ value: UInt32) throws { encoder.customValue(); encoder.unsigned(value) }
        mutating func encode(_ value: UInt64) throws { encoder.customValue(); encoder.unsigned(value) }
        mutating func encode(_ value: Double) throws { throw encoder.noFloatingPoint(Double.self) }
        mutating func encode(_ value: Float) throws { throw encoder.noFloatingPoint(Float.self) }
        mutating func encode<T: Encodable>(_ value: T) throws { encoder.customValue(); try encoder.value(value) }
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
            return BinaryPayloadEncoder.scratch()
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

/// What the record check (``EventCatalog/record(for:)``) learns of a payload while it is
/// written, so that it need not read the whole payload back to know that it would read
/// back equal and that its text is clean.
///
/// A payload's structure is derived from its `Codable` declaration: its fields in order,
/// optionals by a marker, lists by a count, nested values inline. The derived reader reads
/// that structure back exactly, so a payload reads back equal when each value at the
/// bottom of it does. Those values are checked one by one as they are written: a string by
/// its length (the reader's limit) and a scan for control characters; a ``BinaryCodable``
/// value by reading it back from the bytes just written (``BinaryCodable/readsBack(_:from:)``:
/// a commodity whose scale is not its code's registered scale fails here); a list by its
/// count. A value whose type codes itself some other way (a custom `encode(to:)` over a
/// single-value container) cannot be vouched for like that: the check then reads the whole
/// payload back and compares, as it did for every payload before.
struct BinaryPayloadCheck: Sendable {
    /// A string held a control character (the check then finds the field and decides:
    /// a note may hold tabs and line feeds).
    var sawControlCharacter = false
    /// A value would not read back as written: a string or list past its limit, a leaf
    /// that reads back different or not at all.
    var lossy = false
    /// A value was written that only a read-back of the whole payload can vouch for.
    var needsReadBack = false

    /// The bytes of the writer written by the derived encoder, whose values it measured;
    /// a payload that wrote itself some other way leaves it short of the whole payload,
    /// and the check reads the payload back.
    var vouched: Range<Int>?

    /// Measures a string field: its length against `limit` bytes, its bytes for control characters.
    @inline(__always)
    mutating func measure(_ text: String, limit: Int) {
        var text = text
        text.withUTF8 { utf8 in
            if utf8.count > limit { lossy = true }
            if !sawControlCharacter && EventText.containsControl(utf8) { sawControlCharacter = true }
        }
    }
}

/// The writes of the derived encoder, each taking the record check's measure of what it
/// wrote (when the writer carries a check): the one place those measures are taken, for
/// ``BinaryPayloadEncoder`` and for a payload that writes itself field by field as it would.
extension BinaryWriter {
    /// Runs `body`, which writes one payload, and records the bytes it wrote as vouched for
    /// by the measures taken (``BinaryPayloadCheck/vouched``).
    @inline(__always)
    mutating func writeVouched(_ body: (inout BinaryWriter) -> Void) {
        let start = bytes.count
        body(&self)
        if check != nil { check?.vouched = start..<bytes.count }
    }

    /// A string field (``writeString(_:)``), measured.
    @inline(__always)
    mutating func writeStringField(_ value: String) {
        writeString(value)
        if check != nil { check?.measure(value, limit: eventStringBytesLimit) }
    }

    /// An optional string field: a 0 byte, or a 1 byte and the string, measured.
    @inline(__always)
    mutating func writeStringField(_ value: String?) {
        guard let value else { return writeByte(0) }
        writeByte(1)
        writeStringField(value)
    }

    /// A personal text field (``writePersonal(_:subject:)-(String,_)``), its text measured.
    mutating func writePersonalField(_ value: String, sealing: PersonalTextSealing) {
        writePersonal(value, subject: sealing.subject(of: value))
        if check != nil { check?.measure(value, limit: eventStringBytesLimit) }
    }

    /// An optional personal text field: a 0 byte, or a 1 byte and the text, measured.
    mutating func writePersonalField(_ value: String?, sealing: PersonalTextSealing) {
        guard let value else { return writeByte(0) }
        writeByte(1)
        writePersonalField(value, sealing: sealing)
    }

    /// A ``BinaryCodable`` value by its own ``BinaryCodable/encode(to:)``, and, for the record
    /// check, read back from the bytes just written (``BinaryCodable/readsBack(_:from:)``).
    @inline(__always)
    mutating func writeLeaf<Value: BinaryCodable>(_ value: Value) {
        let start = bytes.count
        value.encode(to: &self)
        if check != nil { checkLeaf(value, from: start) }
    }

    private mutating func checkLeaf<Value: BinaryCodable>(_ value: Value, from start: Int) {
        var reader = BinaryReader(bytes, at: start)
        reader.scansForControlCharacters = true
        switch Value.readsBack(value, from: &reader) {
        case true?: if !reader.isAtEnd { check?.lossy = true }
        case false?: check?.lossy = true
        case nil: check?.needsReadBack = true
        }
        if reader.sawControlCharacter { check?.sawControlCharacter = true }
    }
}

/// A list the binary coders write as a varint count before its elements, whatever the elements.
protocol BinaryCodedList {
    func encodeBinary(to encoder: BinaryPayloadEncoder) throws
}

extension Array: BinaryCodedList where Element: Encodable {
    func encodeBinary(to encoder: BinaryPayloadEncoder) throws {
        encoder.count(count)
        for element in self { try encoder.value(element) }
    }
}
