import Foundation
import TallyEngine

/// A command's JSON body, read field by field: every refusal names the field at fault.
/// Amounts are strings ("12.50"); a JSON number where an amount belongs is refused, so no
/// client ever sends money through a binary float.
struct JSONBody: Sendable {
    private let fields: [String: JSONField]

    /// Parses a JSON object; anything else is refused as `invalid_json`.
    init(_ bytes: [UInt8]) throws {
        let object: JSONField
        do {
            object = try JSONDecoder().decode(JSONField.self, from: Data(bytes))
        } catch {
            throw Problem(.badRequest, "invalid_json", "the body is not valid JSON")
        }
        if let duplicate = JSONDuplicateKeys.first(in: bytes) {
            throw Problem(.badRequest, "invalid_json", "field '\(duplicate)' appears twice in one object: JSON readers disagree on which one counts, so the body is refused", field: duplicate)
        }
        guard case .object(let fields) = object else {
            throw Problem(.badRequest, "invalid_json", "the body must be a JSON object")
        }
        self.fields = fields
    }

    /// The fields a command knows; any other is refused (a typo must not pass silently).
    func requireOnly(_ known: Set<String>) throws {
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw Problem(.unprocessableContent, "unknown_field", "'\(unknown)' is not a field of this command; it takes \(known.sorted().joined(separator: ", "))", field: unknown)
        }
    }

    /// Whether the body has the field (null counts as absent).
    func has(_ name: String) -> Bool {
        switch fields[name] {
        case nil, .null?: false
        default: true
        }
    }

    /// A string field, or nil when absent or null.
    func optionalString(_ name: String) throws -> String? {
        switch fields[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case .number?, .integer?: throw Problem.invalidField(name, "'\(name)' must be a string\(Self.isAmount(name) ? " (amounts are decimal strings such as \"12.50\", never JSON numbers)" : "")")
        default: throw Problem.invalidField(name, "'\(name)' must be a string")
        }
    }

    /// A required string field.
    func string(_ name: String) throws -> String {
        guard let text = try optionalString(name) else { throw Problem.missingField(name) }
        return text
    }

    /// A list of strings, or nil when absent.
    func optionalStrings(_ name: String) throws -> [String]? {
        switch fields[name] {
        case nil, .null?: return nil
        case .array(let elements)?:
            return try elements.map { element in
                guard case .string(let text) = element else { throw Problem.invalidField(name, "'\(name)' must be a list of strings") }
                return text
            }
        default: throw Problem.invalidField(name, "'\(name)' must be a list of strings")
        }
    }

    /// A boolean field, or nil.
    func optionalBool(_ name: String) throws -> Bool? {
        switch fields[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw Problem.invalidField(name, "'\(name)' must be true or false")
        }
    }

    /// A whole-number field (a JSON integer, never an amount), or nil when absent or null.
    func optionalInteger(_ name: String) throws -> Int64? {
        switch fields[name] {
        case nil, .null?: return nil
        case .integer(let value)?: return value
        default: throw Problem.invalidField(name, "'\(name)' must be a whole number")
        }
    }

    /// A required whole-number field.
    func integer(_ name: String) throws -> Int64 {
        guard let value = try optionalInteger(name) else { throw Problem.missingField(name) }
        return value
    }

    /// A field naming one case of a string enumeration.
    func enumeration<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type, default fallback: T? = nil) throws -> T where T.RawValue == String {
        guard let text = try optionalString(name) else {
            if let fallback { return fallback }
            throw Problem.missingField(name)
        }
        guard let value = T(rawValue: text) else {
            throw Problem.invalidField(name, "'\(name)' is '\(text)'; use one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    private static func isAmount(_ name: String) -> Bool {
        ["amount", "target", "maximum", "value", "budgeted", "opening_balance"].contains(name)
    }
}

/// One JSON value as the body gave it (a whole number fitting 64 bits is kept as an integer,
/// for counts and weights; any other number only as "a number": no amount is ever read from one).
private enum JSONField: Decodable, Sendable {
    case string(String), number, integer(Int64), bool(Bool), null, other
    case object([String: JSONField])
    case array([JSONField])

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            var fields: [String: JSONField] = [:]
            for key in container.allKeys { fields[key.stringValue] = try container.decode(JSONField.self, forKey: key) }
            self = .object(fields)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONField] = []
            while !container.isAtEnd { elements.append(try container.decode(JSONField.self)) }
            self = .array(elements)
            return
        }
        let value = try decoder.singleValueContainer()
        if value.decodeNil() {
            self = .null
        } else if let flag = try? value.decode(Bool.self) {
            self = .bool(flag)
        } else if let text = try? value.decode(String.self) {
            self = .string(text)
        } else if let whole = try? value.decode(Int64.self) {
            self = .integer(whole)
        } else {
            self = .number
        }
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
