// Personal text in events: sealed per subject in the log, plain in memory and in JSON.

/// Whose personal text a field holds: the key it is sealed under.
///
/// ```swift
/// writer.writePersonal(payee, subject: .payee(payee))
/// writer.writePersonal(name, subject: .owner)
/// ```
public enum PersonalSubject: Hashable, Sendable {
    /// The ledger's owner: names of the ledger, pots, envelopes, assets; notes and free text.
    case owner
    /// A payee (or counterparty) of its own: every field that names it.
    case payee(String)

    /// The subject's `KIND:ID` name: `owner`, `payee:Acme Corp`.
    public var name: String {
        switch self {
        case .owner: "owner"
        case .payee(let payee): "payee:\(payee)"
        }
    }

    /// Reads a `KIND:ID` name as `tally erase` takes it.
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` for another kind or an empty id.
    public init(parsing text: String) throws {
        if text == "owner" { self = .owner; return }
        if text.hasPrefix("payee:"), text.count > "payee:".count {
            self = .payee(String(text.dropFirst("payee:".count)))
            return
        }
        throw LedgerError(.invalidArgument, "'\(text)' is not a subject: name one as owner or payee:NAME (`tally erase --list` shows them)")
    }
}

/// The binary form of a personal text field (event versions that seal personal data):
/// a tag byte, then for tag 0 a plain string (empty text, or a writer without subject keys:
/// catalogs that never reach a store); for tag 2 (written now) a varint, the reference to the
/// text sealed once in the store's `SUBJECTS` file (``SubjectKeys/reference(_:subject:)``); for
/// tag 1 (written before, still read) the sealed bytes inline as a length-prefixed byte
/// string: `subject identifier (16) · nonce (12) · ciphertext · tag (16)`. `Schemas/log-format.md`.
enum PersonalTextTag {
    static let plain: UInt8 = 0
    static let sealed: UInt8 = 1
    static let reference: UInt8 = 2
    /// Identifier, nonce and tag around the ciphertext.
    static let overheadBytes = 16 + 12 + 16
}

extension BinaryWriter {
    /// Writes personal text, sealed under `subject`'s key when the writer has subject keys.
    public mutating func writePersonal(_ text: String, subject: PersonalSubject) {
        if writesPlainPersonalText { writeString(text); return }
        guard let subjectKeys, !text.isEmpty else {
            writeByte(PersonalTextTag.plain)
            writeString(text)
            return
        }
        if subjectKeys.writesReferences {
            writeByte(PersonalTextTag.reference)
            writeVarint(subjectKeys.reference(text, subject: subject))
            return
        }
        let sealed = subjectKeys.seal(text, subject: subject.name)
        writeByte(PersonalTextTag.sealed)
        writeVarint(UInt64(sealed.count))
        bytes.append(contentsOf: sealed)
    }

    /// Writes optional personal text: a 0 byte for none, a 1 byte and the text for some.
    public mutating func writePersonal(_ text: String?, subject: PersonalSubject) {
        guard let text else { writeByte(0); return }
        writeByte(1)
        writePersonal(text, subject: subject)
    }
}

extension BinaryReader {
    /// Reads personal text: plain, opened with the reader's subject keys (sealed inline or by
    /// reference), or, when its subject's key is gone, the erased marker (`[erased 1a2b3c4d]`).
    ///
    /// - Throws: ``EventCodingError`` on short or invalid input.
    public mutating func readPersonal() throws -> String {
        if readsPlainPersonalText { return try readString(limit: eventStringBytesLimit) }
        switch try readByte() {
        case PersonalTextTag.plain:
            return try readString(limit: eventStringBytesLimit)
        case PersonalTextTag.sealed:
            let length = try readVarint()
            let limit = eventStringBytesLimit + PersonalTextTag.overheadBytes
            guard length <= UInt64(limit), length >= UInt64(PersonalTextTag.overheadBytes) else {
                throw EventCodingError(.limitExceeded, "sealed text of \(length) bytes is outside 44...\(limit)\(self.where)")
            }
            let count = Int(length)
            guard bytes.count - position >= count else {
                throw EventCodingError(.truncated, "sealed text of \(count) bytes runs past the end of the payload\(self.where)")
            }
            let sealed = bytes[position..<(position + count)]
            position += count
            guard let text = subjectKeys?.open(sealed) else { return SubjectKeys.erasedText(sealed) }
            if scansForControlCharacters && !sawControlCharacter && EventText.containsControl(text.utf8) {
                sawControlCharacter = true
            }
            return text
        case PersonalTextTag.reference:
            let reference = try readVarint()
            guard let subjectKeys else { return SubjectKeys.erasedText(reference: reference) }
            let text = texts?.text(forReference: reference, in: subjectKeys) ?? subjectKeys.text(forReference: reference)
            if scansForControlCharacters && !sawControlCharacter && EventText.containsControl(text.utf8) {
                sawControlCharacter = true
            }
            return text
        case let other:
            throw EventCodingError(.invalidValue, "personal text tag \(other) is not 0 (plain), 1 (sealed) or 2 (sealed by reference)\(self.where)")
        }
    }

    /// Reads optional personal text, as ``BinaryWriter/writePersonal(_:subject:)-(String?,_)`` writes it.
    public mutating func readPersonalOptional() throws -> String? {
        switch try readByte() {
        case 0: return nil
        case 1: return try readPersonal()
        case let other: throw EventCodingError(.invalidValue, "optional marker \(other) is neither 0 nor 1\(self.where)")
        }
    }
}

/// A payload whose personal text fields are sealed per subject in the log from its current
/// version on; the version before it stored them as plain strings and is still read
/// (``PlainTextVersion``).
///
/// ```swift
/// static let personalTextFields: [String: PersonalTextSealing] = ["payee": .payee, "note": .owner]
/// ```
public protocol SealsPersonalText: EventPayload {
    /// The properties written as personal text (``BinaryWriter/writePersonal(_:subject:)-(String,_)``),
    /// each with the subject whose key seals it: their schemas say so (`x-tally-personal-text`),
    /// for readers in other languages. A `String` or `String?` property only.
    static var personalTextFields: [String: PersonalTextSealing] { get }
}

/// Whose key a personal text field of a ``SealsPersonalText`` payload is sealed under.
public enum PersonalTextSealing: Hashable, Sendable {
    /// The ledger owner's (``PersonalSubject/owner``): names of the ledger, pots, envelopes,
    /// assets; notes and free text.
    case owner
    /// The payee's the field names (``PersonalSubject/payee(_:)`` of the field's own text):
    /// a payee or merchant.
    case payee

    /// The subject a field holding `text` is sealed under.
    public func subject(of text: String) -> PersonalSubject {
        switch self {
        case .owner: .owner
        case .payee: .payee(text)
        }
    }
}

extension SealsPersonalText {
    /// The binary form derived from the payload's `Codable` declaration, its
    /// ``personalTextFields`` sealed (``BinaryPayloadEncoder``).
    public func encode(to writer: inout BinaryWriter) {
        BinaryPayloadEncoder.encode(self, to: &writer, personalTextFields: Self.personalTextFields)
    }

    /// Reads the binary form derived from the payload's `Codable` declaration, its
    /// ``personalTextFields`` opened (``BinaryPayloadDecoder``).
    ///
    /// - Throws: ``EventCodingError`` on short or invalid input.
    public init(from reader: inout BinaryReader) throws {
        self = try BinaryPayloadDecoder.decode(Self.self, from: &reader, personalTextFields: Self.personalTextFields)
    }
}

/// The version of a ``SealsPersonalText`` payload before sealing: the same fields, personal
/// text as plain strings. Read from old logs and old JSON, upcast to the current version.
///
/// ```swift
/// static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<PotCreated>.self] }
/// ```
public struct PlainTextVersion<Payload: SealsPersonalText>: LegacyEventPayload, CustomReflectable {
    /// The version before the current one.
    public static var version: UInt16 { Payload.eventType.version - 1 }
    /// The payload, read with plain strings.
    public var payload: Payload

    /// Wraps a payload as its plain-text version.
    public init(_ payload: Payload) { self.payload = payload }

    /// The payload as the current version.
    public func upcastBody() -> EventBody { payload.body }

    /// Writes the payload with its personal text as plain strings (version 1's form).
    public func encode(to writer: inout BinaryWriter) {
        var plain = BinaryWriter()
        plain.writesPlainPersonalText = true
        payload.encode(to: &plain)
        writer.bytes.append(contentsOf: plain.bytes)
    }

    /// Reads version 1's form: personal text as plain strings.
    public init(from reader: inout BinaryReader) throws {
        reader.readsPlainPersonalText = true
        defer { reader.readsPlainPersonalText = false }
        payload = try Payload(from: &reader)
    }

    /// Reads the JSON form, which is the current version's (personal text is plain in JSON).
    public init(from decoder: any Decoder) throws { payload = try Payload(from: decoder) }
    /// Writes the JSON form, the current version's.
    public func encode(to encoder: any Encoder) throws { try payload.encode(to: encoder) }

    /// The payload's fields, so that schema generation reads the same fields.
    public var customMirror: Mirror { Mirror(reflecting: payload) }
}
