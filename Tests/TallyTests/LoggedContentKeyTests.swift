import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine

/// The log holds a journal row's dated content key in a short form and derives the whole key
/// from the event when it is read (``JournalCSV/LoggedContentKey``): what every reader sees is
/// the key the import made, and the log does not pay for sixteen random characters a row.
@Suite struct LoggedContentKeyTests {
    private func journal(_ rows: [String], in root: String, named name: String = "rows") throws -> String {
        let path = root + "-\(name).csv"
        try (JournalCSV.header + "\n" + rows.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The keys as the log's records hold them, by sequence number.
    private func loggedKeys(_ ledger: Ledger) throws -> [UInt64: String] {
        var keys: [UInt64: String] = [:]
        let reader = try ledger.store?.reader() ?? EventStoreReader.open(at: ledger.layout.root, options: .standard)
        try reader.forEachRecord { (logged: LoggedEvent) in keys[logged.sequence] = logged.idempotencyKey }
        return keys
    }

    /// Rows a bank export without ids might hold, over `days` days around the year's turn,
    /// some identical, some without payee or category, amounts of both signs.
    private func randomRows(seed: UInt64, count: Int) -> [String] {
        var random = SplitMix64(seed: seed)
        let payees = ["Corner Cafe", "Landlord", "Café Ñoño", "", "Acme, Inc."]
        let categories = ["Food", "", "Rent"]
        var rows: [String] = []
        for _ in 0..<count {
            let day = LocalDate(daysSinceEpoch: 20_450 + Int.random(in: 0..<40, using: &random))
            let payee = payees.randomElement(using: &random)!
            let amount = "\(Bool.random(using: &random) ? "-" : "")\(Int.random(in: 0..<500, using: &random)).\(Int.random(in: 10..<100, using: &random))"
            let row = "\(day),Expenses:Food,Assets:Cash,\(amount),USD,\(payee.contains(",") ? "\"\(payee)\"" : payee),\(categories.randomElement(using: &random)!),"
            rows.append(row)
            if Int.random(in: 0..<5, using: &random) == 0 { rows.append(row) }
        }
        return rows
    }

    @Test(arguments: ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Europe/London"])
    func aRowsKeyIsHeldShortAndReadWhole(timeZone: String) throws {
        let seed = TestSeed.value(default: 3_107)
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"), timeZone: timeZone)
            defer { try? ledger.close() }
            let rows = randomRows(seed: seed, count: 300)
            let path = try journal(rows, in: root)
            defer { try? FileManager.default.removeItem(atPath: path) }
            // The keys the import makes, from the rows themselves.
            var events = try JournalEvents(path: path, calendar: ledger.calendar, keys: .sealed(try #require(ledger.catalog.subjectKeys)), form: .dated)
            try events.readHeader()
            var made: [String] = []
            while let (_, event) = try events.next() { made.append(try #require(event.idempotencyKey)) }

            #expect(try ledger.importJournal(csvAt: path).imported == rows.count, "seed \(seed)")
            let logged = try loggedKeys(ledger)
            let read = try ledger.allEvents().filter { $0.body.type == JournalEntryPosted.eventType }
            #expect(read.count == made.count, "seed \(seed)")
            let differing = zip(read, made).first { $0.idempotencyKey != $1 }
            #expect(differing == nil, "seed \(seed): event \(differing?.0.sequence ?? 0) reads as \(differing?.0.idempotencyKey ?? "no key"), made as \(differing?.1 ?? "")")
            for event in read {
                let short = try #require(logged[event.sequence] ?? nil)
                #expect(short.utf8.first == 0x01 && short.utf8.count <= 12, "seed \(seed): event \(event.sequence) holds \(short.debugDescription)")
            }
            // The file is known again, and a rebuild folds the same keys.
            #expect(try ledger.importJournal(csvAt: path).duplicatesSkipped == rows.count, "seed \(seed)")
            let before = try ledger.read { try IdempotencyProjector().comparableRows($0, schema: "main") }
            try ledger.rebuild()
            #expect(try ledger.read { try IdempotencyProjector().comparableRows($0, schema: "main") } == before, "seed \(seed)")
        }
    }

    @Test func aKeyTheEventDoesNotDeriveIsKeptWhole() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"), timeZone: "UTC")
            defer { try? ledger.close() }
            let path = try journal(["2026-05-02,Expenses:Food,Assets:Cash,3.00,USD,Corner Cafe,Food,"], in: root)
            defer { try? FileManager.default.removeItem(atPath: path) }
            var events = try JournalEvents(path: path, calendar: ledger.calendar, keys: .sealed(try #require(ledger.catalog.subjectKeys)), form: .dated)
            try events.readHeader()
            let row = try #require(try events.next()).event
            let key = try #require(row.idempotencyKey)
            // The same key on another amount, on a date two days away, and with a count that
            // has a leading zero: none derives it, so each is held as given.
            var otherAmount = row
            otherAmount.body = EventBody(JournalEntryPosted(account: "Expenses:Food", counterAccount: "Assets:Cash",
                                                            amount: try Money(parsing: "3.01", commodity: .usd), payee: "Corner Cafe", category: "Food"))
            otherAmount.idempotencyKey = key.replacingOccurrences(of: ":1", with: ":7")
            var otherDay = row
            otherDay.effectiveAt = Instant(microsecondsSinceEpoch: row.effectiveAt.microsecondsSinceEpoch + 2 * 86_400_000_000)
            otherDay.idempotencyKey = key.replacingOccurrences(of: ":1", with: ":8")
            var leadingZero = row
            leadingZero.idempotencyKey = key.replacingOccurrences(of: ":1", with: ":01")
            var derived = row
            derived.idempotencyKey = key.replacingOccurrences(of: ":1", with: ":9")
            let result = try ledger.appendEvents([otherAmount, otherDay, leadingZero, derived])
            let logged = try loggedKeys(ledger)
            let sequences = result.events.map(\.sequence)
            #expect(logged[sequences[0]] == otherAmount.idempotencyKey)
            #expect(logged[sequences[1]] == otherDay.idempotencyKey)
            #expect(logged[sequences[2]] == leadingZero.idempotencyKey)
            #expect(logged[sequences[3]] == "\u{1}09")
            #expect(try ledger.allEvents().suffix(4).map(\.idempotencyKey) == [otherAmount, otherDay, leadingZero, derived].map(\.idempotencyKey))
        }
    }

    @Test func aShortKeyNoEventDerivesIsDamageNamedBySequence() throws {
        let catalog = EventCatalog.engine
        let entry = try JournalEntryPosted(account: "Expenses:Food", counterAccount: "Assets:Cash",
                                           amount: Money(parsing: "3.00", commodity: .usd), externalId: "bank-1")
        let record = try catalog.record(for: NewEvent(effectiveAt: try Instant(parsing: "2026-05-02T00:00:00Z"), body: EventBody(entry)))
        for (key, reason) in [("\u{1}01", "derives no content key"), ("\u{1}x1", "malformed"), ("\u{1}0", "malformed"), ("\u{1}00", "malformed")] {
            let logged = LoggedEvent(sequence: 7, recordedAt: record.effectiveAt, kind: record.kind, version: record.version,
                                     effectiveAt: record.effectiveAt, entity: record.entity, cause: nil, idempotencyKey: key, payload: record.payload)
            let error = #expect(throws: EventCodingError.self) { try catalog.decode(logged) }
            #expect(error?.description.contains("event 7") == true && error?.description.contains(reason) == true, "\(error.map(String.init(describing:)) ?? "")")
        }
    }

    @Test func anErasedPayeesRowsKeepTheirKeys() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"), timeZone: "UTC")
            let path = try journal([
                "2026-05-02,Expenses:Food,Assets:Cash,3.00,USD,Corner Cafe,Food,",
                "2026-05-03,Expenses:Rent,Assets:Cash,900.00,USD,Landlord,Rent,",
            ], in: root)
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(try ledger.importJournal(csvAt: path).imported == 2)
            let keys = try ledger.allEvents().filter { $0.body.type == JournalEntryPosted.eventType }.compactMap(\.idempotencyKey)
            try ledger.close()
            _ = try SubjectErasure.erase("payee:Corner Cafe", at: root, options: .standard)
            let reopened = try Ledger.open(at: root, options: .init(clock: ManualClock("2026-06-02T12:00:00Z").function, syncMode: .none, features: standardFeatures))
            defer { try? reopened.close() }
            let events = try reopened.allEvents().filter { $0.body.type == JournalEntryPosted.eventType }
            #expect(events.compactMap(\.idempotencyKey) == keys)
            let payees = events.compactMap { ($0.body.payload as? JournalEntryPosted)?.payee }
            #expect(payees.count == 2 && payees[0].hasPrefix(SubjectKeys.erasedMarker) && payees[1] == "Landlord", "\(payees)")
            // The keys the read models hold are those a fresh fold derives.
            let held = try reopened.read { try IdempotencyProjector().comparableRows($0, schema: "main") }
            try reopened.rebuild()
            #expect(try reopened.read { try IdempotencyProjector().comparableRows($0, schema: "main") } == held)
        }
    }

    @Test func aRestoredExportHoldsTheKeysShortAndKeepsTheDigest() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-06-01T12:00:00Z"), timeZone: "Pacific/Kiritimati")
            defer { try? ledger.close() }
            let rows = randomRows(seed: TestSeed.value(default: 3_108), count: 60)
            let path = try journal(rows, in: root)
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(try ledger.importJournal(csvAt: path).imported == rows.count)
            let directory = URL(fileURLWithPath: root).deletingLastPathComponent().path
            let exported = try ledger.export(to: directory + "/ledger.ndjson")
            // The export names every key whole.
            let text = try String(contentsOfFile: directory + "/ledger.ndjson", encoding: .utf8)
            #expect(text.components(separatedBy: JournalCSV.datedContentKeyPrefix).count - 1 == rows.count)
            #expect(!text.contains("\\u0001"))
            let restored = try Ledger.restore(from: directory + "/ledger.ndjson", into: directory + "/restored", options: .standard)
            #expect(restored.head == exported.head, "the restore holds the keys as the log it came from did")
            let copy = try Ledger.openForReading(at: directory + "/restored", options: .standard)
            defer { try? copy.close() }
            #expect(try copy.allEvents().map(\.idempotencyKey) == ledger.allEvents().map(\.idempotencyKey))
            #expect(try loggedKeys(copy).values.filter { $0.utf8.first == 0x01 }.count == rows.count)
        }
    }
}
