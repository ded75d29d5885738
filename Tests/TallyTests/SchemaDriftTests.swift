import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

// `Schemas/` is the published contract: one JSON Schema per event type and version, and one
// for the envelope. These tests derive every schema from the Swift code (the fields of each
// type's example by reflection, in declaration order = binary order; the doc comments for
// descriptions; the example itself, in JSON, under `examples`) and compare them byte for
// byte with the committed files, so code and schemas cannot drift apart in either direction.
//
// Regenerate after changing an event type:
//     TALLY_WRITE_SCHEMAS=1 swift test --filter SchemaDriftTests

/// Where the package's files are, from this file's path.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let schemas = root.appendingPathComponent("Schemas")
    static let eventSchemas = schemas.appendingPathComponent("events")

    static func read(_ url: URL) throws -> String { String(decoding: try Data(contentsOf: url), as: UTF8.self) }

    /// The committed schema of one event type and version.
    static func eventSchema(_ name: String, version: UInt16) throws -> JSON {
        try JSON.parse(read(eventSchemas.appendingPathComponent(SchemaGenerator.fileName(name, version: version))))
    }

    static func envelopeSchema() throws -> JSON {
        try JSON.parse(read(schemas.appendingPathComponent("envelope.schema.json")))
    }
}

/// The doc comments of the catalog's types and properties, read from the engine's and the
/// products' sources.
enum SwiftDocComments {
    static let files: [[Substring]] = {
        var files: [[Substring]] = []
        for module in ["Sources/TallyEngine", "Sources/TallyProducts"] {
            let sources = Repository.root.appendingPathComponent(module)
            guard let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in enumerator where url.pathExtension == "swift" {
                if let text = try? Repository.read(url) { files.append(text.split(separator: "\n", omittingEmptySubsequences: false)) }
            }
        }
        return files
    }()

    /// The `///` lines right above `index`, joined, without the markers.
    private static func comment(above index: Int, in lines: [Substring], firstParagraphOnly: Bool = false) -> String? {
        var collected: [String] = []
        var cursor = index - 1
        while cursor >= 0 {
            let line = lines[cursor].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("///") {
                collected.insert(String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), at: 0)
            } else if !line.hasPrefix("@") {
                break
            }
            cursor -= 1
        }
        if firstParagraphOnly, let end = collected.firstIndex(of: "") { collected.removeSubrange(end...) }
        let text = collected.filter { !$0.isEmpty }.joined(separator: " ").replacingOccurrences(of: "``", with: "`")
        return text.isEmpty ? nil : text
    }

    /// Where each `public struct` and `public enum` is declared (the first declaration of a
    /// name, in the order the files are read), found in one pass over the sources: asking the
    /// sources line by line for each type and each property cost 30 s of a debug build's CPU.
    private static let declarations: [Substring: (file: Int, index: Int)] = {
        var found: [Substring: (file: Int, index: Int)] = [:]
        for (file, lines) in files.enumerated() {
            for (index, line) in lines.enumerated() {
                for prefix in ["public struct ", "public enum "] where line.hasPrefix(prefix) {
                    let rest = line.dropFirst(prefix.count)
                    // A name followed by `:` or a space, as `public struct Name: …` or `public enum Name {`.
                    guard let end = rest.firstIndex(where: { $0 == ":" || $0 == " " }) else { continue }
                    let name = rest[..<end]
                    if found[name] == nil { found[name] = (file, index) }
                }
            }
        }
        return found
    }()

    private static func declaration(of typeName: String) -> (lines: [Substring], index: Int)? {
        guard let (file, index) = declarations[Substring(typeName)] else { return nil }
        return (files[file], index)
    }

    /// The first sentence of the type's doc comment (its summary paragraph).
    static func summary(of typeName: String) -> String? {
        guard let (lines, index) = declaration(of: typeName),
              let text = comment(above: index, in: lines, firstParagraphOnly: true)
        else { return nil }
        return firstSentence(text)
    }

    /// The whole doc comment of a stored property of the type.
    static func documentation(of property: String, in typeName: String) -> String? {
        guard let (lines, start) = declaration(of: typeName) else { return nil }
        var index = start + 1
        while index < lines.count, lines[index] != "}" {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("public var \(property):") || line.hasPrefix("public let \(property):") {
                return comment(above: index, in: lines)
            }
            index += 1
        }
        return nil
    }

    /// Up to the first full stop followed by the end or by a space and a capital letter
    /// (so "e.g. `x`" does not end a sentence).
    static func firstSentence(_ text: String) -> String {
        let characters = Array(text)
        for index in characters.indices where characters[index] == "." {
            if index + 1 == characters.count { break }
            if index + 2 < characters.count, characters[index + 1] == " ", characters[index + 2].isUppercase {
                return String(characters[...index])
            }
        }
        return text
    }
}

/// Derives the schema of a payload from a fully populated sample of it.
enum SchemaGenerator {
    static let draft = "https://json-schema.org/draft/2020-12/schema"
    static let baseURL = "https://tally.dev/schemas/"
    static let decimalPattern = "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$"
    static let commodityPattern = "^[A-Z][A-Z0-9._-]{0,15}$"
    static let datePattern = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"
    static let monthPattern = "^[0-9]{4}-(0[1-9]|1[0-2])$"
    static let instantPattern = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,6})?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"

    static func fileName(_ name: String, version: UInt16) -> String { "\(name).v\(version).schema.json" }

    struct Unsupported: Error, CustomStringConvertible { let description: String }

    // MARK: Shared definitions (the binary form of each is in Schemas/README.md)

    static let integer: JSON = .object([
        ("type", .string("integer")),
        ("minimum", .integer(Int64.min)),
        ("maximum", .integer(Int64.max)),
    ])

    static let wellKnownDefinitions: [String: JSON] = [
        "money": .object([
            ("description", .string("An exact amount: a decimal string with at most as many decimals as the currency's scale (never a JSON number), and the currency or commodity code.")),
            ("type", .string("object")),
            ("properties", .object([
                ("amount", .object([("type", .string("string")), ("pattern", .string(decimalPattern))])),
                ("currency", .object([("type", .string("string")), ("pattern", .string(commodityPattern))])),
            ])),
            ("required", .array([.string("amount"), .string("currency")])),
            ("additionalProperties", .bool(false)),
        ]),
        "commodity": .object([
            ("description", .string("A currency or commodity code: ISO 4217, a coin such as USDC, or a ticker.")),
            ("type", .string("string")),
            ("pattern", .string(commodityPattern)),
        ]),
        "decimal": .object([
            ("description", .string("An exact decimal number as a string (never a JSON number), e.g. an exchange rate.")),
            ("type", .string("string")),
            ("pattern", .string(decimalPattern)),
        ]),
        "date": .object([
            ("description", .string("A calendar date, YYYY-MM-DD, years 0001 to 9999.")),
            ("type", .string("string")),
            ("pattern", .string(datePattern)),
        ]),
        "month": .object([
            ("description", .string("A calendar month, YYYY-MM, years 0001 to 9999.")),
            ("type", .string("string")),
            ("pattern", .string(monthPattern)),
        ]),
        "instant": .object([
            ("description", .string("A moment, RFC 3339; written in UTC with six fraction digits, e.g. 2026-05-01T09:00:00.000000Z.")),
            ("type", .string("string")),
            ("pattern", .string(instantPattern)),
        ]),
    ]

    /// The property schema of one field value, adding any definition it needs to `definitions`.
    static func propertySchema(of value: Any, field: String, definitions: inout [(key: String, value: JSON)]) throws -> JSON {
        func reference(_ name: String, _ definition: JSON) -> JSON {
            if !definitions.contains(where: { $0.key == name }) { definitions.append((name, definition)) }
            return .object([("$ref", .string("#/$defs/\(name)"))])
        }
        switch value {
        case is String: return .object([("type", .string("string"))])
        case is Bool: return .object([("type", .string("boolean"))])
        case is Int, is Int64: return integer
        case is Money: return reference("money", wellKnownDefinitions["money"]!)
        case is Commodity: return reference("commodity", wellKnownDefinitions["commodity"]!)
        case is ExactDecimal: return reference("decimal", wellKnownDefinitions["decimal"]!)
        case is LocalDate: return reference("date", wellKnownDefinitions["date"]!)
        case is Month: return reference("month", wellKnownDefinitions["month"]!)
        case is Instant: return reference("instant", wellKnownDefinitions["instant"]!)
        case let enumeration as any EventEnumeration:
            let typeName = String(describing: type(of: enumeration))
            var members: [(key: String, value: JSON)] = []
            if let summary = SwiftDocComments.summary(of: typeName) { members.append(("description", .string(summary))) }
            members.append(("type", .string("string")))
            members.append(("enum", .array(rawValues(of: enumeration).map(JSON.string))))
            return reference(EventJSON.snakeCase(typeName), .object(members))
        default:
            throw Unsupported(description: "field '\(field)' has type \(type(of: value)), which the schemas do not describe yet: teach SchemaGenerator (and SchemaBinaryDecoder, Schemas/README.md) its JSON and binary forms")
        }
    }

    private static func rawValues<E: EventEnumeration>(of value: E) -> [String] { E.allCases.map(\.rawValue) }

    /// The Swift type whose doc comments describe a legacy sample: a `PlainTextVersion<Payload>`
    /// (the version before per-subject sealing) has its payload's fields and comments.
    static func documentedTypeName(of payload: Any) -> String {
        let name = "\(Swift.type(of: payload))"
        let prefix = "PlainTextVersion<"
        guard name.hasPrefix(prefix), name.hasSuffix(">") else { return name }
        return String(name.dropFirst(prefix.count).dropLast())
    }

    /// The schema of one payload type and version, from a sample with every optional set;
    /// `example`, the sample's JSON form, is published under `examples`.
    static func eventSchema(name: String, version: UInt16, code: UInt32, swiftType: String, sample: Any, example: JSON? = nil) throws -> JSON {
        var properties: [(key: String, value: JSON)] = []
        var required: [JSON] = []
        var definitions: [(key: String, value: JSON)] = []
        for child in Mirror(reflecting: sample).children {
            guard let label = child.label else { throw Unsupported(description: "\(swiftType) has an unlabelled field") }
            let key = EventJSON.snakeCase(label)
            var value = child.value
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else {
                    throw Unsupported(description: "the \(swiftType) sample leaves '\(label)' nil; set it so its type shows")
                }
                value = wrapped
            } else {
                required.append(.string(key))
            }
            var property = try propertySchema(of: value, field: "\(swiftType).\(label)", definitions: &definitions)
            if let sealing = sample as? any SealsPersonalText, type(of: sealing).personalTextFields[label] != nil {
                property = .object((property.members ?? []) + [("x-tally-personal-text", .bool(true))])
            }
            if let documentation = SwiftDocComments.documentation(of: label, in: swiftType) {
                property = .object([("description", .string(documentation))] + (property.members ?? []))
            }
            properties.append((key, property))
        }
        guard let summary = SwiftDocComments.summary(of: swiftType) else {
            throw Unsupported(description: "\(swiftType) has no doc comment to describe its schema; add a one-line summary")
        }
        var members: [(key: String, value: JSON)] = [
            ("$schema", .string(draft)),
            ("$id", .string("\(baseURL)events/\(fileName(name, version: version))")),
            ("title", .string(name)),
            ("description", .string(summary)),
            ("x-tally-log-code", .integer(code)),
            ("type", .string("object")),
            ("properties", .object(properties)),
            ("required", .array(required)),
            ("additionalProperties", .bool(false)),
        ]
        if let example { members.append(("examples", .array([inPropertyOrder(example, properties.map(\.key))]))) }
        if !definitions.isEmpty { members.append(("$defs", .object(definitions))) }
        return .object(members)
    }

    /// An example's members in the order of the schema's properties (the declaration order),
    /// rather than the JSON form's sorted keys.
    static func inPropertyOrder(_ example: JSON, _ keys: [String]) -> JSON {
        guard let members = example.members else { return example }
        return .object(keys.compactMap { key in example[key].map { (key, $0) } } + members.filter { !keys.contains($0.key) })
    }

    /// The JSON form of a legacy version's example (the form its version was written in).
    static func legacyExampleJSON(_ payload: any LegacyEventPayload) throws -> JSON {
        try JSON.parse(String(decoding: try EventJSON.payloadEncoder.encode(payload), as: UTF8.self))
    }

    /// The envelope of every event in JSON; `type` lists every name in the catalog.
    static func envelopeSchema() -> JSON {
        func described(_ text: String, _ schema: [(key: String, value: JSON)]) -> JSON {
            .object([("description", .string(text))] + schema)
        }
        return .object([
            ("$schema", .string(draft)),
            ("$id", .string("\(baseURL)envelope.schema.json")),
            ("title", .string("event")),
            ("description", .string("One event in JSON (an NDJSON line): the envelope the log keeps for every event, and its payload under data.")),
            ("type", .string("object")),
            ("properties", .object([
                ("seq", described("Sequence number, gapless from 1 in log order; assigned by the log, ignored on append.", [
                    ("type", .string("integer")), ("minimum", .integer(1)), ("maximum", .integer(Int64.max)),
                ])),
                ("recorded_at", described("When the ledger learned the fact; assigned by the log, ignored on append.", [
                    ("$ref", .string("#/$defs/instant")),
                ])),
                ("effective_at", described("When it happened in the world; may be in the past.", [
                    ("$ref", .string("#/$defs/instant")),
                ])),
                ("type", described("The event type; data follows events/<type>.v<version>.schema.json.", [
                    ("type", .string("string")),
                    ("enum", .array(EventCatalog.standard.types.map { .string($0.name) })),
                ])),
                ("version", described("The schema version of data; older versions are upcast on read.", [
                    ("type", .string("integer")), ("minimum", .integer(1)), ("maximum", .integer(UInt16.max)),
                ])),
                ("entity", described("The entity the event is about, e.g. pot:holiday; implied by data, checked when given.", [
                    ("type", .string("string")),
                ])),
                ("cause", described("The sequence number of the event that caused this one (a split names its deposit).", [
                    ("type", .string("integer")), ("minimum", .integer(1)), ("maximum", .integer(Int64.max)),
                ])),
                ("idempotency_key", described("The caller's key for this fact, 1 to 255 UTF-8 bytes (a bank transaction id, a recurring item's month).", [
                    ("type", .string("string")), ("minLength", .integer(1)), ("maxLength", .integer(255)),
                ])),
                ("data", described("The payload, valid against events/<type>.v<version>.schema.json.", [
                    ("type", .string("object")),
                ])),
            ])),
            ("required", .array([.string("effective_at"), .string("type"), .string("version"), .string("data")])),
            ("additionalProperties", .bool(false)),
            ("$defs", .object([("instant", wellKnownDefinitions["instant"]!)])),
        ])
    }

    /// Every schema file `Schemas/` must hold, by path relative to `Schemas/`.
    static func expectedFiles() throws -> [(path: String, schema: JSON)] {
        var files: [(path: String, schema: JSON)] = [("envelope.schema.json", envelopeSchema())]
        for body in EventSamples.bodies {
            let type = body.type
            let payload = body.payload
            files.append((
                "events/\(fileName(type.name, version: type.version))",
                try eventSchema(
                    name: type.name, version: type.version, code: type.code, swiftType: "\(Swift.type(of: payload))", sample: payload,
                    example: JSON.parse(EventJSON.payloadJSON(body))
                )
            ))
        }
        for sample in EventSamples.legacy {
            let type = try #require(EventCatalog.standard.type(named: sample.typeName))
            files.append((
                "events/\(fileName(sample.typeName, version: sample.version))",
                try eventSchema(
                    name: sample.typeName, version: sample.version, code: type.code, swiftType: documentedTypeName(of: sample.payload),
                    sample: sample.payload, example: legacyExampleJSON(sample.payload)
                )
            ))
        }
        return files
    }
}

@Suite struct SchemaDriftTests {
    static let regenerate = "TALLY_WRITE_SCHEMAS=1 swift test --filter SchemaDriftTests"

    /// Compares (or, with `TALLY_WRITE_SCHEMAS=1`, writes) every schema file, and refuses
    /// files without a catalog type and version.
    @Test func committedSchemasMatchTheCode() throws {
        let expected = try SchemaGenerator.expectedFiles()
        let writing = ProcessInfo.processInfo.environment["TALLY_WRITE_SCHEMAS"] == "1"
        let manager = FileManager.default
        if writing { try manager.createDirectory(at: Repository.eventSchemas, withIntermediateDirectories: true) }

        let present = Set(((try? manager.contentsOfDirectory(atPath: Repository.eventSchemas.path)) ?? [])
            .filter { $0.hasSuffix(".json") }
            .map { "events/\($0)" })
        let wanted = Set(expected.map(\.path))
        for stale in present.subtracting(wanted).sorted() {
            if writing {
                try manager.removeItem(at: Repository.schemas.appendingPathComponent(stale))
                print("removed Schemas/\(stale)")
            } else {
                Issue.record("Schemas/\(stale) has no event type and version in the catalog; remove it, or run \(Self.regenerate)")
            }
        }
        for (path, schema) in expected {
            let url = Repository.schemas.appendingPathComponent(path)
            let text = schema.rendered
            if writing {
                if (try? Repository.read(url)) != text {
                    try Data(text.utf8).write(to: url)
                    print("wrote Schemas/\(path)")
                }
                continue
            }
            guard let committed = try? Repository.read(url) else {
                Issue.record("Schemas/\(path) is missing; run \(Self.regenerate)")
                continue
            }
            if committed != text {
                Issue.record(Comment(rawValue: "Schemas/\(path) differs from the code: \(Self.firstDifference(committed, text)); if the change is intended, run \(Self.regenerate) and commit the result"))
            }
        }
    }

    static func firstDifference(_ committed: String, _ generated: String) -> String {
        let old = committed.split(separator: "\n", omittingEmptySubsequences: false)
        let new = generated.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(old.count, new.count) {
            let before = index < old.count ? String(old[index]) : "<end>"
            let after = index < new.count ? String(new[index]) : "<end>"
            if before != after { return "line \(index + 1): committed `\(before)`, code says `\(after)`" }
        }
        return "no line differs"
    }

    /// Every readable version of every type has a sample (and so a schema), and no more.
    @Test func everyCatalogVersionHasASample() {
        for type in EventCatalog.standard.types {
            var sampled: [UInt16] = []
            if EventSamples.byTypeName[type.name] != nil { sampled.append(type.version) }
            sampled += EventSamples.legacy.filter { $0.typeName == type.name }.map(\.version)
            #expect(sampled.sorted() == EventCatalog.standard.versions(of: type), "\(type.name)")
        }
    }

    @Test func envelopeSchemaListsExactlyTheEnvelopeFields() throws {
        let properties = try #require(try Repository.envelopeSchema()["properties"]?.members)
        #expect(Set(properties.map(\.key)) == EventJSON.envelopeKeys)
    }

    @Test func everySchemaHasAOneSentenceDescription() throws {
        for (path, schema) in try SchemaGenerator.expectedFiles() {
            let description = try #require(schema["description"]?.stringValue, "\(path)")
            #expect(SwiftDocComments.firstSentence(description) == description, "\(path)")
            #expect(description.hasSuffix("."), "\(path): \(description)")
        }
    }

    // MARK: The generator notices each kind of change

    private struct Probe {
        var name: String
        var amount: Money?
        var kind: DepositSource
        var count: Int
    }

    private struct ProbeReordered {
        var amount: Money?
        var name: String
        var kind: DepositSource
        var count: Int
    }

    private struct ProbeRequired {
        var name: String
        var amount: Money
        var kind: DepositSource
        var count: Int
    }

    private struct ProbeRetyped {
        var name: String
        var amount: Money?
        var kind: DepositSource
        var count: Bool
    }

    private static func probeSchema(_ sample: Any) throws -> JSON {
        try SchemaGenerator.eventSchema(name: "probe", version: 1, code: 0, swiftType: "DepositReceived", sample: sample)
    }

    @Test func generatorFollowsOrderOptionalityTypesAndEnumCases() throws {
        let amount = EventSamples.usd("1.00")
        let schema = try Self.probeSchema(Probe(name: "n", amount: amount, kind: .chain, count: 1))
        #expect(schema["properties"]?.members?.map(\.key) == ["name", "amount", "kind", "count"])
        #expect(schema["required"] == .array([.string("name"), .string("kind"), .string("count")]))
        #expect(schema["$defs"]?["deposit_source"]?["enum"] == .array(DepositSource.allCases.map { .string($0.rawValue) }))
        #expect(schema["$defs"]?.members?.map(\.key) == ["money", "deposit_source"])

        let variants: [Any] = [
            ProbeReordered(amount: amount, name: "n", kind: .chain, count: 1),
            ProbeRequired(name: "n", amount: amount, kind: .chain, count: 1),
            ProbeRetyped(name: "n", amount: amount, kind: .chain, count: true),
        ]
        for variant in variants {
            #expect(try Self.probeSchema(variant).rendered != schema.rendered, "\(type(of: variant))")
        }
        // An unset optional or an unknown field type is an error, not a guess.
        #expect(throws: SchemaGenerator.Unsupported.self) { try Self.probeSchema(Probe(name: "n", amount: nil, kind: .chain, count: 1)) }
        #expect(throws: SchemaGenerator.Unsupported.self) { try Self.probeSchema(["x": 1.5]) }
    }

    @Test func firstSentenceSkipsAbbreviations() {
        #expect(SwiftDocComments.firstSentence("A challenge (e.g. `52_week`: week n). Next one.") == "A challenge (e.g. `52_week`: week n).")
        #expect(SwiftDocComments.firstSentence("One sentence.") == "One sentence.")
    }
}
