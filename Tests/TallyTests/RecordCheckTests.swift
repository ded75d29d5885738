import Foundation
import Testing
@testable import Tally
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

/// The record check (`EventCatalog.record(for:)`) vouches for a payload from what the encoder
/// measured while writing it (`BinaryPayloadCheck`): each string's length and characters, each
/// `BinaryCodable` value read back from its own bytes, each list's count. Only a payload with
/// a value it cannot vouch for that way (a type that codes itself) is read back whole. Both
/// must refuse exactly what the reader would not read back equal, and name the field.
@Suite struct RecordCheckTests {
    /// A value whose type codes itself, and loses its last bit on the way back: the encoder
    /// cannot vouch for it.
    struct EvenReading: Codable, Hashable, Sendable {
        var value: Int64
        init(_ value: Int64) { self.value = value }
        init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int64.self) / 2 * 2 }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    /// An embedder's event with a list and a value that codes itself.
    struct MeterTagged: EventPayload, MovesNoMoney {
        static let eventType = EventType("meter_tagged", code: 10_041)
        var meter: String
        var tags: [String]
        var reading: EvenReading?

        init(meter: String, tags: [String], reading: EvenReading? = nil) {
            self.meter = meter
            self.tags = tags
            self.reading = reading
        }

        var entity: String { "meter:\(meter)" }
    }

    // swiftlint:disable:next force_try
    static let catalog = try! EventCatalog.standard.adding([MeterTagged.self])  // a fixed, valid type

    private func event(_ payload: some EventPayload) -> NewEvent {
        NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: 0), body: EventBody(payload))
    }

    /// What the encoder measured of `body`, as the record check sees it.
    private func measures(_ body: EventBody, catalog: EventCatalog = .standard) -> BinaryPayloadCheck? {
        var writer = BinaryWriter()
        writer.subjectKeys = catalog.subjectKeys
        writer.check = BinaryPayloadCheck()
        body.payload.encode(to: &writer)
        return writer.check
    }

    /// Every type of the catalog is vouched for as it is written: no event Tally records is
    /// decoded again to be checked.
    @Test(arguments: EventSamples.bodies.map(\.type.name))
    func everyTypeIsVouchedForWithoutReadingItBack(_ name: String) throws {
        let body = try #require(EventSamples.byTypeName[name])
        var writer = BinaryWriter()
        writer.check = BinaryPayloadCheck()
        body.payload.encode(to: &writer)
        let check = try #require(writer.check)
        #expect(!check.needsReadBack && !check.lossy && check.vouched == 0..<writer.bytes.count, "\(check)")
    }

    /// On random payloads of every type, control characters in any field, the check from
    /// the measures refuses exactly what a whole read-back refuses (a payload that does not
    /// read back equal, or holds text the rule refuses), with the same error.
    @Test func theMeasuresAgreeWithAWholeReadBack() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        values.allowsControlCharacters = true
        let catalog = EventCatalog.standard
        var refused = 0
        for index in 0..<2_000 {
            let body = values.event(index: index).body
            var writer = BinaryWriter()
            writer.check = BinaryPayloadCheck()
            body.payload.encode(to: &writer)
            let check = try #require(writer.check)
            #expect(!check.needsReadBack, replay(seed, "event \(index): \(body.type)"))
            let whole = Result { try catalog.checkReadBack(body, payload: writer.bytes) }
            let measured = Result { try catalog.checkReadsBack(body, payload: writer.bytes, check: check) }
            #expect("\(whole)" == "\(measured)", replay(seed, "event \(index): \(body.type)"))
            if case .failure = whole { refused += 1 }
        }
        #expect(refused > 100, "the random payloads should hold control characters often: \(refused) refused")
    }

    /// A string with a control character is refused, naming the field, in a payload vouched
    /// for as it is written.
    @Test func aControlCharacterIsRefusedNamingTheField() throws {
        let entry = JournalEntryPosted(account: "Assets:Cash", counterAccount: "Income:Gift", amount: Money(minorUnits: 100, commodity: .usd),
                                       payee: "Acme", category: "Gifts\u{1B}[31m")
        #expect(measures(EventBody(entry))?.needsReadBack == false)
        let error = #expect(throws: EventCodingError.self) { try EventCatalog.standard.record(for: event(entry)) }
        #expect(error?.field == "data.category" && error?.code == .invalidValue, "\(String(describing: error))")
        #expect(error?.reason?.contains("U+001B") == true, "\(String(describing: error))")
    }

    /// A value whose coding loses something is refused before it reaches the log; the same
    /// value that survives the trip is accepted.
    @Test func aValueThatDoesNotReadBackIsRefused() throws {
        let odd = MeterTagged(meter: "hall", tags: ["a"], reading: EvenReading(3))
        #expect(measures(EventBody(odd), catalog: Self.catalog)?.needsReadBack == true)
        let error = #expect(throws: EventCodingError.self) { try Self.catalog.record(for: event(odd)) }
        #expect(error?.message.contains("does not read back as written") == true, "\(String(describing: error))")
        let even = MeterTagged(meter: "hall", tags: ["a"], reading: EvenReading(4))
        let record = try Self.catalog.record(for: event(even))
        #expect(try Self.catalog.decode(loggedEvent(record)).body == EventBody(even))
    }

    /// A list past the limit, or a string in one past its own, is refused naming the field.
    @Test func listsAndTheirStringsPastTheirLimitsAreRefusedNamingTheField() throws {
        let cases: [(MeterTagged, String, String)] = [
            (MeterTagged(meter: "hall", tags: Array(repeating: "t", count: eventListCountLimit + 1)), "data.tags", "holds 10001 elements"),
            (MeterTagged(meter: "hall", tags: ["t", String(repeating: "x", count: eventStringBytesLimit + 1)]), "data.tags[1]", "holds 1025 bytes"),
            (MeterTagged(meter: "hall", tags: ["ok", "bell\u{7}"]), "data.tags[1]", "U+0007"),
        ]
        for (payload, field, reason) in cases {
            let error = #expect(throws: EventCodingError.self, "\(field)") { try Self.catalog.record(for: event(payload)) }
            #expect(error?.field == field && error?.reason?.contains(reason) == true, "\(String(describing: error))")
        }
        let atLimit = MeterTagged(meter: "hall", tags: Array(repeating: String(repeating: "x", count: eventStringBytesLimit), count: 3))
        #expect(measures(EventBody(atLimit), catalog: Self.catalog).map { !$0.needsReadBack && !$0.lossy } == true)
        #expect(throws: Never.self) { try Self.catalog.record(for: event(atLimit)) }
    }

    /// Personal text past the string limit is refused, naming the field, in a store that
    /// seals it as in one that does not: a reader of the sealed bytes would not see the limit.
    @Test func personalTextPastTheLimitIsRefusedSealedOrNot() throws {
        let entry = JournalEntryPosted(account: "Assets:Cash", counterAccount: "Income:Gift", amount: Money(minorUnits: 100, commodity: .usd),
                                       payee: String(repeating: "p", count: eventStringBytesLimit + 1))
        for catalog in [EventCatalog.engine, EventCatalog.engine.sealing(with: .inMemory())] {
            let error = #expect(throws: EventCodingError.self) { try catalog.record(for: event(entry)) }
            #expect(error?.field == "data.payee" && error?.code == .limitExceeded, "\(String(describing: error))")
        }
        var atLimit = entry
        atLimit.payee = String(repeating: "p", count: eventStringBytesLimit)
        #expect(throws: Never.self) { try EventCatalog.engine.sealing(with: .inMemory()).record(for: event(atLimit)) }
    }

    /// A commodity at a scale other than its code's registered one is refused by its own
    /// read-back as it is written, without reading the payload back.
    @Test func aCommodityAtAnotherScaleIsRefusedAsItIsWritten() throws {
        let shares = try Commodity(code: "VEA", scale: 2)
        let entry = JournalEntryPosted(account: "Assets:Broker", counterAccount: "Equity:Opening", amount: Money(minorUnits: 10_000, commodity: shares))
        let check = try #require(measures(EventBody(entry)))
        #expect(check.lossy && !check.needsReadBack)
        #expect(throws: EventCodingError.self) { try EventCatalog.standard.record(for: event(entry)) }
    }
}
