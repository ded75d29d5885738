public import TallyLog

/// Reads what ``BinaryWriter`` wrote, throwing ``EventCodingError`` on short or invalid
/// input instead of trapping.
public struct BinaryReader {
    @usableFromInline let bytes: [UInt8]
    @usableFromInline var position: Int

    /// The event type, version and sequence number being read, named in errors. Kept as
    /// parts and composed only when an error is thrown: decoding is a hot path.
    public var typeName: String?
    /// The schema version being read, named in errors with ``typeName``.
    public var version: UInt16 = 0
    /// The sequence number of the event being read, when it comes from the log.
    public var sequence: UInt64?
    /// The keys sealed personal text opens with (``readPersonal()``); nil reads it as erased.
    public var subjectKeys: SubjectKeys?
    /// Reads personal text as the plain strings of the version before sealing (``PlainTextVersion``).
    var readsPlainPersonalText = false
    /// The texts and commodities the decodes of one read share (nil: each made anew).
    @usableFromInline var texts: DecodedTexts?

    /// Set by the record check (``EventCatalog/record(for:)``) to have every string read
    /// scanned for control characters; off when reading the log, so that events recorded
    /// before ``EventText``'s rule still read.
    @usableFromInline var scansForControlCharacters = false
    /// Whether a string read while ``scansForControlCharacters`` was on held a control
    /// character (the record check then finds the field and decides).
    @usableFromInline var sawControlCharacter = false

    /// What is being read, e.g. `event 12: deposit_received v2` (empty when unnamed).
    public var context: String {
        guard let typeName else { return "" }
        return "\(sequence.map { "event \($0): " } ?? "")\(typeName) v\(version)"
    }

    /// A reader at the start of `bytes`.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.position = 0
    }

    /// A reader of `bytes` at `position`.
    init(_ bytes: [UInt8], at position: Int) {
        self.bytes = bytes
        self.position = position
    }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { position == bytes.count }

    /// Throws unless every byte was consumed.
    public func expectEnd() throws {
        guard isAtEnd else {
            throw EventCodingError(.trailingBytes, "\(bytes.count - position) unexpected bytes after the last field\(self.where)")
        }
    }

    @usableFromInline var `where`: String { context.isEmpty ? "" : " of \(context)" }

    /// Reads one byte.
    ///
    /// - Throws: ``EventCodingError`` (`truncated`) at the end of the payload.
    @inlinable
    public mutating func readByte() throws -> UInt8 {
        guard position < bytes.count else {
            throw EventCodingError(.truncated, "payload ends at byte \(position)\(self.where)")
        }
        defer { position += 1 }
        return bytes[position]
    }

    /// Reads an unsigned LEB128 varint (1 to 10 bytes), as ``BinaryWriter/writeVarint(_:)`` writes it.
    ///
    /// - Throws: ``EventCodingError`` (`truncated`) at the end of the payload, (`invalidValue`)
    ///   for a varint longer than 64 bits.
    @inlinable
    public mutating func readVarint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try readByte()
            if shift == 63 && byte > 1 {
                throw EventCodingError(.invalidValue, "varint longer than 64 bits at byte \(position - 1)\(self.where)")
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Reads a signed integer in zigzag form, as ``BinaryWriter/writeZigZag(_:)`` writes it.
    ///
    /// - Throws: ``EventCodingError`` as ``readVarint()`` does.
    @inlinable
    public mutating func readZigZag() throws -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// Reads a length-prefixed UTF-8 string of at most `limit` bytes.
    @inlinable
    public mutating func readString(limit: Int = 1 << 20) throws -> String {
        let length = try readVarint()
        guard length <= UInt64(limit) else {
            throw EventCodingError(.limitExceeded, "string of \(length) bytes exceeds the limit of \(limit)\(self.where)")
        }
        let count = Int(length)
        guard bytes.count - position >= count else {
            throw EventCodingError(.truncated, "string of \(count) bytes runs past the end of the payload\(self.where)")
        }
        let start = position
        position += count
        let scans = scansForControlCharacters && !sawControlCharacter
        let decoded = bytes.withUnsafeBufferPointer { all -> (text: String?, hasControl: Bool) in
            let slice = UnsafeBufferPointer(rebasing: all[start..<(start + count)])
            if let texts, !scans, DecodedTexts.kept.contains(count) { return (texts.text(slice), false) }
            return (UTF8Text.string(slice), scans && EventText.containsControl(slice))
        }
        if decoded.hasControl {
            sawControlCharacter = true
        }
        guard let string = decoded.text else {
            throw EventCodingError(.invalidValue, "string is not valid UTF-8\(self.where)")
        }
        return string
    }

    /// Reads a value of any ``BinaryCodable`` type: `account = try reader.read()`.
    ///
    /// - Throws: ``EventCodingError`` from the value's ``BinaryCodable/init(from:)``.
    @inlinable
    public mutating func read<Value: BinaryCodable>(_ type: Value.Type = Value.self) throws -> Value {
        try Value(from: &self)
    }
}
