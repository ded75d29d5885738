import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

// One fully populated, realistic sample per event type and version (every optional set):
// each type's documented example (`ExampleProviding`, declared beside the type, published in
// its JSON Schema), collected from the catalog; and a seeded generator of random payloads of
// any type. The codec, upcasting, schema and drift tests all draw from here, so a new event
// type needs only its example.

enum EventSamples {
    /// One sample per current payload type, in log-code order: each type's example.
    static let bodies: [EventBody] = EventCatalog.standard.payloadTypes.compactMap { try? example(of: $0) }

    /// The example of a current payload type; nil when the type gives none.
    ///
    /// - Throws: what the example throws (a literal in it that does not parse).
    static func example(of payloadType: any EventPayload.Type) throws -> EventBody? {
        guard let documented = payloadType as? any ExampleProviding.Type else { return nil }
        return (try documented.example as? any EventPayload)?.body
    }

    /// The sample of each type, by type name.
    static let byTypeName: [String: EventBody] = Dictionary(
        bodies.map { ($0.type.name, $0) }, uniquingKeysWith: { first, _ in first }
    )

    /// A sample of an old version of a type, still readable.
    struct LegacySample: Sendable {
        let typeName: String
        let version: UInt16
        let payload: any LegacyEventPayload
    }

    /// One sample per legacy version of a catalog type: each version's example.
    static let legacy: [LegacySample] = EventCatalog.standard.payloadTypes.flatMap { payloadType in
        payloadType.legacyVersions.compactMap { legacyType in
            (try? legacyExample(of: legacyType)).flatMap { payload in
                LegacySample(typeName: payloadType.eventType.name, version: legacyType.version, payload: payload)
            }
        }
    }

    /// The example of a legacy version; nil when it gives none.
    ///
    /// - Throws: what the example throws.
    static func legacyExample(of legacyType: any LegacyEventPayload.Type) throws -> (any LegacyEventPayload)? {
        guard let documented = legacyType as? any ExampleProviding.Type else { return nil }
        return try documented.example as? any LegacyEventPayload
    }

    /// A new event around a body, with every envelope field set.
    static func newEvent(_ body: EventBody) -> NewEvent {
        NewEvent(
            effectiveAt: Instant(microsecondsSinceEpoch: 1_777_626_000_123_456),  // 2026-05-01T09:00:00.123456Z
            cause: .sequence(41), idempotencyKey: "sample:\(body.type.name)", body: body
        )
    }

    // MARK: Value helpers (trap on a typo in a literal: these are fixed test data)

    static func commodity(_ code: String) -> Commodity {
        do { return try Commodity.named(code) } catch { fatalError("sample commodity \(code): \(error)") }
    }

    static func money(_ text: String, _ code: String) -> Money {
        do { return try Money(parsing: text, commodity: commodity(code)) } catch { fatalError("sample amount \(text): \(error)") }
    }

    static func usd(_ text: String) -> Money { money(text, "USD") }
    static func gbp(_ text: String) -> Money { money(text, "GBP") }

    static func decimal(_ text: String) -> ExactDecimal {
        do { return try ExactDecimal(parsing: text) } catch { fatalError("sample decimal \(text): \(error)") }
    }

    static func date(_ text: String) -> LocalDate {
        do { return try LocalDate(parsing: text) } catch { fatalError("sample date \(text): \(error)") }
    }

    static func month(_ text: String) -> Month {
        do { return try Month(parsing: text) } catch { fatalError("sample month \(text): \(error)") }
    }
}

// MARK: - Logged events by hand

/// What the log would hand back for a record: sequence and recorded time added.
func loggedEvent(_ record: LogRecord, sequence: UInt64 = 1, recordedAt: Int64 = 1_777_626_060_000_000) -> LoggedEvent {
    let cause: UInt64? = if case .sequence(let number)? = record.cause { number } else { nil }
    return LoggedEvent(
        sequence: sequence, recordedAt: recordedAt, kind: record.kind, version: record.version,
        effectiveAt: record.effectiveAt, entity: record.entity, cause: cause,
        idempotencyKey: record.idempotencyKey, payload: record.payload
    )
}

// MARK: - Seeded randomness

/// The seed of a randomized test: `TALLY_TEST_SEED` when set (to replay a failure), else fresh.
func testSeed() -> UInt64 {
    if let text = ProcessInfo.processInfo.environment["TALLY_TEST_SEED"], let seed = UInt64(text) { return seed }
    return UInt64.random(in: 0...UInt64.max)
}

/// How to replay a randomized failure.
func replay(_ seed: UInt64, _ detail: String = "") -> Comment {
    Comment(rawValue: "seed \(seed)\(detail.isEmpty ? "" : ", \(detail)"); replay with TALLY_TEST_SEED=\(seed)")
}

/// Random payload values: strings with unicode, quotes and commas up to the byte limit;
/// amounts across the whole Int64 range; every case of every enum in turn; optionals absent
/// or present at random.
///
/// Strings hold what the record check accepts (``EventText``): no control characters, but
/// tabs and line feeds in free-text fields (a note). With ``allowsControlCharacters`` they
/// hold control characters anywhere, as events recorded before the rule may: for the read
/// paths (decoding, upcasting, the JSON form), which must take such text.
final class RandomValues {
    let seed: UInt64
    var generator: SplitMix64
    /// Per enum field, the next case to hand out, so every field sees every case.
    private var enumCursors: [String: Int] = [:]
    /// Whether optionals are always present (`true`) or present at random.
    var fillOptionals = false
    /// Whether strings may hold control characters in any field.
    var allowsControlCharacters = false

    init(seed: UInt64) {
        self.seed = seed
        generator = SplitMix64(seed: seed)
    }

    func int(in range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
    func chance(_ numerator: Int, in denominator: Int) -> Bool { int(in: 1...denominator) <= numerator }
    func bool() -> Bool { chance(1, in: 2) }

    /// Microseconds of an instant events may carry (years 0001-9999), ends included.
    func instantMicroseconds() -> Int64 {
        let earliest = Instant.earliest.microsecondsSinceEpoch, latest = Instant.latest.microsecondsSinceEpoch
        switch int(in: 0...9) {
        case 0: return [earliest, latest, 0, -1].randomElement(using: &generator)!
        default: return Int64.random(in: earliest...latest, using: &generator)
        }
    }

    func int64() -> Int64 {
        switch int(in: 0...9) {
        case 0: [Int64.min, Int64.max, 0, 1, -1, Int64.min + 1, Int64.max - 1].randomElement(using: &generator)!
        case 1...4: Int64.random(in: -100_000...100_000, using: &generator)
        case 5...7: Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &generator)
        default: Int64(bitPattern: generator.next())
        }
    }

    private static let printablePieces: [String] = [
        "a", "b", "Z", "q", "0", "7", " ", ",", ";", "\"", "'", "\\", "/", ":", "-", "_", ".", "{", "}", "[",
        "é", "ß", "ø", "Ω", "€", "£", "¥", "日本", "中文", "한국어", "مرحبا", "שלום", "🙂", "💷", "👩‍👩‍👧", "🇬🇧",
        "e\u{301}", "\u{200B}", "\u{FEFF}", "\u{2028}", "\u{A0}", "\u{100}",
    ]
    private static let freeTextPieces = printablePieces + ["\n", "\t"]
    private static let anyPieces = freeTextPieces + ["\r", "\u{1}", "\u{0}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9B}"]

    /// 0 to 40 pieces, or now and then exactly `limit` bytes (the event string limit).
    /// - Parameter field: the payload field's name, to give a free-text field tabs and line feeds.
    func string(limit: Int = eventStringBytesLimit, field: String = "") -> String {
        let pieces = allowsControlCharacters ? Self.anyPieces
            : EventText.freeTextFields.contains(EventJSON.snakeCase(field)) ? Self.freeTextPieces : Self.printablePieces
        if chance(1, in: 40) {
            var text = ""
            while text.utf8.count < limit {
                let piece = pieces.randomElement(using: &generator)!
                if text.utf8.count + piece.utf8.count > limit { text += String(repeating: "x", count: limit - text.utf8.count) } else { text += piece }
            }
            return text
        }
        var text = ""
        for _ in 0..<int(in: 0...40) {
            let piece = pieces.randomElement(using: &generator)!
            guard text.utf8.count + piece.utf8.count <= limit else { break }
            text += piece
        }
        return text
    }

    private static let knownCodes = ["USD", "GBP", "EUR", "JPY", "BHD", "CLF", "USDC", "BTC", "ETH", "VEA", "VWRL.L", "BRK-B"]

    func commodity() -> Commodity {
        let code: String
        if chance(3, in: 4) {
            code = Self.knownCodes.randomElement(using: &generator)!
        } else {
            let first = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            let rest = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
            code = String(first.randomElement(using: &generator)!)
                + String((0..<int(in: 0...15)).map { _ in rest.randomElement(using: &generator)! })
        }
        return try! Commodity.named(code)  // every generated code is valid by construction
    }

    func money() -> Money { Money(minorUnits: int64(), commodity: commodity()) }

    func decimal() -> ExactDecimal {
        try! ExactDecimal(significand: int64(), scale: int(in: 0...18))  // scale in range by construction
    }

    /// Years 0001 to 9999, the range dates and months are defined on.
    func date() -> LocalDate {
        if chance(1, in: 10) { return LocalDate(daysSinceEpoch: [-719_162, 2_932_896, 0, -1].randomElement(using: &generator)!) }
        return LocalDate(daysSinceEpoch: int(in: -719_162...2_932_896))
    }

    func month() -> Month {
        if chance(1, in: 10) { return Month(ordinal: [12, 119_999, 24_240].randomElement(using: &generator)!) }
        return Month(ordinal: int(in: 12...119_999))
    }

    /// Years 0001 to 9999, to the microsecond.
    func instant() -> Instant {
        Instant(microsecondsSinceEpoch: Int64.random(in: -62_135_596_800_000_000...253_402_300_799_999_999, using: &generator))
    }

    func enumCase<E: EventEnumeration>(_ type: E.Type, field: String) -> E {
        let cases = Array(E.allCases)
        let key = "\(field)/\(E.self)"
        let index = enumCursors[key, default: int(in: 0...(cases.count - 1))]
        enumCursors[key] = (index + 1) % cases.count
        return cases[index]
    }

    /// A random payload of a current type.
    func payload<Payload: EventPayload>(_ type: Payload.Type) -> Payload {
        do {
            return try Payload(from: RandomPayloadDecoder(values: self, owner: Payload.eventType.name))
        } catch {
            fatalError("cannot generate a random \(Payload.self): \(error); teach RandomPayloadDecoder the new field type")
        }
    }

    func body(of type: any EventPayload.Type) -> EventBody { payload(type).body }

    /// A random payload of a legacy type.
    func legacyPayload<Legacy: LegacyEventPayload>(_ type: Legacy.Type) -> Legacy {
        do {
            return try Legacy(from: RandomPayloadDecoder(values: self, owner: "\(Legacy.self)"))
        } catch {
            fatalError("cannot generate a random \(Legacy.self): \(error)")
        }
    }

    /// A random event of the given body with random envelope fields (within what JSON carries:
    /// instants in years 0001-9999, causes up to Int64.max, keys of 1 to 255 bytes).
    func newEvent(_ body: EventBody) -> NewEvent {
        let cause: CauseReference? = bool() ? nil : .sequence(UInt64(int64().magnitude % UInt64(Int64.max)) + 1)
        var key: String? = nil
        if bool() {
            let text = string(limit: 255)
            key = text.isEmpty ? "k" : text
        }
        return NewEvent(effectiveAt: instant(), cause: cause, idempotencyKey: key, body: body)
    }

    /// A random event of the `index`-th payload type (cycling), so every type gets its share;
    /// its entity fits the log's limit (a long random id is drawn again).
    func event(index: Int) -> NewEvent {
        let types = EventCatalog.standard.payloadTypes
        var body = body(of: types[index % types.count])
        while body.payload.entity.utf8.count > LogFormat.entityBytesMax { body = self.body(of: types[index % types.count]) }
        return newEvent(body)
    }
}

/// Builds any payload through its `Decodable` conformance, answering every field with a
/// random value of its type: no per-type code, so a new event type is covered at once.
struct RandomPayloadDecoder: Decoder {
    let values: RandomValues
    let owner: String
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    struct Unsupported: Error, CustomStringConvertible {
        let description: String
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw Unsupported(description: "lists are not generated yet (at \(codingPath.map(\.stringValue)))")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw Unsupported(description: "unknown single-value type at \(codingPath.map(\.stringValue))")
    }

    func value<T: Decodable>(_ type: T.Type, field: String) throws -> T {
        let result: Any
        switch type {
        case is String.Type: result = values.string(field: field)
        case is Bool.Type: result = values.bool()
        case is Int.Type: result = Int(values.int64())
        case is Int64.Type: result = values.int64()
        case is Money.Type: result = values.money()
        case is Commodity.Type: result = values.commodity()
        case is ExactDecimal.Type: result = values.decimal()
        case is LocalDate.Type: result = values.date()
        case is Month.Type: result = values.month()
        case is Instant.Type: result = values.instant()
        case let enumeration as any EventEnumeration.Type:
            result = values.enumCase(enumeration, field: "\(owner).\(field)")
        default:
            result = try T(from: self)  // a nested payload value: its own fields, at random
        }
        return result as! T  // the switch matched T exactly
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: RandomPayloadDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { decoder.values.fillOptionals ? false : decoder.values.bool() }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try decoder.value(type, field: key.stringValue)
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.value(type, field: key.stringValue) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.value(type, field: key.stringValue) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.value(type, field: key.stringValue) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.value(type, field: key.stringValue) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw unsupported(type, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw unsupported(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw unsupported(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw unsupported(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { throw unsupported(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw unsupported(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw unsupported(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw unsupported(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw unsupported(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw unsupported(type, key) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw Unsupported(description: "nested containers are not generated (\(key.stringValue))")
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw Unsupported(description: "lists are not generated yet (\(key.stringValue))")
        }
        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder }

        private func unsupported(_ type: Any.Type, _ key: Key) -> Unsupported {
            Unsupported(description: "no random \(type) for field \(key.stringValue)")
        }
    }
}

// MARK: - The samples themselves

@Suite struct EventSampleTests {
    @Test func everyPayloadTypeHasAnExample() throws {
        for payloadType in EventCatalog.standard.payloadTypes {
            let name = payloadType.eventType.name
            let body = try EventSamples.example(of: payloadType)
            #expect(body?.type == payloadType.eventType, "\(name) needs an example: conform \(payloadType) to ExampleProviding beside its declaration")
        }
        #expect(EventSamples.bodies.count == EventCatalog.standard.payloadTypes.count)
    }

    @Test func everyLegacyVersionHasAnExample() throws {
        for payloadType in EventCatalog.standard.payloadTypes {
            for legacyType in payloadType.legacyVersions {
                let payload = try EventSamples.legacyExample(of: legacyType)
                #expect(payload.map { type(of: $0) == legacyType } == true, "\(payloadType.eventType.name).v\(legacyType.version) needs an example: conform \(legacyType) to ExampleProviding")
            }
        }
        let legacyVersions = EventCatalog.standard.payloadTypes.reduce(0) { count, payloadType in count + payloadType.legacyVersions.count }
        #expect(EventSamples.legacy.count == legacyVersions)
    }

    /// The schemas are derived from the samples by reflection, so an unset optional would hide
    /// its field's type; equal values in two fields of one type would hide a swapped order.
    @Test(arguments: EventSamples.bodies.map(\.type.name))
    func sampleIsFullyPopulatedWithDistinctValues(_ name: String) throws {
        let payload = try #require(EventSamples.byTypeName[name]).payload
        checkPopulated(payload, name: name)
    }

    @Test func legacySamplesAreFullyPopulated() {
        for sample in EventSamples.legacy {
            checkPopulated(sample.payload, name: "\(sample.typeName).v\(sample.version)")
        }
    }

    private func checkPopulated(_ payload: Any, name: String) {
        var seen: [String: String] = [:]
        for child in Mirror(reflecting: payload).children {
            let label = child.label ?? "?"
            var value = child.value
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else {
                    Issue.record("\(name).\(label) is nil in the sample; set every optional")
                    continue
                }
                value = wrapped
            }
            let key = "\(type(of: value))=\(value)"
            if let other = seen[key], !(value is Bool) {
                Issue.record("\(name).\(label) has the same value as .\(other); make them differ so a swap shows")
            }
            seen[key] = label
        }
    }

    @Test func randomPayloadsCoverEveryEnumCaseAndBothOptionalStates() {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        var seenEnum: [String: Set<String>] = [:]
        var allEnum: [String: Set<String>] = [:]
        var seenOptional: [String: Set<Bool>] = [:]
        for index in 0..<(EventCatalog.standard.payloadTypes.count * 40) {
            let payload = values.event(index: index).body.payload
            for child in Mirror(reflecting: payload).children {
                let field = "\(type(of: payload)).\(child.label ?? "?")"
                let mirror = Mirror(reflecting: child.value)
                var value = child.value
                if mirror.displayStyle == .optional {
                    seenOptional[field, default: []].insert(mirror.children.isEmpty)
                    guard let wrapped = mirror.children.first?.value else { continue }
                    value = wrapped
                }
                if let enumeration = value as? any EventEnumeration {
                    seenEnum[field, default: []].insert(enumeration.rawValue)
                    allEnum[field] = Self.allRawValues(of: enumeration)
                }
            }
        }
        #expect(!seenEnum.isEmpty)
        for (field, cases) in seenEnum {
            #expect(cases == allEnum[field], replay(seed, "\(field) never got \(allEnum[field, default: []].subtracting(cases))"))
        }
        for (field, states) in seenOptional {
            #expect(states.count == 2, replay(seed, "\(field) was only ever \(states.first == true ? "absent" : "present")"))
        }
    }

    private static func allRawValues<E: EventEnumeration>(of value: E) -> Set<String> {
        Set(E.allCases.map(\.rawValue))
    }
}
