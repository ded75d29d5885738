internal import Foundation

/// Any JSON value, kept only to check the shape of input (unknown fields, nulls, string
/// limits) and to carry an event's `data` object to its payload decoder. Numbers stay in
/// their exact form: integers as integers, anything else as decimal text.
enum JSONValue: Codable, Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case decimal(Decimal)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null; return }
        if let value = try? container.decode(Bool.self) { self = .bool(value); return }
        if let value = try? container.decode(Int64.self) { self = .integer(value); return }
        if let value = try? container.decode(UInt64.self) { self = .unsignedInteger(value); return }
        if let value = try? container.decode(String.self) { self = .string(value); return }
        if let value = try? container.decode([String: JSONValue].self) { self = .object(value); return }
        if let value = try? container.decode([JSONValue].self) { self = .array(value); return }
        self = .decimal(try container.decode(Decimal.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .unsignedInteger(let value): try container.encode(value)
        case .decimal(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .unsignedInteger, .decimal: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Throws for the first non-integer number: no event field holds one (money, rates and
    /// prices are decimal strings), and Foundation's own error would not name the field.
    func checkIntegers(path: String) throws {
        switch self {
        case .decimal:
            throw EventCodingError(.invalidValue, "field '\(path)' must be an integer; money, rates and prices are decimal strings")
        case .object(let fields):
            for key in fields.keys.sorted() { try fields[key]!.checkIntegers(path: "\(path).\(key)") }
        case .array(let values):
            for (index, value) in values.enumerated() { try value.checkIntegers(path: "\(path)[\(index)]") }
        default:
            break
        }
    }

    /// Throws for the first field of `self` (the input) that `known` (the same value decoded
    /// and encoded again) does not have, and for strings past the event string limit. Nulls
    /// in the input stand for absent optional fields.
    func checkShape(against known: JSONValue, path: String) throws {
        switch (self, known) {
        case (.object(let input), .object(let recognised)):
            for key in input.keys.sorted() {
                guard let value = input[key] else { continue }
                let fieldPath = path.isEmpty ? key : "\(path).\(key)"
                if let counterpart = recognised[key] {
                    try value.checkShape(against: counterpart, path: fieldPath)
                } else if value != .null {
                    throw EventCodingError(.unknownField, "field '\(fieldPath)' is not part of this event's schema")
                }
            }
        case (.array(let input), .array(let recognised)) where input.count == recognised.count:
            for (index, (value, counterpart)) in zip(input, recognised).enumerated() {
                try value.checkShape(against: counterpart, path: "\(path)[\(index)]")
            }
        case (.string(let text), _):
            if text.utf8.count > eventStringBytesLimit {
                throw EventCodingError(.limitExceeded, "field '\(path)' holds \(text.utf8.count) bytes; the limit is \(eventStringBytesLimit)")
            }
        default:
            break
        }
    }
}
