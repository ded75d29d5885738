import Foundation
import Testing
@testable import TallyEngine
import TallyTestSupport

/// Issue 34, item 15: no trap on input or on an embedder's data, and no silent fallback. An
/// embedder's event that cannot be written as JSON throws (it crashed `tally log` and the HTTP
/// event stream); a batch size of 0 throws (it trapped); a balance that cannot be negated is an
/// error, never a list missing it.
@Suite struct NoTrapTests {
    /// An embedder's reading: a binary floating-point value, which JSON cannot hold when it is
    /// not finite.
    struct MeterRead: EventPayload, MovesNoMoney {
        static let eventType = EventType("meter_read", code: 10_031)
        var meter: String
        var value: Double

        init(meter: String, value: Double) {
            self.meter = meter
            self.value = value
        }

        var entity: String { "meter:\(meter)" }
        func encode(to writer: inout BinaryWriter) { writer.write(meter); writer.write(value.bitPattern) }
        init(from reader: inout BinaryReader) throws {
            meter = try reader.read()
            value = Double(bitPattern: try reader.read())
        }
    }

    @Test func aPayloadThatCannotBeWrittenAsJSONThrowsNamingItsField() throws {
        let at = Instant(microsecondsSinceEpoch: 1_777_000_000_000_000)
        for value in [Double.nan, .infinity, -.infinity] {
            let event = Event(sequence: 7, recordedAt: at, effectiveAt: at, cause: nil, idempotencyKey: nil, body: EventBody(MeterRead(meter: "hall", value: value)))
            let error = #expect(throws: EventCodingError.self, "\(value)") { try EventJSON.encode(event) }
            #expect(error?.message.hasPrefix("meter_read v1: the payload cannot be written as JSON (field 'data.value'") == true, "\(String(describing: error))")
            #expect(throws: EventCodingError.self) { try EventJSON.payloadJSON(event.body) }
        }
        let finite = Event(sequence: 7, recordedAt: at, effectiveAt: at, cause: nil, idempotencyKey: nil, body: EventBody(MeterRead(meter: "hall", value: 2.5)))
        #expect(try EventJSON.encode(finite).contains(#""data":{"meter":"hall","value":2.5}"#))
    }

    @Test func aBatchSizeOfZeroThrowsLikeAnImportsDoes() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.create(at: root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: Ledger.Options(syncMode: .none))
            defer { try? ledger.close() }
            let head = ledger.head
            for size in [0, -1] {
                let error = #expect(throws: LedgerError.self, "batch size \(size)") { try ledger.appendEvents([], batchSize: size) }
                #expect(error?.code == .invalidArgument && error?.message.contains("at least 1 event") == true, "\(String(describing: error))")
            }
            #expect(ledger.head == head)
        }
    }

    @Test func aLiabilityBalanceThatCannotBeNegatedIsAnErrorNotAMissingLine() throws {
        let least = Money(minorUnits: .min, commodity: .usd)
        let listing = AccountListing(
            name: "Liabilities:Card", kind: .liability, currency: .usd, openedAt: Instant(microsecondsSinceEpoch: 0), closedAt: nil,
            balances: [least, Money(minorUnits: -300, commodity: .eur)])
        #expect(throws: MoneyError.self) { try listing.owed }
        let payable = AccountListing(
            name: "Liabilities:Card", kind: .liability, currency: .usd, openedAt: Instant(microsecondsSinceEpoch: 0), closedAt: nil,
            balances: [Money(minorUnits: -300, commodity: .eur)])
        #expect(try payable.owed == [Money(minorUnits: 300, commodity: .eur)])
    }
}
