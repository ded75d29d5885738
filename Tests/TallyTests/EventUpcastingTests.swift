import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

/// Old versions stay readable forever and come out as the current version, in every read
/// path alike. `deposit_received` v1 (no `source`) reads as a v2 bank transfer.
@Suite struct EventUpcastingTests {
    static let expectedBody = EventBody(DepositReceived(
        account: "main", amount: EventSamples.usd("100.00"), source: .bankTransfer, externalId: "bank:tx-88"
    ))

    static func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return try Data(contentsOf: url)
    }

    /// The bytes of a `.hex` fixture: hex pairs, `#` comments and whitespace ignored.
    static func hexFixture(_ name: String) throws -> [UInt8] {
        let text = String(decoding: try fixture(name), as: UTF8.self)
        let digits = text.split(separator: "\n")
            .map { $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
            .joined()
            .filter { !$0.isWhitespace }
        #expect(digits.count.isMultiple(of: 2))
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            bytes.append(try #require(UInt8(digits[index..<next], radix: 16), "bad hex \(digits[index..<next])"))
            index = next
        }
        return bytes
    }

    @Test func binaryV1FixtureDecodesAsCurrentVersion() throws {
        let payload = try Self.hexFixture("deposit_received.v1.bin.hex")
        let event = try EventCatalog.standard.decode(LoggedEvent(
            sequence: 7, recordedAt: 1_614_589_200_000_000, kind: DepositReceived.eventType.code, version: 1,
            effectiveAt: 1_614_589_140_000_000, entity: "wealth:main", cause: nil, idempotencyKey: "bank:tx-88",
            payload: payload
        ))
        #expect(event.body == Self.expectedBody)
        guard let deposit = event.body.as(DepositReceived.self) else { Issue.record("not a deposit"); return }
        #expect(deposit.source == .bankTransfer)
        #expect(event.storedVersion == 1)
        #expect(event.type.version == 2)
        #expect(event.entity == "wealth:main")
    }

    @Test func jsonV1FixtureDecodesAsCurrentVersion() throws {
        let decoded = try EventJSON.decode(try Self.fixture("deposit_received.v1.json"), catalog: .standard)
        #expect(decoded.event.body == Self.expectedBody)
        guard let deposit = decoded.event.body.as(DepositReceived.self) else { Issue.record("not a deposit"); return }
        #expect(deposit.source == .bankTransfer)
        #expect(decoded.version == 1)
        #expect(decoded.sequence == 7)
        #expect(decoded.event.idempotencyKey == "bank:tx-88")
        #expect(decoded.event.effectiveAt == (try Instant(parsing: "2021-03-01T08:59:00Z")))
    }

    /// The hand-written bytes and the legacy type's own encoder agree.
    @Test func legacyEncoderWritesTheFixtureBytes() throws {
        var writer = BinaryWriter()
        DepositReceivedV1(account: "main", amount: EventSamples.usd("100.00"), externalId: "bank:tx-88").encode(to: &writer)
        #expect(writer.bytes == (try Self.hexFixture("deposit_received.v1.bin.hex")))
    }

    /// Written back, an upcast event is the current version in both forms.
    @Test func upcastEventIsWrittenAsCurrentVersion() throws {
        let decoded = try EventJSON.decode(try Self.fixture("deposit_received.v1.json"), catalog: .standard)
        let record = try EventCatalog.standard.record(for: decoded.event)
        #expect(record.version == 2)
        let event = try EventCatalog.standard.decode(loggedEvent(record, sequence: 7))
        #expect(event.storedVersion == 2)
        let line = try JSON.parse(try EventJSON.encode(event))
        #expect(line["version"] == .integer(2))
        #expect(line["data"]?["source"] == .string("bank_transfer"))
    }

    @Test func truncatedV1PayloadThrowsAtEveryOffset() throws {
        let payload = try Self.hexFixture("deposit_received.v1.bin.hex")
        for length in 0..<payload.count {
            let error = #expect(throws: EventCodingError.self) {
                try EventCatalog.standard.decodeBody(code: DepositReceived.eventType.code, version: 1, payload: Array(payload.prefix(length)))
            }
            #expect(error?.code == .truncated)
            #expect(error?.message.contains("deposit_received v1") == true)
        }
    }

    @Test func v1JSONWithASourceIsRefused() throws {
        let line = try JSON.parse(String(decoding: try Self.fixture("deposit_received.v1.json"), as: UTF8.self))
        let data = try #require(line["data"]).setting("source", to: .string("chain"))
        let error = #expect(throws: EventCodingError.self) {
            try EventJSON.decode(Array(line.setting("data", to: data).compact.utf8), catalog: .standard)
        }
        #expect(error?.code == .unknownField)
        #expect(error?.message.contains("deposit_received v1: field 'data.source'") == true, "\(String(describing: error))")
    }

    @Test func v2JSONWithoutASourceIsRefused() throws {
        let line = try JSON.parse(String(decoding: try Self.fixture("deposit_received.v1.json"), as: UTF8.self))
        let error = #expect(throws: EventCodingError.self) {
            try EventJSON.decode(Array(line.setting("version", to: .integer(2)).compact.utf8), catalog: .standard)
        }
        #expect(error?.code == .missingField)
        #expect(error?.message.contains("deposit_received v2: field 'data.source' is missing") == true, "\(String(describing: error))")
    }

    /// Random v1 payloads read the same through the log and through JSON.
    @Test func randomV1PayloadsUpcastAlikeInEveryReadPath() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        values.allowsControlCharacters = true  // read paths take text recorded before the rule
        for index in 0..<500 {
            let legacy = values.legacyPayload(DepositReceivedV1.self)
            let expected = EventBody(DepositReceived(
                account: legacy.account, amount: legacy.amount, source: .bankTransfer, externalId: legacy.externalId
            ))
            var writer = BinaryWriter()
            legacy.encode(to: &writer)
            let fromLog = try EventCatalog.standard.decodeBody(code: DepositReceived.eventType.code, version: 1, payload: writer.bytes)
            #expect(fromLog == expected, replay(seed, "payload \(index)"))

            let data = String(decoding: try EventJSON.payloadEncoder.encode(legacy), as: UTF8.self)
            let line = "{\"type\":\"deposit_received\",\"version\":1,\"effective_at\":\"2021-03-01T08:59:00Z\",\"data\":\(data)}"
            let fromJSON = try EventJSON.decode(Array(line.utf8), catalog: .standard)
            #expect(fromJSON.event.body == expected, replay(seed, "payload \(index)"))
            #expect(fromJSON.version == 1)
        }
    }
}
