import Foundation
import Testing
@testable import Tally
@testable import TallyEngine
@testable import TallyProducts

// Test-only helpers for the published schemas: a JSON model that keeps key order and the
// exact text of numbers (so schema files can be written and compared byte for byte, and
// payloads compared exactly), and a small JSON Schema validator for the subset of draft
// 2020-12 that `Schemas/` uses. Both are independent of the codecs under test.

/// A JSON value that keeps object keys in order and numbers as their source text.
///
/// Equality treats objects as unordered (like JSON itself); ``rendered`` keeps the order.
enum JSON: Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    /// The number's text, e.g. `-12` or `1.5e3`, so no value goes through floating point.
    case number(String)
    case string(String)
    case array([JSON])
    case object([(key: String, value: JSON)])

    static func integer(_ value: some BinaryInteger) -> JSON { .number(String(value)) }

    static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            let right = Dictionary(b.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            return a.allSatisfy { right[$0.key] == $0.value }
        default: return false
        }
    }

    subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    var members: [(key: String, value: JSON)]? {
        if case .object(let members) = self { members } else { nil }
    }

    var items: [JSON]? {
        if case .array(let items) = self { items } else { nil }
    }

    var stringValue: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// The same object with `key` set (replaced in place, or appended).
    func setting(_ key: String, to value: JSON) -> JSON {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append((key, value))
        }
        return .object(members)
    }

    /// The same object without `key`.
    func removing(_ key: String) -> JSON {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { $0.key != key })
    }

    var description: String { compact }

    // MARK: Writing

    /// One line, no spaces.
    var compact: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let text): text
        case .string(let text): Self.quote(text)
        case .array(let items): "[" + items.map(\.compact).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { Self.quote($0.key) + ":" + $0.value.compact }.joined(separator: ",") + "}"
        }
    }

    /// Two-space indented, keys in order; arrays of scalars stay on one line. Ends with a newline.
    var rendered: String { render(indent: "") + "\n" }

    private func render(indent: String) -> String {
        let inner = indent + "  "
        switch self {
        case .array(let items) where items.contains(where: \.isContainer):
            return "[\n" + items.map { inner + $0.render(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .array(let items):
            return "[" + items.map(\.compact).joined(separator: ", ") + "]"
        case .object(let members) where members.isEmpty:
            return "{}"
        case .object(let members):
            let lines = members.map { inner + Self.quote($0.key) + ": " + $0.value.render(indent: inner) }
            return "{\n" + lines.joined(separator: ",\n") + "\n\(indent)}"
        default:
            return compact
        }
    }

    private var isContainer: Bool {
        switch self {
        case .array, .object: true
        default: false
        }
    }

    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    // MARK: Parsing

    struct ParseError: Error, CustomStringConvertible {
        let message: String
        let offset: Int
        var description: String { "JSON parse error at byte \(offset): \(message)" }
    }

    static func parse(_ text: String) throws -> JSON { try parse(Array(text.utf8)) }

    static func parse(_ bytes: [UInt8]) throws -> JSON {
        var parser = Parser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.position == bytes.count else { throw parser.error("text after the value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        func error(_ message: String) -> ParseError { ParseError(message: message, offset: position) }

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func expect(_ literal: String) throws {
            let expected = Array(literal.utf8)
            guard bytes.count - position >= expected.count,
                  Array(bytes[position..<(position + expected.count)]) == expected
            else { throw error("expected \(literal)") }
            position += expected.count
        }

        mutating func value(depth: Int) throws -> JSON {
            guard depth < 64 else { throw error("nested too deeply") }
            guard position < bytes.count else { throw error("unexpected end") }
            switch bytes[position] {
            case UInt8(ascii: "n"): try expect("null"); return .null
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                position += 1
                var items: [JSON] = []
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard position < bytes.count else { throw error("unterminated array") }
                    if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                    if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
                    throw error("expected , or ]")
                }
            case UInt8(ascii: "{"):
                position += 1
                var members: [(key: String, value: JSON)] = []
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a key") }
                    let key = try string()
                    guard !members.contains(where: { $0.key == key }) else { throw error("duplicate key \(key)") }
                    skipSpace()
                    try expect(":")
                    skipSpace()
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard position < bytes.count else { throw error("unterminated object") }
                    if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                    if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
                    throw error("expected , or }")
                }
            default:
                return .number(try number())
            }
        }

        mutating func number() throws -> String {
            let start = position
            func digits() -> Int {
                let from = position
                while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 { position += 1 }
                return position - from
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            let integerStart = position
            let integerDigits = digits()
            guard integerDigits > 0 else { throw error("expected a value") }
            guard integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw error("leading zero") }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard digits() > 0 else { throw error("expected fraction digits") }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard digits() > 0 else { throw error("expected exponent digits") }
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        mutating func hex4() throws -> UInt32 {
            guard bytes.count - position >= 4,
                  let value = UInt32(String(decoding: bytes[position..<(position + 4)], as: UTF8.self), radix: 16)
            else { throw error("bad \\u escape") }
            position += 4
            return value
        }

        mutating func string() throws -> String {
            position += 1  // opening quote
            var utf8: [UInt8] = []
            while true {
                guard position < bytes.count else { throw error("unterminated string") }
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: utf8, as: UTF8.self) else { throw error("invalid UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    guard position < bytes.count else { throw error("unterminated escape") }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""): utf8.append(0x22)
                    case UInt8(ascii: "\\"): utf8.append(0x5C)
                    case UInt8(ascii: "/"): utf8.append(0x2F)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800...0xDBFF).contains(code) {
                            try expect("\\u")
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw error("unpaired surrogate") }
                        utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: throw error("bad escape")
                    }
                case 0x00..<0x20:
                    throw error("control character in string")
                default:
                    utf8.append(byte)
                }
            }
        }
    }
}

/// A JSON Schema (draft 2020-12) validator for the subset `Schemas/` uses: `type`,
/// `properties`, `required`, `additionalProperties` (false or a schema), `enum`, `const`,
/// `pattern`, `minimum`/`maximum`, `minLength`/`maxLength`, `items`, and `$ref`
/// to the document's own `$defs`. Annotations (`$schema`, `$id`, `title`, `description`,
/// `$comment`, `examples`, `x-…`) are ignored; any other keyword is reported, so a schema cannot lean
/// on something this validator would silently skip.
struct SchemaValidator {
    /// The whole schema document, for `$ref` resolution.
    let root: JSON

    private static let annotations: Set<String> = ["$schema", "$id", "title", "description", "$comment", "examples", "$defs"]
    private static let assertions: Set<String> = [
        "type", "properties", "required", "additionalProperties", "enum", "const", "pattern",
        "minimum", "maximum", "minLength", "maxLength", "items", "$ref",
    ]

    /// Every violation, each as `path: what is wrong`; empty when `instance` is valid.
    func errors(_ instance: JSON) -> [String] {
        var errors: [String] = []
        validate(instance, against: root, path: "$", depth: 0, into: &errors)
        return errors
    }

    /// Resolves `#/$defs/<name>` in the root document.
    func resolve(_ reference: String) -> JSON? {
        let prefix = "#/$defs/"
        guard reference.hasPrefix(prefix) else { return nil }
        return root["$defs"]?[String(reference.dropFirst(prefix.count))]
    }

    private func validate(_ value: JSON, against schema: JSON, path: String, depth: Int, into errors: inout [String]) {
        guard depth < 32 else { errors.append("\(path): $ref nesting too deep"); return }
        if case .bool(let allowed) = schema {
            if !allowed { errors.append("\(path): no value is allowed here") }
            return
        }
        guard let keywords = schema.members else {
            errors.append("\(path): schema is not an object")
            return
        }
        for (keyword, argument) in keywords {
            if Self.annotations.contains(keyword) || keyword.hasPrefix("x-") { continue }
            guard Self.assertions.contains(keyword) else {
                errors.append("\(path): unsupported schema keyword '\(keyword)'")
                continue
            }
            switch keyword {
            case "$ref":
                guard let reference = argument.stringValue, let target = resolve(reference) else {
                    errors.append("\(path): unresolvable $ref \(argument)")
                    continue
                }
                validate(value, against: target, path: path, depth: depth + 1, into: &errors)
            case "type":
                let names: [String]
                switch argument {
                case .string(let name): names = [name]
                case .array(let items): names = items.compactMap(\.stringValue)
                default: names = []
                }
                if !names.contains(where: { Self.has(value, type: $0) }) {
                    errors.append("\(path): expected \(names.joined(separator: " or ")), found \(Self.kind(of: value))")
                }
            case "properties":
                guard let object = value.members, let properties = argument.members else { continue }
                for (name, propertySchema) in properties {
                    if let member = object.first(where: { $0.key == name }) {
                        validate(member.value, against: propertySchema, path: "\(path).\(name)", depth: depth, into: &errors)
                    }
                }
            case "required":
                guard let object = value.members, case .array(let names) = argument else { continue }
                for name in names.compactMap(\.stringValue) where !object.contains(where: { $0.key == name }) {
                    errors.append("\(path): required property '\(name)' is missing")
                }
            case "additionalProperties":
                guard let object = value.members else { continue }
                let declared = Set(schema["properties"]?.members?.map(\.key) ?? [])
                for member in object where !declared.contains(member.key) {
                    if case .bool(false) = argument {
                        errors.append("\(path): property '\(member.key)' is not allowed")
                    } else {
                        validate(member.value, against: argument, path: "\(path).\(member.key)", depth: depth, into: &errors)
                    }
                }
            case "items":
                guard case .array(let items) = value else { continue }
                for (index, item) in items.enumerated() {
                    validate(item, against: argument, path: "\(path)[\(index)]", depth: depth, into: &errors)
                }
            case "enum":
                guard case .array(let allowed) = argument else { continue }
                if !allowed.contains(value) { errors.append("\(path): \(value) is not one of \(argument)") }
            case "const":
                if value != argument { errors.append("\(path): \(value) is not \(argument)") }
            case "pattern":
                guard let text = value.stringValue, let pattern = argument.stringValue else { continue }
                if !Self.matches(text, pattern: pattern) {
                    errors.append("\(path): \(value) does not match \(pattern)")
                }
            case "minimum", "maximum":
                guard case .number(let text) = value, case .number(let limitText) = argument else { continue }
                let beyond: Bool
                if let number = Int128(text), let limit = Int128(limitText) {
                    beyond = keyword == "minimum" ? number < limit : number > limit
                } else if let number = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
                          let limit = Decimal(string: limitText, locale: Locale(identifier: "en_US_POSIX")) {
                    beyond = keyword == "minimum" ? number < limit : number > limit
                } else {
                    errors.append("\(path): cannot compare \(text) with \(limitText)")
                    continue
                }
                if beyond {
                    errors.append("\(path): \(text) is beyond the \(keyword) \(limitText)")
                }
            case "minLength", "maxLength":
                guard let text = value.stringValue, case .number(let limitText) = argument, let limit = Int(limitText) else { continue }
                let length = text.unicodeScalars.count
                if keyword == "minLength" ? length < limit : length > limit {
                    errors.append("\(path): length \(length) is beyond the \(keyword) \(limit)")
                }
            default:
                break
            }
        }
    }

    private static func has(_ value: JSON, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string),
             ("array", .array), ("object", .object):
            return true
        case ("integer", .number(let text)):
            return text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "-") }
        default:
            return false
        }
    }

    private static func kind(of value: JSON) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    nonisolated(unsafe) private static var expressions: [String: NSRegularExpression] = [:]
    private static let expressionsLock = NSLock()

    /// ECMA-262-style search (unanchored unless the pattern anchors itself).
    static func matches(_ text: String, pattern: String) -> Bool {
        expressionsLock.lock()
        defer { expressionsLock.unlock() }
        let expression: NSRegularExpression
        if let cached = expressions[pattern] {
            expression = cached
        } else {
            // ECMA-262's `$` (no multiline) matches only at the end; ICU's also before a final
            // line break, so "USD\n" would pass. `\z` is the end in both senses.
            let ecma = pattern.hasSuffix("$") && !pattern.hasSuffix("\\$") ? pattern.dropLast() + "\\z" : pattern
            guard let compiled = try? NSRegularExpression(pattern: String(ecma)) else { return false }
            expressions[pattern] = compiled
            expression = compiled
        }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.firstMatch(in: text, range: range) != nil
    }
}

// MARK: - Tests

@Suite struct SchemaValidationTests {
    static func validator(_ name: String, version: UInt16) throws -> SchemaValidator {
        SchemaValidator(root: try Repository.eventSchema(name, version: version))
    }

    /// The sample event of a type as a JSON line, parsed.
    static func sampleLine(_ body: EventBody) throws -> JSON {
        try JSON.parse(try EventJSON.encode(EventJSONCodecTests.recorded(EventSamples.newEvent(body))))
    }

    @Test(arguments: EventSamples.bodies.map(\.type.name))
    func sampleValidates(_ name: String) throws {
        let body = try #require(EventSamples.byTypeName[name])
        let line = try Self.sampleLine(body)
        let data = try #require(line["data"])
        #expect(try Self.validator(name, version: body.type.version).errors(data) == [], "\(data)")
        #expect(SchemaValidator(root: try Repository.envelopeSchema()).errors(line) == [], "\(line)")
    }

    @Test func randomEventsValidate() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        let envelope = SchemaValidator(root: try Repository.envelopeSchema())
        var validators: [String: SchemaValidator] = [:]
        for index in 0..<1_100 {
            let event = EventJSONCodecTests.recorded(values.event(index: index), sequence: UInt64(index + 1))
            let line = try JSON.parse(try EventJSON.encode(event))
            let name = event.type.name
            if validators[name] == nil { validators[name] = try Self.validator(name, version: event.type.version) }
            let errors = validators[name]!.errors(line["data"] ?? .null) + envelope.errors(line)
            #expect(errors == [], replay(seed, "event \(index): \(line)"))
        }
    }

    @Test func legacyFixtureValidatesAgainstItsVersionOnly() throws {
        let line = try JSON.parse(String(decoding: try EventUpcastingTests.fixture("deposit_received.v1.json"), as: UTF8.self))
        let data = try #require(line["data"])
        #expect(try Self.validator("deposit_received", version: 1).errors(data) == [])
        #expect(try Self.validator("deposit_received", version: 2).errors(data) == ["$: required property 'source' is missing"])
        #expect(SchemaValidator(root: try Repository.envelopeSchema()).errors(line) == [])
    }

    /// Damaged `data` objects the schema refuses, each with the error expected; the JSON
    /// codec refuses every one of them too, so the schema is never looser than Tally.
    @Test(arguments: [
        ("missing required", "transaction_recorded", "$: required property 'payee' is missing"),
        ("extra field", "transaction_recorded", "$: property 'memo' is not allowed"),
        ("bad enum", "transaction_recorded", "$.category: \"food\" is not one of"),
        ("money as a number", "transaction_recorded", "$.amount: expected object, found number"),
        ("money with grouping", "transaction_recorded", "$.amount.amount: \"1,000.00\" does not match"),
        ("money with exponent", "transaction_recorded", "$.amount.amount: \"1e3\" does not match"),
        ("money without currency", "transaction_recorded", "$.amount: required property 'currency' is missing"),
        ("lowercase currency", "transaction_recorded", "$.amount.currency: \"gbp\" does not match"),
        ("extra money field", "transaction_recorded", "$.amount: property 'scale' is not allowed"),
        ("boolean as a string", "transaction_recorded", "$.recurring: expected boolean, found string"),
        ("decimal as a number", "transaction_recorded", "$.rate_to_base: expected string, found number"),
        ("null optional", "transaction_recorded", "$.bank_id: expected string, found null"),
        ("integer as a string", "challenge_started", "$.step_count: expected integer, found string"),
        ("integer with a fraction", "challenge_started", "$.step_count: expected integer, found number"),
        ("integer past Int64", "challenge_started", "$.step_count: 9223372036854775808 is beyond the maximum"),
        ("bad date", "envelope_created", "$.start_date: \"2026-4-6\" does not match"),
        ("bad month", "budget_set", "$.month: \"2026-13\" does not match"),
    ])
    func damagedDataIsRefused(_ damage: String, _ name: String, _ expected: String) throws {
        let body = try #require(EventSamples.byTypeName[name])
        let line = try Self.sampleLine(body)
        let data = try #require(line["data"])
        let damaged: JSON = switch damage {
        case "missing required": data.removing("payee")
        case "extra field": data.setting("memo", to: .string("x"))
        case "bad enum": data.setting("category", to: .string("food"))
        case "money as a number": data.setting("amount", to: .number("-23.45"))
        case "money with grouping": data.setting("amount", to: data["amount"]!.setting("amount", to: .string("1,000.00")))
        case "money with exponent": data.setting("amount", to: data["amount"]!.setting("amount", to: .string("1e3")))
        case "money without currency": data.setting("amount", to: data["amount"]!.removing("currency"))
        case "lowercase currency": data.setting("amount", to: data["amount"]!.setting("currency", to: .string("gbp")))
        case "extra money field": data.setting("amount", to: data["amount"]!.setting("scale", to: .integer(2)))
        case "boolean as a string": data.setting("recurring", to: .string("true"))
        case "decimal as a number": data.setting("rate_to_base", to: .number("1.2703"))
        case "null optional": data.setting("bank_id", to: .null)
        case "integer as a string": data.setting("step_count", to: .string("52"))
        case "integer with a fraction": data.setting("step_count", to: .number("52.5"))
        case "integer past Int64": data.setting("step_count", to: .number("9223372036854775808"))
        case "bad date": data.setting("start_date", to: .string("2026-4-6"))
        case "bad month": data.setting("month", to: .string("2026-13"))
        default: data
        }
        let errors = try Self.validator(name, version: body.type.version).errors(damaged)
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.hasPrefix(expected) == true, "\(errors)")
        if damage != "null optional" {  // Tally reads a null optional as absent; the schema asks writers to omit it
            #expect(throws: EventCodingError.self, "\(damage)") {
                try EventJSON.decode(Array(line.setting("data", to: damaged).compact.utf8), catalog: .standard)
            }
        }
    }

    @Test func damagedEnvelopesAreRefused() throws {
        let line = try Self.sampleLine(EventSamples.bodies[0])
        let envelope = SchemaValidator(root: try Repository.envelopeSchema())
        let cases: [(JSON, String)] = [
            (line.setting("type", to: .string("pot_painted")), "$.type: \"pot_painted\" is not one of"),
            (line.removing("data"), "$: required property 'data' is missing"),
            (line.setting("colour", to: .string("red")), "$: property 'colour' is not allowed"),
            (line.setting("version", to: .integer(0)), "$.version: 0 is beyond the minimum 1"),
            (line.setting("cause", to: .integer(0)), "$.cause: 0 is beyond the minimum 1"),
            (line.setting("effective_at", to: .string("2026-05-01 09:00")), "$.effective_at: \"2026-05-01 09:00\" does not match"),
            (line.setting("idempotency_key", to: .string("")), "$.idempotency_key: length 0 is beyond the minLength 1"),
        ]
        for (damaged, expected) in cases {
            let errors = envelope.errors(damaged)
            #expect(errors.count == 1 && errors[0].hasPrefix(expected), "\(errors)")
        }
    }

    @Test func validatorRefusesKeywordsItDoesNotImplement() {
        let validator = SchemaValidator(root: .object([("type", .string("object")), ("oneOf", .array([]))]))
        #expect(validator.errors(.object([])) == ["$: unsupported schema keyword 'oneOf'"])
    }

    @Test func patternsAnchorAsInECMAScript() {
        #expect(SchemaValidator.matches("USD", pattern: SchemaGenerator.commodityPattern))
        #expect(!SchemaValidator.matches("USD\n", pattern: SchemaGenerator.commodityPattern))
        #expect(!SchemaValidator.matches("xUSD", pattern: SchemaGenerator.commodityPattern))
        #expect(SchemaValidator.matches("-0.05", pattern: SchemaGenerator.decimalPattern))
        #expect(!SchemaValidator.matches("007", pattern: SchemaGenerator.decimalPattern))
    }

    @Test func jsonModelRoundTripsText() throws {
        let text = #"{"a":[1,-2.5e3,true,null],"b":{"c":"\"q\" \\ \u00e9 \ud83d\ude42 \n"}}"#
        let value = try JSON.parse(text)
        #expect(value["b"]?["c"] == .string("\"q\" \\ é 🙂 \n"))
        #expect(try JSON.parse(value.compact) == value)
        #expect(try JSON.parse(value.rendered) == value)
        #expect(throws: JSON.ParseError.self) { try JSON.parse("{\"a\":1,\"a\":2}") }
        #expect(throws: JSON.ParseError.self) { try JSON.parse("[01]") }
    }
}
