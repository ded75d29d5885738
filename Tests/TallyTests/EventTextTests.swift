import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// The text rule of the record check (`EventText`, enforced by `EventCatalog.standard.record(for:)`):
/// no control character in any text field of any event, tabs and line feeds in a note; the
/// limits named by field; old text still readable; and the escaping that shows any text safely.
@Suite struct EventTextTests {
    /// Control characters of every class: C0 (NUL, tab, LF, CR, ESC, the last), DEL, C1, and the
    /// bidirectional formatting controls (issue 34, item 14: a right-to-left override in a name).
    static let controls: [Unicode.Scalar] = [
        "\u{0}", "\t", "\n", "\r", "\u{1B}", "\u{1F}", "\u{7F}", "\u{80}", "\u{9B}", "\u{9F}",
        "\u{61C}", "\u{200E}", "\u{200F}", "\u{202A}", "\u{202E}", "\u{2066}", "\u{2069}",
    ]

    /// Every string in a JSON value with its path (`data.amount.currency`).
    private func stringPaths(_ value: JSON, _ path: String) -> [String] {
        switch value {
        case .string: [path]
        case .object(let members): members.flatMap { stringPaths($0.value, "\(path).\($0.key)") }
        default: []
        }
    }

    /// The value with the string at `path` (below its root) replaced.
    private func replacing(_ path: ArraySlice<Substring>, in value: JSON, with text: String) -> JSON {
        guard let key = path.first, let members = value.members else { return .string(text) }
        return .object(members.map { member in
            member.key == key ? (member.key, replacing(path.dropFirst(), in: member.value, with: text)) : member
        })
    }

    /// Every string field of every event type, with each kind of control character in the
    /// middle of it: refused by the record check, which names the field. The fields that only
    /// hold codes (an enum case, a currency, a date, an amount) refuse it when the JSON is
    /// read; every other field reaches the record check and must be refused there.
    @Test func everyTextFieldOfEveryTypeRefusesEveryControlCharacterNamingTheField() throws {
        let values = RandomValues(seed: 1)
        values.fillOptionals = true
        var checked: Set<String> = []
        var textFields: Set<String> = []
        for payloadType in EventCatalog.standard.payloadTypes {
            // A random body with every optional field present that the record check takes as
            // it is (an over-long random id could make the entity too long).
            var body = values.body(of: payloadType)
            while (try? EventCatalog.standard.record(for: NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: 0), body: body))) == nil {
                body = values.body(of: payloadType)
            }
            let data = try JSON.parse(try EventJSON.payloadJSON(body))
            for child in Mirror(reflecting: body.payload).children where child.value is String || child.value is String? {
                textFields.insert("\(body.type.name) data.\(EventJSON.snakeCase(child.label!))")
            }
            for path in stringPaths(data, "data") {
                var reachedTheRecordCheck = false
                for control in Self.controls {
                    let text = "a" + String(Character(control)) + "b"
                    let line = JSON.object([
                        ("type", .string(body.type.name)), ("version", .integer(body.type.version)),
                        ("effective_at", .string("2026-05-01T09:00:00Z")),
                        ("data", replacing(path.split(separator: ".").dropFirst(), in: data, with: text)),
                    ]).compact
                    guard let event = try? EventJSON.decode(Array(line.utf8), catalog: .standard).event else { continue }
                    reachedTheRecordCheck = true
                    let isFreeText = EventText.freeTextFields.contains(String(path.split(separator: ".").last!))
                    if isFreeText && (control == "\t" || control == "\n") {
                        #expect(throws: Never.self, "\(body.type.name) \(path) with U+\(String(control.value, radix: 16))") {
                            try EventCatalog.standard.record(for: event)
                        }
                        continue
                    }
                    let error = #expect(throws: EventCodingError.self, "\(body.type.name) \(path) with U+\(String(control.value, radix: 16))") {
                        try EventCatalog.standard.record(for: event)
                    }
                    #expect(error?.field == path, "\(String(describing: error))")
                    #expect(error?.code == .invalidValue)
                    #expect(error?.message.hasPrefix("\(body.type.name): field '\(path)' holds a control character") == true, "\(String(describing: error))")
                    #expect(error?.message.contains(text) == false, "the message keeps the value out")
                }
                if reachedTheRecordCheck { checked.insert("\(body.type.name) \(path)") }
            }
        }
        // Every String property of every payload (names, ids, payees, categories, notes …)
        // reached the record check and was refused there.
        #expect(textFields.count > 80)
        #expect(textFields.subtracting(checked).isEmpty, "not checked: \(textFields.subtracting(checked).sorted())")
    }

    @Test func printableTextNextToTheControlRangesIsAccepted() throws {
        // U+00A0 and U+0100 encode as C2 A0 and C4 80: next to C1's C2 80-9F, not in it.
        for name in ["Assets:Caf\u{E9}", "Assets:\u{A0}x", "Assets:\u{100}", "Assets:\u{2028}", "Assets:\u{1F642}", "Assets:~ ok"] {
            let event = NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: 0), body: EventBody(AccountClosed(account: name)))
            #expect(throws: Never.self, "\(name.unicodeScalars.map { String($0.value, radix: 16) })") { try EventCatalog.standard.record(for: event) }
        }
    }

    @Test func aNoteMayHoldTabsAndLineFeedsButNotACarriageReturn() throws {
        func reminder(_ note: String) -> NewEvent {
            NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: 0), body: EventBody(ReminderSet(
                reminderId: "r1", assetId: "house", dueDate: day("2026-06-01"), note: note)))
        }
        #expect(throws: Never.self) { try EventCatalog.standard.record(for: reminder("Call the agent:\n\t- ask for the survey\n")) }
        let error = #expect(throws: EventCodingError.self) { try EventCatalog.standard.record(for: reminder("line one\r\nline two")) }
        #expect(error?.field == "data.note")
        #expect(error?.reason?.contains("U+000D carriage return") == true, "\(String(describing: error))")
        #expect(error?.reason?.contains("a note may hold tabs and line feeds") == true)
        // The reminder's id is a name: no line feed there.
        let idError = #expect(throws: EventCodingError.self) {
            try EventCatalog.standard.record(for: NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: 0), body: EventBody(ReminderSet(
                reminderId: "r\n1", assetId: "house", dueDate: day("2026-06-01"), note: nil))))
        }
        #expect(idError?.field == "data.reminder_id")
    }

    @Test(arguments: ["k\u{0}", "bank:\u{1B}[2J", "line\nbreak", "\u{9B}"])
    func anIdempotencyKeyWithAControlCharacterIsRefused(_ key: String) {
        let event = NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: 0), idempotencyKey: key, body: EventBody(AccountClosed(account: "Assets:Cash")))
        let error = #expect(throws: EventCodingError.self) { try EventCatalog.standard.record(for: event) }
        #expect(error?.field == "idempotency_key")
        #expect(error?.code == .invalidValue)
    }

    /// Every limit of one record is refused by the record check, naming the field.
    @Test func everyLimitOfARecordIsRefusedNamingTheField() throws {
        let zero = Instant(microsecondsSinceEpoch: 0)
        let longPayee = String(repeating: "p", count: eventStringBytesLimit + 1)
        let cases: [(NewEvent, String, EventCodingError.Code, String)] = [
            (NewEvent(effectiveAt: zero, body: EventBody(JournalEntryPosted(
                account: "Assets:Cash", counterAccount: "Income:Gift", amount: usd("1.00"), payee: longPayee))),
             "data.payee", .limitExceeded, "holds 1025 bytes; the limit is 1024"),
            (NewEvent(effectiveAt: zero, body: EventBody(AccountClosed(account: String(repeating: "a", count: 250)))),
             "data.account", .limitExceeded, "the event's entity, built from it, would be 258 bytes; the limit is 255"),
            (NewEvent(effectiveAt: zero, idempotencyKey: String(repeating: "k", count: 256), body: EventBody(AccountClosed(account: "A"))),
             "idempotency_key", .limitExceeded, "holds 256 bytes; the limit is 255"),
            (NewEvent(effectiveAt: zero, idempotencyKey: "", body: EventBody(AccountClosed(account: "A"))),
             "idempotency_key", .invalidValue, "is empty"),
            (NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: Int64.max), body: EventBody(AccountClosed(account: "A"))),
             "effective_at", .invalidValue, "years 0001-9999"),
        ]
        for (event, field, code, reason) in cases {
            let error = #expect(throws: EventCodingError.self, "\(field)") { try EventCatalog.standard.record(for: event) }
            #expect(error?.field == field, "\(String(describing: error))")
            #expect(error?.code == code, "\(String(describing: error))")
            #expect(error?.reason?.contains(reason) == true, "\(String(describing: error))")
        }
        // At the limits, accepted.
        let atLimits = NewEvent(
            effectiveAt: zero, idempotencyKey: String(repeating: "k", count: 255),
            body: EventBody(JournalEntryPosted(
                account: String(repeating: "a", count: 247), counterAccount: "Income:Gift", amount: usd("1.00"),
                payee: String(repeating: "\u{E9}", count: eventStringBytesLimit / 2))))
        #expect(throws: Never.self) { try EventCatalog.standard.record(for: atLimits) }
    }

    /// Events recorded before the rule (text with control characters in any field) still
    /// read, through the log and the JSON form alike: decoding never applies the rule.
    @Test func textRecordedBeforeTheRuleStillReads() throws {
        let seed = testSeed()
        let values = RandomValues(seed: seed)
        values.allowsControlCharacters = true
        var withControls = 0
        for index in 0..<1_100 {
            let event = values.event(index: index)
            var writer = BinaryWriter()
            event.body.payload.encode(to: &writer)
            let logged = LoggedEvent(
                sequence: UInt64(index + 1), recordedAt: 0, kind: event.type.code, version: event.type.version,
                effectiveAt: event.effectiveAt.microsecondsSinceEpoch, entity: event.entity, cause: nil,
                idempotencyKey: nil, payload: writer.bytes)
            let decoded = try EventCatalog.standard.decode(logged)
            #expect(decoded.body == event.body, replay(seed, "event \(index)"))
            if EventText.containsControl(writer.bytes) { withControls += 1 }
        }
        #expect(withControls > 100, replay(seed, "\(withControls) events held a control byte"))
    }

    @Test func escapedMakesEveryControlCharacterVisibleAndLeavesTheRestAlone() {
        #expect(EventText.escaped("a\u{0}b\tc\nd\re\u{1B}[31mf\u{7F}g\u{85}h\u{9B}i\u{1}") == "a\\0b\\tc\\nd\\re\\e[31mf\\u{7F}g\\u{85}h\\u{9B}i\\u{1}")
        // Exhaustively over the first 0x800 scalars (every 1- and 2-byte UTF-8 form): a
        // control becomes printable text starting with a backslash; anything else is unchanged.
        for value in UInt32(0)..<0x800 {
            let scalar = Unicode.Scalar(value)!
            let text = String(Character(scalar))
            let escaped = EventText.escaped(text)
            if EventText.isControl(scalar) {
                #expect(escaped.hasPrefix("\\") && escaped.count >= 2, "U+\(String(value, radix: 16))")
                #expect(!escaped.unicodeScalars.contains(where: EventText.isControl), "U+\(String(value, radix: 16))")
            } else {
                #expect(escaped == text, "U+\(String(value, radix: 16))")
            }
            #expect(EventText.containsControl(Array(text.utf8)) == EventText.isControl(scalar), "U+\(String(value, radix: 16))")
        }
        #expect(EventText.escaped("Caf\u{E9} \u{1F642}") == "Caf\u{E9} \u{1F642}")
        // The three-byte forms around the bidirectional controls (U+2000–U+206F, and the marks
        // next to them): exactly the controls are found and escaped.
        for value in UInt32(0x2000)..<0x2070 {
            let scalar = Unicode.Scalar(value)!
            let text = "a" + String(Character(scalar)) + "b"
            #expect(EventText.containsControl(Array(text.utf8)) == EventText.isControl(scalar), "U+\(String(value, radix: 16))")
            #expect((EventText.escaped(text) == text) != EventText.isControl(scalar), "U+\(String(value, radix: 16))")
        }
        #expect(EventText.escaped("pay\u{202E}gpj.exe") == "pay\\u{202E}gpj.exe")
        #expect(EventText.name(of: "\u{202E}") == "U+202E bidirectional formatting control")
    }

    /// The check reads text of printable ASCII eight bytes at a time: on random bytes around
    /// every boundary it answers as the byte-by-byte check does, at every length and offset,
    /// for byte arrays and for strings (a string's own bytes, small strings included).
    @Test func theWordAtATimeCheckAnswersAsTheByteByByteOne() throws {
        let seed = TestSeed.value(default: 20_261_130)
        var random = SplitMix64(seed: seed)
        let alphabet: [UInt8] = [0x00, 0x09, 0x0A, 0x1F, 0x20, 0x21, 0x41, 0x7E, 0x7F, 0x80, 0x81, 0x8E, 0x9C, 0x9F, 0xA6, 0xAA, 0xC2, 0xD8, 0xE2, 0xFF]
        var differences = 0
        for round in 0..<20_000 {
            let count = Int(random.next() % 40)
            // Mostly printable ASCII, with an odd byte from the alphabet now and then.
            let bytes: [UInt8] = (0..<count).map { _ in
                random.next() % 6 == 0 ? alphabet[Int(random.next() % UInt64(alphabet.count))] : UInt8(0x20 + random.next() % 95)
            }
            let slow = EventText.containsControlByteByByte(bytes)
            if EventText.containsControl(bytes) != slow { differences += 1 }
            if let text = String(validating: bytes, as: UTF8.self), EventText.containsControl(text.utf8) != slow { differences += 1 }
            if bytes.count > 1, EventText.containsControl(bytes.dropFirst()) != EventText.containsControlByteByByte(Array(bytes.dropFirst())) {
                differences += 1
            }
            if differences > 0 {
                Issue.record("seed \(seed), round \(round): \(bytes.map { String($0, radix: 16) })")
                return
            }
        }
        // Printable ASCII of every length is clean, one control byte anywhere is not.
        for count in 0..<33 {
            let clean = [UInt8](repeating: 0x7E, count: count)
            #expect(!EventText.containsControl(clean))
            for place in 0..<count {
                var dirty = clean
                dirty[place] = [0x1F, 0x7F, 0x00][place % 3]
                #expect(EventText.containsControl(dirty), "length \(count), byte \(place)")
            }
        }
    }

    /// The JSON form (`tally log --json`, exports) escapes every control character a recorded
    /// event may hold, DEL and C1 included, and reads back the same text.
    @Test func theJSONFormEscapesEveryControlCharacterAndReadsItBack() throws {
        let name = String(String.UnicodeScalarView((0...0x9F).compactMap { value in
            Unicode.Scalar(UInt32(value)).flatMap { EventText.isControl($0) ? $0 : nil }
        }))
        let event = Event(
            sequence: 3, recordedAt: Instant(microsecondsSinceEpoch: 0), effectiveAt: Instant(microsecondsSinceEpoch: 0),
            cause: nil, idempotencyKey: nil, body: EventBody(PotCreated(potId: "p", name: "a" + name + "b", target: usd("1.00"))))
        let line = try EventJSON.encode(event)
        #expect(!line.unicodeScalars.contains(where: EventText.isControl), "\(line.debugDescription)")
        #expect(line.contains(#"\u001b"#) || line.contains(#"\u001B"#))
        #expect(line.contains(#"\u007f"#) && line.contains(#"\u009b"#))
        #expect(try EventJSON.decode(Array(line.utf8), catalog: .standard).event.body == event.body)
        #expect(!EventJSON.quoted("x\u{85}\u{1B}").unicodeScalars.contains(where: EventText.isControl))
        #expect(EventJSON.quoted("pay\u{202E}gpj.exe") == #""pay\u202egpj.exe""#)
    }

    /// A command with a control character in a name: refused naming the field, nothing appended.
    @Test func aLedgerCommandWithAControlCharacterInANameAppendsNothing() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            for name in ["Assets:Ca\u{0}sh", "Assets:Ca\u{1B}[31msh", "Assets:Ca\nsh"] {
                let error = #expect(throws: LedgerError.self) {
                    try ledger.openEnvelopeAccount(name, commodity: .usd, openingBalance: usd("10.00"))
                }.flatMap { underlying($0, as: EventCodingError.self) }
                #expect(error?.field == "data.account", "\(String(describing: error))")
                #expect(error?.message.hasPrefix("account_opened: field 'data.account' holds a control character") == true)
            }
            let potError = #expect(throws: LedgerError.self) {
                try ledger.createPot(id: "holiday", name: "Holi\u{7F}day", target: usd("100.00"))
            }.flatMap { underlying($0, as: EventCodingError.self) }
            #expect(potError?.field == "data.name")
            #expect(ledger.head.sequence == 1)
            #expect(try ledger.balances().isEmpty)
            try ledger.openEnvelopeAccount("Assets:Cash", commodity: .usd, openingBalance: usd("10.00"))
            #expect(ledger.head.sequence == 2)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    /// Events in their JSON form with a control character (an escaped NUL, ESC or newline in a
    /// name): `appendEvents` (the `append` path) refuses them whole, naming the field.
    @Test func appendedEventsWithAControlCharacterAppendNothing() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"))
            for escaped in ["\\u0000", "\\u001b", "\\n"] {
                let line = #"{"type":"account_opened","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"account":"Assets:Ca"# + escaped + #"sh","kind":"asset","commodity":"USD"}}"#
                let good = try EventJSON.decode(Array(#"{"type":"account_opened","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"account":"Assets:Fine","kind":"asset","commodity":"USD"}}"#.utf8), catalog: .standard).event
                let bad = try EventJSON.decode(Array(line.utf8), catalog: .standard).event
                let error = #expect(throws: LedgerError.self) { try ledger.appendEvents([good, bad]) }.flatMap { underlying($0, as: EventCodingError.self) }
                #expect(error?.field == "data.account", "\(String(describing: error))")
            }
            #expect(ledger.head.sequence == 1)
            try ledger.close()
        }
    }
}
