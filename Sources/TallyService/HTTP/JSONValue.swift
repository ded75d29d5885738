import Foundation
import TallyEngine

/// A JSON value the service writes: objects keep their key order, amounts are strings
/// (``Money/decimalString``), never JSON numbers; `raw` splices JSON the engine rendered
/// (an event in its published form, ``EventJSON``).
enum JSONValue: Sendable {
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])
    case raw(String)

    /// An amount as its exact decimal string ("12.50").
    static func amount(_ money: Money) -> JSONValue { .string(money.decimalString) }

    /// An instant in RFC 3339 form.
    static func instant(_ instant: Instant) -> JSONValue { .string(instant.description) }

    /// A string or null.
    static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// The JSON text.
    var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// A JSON string literal: quote, backslash and every control character (C0, DEL, C1)
    /// escaped, as ``EventJSON/quoted(_:)`` writes them.
    static func quote(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }

    private func write(to output: inout String) {
        switch self {
        case .string(let text): Self.quote(text, into: &output)
        case .integer(let value): output += String(value)
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        case .raw(let json): output += json
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let fields):
            output += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { output += "," }
                Self.quote(key, into: &output)
                output += ":"
                value.write(to: &output)
            }
            output += "}"
        }
    }
}
