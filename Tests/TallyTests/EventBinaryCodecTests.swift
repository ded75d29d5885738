import Foundation
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

/// The log form of every event type: `EventCatalog.standard.record(for:)` and `EventCatalog.standard.decode`.
@Suite struct EventBinaryCodecTests {
    /// Encodes to a record, hands it back as the log would, decodes, and compares every field.
    private func roundTrip(_ event: NewEvent, sequence: UInt64 = 1, recordedAt: Int64 = 1_777_626_060_000_000) throws -> Event {
        let record = try EventCatalog.standard.record(for: event)
        #expect(record.kind == event.type.code)
        #expect(record.version == event.type.version)
        #expect(record.entity == event.entity)
        #expect(record.effectiveAt == event.effectiveAt.microsecondsSinceEpoch)
        return try EventCatalog.standard.decode(loggedEvent(record, sequence: sequence, recordedAt: recordedAt))
    }

    private func expectSame(_ decoded: Event, _ event: NewEvent, sequence: UInt64, recordedAt: Int64, _ comment: Comment? = nil) {
        let causeNumber: UInt64? = if case .sequence(let number)? = event.cause { number } else { nil }
        let expected = Event(
            sequence: sequence, recordedAt: Instant(microsecondsSinceEpoch: recordedAt), effectiveAt: event.effectiveAt,
            cause: causeNumber, idempotencyKey: event.idempotencyKey, body: event.body
        )
        #expect(decoded == expected, comment)
        #expect(decoded.storedVersion == event.type.version, comment)
        #expect(decoded.entity == event.entity, comment)
    }

    @Test(arguments: EventSamples.bodies.map(\.type.name))
    func sampleRoundTrips(_ name: String) throws {
        let event = EventSamples.newEvent(try #require(EventSamples.byTypeName[name]))
        let decoded = try roundTrip(event, sequence: 42, recordedAt: 1_777_626_061_000_000)
        expectSame(decoded, event, sequence: 42, recordedAt: 1_777_626_061_000_000)
    }

    @Test func sampleWithoutEnvelopeOptionsRoundTrips() throws {
        let event = NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: -1), body: EventSamples.bodies[0])
        expectSame(try roundTrip(event), event, sequence: 1, recordedAt: 1_777_626_060_000_000)
    }

    @Test func randomPayloadsRoundTrip() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        for index in 0..<2_200 {
            let event = values.event(index: index)
            let sequence = UInt64(index + 1)
            let recordedAt = values.instantMicroseconds()
            do {
                let decoded = try roundTrip(event, sequence: sequence, recordedAt: recordedAt)
                expectSame(decoded, event, sequence: sequence, recordedAt: recordedAt, replay(seed, "event \(index): \(event.type)"))
            } catch {
                Issue.record(error, replay(seed, "event \(index): \(event.body)"))
            }
        }
    }

    /// Every prefix of every sample's payload is refused as truncated, never trapping.
    @Test(arguments: EventSamples.bodies.map(\.type.name))
    func truncatedPayloadThrowsAtEveryOffset(_ name: String) throws {
        let record = try EventCatalog.standard.record(for: EventSamples.newEvent(try #require(EventSamples.byTypeName[name])))
        for length in 0..<record.payload.count {
            let prefix = Array(record.payload.prefix(length))
            let error = #expect(throws: EventCodingError.self, "\(name) cut to \(length) bytes") {
                try EventCatalog.standard.decodeBody(code: record.kind, version: record.version, payload: prefix)
            }
            #expect(error?.code == .truncated, "\(name) cut to \(length) bytes: \(String(describing: error))")
            #expect(error?.message.contains(name) == true)
        }
    }

    @Test func truncatedRandomPayloadsThrow() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        for index in 0..<550 {
            let record = try EventCatalog.standard.record(for: values.event(index: index))
            // A type without data (command_completed) has nothing to cut.
            guard !record.payload.isEmpty else { continue }
            let length = values.int(in: 0...(record.payload.count - 1))
            #expect(throws: EventCodingError.self, replay(seed, "event \(index) cut to \(length) bytes")) {
                try EventCatalog.standard.decodeBody(code: record.kind, version: record.version, payload: Array(record.payload.prefix(length)))
            }
        }
    }

    @Test(arguments: EventSamples.bodies.map(\.type.name))
    func trailingBytesThrow(_ name: String) throws {
        let record = try EventCatalog.standard.record(for: EventSamples.newEvent(try #require(EventSamples.byTypeName[name])))
        for extra in [[0x00], [0x01, 0x02, 0x03]] as [[UInt8]] {
            let error = #expect(throws: EventCodingError.self) {
                try EventCatalog.standard.decode(loggedEvent(LogRecord(
                    kind: record.kind, version: record.version, effectiveAt: record.effectiveAt, entity: record.entity,
                    cause: nil, idempotencyKey: nil, payload: record.payload + extra
                ), sequence: 9))
            }
            #expect(error?.code == .trailingBytes)
            #expect(error?.message.contains("\(extra.count) unexpected bytes") == true, "\(String(describing: error))")
            #expect(error?.message.contains("event 9") == true)
            #expect(error?.message.contains("\(name) v") == true)
        }
    }

    /// Damaged payloads (bytes flipped, dropped, duplicated) decode or throw; they never trap.
    @Test func damagedPayloadsNeverTrap() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        for index in 0..<3_000 {
            let record = try EventCatalog.standard.record(for: index < 550 ? EventSamples.newEvent(EventSamples.bodies[index % 55]) : values.event(index: index))
            var payload = record.payload
            for _ in 0..<values.int(in: 1...3) where !payload.isEmpty {
                let position = values.int(in: 0...(payload.count - 1))
                switch values.int(in: 0...3) {
                case 0: payload[position] = UInt8.random(in: 0...255, using: &values.generator)
                case 1: payload[position] ^= 0x80
                case 2: payload.remove(at: position)
                default: payload.insert(payload[position], at: position)
                }
            }
            do {
                _ = try EventCatalog.standard.decodeBody(code: record.kind, version: record.version, payload: payload)
            } catch is EventCodingError {
                // expected for most damage
            } catch {
                Issue.record(replay(seed, "event \(index) threw \(error), not an EventCodingError"))
            }
        }
    }

    /// A journal entry writes its log form by hand (`JournalEntryPosted.encode(to:)`, the
    /// payload an import writes most), with the record check's measures: on random entries and
    /// on entries the check must refuse (a control character, text past its limit), personal
    /// text plain (no keys), sealed inline and by reference, it writes the derived encoder's
    /// bytes and leaves the check as the derived encoder leaves it.
    @Test func aJournalEntryWritesByHandWhatTheDerivedWriterWrites() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        let referenced = SubjectKeys.inMemory(seed: seed)
        let forms: [(name: String, keys: SubjectKeys?)] = [("plain", nil), ("sealed inline", referenced.inlineForm()), ("by reference", referenced)]
        let overlong = String(repeating: "é", count: eventStringBytesLimit / 2 + 1)
        var lossy = 0
        var control = 0
        for index in 0..<1_200 {
            let form = forms[index % forms.count]
            var entry = values.payload(JournalEntryPosted.self)
            switch values.int(in: 0...9) {
            case 0: entry.payee = nil
            case 1: entry.category = nil; entry.externalId = nil
            case 2: entry.account = "Expenses:\u{7}Bell"
            case 3: entry.payee = overlong
            case 4: entry.externalId = overlong
            default: break
            }
            func written(derived: Bool) -> (bytes: [UInt8], check: BinaryPayloadCheck?) {
                var writer = BinaryWriter()
                writer.subjectKeys = form.keys
                writer.bytes = [0xAB]  // a payload is written after what the writer holds
                writer.check = BinaryPayloadCheck()
                if derived {
                    BinaryPayloadEncoder.encode(entry, to: &writer, personalTextFields: JournalEntryPosted.personalTextFields)
                } else {
                    entry.encode(to: &writer)
                }
                return (writer.bytes, writer.check)
            }
            let own = written(derived: false)
            let derived = written(derived: true)
            #expect(own.bytes == derived.bytes, replay(seed, "entry \(index) (\(form.name))"))
            #expect(own.check?.vouched == derived.check?.vouched && own.check?.vouched == 1..<derived.bytes.count
                    && own.check?.lossy == derived.check?.lossy && own.check?.needsReadBack == derived.check?.needsReadBack
                    && own.check?.sawControlCharacter == derived.check?.sawControlCharacter,
                    replay(seed, "entry \(index) (\(form.name)): check \(String(describing: own.check)), derived \(String(describing: derived.check))"))
            if own.check?.lossy == true { lossy += 1 }
            if own.check?.sawControlCharacter == true { control += 1 }
        }
        #expect(lossy > 100 && control > 50, "the entries reached the check's refusals")
    }

    /// A journal entry reads its log form by hand (`JournalEntryPosted.init(from:)`, the
    /// payload a rebuild reads most): on random entries, personal text plain (no keys), sealed
    /// inline and by reference, whole and damaged, it reads exactly what the derived reader
    /// (`BinaryPayloadDecoder`) reads, ends where it ends, and refuses what it refuses.
    @Test func aJournalEntryReadsByHandWhatTheDerivedReaderReads() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        let referenced = SubjectKeys.inMemory(seed: seed)
        let forms: [(name: String, keys: SubjectKeys?)] = [("plain", nil), ("sealed inline", referenced.inlineForm()), ("by reference", referenced)]
        func read(_ bytes: [UInt8], keys: SubjectKeys?, derived: Bool) -> Result<(JournalEntryPosted, Int), EventCodingError> {
            var reader = BinaryReader(bytes)
            reader.subjectKeys = keys
            do {
                let entry = derived
                    ? try BinaryPayloadDecoder.decode(JournalEntryPosted.self, from: &reader, personalTextFields: JournalEntryPosted.personalTextFields)
                    : try JournalEntryPosted(from: &reader)
                return .success((entry, reader.position))
            } catch let error as EventCodingError {
                return .failure(error)
            } catch {
                Issue.record(replay(seed, "\(error) is not an EventCodingError"))
                return .failure(EventCodingError(.invalidValue, "\(error)"))
            }
        }
        var damagedRefused = 0
        for index in 0..<1_200 {
            let form = forms[index % forms.count]
            var entry = values.payload(JournalEntryPosted.self)
            if values.chance(1, in: 4) { entry.payee = nil }
            if values.chance(1, in: 4) { entry.category = nil }
            var writer = BinaryWriter()
            writer.subjectKeys = form.keys
            entry.encode(to: &writer)
            var bytes = writer.bytes
            if index % 2 == 1, !bytes.isEmpty {
                let position = values.int(in: 0...(bytes.count - 1))
                switch values.int(in: 0...2) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &values.generator)
                case 1: bytes.removeSubrange(position...)
                default: bytes.insert(bytes[position], at: position)
                }
            }
            switch (read(bytes, keys: form.keys, derived: false), read(bytes, keys: form.keys, derived: true)) {
            case (.success(let own), .success(let derived)):
                #expect(own.0 == derived.0 && own.1 == derived.1, replay(seed, "entry \(index) (\(form.name)): \(own) read, the derived reader read \(derived)"))
                if index % 2 == 0 { #expect(own.0 == entry && own.1 == bytes.count, replay(seed, "entry \(index) (\(form.name))")) }
            case (.failure(let own), .failure(let derived)):
                #expect(own.code == derived.code, replay(seed, "entry \(index) (\(form.name)): refused as \(own), the derived reader as \(derived)"))
                damagedRefused += 1
            case (let own, let derived):
                Issue.record(replay(seed, "entry \(index) (\(form.name)): \(own) by hand, \(derived) derived"))
            }
        }
        #expect(damagedRefused > 100, "the damage reached the readers' refusals")
    }

    @Test func unknownTypeCodeThrowsNamingIt() {
        let error = #expect(throws: EventCodingError.self) {
            try EventCatalog.standard.decode(LoggedEvent(
                sequence: 7, recordedAt: 0, kind: 9_999, version: 1, effectiveAt: 0, entity: "x",
                cause: nil, idempotencyKey: nil, payload: []
            ))
        }
        #expect(error?.code == .unknownType)
        #expect(error?.message.contains("9999") == true, "\(String(describing: error))")
        #expect(error?.message.contains("event 7") == true)
    }

    @Test(arguments: [0, 3, 999] as [UInt16])
    func unknownVersionThrowsNamingTypeVersionAndKnownVersions(_ version: UInt16) throws {
        let record = try EventCatalog.standard.record(for: EventSamples.newEvent(EventSamples.byTypeName["deposit_received"]!))
        let error = #expect(throws: EventCodingError.self) {
            try EventCatalog.standard.decodeBody(code: record.kind, version: version, payload: record.payload)
        }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.message.contains("deposit_received version \(version)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("known: 1, 2") == true)
    }

    @Test func catalogCodesNamesAndVersionsAreConsistent() {
        let types = EventCatalog.standard.types
        #expect(types.count == EventCatalog.standard.payloadTypes.count)
        #expect(Set(types.map(\.code)).count == types.count)
        #expect(Set(types.map(\.name)).count == types.count)
        for type in types {
            #expect(EventCatalog.standard.type(named: type.name) == type)
            #expect(EventCatalog.standard.type(code: type.code) == type)
            #expect(EventCatalog.standard.versions(of: type).last == type.version)
        }
    }

    // MARK: Values outside their domain

    /// The sample `budget_set` (category, month, money) with one field's bytes replaced.
    private func decodeBudgetSet(_ build: (inout BinaryWriter) -> Void) throws -> EventBody {
        var writer = BinaryWriter()
        build(&writer)
        return try EventCatalog.standard.decodeBody(code: BudgetSet.eventType.code, version: 1, payload: writer.bytes)
    }

    @Test func invalidValuesThrowInvalidValue() {
        let cases: [(String, (inout BinaryWriter) -> Void, String)] = [
            ("bad enum", { w in w.writeString("food"); w.writeZigZag(24_315); w.writeString("GBP"); w.writeZigZag(40_000) }, "'food' is not one of"),
            ("month 0000-12", { w in w.writeString("bills"); w.writeZigZag(11); w.writeString("GBP"); w.writeZigZag(1) }, "month number 11"),
            ("month 10000-01", { w in w.writeString("bills"); w.writeZigZag(120_000); w.writeString("GBP"); w.writeZigZag(1) }, "month number 120000"),
            ("bad commodity", { w in w.writeString("bills"); w.writeZigZag(24_315); w.writeString("gbp"); w.writeZigZag(1) }, "'gbp' is not a commodity code"),
            ("invalid UTF-8", { w in w.writeVarint(2); w.writeByte(0xC3); w.writeByte(0x28) }, "not valid UTF-8"),
        ]
        for (name, build, fragment) in cases {
            let error = #expect(throws: EventCodingError.self, "\(name)") { try decodeBudgetSet(build) }
            #expect(error?.code == .invalidValue, "\(name)")
            #expect(error?.message.contains(fragment) == true, "\(name): \(String(describing: error))")
        }
    }

    @Test func invalidMarkersAndScalesThrow() {
        // round_ups_switched: account, enabled (bool byte 2).
        var writer = BinaryWriter()
        writer.writeString("main"); writer.writeByte(2)
        let bool = #expect(throws: EventCodingError.self) {
            try EventCatalog.standard.decodeBody(code: RoundUpsSwitched.eventType.code, version: 1, payload: writer.bytes)
        }
        #expect(bool?.message.contains("boolean byte 2") == true)
        // withdrawal_made: account, amount, destination (optional marker 7).
        writer = BinaryWriter()
        writer.writeString("main"); writer.writeString("USD"); writer.writeZigZag(100); writer.writeByte(7)
        let marker = #expect(throws: EventCodingError.self) {
            try EventCatalog.standard.decodeBody(code: WithdrawalMade.eventType.code, version: 1, payload: writer.bytes)
        }
        #expect(marker?.message.contains("optional marker 7") == true)
        // fx_rate_set: base, quote, rate (scale 19).
        writer = BinaryWriter()
        writer.writeString("GBP"); writer.writeString("USD"); writer.writeZigZag(12_703); writer.writeByte(19)
        let scale = #expect(throws: EventCodingError.self) {
            try EventCatalog.standard.decodeBody(code: FXRateSet.eventType.code, version: 1, payload: writer.bytes)
        }
        #expect(scale?.message.contains("decimal scale 19") == true)
        // reminder_set: due date before 0001-01-01.
        writer = BinaryWriter()
        writer.writeString("r"); writer.writeString("a"); writer.writeZigZag(-719_163); writer.writeByte(0)
        let date = #expect(throws: EventCodingError.self) {
            try EventCatalog.standard.decodeBody(code: ReminderSet.eventType.code, version: 1, payload: writer.bytes)
        }
        #expect(date?.message.contains("day number -719163") == true)
        // An 11-byte varint.
        let varint = #expect(throws: EventCodingError.self) {
            try EventCatalog.standard.decodeBody(code: PriceStalenessSet.eventType.code, version: 1, payload: Array(repeating: 0xFF, count: 9) + [0x7F])
        }
        #expect(varint?.message.contains("varint longer than 64 bits") == true)
    }

    @Test func stringsPastTheLimitThrowLimitExceeded() {
        var writer = BinaryWriter()
        writer.writeString(String(repeating: "x", count: eventStringBytesLimit + 1))
        let error = #expect(throws: EventCodingError.self) {
            try EventCatalog.standard.decodeBody(code: AccountClosed.eventType.code, version: 1, payload: writer.bytes)
        }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("exceeds the limit of \(eventStringBytesLimit)") == true)
        // Exactly at the limit is fine.
        writer = BinaryWriter()
        writer.writeString(String(repeating: "é", count: eventStringBytesLimit / 2))
        #expect(throws: Never.self) {
            try EventCatalog.standard.decodeBody(code: AccountClosed.eventType.code, version: 1, payload: writer.bytes)
        }
    }

    /// What no reader would accept is refused when the record is made, not stored.
    @Test func writerRefusesWhatTheReaderRefuses() {
        let event = NewEvent(
            effectiveAt: Instant(microsecondsSinceEpoch: 0),
            body: EventBody(AccountClosed(account: String(repeating: "x", count: eventStringBytesLimit + 1)))
        )
        #expect { try EventCatalog.standard.record(for: event) } throws: { error in
            underlying(error, as: EventCodingError.self)?.code == .limitExceeded && "\(error)".contains("account_closed")
        }
    }

    /// A commodity's scale is its code's registered scale: the log keeps the code, so an
    /// amount in a commodity made at another scale would change value on the way through.
    /// It is refused instead (100.00 VEA at scale 2 must never read back as 0.00010000 VEA).
    @Test func customScaleCommodityIsRefusedNotMisread() throws {
        let shares = try Commodity(code: "VEA", scale: 2)
        let body = EventBody(PotFunded(potId: "holiday", amount: Money(minorUnits: 10_000, commodity: shares)))
        let event = NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: 0), body: body)
        #expect { try EventCatalog.standard.record(for: event) } throws: { error in
            underlying(error, as: EventCodingError.self)?.code == .invalidValue && "\(error)".contains("scale")
        }
        // At its registered scale the same code round-trips exactly.
        let registered = NewEvent(effectiveAt: event.effectiveAt, body: EventBody(PotFunded(
            potId: "holiday", amount: Money(minorUnits: 10_000, commodity: try Commodity.named("VEA")))))
        #expect(try EventCatalog.standard.decode(loggedEvent(try EventCatalog.standard.record(for: registered))).body == registered.body)
    }

    /// Effective times outside years 0001-9999 cannot be written as RFC 3339: refused.
    @Test(arguments: [Int64.min, -62_135_596_800_000_001, 253_402_300_800_000_000, Int64.max])
    func instantsOutsideTheCalendarRangeAreRefused(_ microseconds: Int64) {
        let event = NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: microseconds), body: EventSamples.bodies[0])
        #expect(throws: EventCodingError.self) { try EventCatalog.standard.record(for: event) }
        let record = LogRecord(kind: event.type.code, version: event.type.version, effectiveAt: microseconds,
                               entity: event.entity, cause: nil, idempotencyKey: nil, payload: [])
        #expect(throws: EventCodingError.self) { try EventCatalog.standard.decode(loggedEvent(record)) }
    }
}
