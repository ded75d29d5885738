import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

/// The JSON form of every event type: `EventJSON.encode` and `EventJSON.decode`.
@Suite struct EventJSONCodecTests {
    static let recordedAt = Instant(microsecondsSinceEpoch: 1_777_626_060_000_000)

    /// The recorded event the log would hand back for a new one.
    static func recorded(_ event: NewEvent, sequence: UInt64 = 12, recordedAt: Instant = recordedAt) -> Event {
        let cause: UInt64? = if case .sequence(let number)? = event.cause { number } else { nil }
        return Event(
            sequence: sequence, recordedAt: recordedAt, effectiveAt: event.effectiveAt, cause: cause,
            idempotencyKey: event.idempotencyKey, body: event.body
        )
    }

    private func expectRoundTrip(_ event: Event, _ comment: Comment? = nil) {
        let line: String
        do { line = try EventJSON.encode(event) } catch {
            Issue.record(Comment(rawValue: "\(error)\n\(comment?.rawValue ?? "")"))
            return
        }
        do {
            let decoded = try EventJSON.decode(Array(line.utf8), catalog: .standard)
            #expect(decoded.event.body == event.body, comment)
            #expect(decoded.event.effectiveAt == event.effectiveAt, comment)
            #expect(decoded.event.cause == event.cause.map { .sequence($0) }, comment)
            #expect(decoded.event.idempotencyKey == event.idempotencyKey, comment)
            #expect(decoded.event.entity == event.entity, comment)
            #expect(decoded.sequence == event.sequence, comment)
            #expect(decoded.recordedAt == event.recordedAt, comment)
            #expect(decoded.version == event.type.version, comment)
            // The line is one JSON object, readable by any parser.
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], comment)
            #expect(!line.contains("\n"), comment)
        } catch {
            Issue.record(Comment(rawValue: "\(error)\n\(line)\n\(comment?.rawValue ?? "")"))
        }
    }

    @Test(arguments: EventSamples.bodies.map(\.type.name))
    func sampleRoundTrips(_ name: String) throws {
        expectRoundTrip(Self.recorded(EventSamples.newEvent(try #require(EventSamples.byTypeName[name]))))
    }

    @Test func randomPayloadsRoundTrip() {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        values.allowsControlCharacters = true  // the JSON form carries text recorded before the rule too
        for index in 0..<2_200 {
            let event = values.event(index: index)
            expectRoundTrip(
                Self.recorded(event, sequence: UInt64(values.int(in: 1...Int.max)), recordedAt: values.instant()),
                replay(seed, "event \(index): \(event.type)")
            )
        }
    }

    /// JSON in, binary log record out, and back: the two forms carry the same facts.
    @Test func randomPayloadsSurviveJSONThenBinary() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        for index in 0..<550 {
            let event = Self.recorded(values.event(index: index))
            let decoded = try EventJSON.decode(Array(try EventJSON.encode(event).utf8), catalog: .standard)
            let back = try EventCatalog.standard.decode(loggedEvent(EventCatalog.standard.record(for: decoded.event), sequence: 12, recordedAt: Self.recordedAt.microsecondsSinceEpoch))
            #expect(back == event, replay(seed, "event \(index)"))
        }
    }

    @Test func absentOptionalsAreOmittedAndNullReadsAsAbsent() throws {
        let body = EventBody(WithdrawalMade(account: "main", amount: EventSamples.usd("20.00")))
        let line = try EventJSON.encode(Self.recorded(NewEvent(effectiveAt: Self.recordedAt, body: body)))
        #expect(!line.contains("destination"))
        #expect(!line.contains("cause"))
        #expect(!line.contains("idempotency_key"))
        let withNull = try JSON.parse(line)
            .setting("cause", to: .null)
            .setting("data", to: try #require(try JSON.parse(line)["data"]).setting("destination", to: .null))
        #expect(try EventJSON.decode(Array(withNull.compact.utf8), catalog: .standard).event.body == body)
    }

    // MARK: Refused input, with messages that name the field

    /// The sample event of a type as a JSON object, to damage.
    private func sampleObject(_ name: String) throws -> JSON {
        try JSON.parse(try EventJSON.encode(Self.recorded(EventSamples.newEvent(try #require(EventSamples.byTypeName[name])))))
    }

    private func refusal(_ object: JSON) -> EventCodingError? {
        #expect(throws: EventCodingError.self, "\(object)") { try EventJSON.decode(Array(object.compact.utf8), catalog: .standard) }
    }

    private func refusal(_ name: String, data change: (JSON) -> JSON) throws -> EventCodingError? {
        let object = try sampleObject(name)
        return refusal(object.setting("data", to: change(try #require(object["data"]))))
    }

    private func expect(_ error: EventCodingError?, _ code: EventCodingError.Code, _ fragments: String..., sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(error?.message.contains(fragment) == true, "'\(fragment)' not in: \(error?.message ?? "no error")", sourceLocation: sourceLocation)
        }
    }

    /// Issue 34, item 14: input that parses one way only. A key twice in one object (written as
    /// is or with escapes) is refused naming its path; the same key in different objects is not.
    @Test func aKeyTwiceInOneObjectIsRefusedNamingItsPath() throws {
        let cases: [(json: String, path: String?)] = [
            (#"{"a":1,"a":2}"#, "a"),
            (#"{"data":{"amount":"1.00","amount":"900.00"}}"#, "data.amount"),
            (#"{"data":{"amount":"1.00","amo\u0075nt":"900.00"}}"#, "data.amount"),
            (#"{"lines":[{"x":1},{"x":2,"y":[{"k":1,"k":1}]}]}"#, "lines[1].y[0].k"),
            (#"{"a":{"x":1},"b":{"x":1},"c":"{\"a\":1,\"a\":2}"}"#, nil),
            (#"{"\ud83d\ude00":1,"😀":2}"#, "😀"),
            (#"{"a":1,"A":2,"a ":3}"#, nil),
            (#"{"a":1,"b""#, nil),
        ]
        for (json, path) in cases {
            #expect(JSONDuplicateKeys.first(in: Array(json.utf8)) == path, "\(json)")
        }
        let line = try sampleObject("pot_funded").compact
        let doubled = line.replacingOccurrences(of: #""data":{"#, with: #""data":{"pot_id":"other","#)
        #expect(doubled != line)
        #expect(throws: Never.self) { _ = try EventJSON.decode(Array(line.utf8), catalog: .standard) }
        do {
            _ = try EventJSON.decode(Array(doubled.utf8), catalog: .standard)
            Issue.record("a line with data.pot_id twice was read")
        } catch let error as EventCodingError {
            #expect(error.code == .invalidJSON && error.message.contains("field 'data.pot_id' appears twice in one object"), "\(error)")
        }
    }

    /// Issue 34, item 14: bytes that are not UTF-8, and numbers no parser can hold, are named
    /// by field (the parser alone said "expected value of type Decimal").
    @Test func invalidUTF8AndOutOfRangeNumbersNameTheirField() throws {
        let line = try sampleObject("pot_created").compact
        let name = try #require(line.range(of: #""name":""#))
        var bytes = Array(line.utf8)
        let at = line.utf8.distance(from: line.utf8.startIndex, to: name.upperBound) + 1
        bytes.insert(contentsOf: [0xFF, 0xFE], at: at)
        let utf8 = #expect(throws: EventCodingError.self) { try EventJSON.decode(bytes, catalog: .standard) }
        #expect(utf8?.field == "data.name" && utf8?.message.contains("is not valid UTF-8 text (byte \(at + 1) of the line)") == true, "\(String(describing: utf8))")
        for (replacement, field) in [(#""version":1e400"#, "version"), (#""version":-1E+999"#, "version")] {
            let huge = line.replacingOccurrences(of: #""version":[0-9]+"#, with: replacement, options: .regularExpression)
            #expect(huge != line)
            let error = #expect(throws: EventCodingError.self) { try EventJSON.decode(Array(huge.utf8), catalog: .standard) }
            #expect(error?.field == field && error?.message.contains("holds a number out of range") == true, "\(String(describing: error))")
        }
        #expect(JSONDuplicateKeys.firstOutOfRangeNumber(in: Array(#"{"a":[1,2.5,-3e2,18446744073709551615,1e100],"b":1e121}"#.utf8)) == "b")
    }

    @Test func unknownEnvelopeFieldIsRefused() throws {
        expect(refusal(try sampleObject("pot_funded").setting("colour", to: .string("red"))), .unknownField,
               "field 'colour' is not part of the event envelope")
    }

    @Test func unknownDataFieldIsRefused() throws {
        expect(try refusal("pot_funded") { $0.setting("memo", to: .string("x")) }, .unknownField,
               "pot_funded v1", "field 'data.memo' is not part of this event's schema")
        // Also inside a money object.
        expect(try refusal("pot_funded") { data in
            data.setting("amount", to: data["amount"]!.setting("rate", to: .string("1")))
        }, .unknownField, "field 'data.amount.rate'")
    }

    @Test func missingRequiredFieldIsRefused() throws {
        expect(try refusal("transaction_recorded") { $0.removing("payee") }, .missingField,
               "transaction_recorded v2", "field 'data.payee' is missing")
        expect(try refusal("transaction_recorded") { $0.setting("payee", to: .null) }, .missingField, "data.payee")
        expect(try refusal("pot_funded") { data in data.setting("amount", to: data["amount"]!.removing("currency")) },
               .missingField, "field 'data.amount.currency' is missing")
        expect(refusal(try sampleObject("pot_funded").removing("effective_at")), .missingField, "field 'effective_at' is missing")
        expect(refusal(try sampleObject("pot_funded").removing("data")), .missingField, "field 'data' is missing")
        expect(refusal(try sampleObject("pot_funded").removing("type")), .missingField, "field 'type' is missing")
    }

    @Test func wrongTypeIsRefused() throws {
        expect(try refusal("transaction_recorded") { $0.setting("payee", to: .integer(5)) }, .invalidValue,
               "field 'data.payee' must be a string")
        expect(try refusal("transaction_recorded") { $0.setting("recurring", to: .string("yes")) }, .invalidValue,
               "field 'data.recurring' must be a boolean")
        expect(try refusal("challenge_started") { $0.setting("step_count", to: .string("52")) }, .invalidValue,
               "field 'data.step_count' must be an integer")
        let fraction = try refusal("challenge_started") { $0.setting("step_count", to: .number("52.5")) }
        expect(fraction, .invalidValue, "challenge_started v2", "field 'data.step_count' must be an integer")
        // Money as a bare number: never, so no reader rounds it through floating point.
        expect(try refusal("pot_funded") { $0.setting("amount", to: .number("200.00")) }, .invalidValue,
               "field 'data.amount' must be")
        expect(refusal(try sampleObject("pot_funded").setting("data", to: .array([]))), .invalidJSON, "'data' must be an object")
        expect(refusal(try sampleObject("pot_funded").setting("cause", to: .string("41"))), .invalidValue, "field 'cause'")
    }

    @Test func badEnumValueIsRefused() throws {
        expect(try refusal("transaction_recorded") { $0.setting("category", to: .string("Groceries")) }, .invalidValue,
               "field 'data.category'", "Groceries")
        expect(try refusal("deposit_received") { $0.setting("source", to: .string("cash")) }, .invalidValue,
               "deposit_received v2", "field 'data.source'")
    }

    @Test(arguments: [
        ("1,000.00", "remove grouping separators"),
        ("1e3", "exponents are not accepted"),
        ("12.345", "GBP allows at most 2 decimal places"),
        ("", "is empty"),
        ("+5.00", "leave out the plus sign"),
        (".5", "needs a digit before the decimal point"),
        ("99999999999999999999", "too large"),
    ])
    func badMoneyStringIsRefused(_ amount: String, _ hint: String) throws {
        let error = try refusal("pot_funded") { data in
            data.setting("amount", to: data["amount"]!.setting("amount", to: .string(amount)))
        }
        expect(error, .invalidValue, "pot_funded v1", "field 'data.amount.amount'", hint)
    }

    @Test func badCurrencyIsRefused() throws {
        expect(try refusal("pot_funded") { data in
            data.setting("amount", to: data["amount"]!.setting("currency", to: .string("gbp")))
        }, .invalidValue, "field 'data.amount", "did you mean \"GBP\"")
        expect(try refusal("base_currency_set") { $0.setting("currency", to: .string("")) }, .invalidValue,
               "field 'data.currency'")
    }

    @Test func badDecimalIsRefused() throws {
        expect(try refusal("fx_rate_set") { $0.setting("rate", to: .string("1.27.03")) }, .invalidValue,
               "fx_rate_set v1", "field 'data.rate'", "second decimal point")
        expect(try refusal("fx_rate_set") { $0.setting("rate", to: .number("1.2703")) }, .invalidValue, "data.rate")
    }

    @Test(arguments: ["2026-02-30", "2026-4-6", "06/04/2026", "2026-04-06T00:00:00Z", "0000-01-01"])
    func badDateIsRefused(_ text: String) throws {
        let error = try refusal("envelope_created") { $0.setting("start_date", to: .string(text)) }
        expect(error, .invalidValue, text, "envelope_created v2", "field 'data.start_date'")
    }

    @Test(arguments: ["2026-13", "2026-4", "2026-04-01", "0000-12"])
    func badMonthIsRefused(_ text: String) throws {
        let error = try refusal("budget_set") { $0.setting("month", to: .string(text)) }
        expect(error, .invalidValue, text, "budget_set v1", "field 'data.month'")
    }

    /// `Instant.utcDate` floors without overflowing, even at the ends of Int64.
    @Test(arguments: [Int64.min, Int64.min + 1, -1, 0, Int64.max])
    func utcDateNeverTraps(_ microseconds: Int64) {
        let date = Instant(microsecondsSinceEpoch: microseconds).utcDate
        let start = Int64(date.daysSinceEpoch).multipliedReportingOverflow(by: 86_400_000_000)
        if !start.overflow {
            #expect(start.partialValue <= microseconds)
        }
    }

    @Test func badInstantIsRefused() throws {
        expect(refusal(try sampleObject("pot_funded").setting("effective_at", to: .string("2026-05-01 09:00"))),
               .invalidValue, "pot_funded v1", "field 'effective_at'")
    }

    @Test func wrongEntityIsRefused() throws {
        expect(refusal(try sampleObject("pot_funded").setting("entity", to: .string("pot:other"))), .invalidValue,
               "pot_funded v1", "entity 'pot:other' does not match the payload's entity 'pot:holiday'")
        // Absent is fine: the payload implies it.
        #expect(throws: Never.self) { try EventJSON.decode(Array(try sampleObject("pot_funded").removing("entity").compact.utf8), catalog: .standard) }
    }

    @Test func tooLongStringIsRefused() throws {
        let long = String(repeating: "é", count: eventStringBytesLimit / 2) + "x"
        expect(try refusal("transaction_recorded") { $0.setting("payee", to: .string(long)) }, .limitExceeded,
               "transaction_recorded v2", "field 'data.payee' holds 1025 bytes; the limit is 1024")
        expect(refusal(try sampleObject("pot_funded").setting("idempotency_key", to: .string(String(repeating: "k", count: 256)))),
               .invalidValue, "field 'idempotency_key' must hold 1 to 255 bytes")
        // At the limit is fine.
        let atLimit = try sampleObject("transaction_recorded")
        let data = try #require(atLimit["data"]).setting("payee", to: .string(String(long.dropLast())))
        #expect(throws: Never.self) { try EventJSON.decode(Array(atLimit.setting("data", to: data).compact.utf8), catalog: .standard) }
    }

    @Test func unknownTypeAndVersionAreRefusedNamingThem() throws {
        expect(refusal(try sampleObject("pot_funded").setting("type", to: .string("pot_painted"))), .unknownType,
               "type 'pot_painted' is not in the catalog")
        expect(refusal(try sampleObject("deposit_received").setting("version", to: .integer(3))), .unsupportedVersion,
               "deposit_received version 3 is not readable (known: 1, 2)")
        expect(refusal(try sampleObject("deposit_received").removing("version")), .missingField, "field 'version' is missing")
    }

    @Test func notJSONOrNotAnObjectIsRefused() {
        let syntax = #expect(throws: EventCodingError.self) { try EventJSON.decode(Array("{\"type\":".utf8), catalog: .standard) }
        #expect(syntax?.code == .invalidJSON)
        let array = #expect(throws: EventCodingError.self) { try EventJSON.decode(Array("[1]".utf8), catalog: .standard) }
        #expect(array?.code == .invalidJSON)
        #expect(array?.message.contains("not an array") == true)
    }
}
