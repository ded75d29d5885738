import Foundation
import Testing
@testable import Tally
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

/// Reads a binary event payload with nothing but its JSON Schema and the rules in
/// `Schemas/README.md`, producing the JSON `data` object; no catalog type, no codec.
///
/// If its output equals the JSON codec's for every type, the published schemas (property
/// order, required/optional, types, `$defs`) fully describe the binary format, as a reader
/// in another language would need. The one outside fact it uses is each commodity's scale
/// (ISO 4217 minor units, else the coin table, else 8), which the README documents.
struct SchemaBinaryDecoder {
    struct Failure: Error, CustomStringConvertible { let description: String }

    private let root: JSON
    private let bytes: [UInt8]
    private var position = 0

    private init(root: JSON, bytes: [UInt8]) {
        self.root = root
        self.bytes = bytes
    }

    /// The `data` object of a payload, every byte consumed.
    static func decode(_ bytes: [UInt8], schema: JSON) throws -> JSON {
        var decoder = SchemaBinaryDecoder(root: schema, bytes: bytes)
        let value = try decoder.value(schema, path: "data")
        guard decoder.position == bytes.count else {
            throw Failure(description: "\(bytes.count - decoder.position) bytes left after the last property")
        }
        return value
    }

    // MARK: By schema

    private mutating func value(_ schema: JSON, path: String) throws -> JSON {
        if let reference = schema["$ref"]?.stringValue {
            let prefix = "#/$defs/"
            guard reference.hasPrefix(prefix), let definition = root["$defs"]?[String(reference.dropFirst(prefix.count))] else {
                throw Failure(description: "\(path): cannot resolve \(reference)")
            }
            switch reference.dropFirst(prefix.count) {
            case "money":
                let code = try string()
                let minorUnits = try zigzag()
                return .object([("amount", .string(Self.decimalText(minorUnits, scale: try Self.scale(of: code)))), ("currency", .string(code))])
            case "decimal":
                let significand = try zigzag()
                let scale = Int(try byte())
                guard scale <= 18 else { throw Failure(description: "\(path): decimal scale \(scale)") }
                return .string(Self.decimalText(significand, scale: scale))
            case "date": return .string(Self.dateText(days: try zigzag()))
            case "month":
                let ordinal = try zigzag()
                return .string("\(Self.pad(ordinal / 12, 4))-\(Self.pad(ordinal % 12 + 1, 2))")
            case "instant": return .string(Self.instantText(microseconds: try zigzag()))
            default: return try value(definition, path: path)  // e.g. an enum, or a string with a pattern
            }
        }
        if case .array(let allowed)? = schema["enum"] {
            let text = JSON.string(try string())
            guard allowed.contains(text) else { throw Failure(description: "\(path): \(text) is not in the enum") }
            return text
        }
        if schema["x-tally-personal-text"] == .bool(true) {
            // Schemas/README.md: a tag byte, 0 then a plain string, 1 then sealed bytes (read as
            // erased here: a reader without the store's subject keys cannot open them).
            switch try byte() {
            case 0: return .string(try string())
            case 1:
                let count = try varint()
                guard count >= 44, count <= UInt64(bytes.count - position) else { throw Failure(description: "\(path): sealed text of \(count) bytes") }
                position += Int(count)
                return .string("[erased]")
            case let other: throw Failure(description: "\(path): personal text tag \(other)")
            }
        }
        switch schema["type"]?.stringValue {
        case "string"?: return .string(try string())
        case "integer"?: return .integer(try zigzag())
        case "boolean"?:
            switch try byte() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            case let other: throw Failure(description: "\(path): boolean byte \(other)")
            }
        case "array"?:
            guard let items = schema["items"] else { throw Failure(description: "\(path): array without items") }
            return .array(try (0..<varint()).map { index in try value(items, path: "\(path)[\(index)]") })
        case "object"?:
            guard let properties = schema["properties"]?.members else { throw Failure(description: "\(path): object without properties") }
            let required = Set((schema["required"]?.items ?? []).compactMap(\.stringValue))
            var members: [(key: String, value: JSON)] = []
            for (name, propertySchema) in properties {
                if !required.contains(name) {
                    switch try byte() {
                    case 0: continue
                    case 1: break
                    case let other: throw Failure(description: "\(path).\(name): optional marker \(other)")
                    }
                }
                members.append((name, try value(propertySchema, path: "\(path).\(name)")))
            }
            return .object(members)
        default:
            throw Failure(description: "\(path): no binary form for schema \(schema)")
        }
    }

    // MARK: Primitives

    private mutating func byte() throws -> UInt8 {
        guard position < bytes.count else { throw Failure(description: "payload ends at byte \(position)") }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            let byte = try byte()
            guard shift < 63 || byte <= 1 else { throw Failure(description: "varint over 64 bits") }
            result |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte < 0x80 { return result }
        }
        throw Failure(description: "varint over 10 bytes")
    }

    private mutating func zigzag() throws -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    private mutating func string() throws -> String {
        let count = try varint()
        guard count <= UInt64(bytes.count - position) else { throw Failure(description: "string runs past the end") }
        let slice = bytes[position..<(position + Int(count))]
        position += Int(count)
        guard let text = String(validating: slice, as: UTF8.self) else { throw Failure(description: "invalid UTF-8") }
        return text
    }

    // MARK: Text forms

    static func scale(of code: String) throws -> Int {
        do { return try Commodity.named(code).scale } catch { throw Failure(description: "unknown commodity \(code)") }
    }

    static func pad(_ value: some BinaryInteger, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// `units` / 10^scale, exactly, with `scale` digits after the point.
    static func decimalText(_ units: Int64, scale: Int) -> String {
        let digits = String(units.magnitude)
        let sign = units < 0 ? "-" : ""
        guard scale > 0 else { return sign + digits }
        let padded = String(repeating: "0", count: max(0, scale + 1 - digits.count)) + digits
        return sign + padded.dropLast(scale) + "." + padded.suffix(scale)
    }

    /// Howard Hinnant's civil_from_days.
    static func dateText(days: Int64) -> String {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    static func instantText(microseconds: Int64) -> String {
        let perDay: Int64 = 86_400_000_000
        let days = microseconds >= 0 ? microseconds / perDay : (microseconds - perDay + 1) / perDay
        let ofDay = microseconds - days * perDay
        let seconds = ofDay / 1_000_000
        return "\(dateText(days: days))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(ofDay % 1_000_000, 6))Z"
    }
}

@Suite struct SchemaBinaryDecoderTests {
    /// Every committed event schema, by the log code and version a record carries.
    static let schemasByRecordKey: [String: JSON] = {
        var schemas: [String: JSON] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Repository.eventSchemas.path)) ?? []
        for name in names where name.hasSuffix(".schema.json") {
            guard let schema = try? JSON.parse(Repository.read(Repository.eventSchemas.appendingPathComponent(name))),
                  case .number(let code)? = schema["x-tally-log-code"],
                  case let parts = name.split(separator: "."), parts.count == 4, parts[1].hasPrefix("v"),
                  let version = UInt16(parts[1].dropFirst())
            else { continue }
            schemas["\(code)/\(version)"] = schema
        }
        return schemas
    }()

    /// Decodes a log record with the schema found by its code and version alone.
    static func decode(_ record: LogRecord) throws -> JSON {
        let schema = try #require(schemasByRecordKey["\(record.kind)/\(record.version)"], "no schema for code \(record.kind) v\(record.version)")
        return try SchemaBinaryDecoder.decode(record.payload, schema: schema)
    }

    @Test func everyCatalogVersionHasASchemaFoundByLogCode() {
        let expected = EventCatalog.standard.types.flatMap { type in EventCatalog.standard.versions(of: type).map { "\(type.code)/\($0)" } }
        #expect(Set(Self.schemasByRecordKey.keys) == Set(expected))
    }

    @Test(arguments: EventSamples.bodies.map(\.type.name))
    func sampleDecodesToTheJSONCodecsData(_ name: String) throws {
        let body = try #require(EventSamples.byTypeName[name])
        let fromSchema = try Self.decode(EventCatalog.standard.record(for: EventSamples.newEvent(body)))
        let fromCodec = try JSON.parse(try EventJSON.payloadJSON(body))
        #expect(fromSchema == fromCodec, "schema: \(fromSchema)\ncodec:  \(fromCodec)")
    }

    @Test func randomPayloadsDecodeToTheJSONCodecsData() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        for index in 0..<1_100 {
            let event = values.event(index: index)
            do {
                let fromSchema = try Self.decode(EventCatalog.standard.record(for: event))
                let fromCodec = try JSON.parse(try EventJSON.payloadJSON(event.body))
                #expect(fromSchema == fromCodec, replay(seed, "event \(index)\nschema: \(fromSchema)\ncodec:  \(fromCodec)"))
            } catch {
                Issue.record(replay(seed, "event \(index) \(event.type): \(error)"))
            }
        }
    }

    /// The hand-written v1 bytes read, by the v1 schema, as the v1 JSON fixture's data.
    @Test func legacyFixtureDecodesToTheLegacyJSONFixture() throws {
        let bytes = try EventUpcastingTests.hexFixture("deposit_received.v1.bin.hex")
        let line = try JSON.parse(String(decoding: try EventUpcastingTests.fixture("deposit_received.v1.json"), as: UTF8.self))
        let fromSchema = try SchemaBinaryDecoder.decode(bytes, schema: try Repository.eventSchema("deposit_received", version: 1))
        #expect(fromSchema == line["data"])
    }

    @Test func randomLegacyPayloadsDecodeToTheirJSON() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        values.allowsControlCharacters = true  // read paths take text recorded before the rule
        let schema = try Repository.eventSchema("deposit_received", version: 1)
        for index in 0..<200 {
            let legacy = values.legacyPayload(DepositReceivedV1.self)
            var writer = BinaryWriter()
            legacy.encode(to: &writer)
            let fromCodec = try JSON.parse(String(decoding: try EventJSON.payloadEncoder.encode(legacy), as: UTF8.self))
            #expect(try SchemaBinaryDecoder.decode(writer.bytes, schema: schema) == fromCodec, replay(seed, "payload \(index)"))
        }
    }

    /// The decoder is strict too: a truncated or over-long payload is not silently accepted.
    @Test(arguments: EventSamples.bodies.map(\.type.name))
    func truncatedOrPaddedPayloadIsRefused(_ name: String) throws {
        let record = try EventCatalog.standard.record(for: EventSamples.newEvent(try #require(EventSamples.byTypeName[name])))
        let schema = try #require(Self.schemasByRecordKey["\(record.kind)/\(record.version)"])
        // A type without data (command_completed) has nothing to cut; padding is still refused.
        if !record.payload.isEmpty {
            #expect(throws: SchemaBinaryDecoder.Failure.self) { try SchemaBinaryDecoder.decode(Array(record.payload.dropLast()), schema: schema) }
        }
        #expect(throws: SchemaBinaryDecoder.Failure.self) { try SchemaBinaryDecoder.decode(record.payload + [0], schema: schema) }
    }

    @Test func textFormsMatchKnownValues() {
        #expect(SchemaBinaryDecoder.decimalText(-5, scale: 2) == "-0.05")
        #expect(SchemaBinaryDecoder.decimalText(Int64.min, scale: 0) == "-9223372036854775808")
        #expect(SchemaBinaryDecoder.decimalText(1_250_000_000, scale: 8) == "12.50000000")
        #expect(SchemaBinaryDecoder.dateText(days: 0) == "1970-01-01")
        #expect(SchemaBinaryDecoder.dateText(days: -719_162) == "0001-01-01")
        #expect(SchemaBinaryDecoder.dateText(days: 2_932_896) == "9999-12-31")
        #expect(SchemaBinaryDecoder.instantText(microseconds: -1) == "1969-12-31T23:59:59.999999Z")
    }
}
