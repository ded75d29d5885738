import Foundation
import Testing
@testable import Tally
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

/// Every event type is declared once, and its log form is derived from that declaration
/// (`BinaryPayloadEncoder`, `BinaryPayloadDecoder`). These are the bytes the hand-written
/// coders of earlier builds wrote, for random payloads of every type and version they knew:
/// `Fixtures/event-coding-golden.ndjson`, one line per payload, its JSON form beside the hex
/// of its binary form (personal text plain, as a catalog without subject keys writes it).
/// The derived form must write the same bytes and read them back as the same payload, so
/// every log written before stays readable and every digest over it unchanged.
@Suite struct EventCodingGoldenTests {
    struct Golden: Decodable {
        let type: String
        let version: UInt16
        /// The payload's JSON form.
        let data: String
        /// Its binary form, in hex, as the hand-written coder wrote it.
        let payload: String
    }

    static let goldens: [Golden] = {
        let text = String(decoding: (try? EventUpcastingTests.fixture("event-coding-golden.ndjson")) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n").map { line in
            // swiftlint:disable:next force_try
            try! JSONDecoder().decode(Golden.self, from: Data(line.utf8))  // fixed test data
        }
    }()

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)  // fixed test data
            index = next
        }
        return bytes
    }

    @Test func fixturesCoverEveryTypeAndVersionTheyWereCapturedFor() throws {
        #expect(Self.goldens.count >= 400)
        let catalog = EventCatalog.standard
        let captured = Set(Self.goldens.map { "\($0.type) v\($0.version)" })
        for name in Set(Self.goldens.map(\.type)) {
            let type = try #require(catalog.type(named: name), "\(name) is no longer in the catalog")
            for version in catalog.versions(of: type) {
                #expect(captured.contains("\(name) v\(version)"), "no golden payload of \(name) v\(version)")
            }
        }
    }

    @Test(arguments: EventCatalog.standard.types.map(\.name))
    func derivedFormWritesAndReadsTheHandWrittenBytes(_ name: String) throws {
        let goldens = Self.goldens.filter { $0.type == name }
        let payloadType = try #require(EventCatalog.standard.payloadTypes.first { $0.eventType.name == name })
        for golden in goldens {
            try check(payloadType, golden)
        }
    }

    private func check<Payload: EventPayload>(_ type: Payload.Type, _ golden: Golden) throws {
        if golden.version == Payload.eventType.version {
            try check(Payload.self, golden, upcast: { $0.body })
        } else {
            let legacy = try #require(Payload.legacyVersions.first { $0.version == golden.version }, "\(golden.type) v\(golden.version)")
            try checkLegacy(legacy, golden)
        }
    }

    private func checkLegacy<Legacy: LegacyEventPayload>(_ type: Legacy.Type, _ golden: Golden) throws {
        try check(Legacy.self, golden, upcast: { $0.upcastBody() })
    }

    private func check<Value: BinaryCodable & Decodable>(_ type: Value.Type, _ golden: Golden, upcast: (Value) -> EventBody) throws {
        let label = Comment(rawValue: "\(golden.type) v\(golden.version): \(golden.data)")
        let value = try EventJSON.payloadDecoder.decode(Value.self, from: Data(golden.data.utf8))
        var writer = BinaryWriter()
        value.encode(to: &writer)
        #expect(Self.hex(writer.bytes) == golden.payload, label)
        let code = try #require(EventCatalog.standard.type(named: golden.type)).code
        let read = try EventCatalog.standard.decodeBody(code: code, version: golden.version, payload: Self.bytes(golden.payload))
        #expect(read == upcast(value), label)
    }
}
