internal import Foundation
import TallyLog

/// The JSON form of events, for import, export and HTTP: one object per event, one line
/// per object in NDJSON files. Schemas: `Schemas/events/<type>.v<version>.schema.json`
/// and `Schemas/envelope.schema.json`.
///
/// ```json
/// {"seq":7,"recorded_at":"2026-05-01T09:00:00.000000Z","effective_at":"2026-05-01T08:59:00.000000Z",
///  "type":"deposit_received","version":2,"entity":"wealth:main","idempotency_key":"bank:tx-88",
///  "data":{"account":"main","amount":{"amount":"100.00","currency":"USD"},"source":"bank_transfer"}}
/// ```
/// Field names are `snake_case`; money is `{"amount": "<decimal>", "currency": "<code>"}`;
/// instants are RFC 3339. `seq` and `recorded_at` are assigned by the log: they are
/// printed, and ignored when events are appended. Every control character in a string
/// (C0, and DEL and C1, which JSON would allow raw) is written escaped (`\u001b`), so a
/// line printed to a terminal never drives it.
public enum EventJSON {
    static let payloadEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let payloadDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    static let envelopeKeys: Set<String> = [
        "seq", "recorded_at", "effective_at", "type", "version", "entity", "cause", "idempotency_key", "data",
    ]

    /// One line of JSON for a recorded event, fields in envelope order, payload keys sorted.
    ///
    /// - Throws: ``EventCodingError`` (`invalidValue`) for a payload that cannot be written as
    ///   JSON (an embedder's type holding a number that is not finite, say): never a trap.
    public static func encode(_ event: Event) throws -> String {
        var line = "{\"seq\":\(event.sequence),\"recorded_at\":\"\(event.recordedAt)\",\"effective_at\":\"\(event.effectiveAt)\""
        line += ",\"type\":\"\(event.type.name)\",\"version\":\(event.type.version),\"entity\":\(quoted(event.entity))"
        if let cause = event.cause { line += ",\"cause\":\(cause)" }
        if let key = event.idempotencyKey { line += ",\"idempotency_key\":\(quoted(key))" }
        line += ",\"data\":\(try payloadJSON(event.body))}"
        return line
    }

    /// The payload's JSON object alone, keys sorted.
    ///
    /// - Throws: ``EventCodingError`` (`invalidValue`) for a payload that cannot be written as
    ///   JSON. Tally's own types always can (every field is a string, integer, boolean, nested
    ///   payload value or optional of those); an embedder's may not (a `Double` that is NaN).
    public static func payloadJSON(_ body: EventBody) throws -> String {
        let data: Data
        do {
            data = try payloadEncoder.encode(AnyPayload(body.payload))
        } catch {
            throw EventCodingError(.invalidValue, "\(body.type.name) v\(body.type.version): the payload cannot be written as JSON (\(describeEncoding(error)))")
        }
        return escapingDELAndC1(String(decoding: data, as: UTF8.self))
    }

    /// An encoding error, briefly: the coding path and what was wrong (no value is echoed).
    private static func describeEncoding(_ error: any Error) -> String {
        if case EncodingError.invalidValue(_, let context) = error {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "field 'data.\(path)': \(context.debugDescription)"
        }
        return "\(error)".prefix(200).description
    }

    /// JSON text with DEL and C1 control characters (U+007F-U+009F) and bidirectional formatting
    /// controls (``EventText/isBidiControl(_:)``), which JSON allows raw, written as `\u007f` …
    /// `\u009f`, `\u202e` …: the same strings to any JSON reader, nothing a terminal acts on.
    /// `JSONEncoder` escapes C0 already. Such characters can only be inside strings.
    static func escapingDELAndC1(_ json: String) -> String {
        func escapes(_ scalar: Unicode.Scalar) -> Bool { (0x7F...0x9F).contains(scalar.value) || EventText.isBidiControl(scalar) }
        guard json.unicodeScalars.contains(where: escapes) else { return json }
        var result = ""
        result.reserveCapacity(json.utf8.count + 12)
        for scalar in json.unicodeScalars {
            if escapes(scalar) {
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// An event read from JSON: what to append, and the log fields if the text carried them.
    public struct Decoded: Hashable, Sendable {
        /// The event to append: its effective time, cause, idempotency key and body.
        public var event: NewEvent
        /// The `seq` the text carried (an event printed from a log), if any; the log assigns its own.
        public var sequence: UInt64?
        /// The `recorded_at` the text carried, if any; the log stamps its own when appending.
        public var recordedAt: Instant?
        /// The version the text was written in (its body is upcast to the current version).
        public var version: UInt16
    }

    /// Reads one event object, of a type in `catalog` (the engine's types by default; a
    /// ledger's ``Ledger/catalog`` for its features' types too).
    ///
    /// - Throws: ``EventCodingError`` naming the field: invalid JSON, a missing or unknown
    ///   field, an unknown type or version, a value outside its domain, or an `entity`
    ///   that differs from the one the payload implies.
    public static func decode(_ text: some Collection<UInt8>, catalog: EventCatalog = .engine) throws -> Decoded {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: Data(text))
        } catch {
            throw inputProblem(in: text) ?? EventCodingError(.invalidJSON, "not valid JSON (\(describeSyntax(error)))")
        }
        if let duplicate = JSONDuplicateKeys.first(in: text) {
            throw EventCodingError(.invalidJSON, "field '\(duplicate)' appears twice in one object: JSON readers disagree on which one counts, so it is refused")
        }
        guard case .object(let fields) = root else {
            throw EventCodingError(.invalidJSON, "an event must be a JSON object, not \(root.kindName)")
        }
        for key in fields.keys.sorted() where !envelopeKeys.contains(key) {
            throw EventCodingError(.unknownField, "field '\(key)' is not part of the event envelope")
        }
        let typeName = try string(fields, "type")
        guard let entry = catalog.entriesByName[typeName] else {
            throw EventCodingError(.unknownType, "type '\(typeName)' is not in the catalog")
        }
        guard let rawVersion = try integer(fields, "version"), let version = UInt16(exactly: rawVersion) else {
            throw EventCodingError(.missingField, "\(typeName): field 'version' is missing")
        }
        guard let payloadDecoder = entry.jsonDecoders[version] else {
            throw EventCodingError(
                .unsupportedVersion,
                "\(typeName) version \(version) is not readable (known: \(catalog.versions(of: entry.type).map(String.init).joined(separator: ", ")))"
            )
        }
        let context = "\(typeName) v\(version)"
        guard let data = fields["data"], data != .null else {
            throw EventCodingError(.missingField, "\(context): field 'data' is missing")
        }
        let body = try payloadDecoder.decode(data, context: context)
        let effectiveAt = try instant(fields, "effective_at", context: context)
        guard let effectiveAt else {
            throw EventCodingError(.missingField, "\(context): field 'effective_at' is missing")
        }
        let entity = body.payload.entity
        switch fields["entity"] {
        case nil, .null?:
            break
        case .string(let given)?:
            guard given == entity else {
                throw EventCodingError(.invalidValue, "\(context): entity '\(given)' does not match the payload's entity '\(entity)'")
            }
        case let other?:
            throw EventCodingError(.invalidValue, "\(context): field 'entity' must be a string, not \(other.kindName)")
        }
        let cause = try integer(fields, "cause", context: context)
        let sequence = try integer(fields, "seq", context: context)
        if let cause, cause < 1 {
            throw EventCodingError(.invalidValue, "\(context): field 'cause' must be a sequence number ≥ 1")
        }
        let key = try optionalString(fields, "idempotency_key", context: context)
        if let key, key.isEmpty || key.utf8.count > 255 {
            throw EventCodingError(.invalidValue, "\(context): field 'idempotency_key' must hold 1 to 255 bytes")
        }
        return Decoded(
            event: NewEvent(
                effectiveAt: effectiveAt,
                cause: cause.map { .sequence(UInt64($0)) },
                idempotencyKey: key, body: body
            ),
            sequence: sequence.map { UInt64($0) },
            recordedAt: try instant(fields, "recorded_at", context: context),
            version: version
        )
    }

    // MARK: Field helpers

    private static func string(_ fields: [String: JSONValue], _ key: String) throws -> String {
        switch fields[key] {
        case .string(let value)?: return value
        case nil, .null?: throw EventCodingError(.missingField, "field '\(key)' is missing")
        case let other?: throw EventCodingError(.invalidValue, "field '\(key)' must be a string, not \(other.kindName)")
        }
    }

    private static func optionalString(_ fields: [String: JSONValue], _ key: String, context: String) throws -> String? {
        switch fields[key] {
        case .string(let value)?: return value
        case nil, .null?: return nil
        case let other?: throw EventCodingError(.invalidValue, "\(context): field '\(key)' must be a string, not \(other.kindName)")
        }
    }

    private static func integer(_ fields: [String: JSONValue], _ key: String, context: String = "") throws -> Int64? {
        let prefix = context.isEmpty ? "" : "\(context): "
        switch fields[key] {
        case .integer(let value)? where value >= 0: return value
        case nil, .null?: return nil
        case let other?: throw EventCodingError(.invalidValue, "\(prefix)field '\(key)' must be a non-negative integer, not \(other.kindName)")
        }
    }

    private static func instant(_ fields: [String: JSONValue], _ key: String, context: String) throws -> Instant? {
        guard let text = try optionalString(fields, key, context: context) else { return nil }
        do {
            return try Instant(parsing: text)
        } catch let error as EventCodingError {
            throw EventCodingError(.invalidValue, "\(context): field '\(key)': \(error.message)")
        }
    }

    /// A JSON string literal for `text`.
    public static func quoted(_ text: String) -> String {
        let data = try! JSONEncoder().encode(text)  // encoding a String cannot fail
        return escapingDELAndC1(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/"))
    }

    /// What a parser's failure hides, named by field: a byte that is not UTF-8, or a number
    /// out of range. Nil when it is neither (the parser's own description serves).
    static func inputProblem(in text: some Collection<UInt8>) -> EventCodingError? {
        let bytes = Array(text)
        if let offset = invalidUTF8Offset(bytes) {
            let reason = "is not valid UTF-8 text (byte \(offset + 1) of the line)"
            if let path = JSONDuplicateKeys.path(containing: offset, in: bytes), !path.isEmpty {
                return EventCodingError(.invalidValue, field: path, reason: reason, context: "event")
            }
            return EventCodingError(.invalidJSON, "the line \(reason)")
        }
        if let path = JSONDuplicateKeys.firstOutOfRangeNumber(in: bytes) {
            return EventCodingError(.invalidValue, field: path, reason: "holds a number out of range (no event field holds one that large)", context: "event")
        }
        return nil
    }

    /// The offset of the first byte that does not belong to well-formed UTF-8, or nil.
    static func invalidUTF8Offset(_ bytes: [UInt8]) -> Int? {
        var offset = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
            case .emptyInput:
                return nil
            case .error:
                return offset
            }
        }
    }

    private static func describeSyntax(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            if let underlying = context.underlyingError {
                return "\(underlying)".prefix(200).description
            }
            return context.debugDescription
        }
        return "\(error)".prefix(200).description
    }

    /// Turns a `DecodingError` into a message naming the field in `snake_case`.
    static func describe(_ error: DecodingError, context: String, root: String) -> EventCodingError {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let keys = (codingPath + (last.map { [$0] } ?? [])).map { key in
                key.intValue.map { "[\($0)]" } ?? snakeCase(key.stringValue)
            }
            return ([root] + keys).joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let details):
            return EventCodingError(.missingField, "\(context): field '\(path(details.codingPath, key))' is missing")
        case .typeMismatch(let type, let details):
            return EventCodingError(.invalidValue, "\(context): field '\(path(details.codingPath))' must be \(jsonKind(of: type))")
        case .valueNotFound(let type, let details):
            return EventCodingError(.missingField, "\(context): field '\(path(details.codingPath))' must be \(jsonKind(of: type)), not null")
        case .dataCorrupted(let details):
            return EventCodingError(.invalidValue, "\(context): field '\(path(details.codingPath))': \(details.debugDescription)")
        @unknown default:
            return EventCodingError(.invalidJSON, "\(context): \(error)")
        }
    }

    private static func jsonKind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is UInt64.Type, is UInt16.Type: "an integer"
        default: "an object (\(type))"
        }
    }

    static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                if !result.isEmpty { result.append("_") }
                result.append(contentsOf: character.lowercased())
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// Lets an existential payload go through `JSONEncoder`.
private struct AnyPayload: Encodable {
    let payload: any EventPayload
    init(_ payload: any EventPayload) { self.payload = payload }
    func encode(to encoder: any Encoder) throws { try payload.encode(to: encoder) }
}
