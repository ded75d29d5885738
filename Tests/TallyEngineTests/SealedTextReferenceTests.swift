import Foundation
import Testing
@testable import TallyEngine
import TallyLog
import TallyTestSupport

/// Sealed names stay small (issue 31, item 3): a subject's text is sealed once, in the store's
/// `SUBJECTS` file under the subject's key, and events name it by a short reference. An erasure
/// still erases it everywhere, the chain still verifies, equal names still group exactly, and
/// logs written with the text sealed inline in every event still read.
@Suite struct SealedTextReferenceTests {
    static let options = Ledger.Options(clock: ManualClock("2026-05-01T09:00:00Z").function, syncMode: .none)

    static func entry(payee: String?, category: String? = "Groceries", cents: Int64 = 1_200) -> NewEvent {
        NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: 1_777_000_000_000_000), body: EventBody(JournalEntryPosted(
            account: "Assets:Cash", counterAccount: "Expenses:Food", amount: Money(minorUnits: cents, commodity: .usd),
            payee: payee, category: category)))
    }

    static func payees(at root: String) throws -> [String?] {
        var payees: [String?] = []
        try EventStoreReader.open(at: root, options: options).forEach { event in
            if let entry = event.body.as(JournalEntryPosted.self) { payees.append(entry.payee) }
        }
        return payees
    }

    /// A household's 40 entries whose payees alternate between a grocer and a garage (the
    /// grocer's first); returns the two names.
    static func writeTwoPayees(at root: String) throws -> [String] {
        let ledger = try Ledger.create(at: root, name: "Marsh household", baseCurrency: .usd, timeZone: "UTC", options: options)
        let names = ["Philippa's Grocer", "Jon's Garage"]
        try ledger.appendEvents((0..<40).map { entry(payee: names[$0 % 2], cents: Int64(100 + $0)) })
        try ledger.close()
        return names
    }

    @Test func anEventNamesItsTextByAShortReferenceWhateverTheTextsLength() throws {
        let keys = SubjectKeys.inMemory()
        let catalog = EventCatalog.engine.sealing(with: keys)
        let short = try catalog.record(for: Self.entry(payee: "Al"))
        let long = try catalog.record(for: Self.entry(payee: "The Very Long Name Of A Corner Shop Down The Road Ltd"))
        #expect(short.payload.count == long.payload.count, "a reference, not the text: \(short.payload.count) and \(long.payload.count) bytes")
        #expect(!EncryptedBytes.contains(long.payload, "Corner Shop"))
        // The inline form of the same event: 44 bytes of identifier, nonce and tag, plus the text, per field.
        let inline = EventCatalog.engine.sealing(with: SubjectKeys.inMemory().inlineForm())
        let sealedInline = try inline.record(for: Self.entry(payee: "Al"))
        #expect(sealedInline.payload.count >= short.payload.count + 2 * (PersonalTextTag.overheadBytes - 1))
        let read = try catalog.decodeBody(code: long.kind, version: long.version, payload: long.payload)
        #expect(read.as(JournalEntryPosted.self)?.payee == "The Very Long Name Of A Corner Shop Down The Road Ltd")
    }

    /// The user's story: a household names its grocer in many entries, then asks for the grocer
    /// to be forgotten. Every entry now reads as one erased marker, the other payee and every
    /// amount are untouched, the digest kept before still verifies, and no file holds the name.
    @Test func erasingAPayeeNamedByReferenceErasesItEverywhereAndTheChainStillVerifies() throws {
        try withTemporaryStore { root in
            let names = try Self.writeTwoPayees(at: root)
            let head = try EventStoreReader.open(at: root, options: Self.options).head

            try SubjectErasure.erase("payee:Philippa's Grocer", at: root, options: Self.options)
            let payees = try Self.payees(at: root)
            let erased = Set(payees.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
            #expect(erased.count == 1 && erased.first??.hasPrefix(SubjectKeys.erasedMarker) == true, "\(erased)")
            #expect(payees.enumerated().filter { $0.offset % 2 == 1 }.allSatisfy { $0.element == "Jon's Garage" })
            for (path, bytes) in SubjectKeysTests.snapshot(root) {
                #expect(!EncryptedBytes.contains(Array(bytes), "Philippa"), "\(path) holds the erased name")
            }
            let verification = try StoreVerifier.verify(at: root, options: Self.options, expect: head)
            #expect(verification.isIntact && verification.missingSubjectKeys.isEmpty, "\(verification.problems)")
            var cents: [Int64] = []
            try EventStoreReader.open(at: root, options: Self.options).forEach { event in
                if let entry = event.body.as(JournalEntryPosted.self) { cents.append(entry.amount.minorUnits) }
            }
            let written: [Int64] = (0..<40).map { (index: Int) -> Int64 in 100 + Int64(index) }
            #expect(cents == written, "amounts are never sealed")
        }
    }

    /// A read keeps the texts it has opened by reference (one look-up per payee instead of the
    /// keys' locked cache): a subject erased while the read goes on reads as erased from the
    /// next event on, as it does through the keys' own cache.
    @Test func aReadInProgressSeesAnErasureMadeWhileItReads() throws {
        try withTemporaryStore { root in
            let names = try Self.writeTwoPayees(at: root)
            var options = Self.options
            let keys = try SubjectKeys.load(root: root, logKeys: nil)
            options.subjectKeys = keys
            var payees: [String?] = []
            try EventStoreReader.open(at: root, options: options).forEach { event in
                guard let entry = event.body.as(JournalEntryPosted.self) else { return }
                payees.append(entry.payee)
                if payees.count == 20 { try keys.erase("payee:Philippa's Grocer") }
            }
            #expect(payees.count == 40)
            let before = payees.prefix(20), after = payees.dropFirst(20)
            #expect(before.enumerated().allSatisfy { $0.element == names[$0.offset % 2] }, "\(before)")
            #expect(after.enumerated().allSatisfy { offset, payee in
                offset % 2 == 0 ? payee?.hasPrefix(SubjectKeys.erasedMarker) == true : payee == "Jon's Garage"
            }, "\(after)")
        }
    }

    /// A store written before references holds every text inline. It still reads, new entries
    /// name their text by reference, and one payee reads alike in both forms, before its
    /// erasure (the text) and after it (one marker): grouping stays exact across the change.
    @Test func aLogWithTextSealedInlineStillReadsAndGroupsWithItsReferences() throws {
        try withTemporaryStore { root in
            try Ledger.create(at: root, name: "Marsh household", baseCurrency: .usd, timeZone: "UTC", options: Self.options).close()
            var inline = Self.options
            inline.subjectKeys = try SubjectKeys.load(root: root, logKeys: nil).inlineForm()
            let old = try Ledger.open(at: root, options: inline)
            try old.appendEvents([Self.entry(payee: "Bea's Bakery"), Self.entry(payee: "Al's Garage")])
            try old.close()
            let ledger = try Ledger.open(at: root, options: Self.options)
            try ledger.appendEvents([Self.entry(payee: "Bea's Bakery"), Self.entry(payee: "Al's Garage")])
            try ledger.close()

            var tags: [UInt8] = []
            try EventStoreReader.open(at: root, options: Self.options).forEachRecord { logged in
                if logged.kind == JournalEntryPosted.eventType.code { tags.append(logged.payload[try Self.payeeTagOffset(logged.payload)]) }
            }
            #expect(tags == [PersonalTextTag.sealed, PersonalTextTag.sealed, PersonalTextTag.reference, PersonalTextTag.reference])
            #expect(try Self.payees(at: root) == ["Bea's Bakery", "Al's Garage", "Bea's Bakery", "Al's Garage"])

            let head = try EventStoreReader.open(at: root, options: Self.options).head
            try SubjectErasure.erase("payee:Bea's Bakery", at: root, options: Self.options)
            let payees = try Self.payees(at: root)
            #expect(payees[0] == payees[2] && payees[0]?.hasPrefix(SubjectKeys.erasedMarker) == true, "\(payees)")
            #expect(payees[1] == "Al's Garage" && payees[3] == "Al's Garage")
            #expect(try StoreVerifier.verify(at: root, options: Self.options, expect: head).isIntact)
        }
    }

    /// Where the payee's tag byte is in a `journal_entry_posted` payload: after the two account
    /// names and the amount, found by reading them as the event does.
    static func payeeTagOffset(_ payload: [UInt8]) throws -> Int {
        var reader = BinaryReader(payload)
        let _: String = try reader.read()
        let _: String = try reader.read()
        let _: Money = try reader.read()
        #expect(try reader.readByte() == 1, "a payee is present")
        return reader.position
    }

    /// Random payees and categories over random events, seeded: every text reads back, equal
    /// texts encode to equal bytes and different ones to different bytes, and after erasing a
    /// random half of the payees, equal names still read alike and different names differently.
    @Test func equalNamesGroupExactlyBeforeAndAfterErasureSeeded() throws {
        let seed = TestSeed.value(default: 0x5EA1_ED31)
        var random = SplitMix64(seed: seed)
        let keys = SubjectKeys.inMemory()
        let catalog = EventCatalog.engine.sealing(with: keys)
        let payees = (0..<60).map { "Payee \($0) \(String(repeating: "x", count: Int.random(in: 0...30, using: &random)))" }
        let categories = ["Groceries", "Fuel", "Rent", "Gifts", ""]
        var events: [(payee: String, category: String, payload: [UInt8])] = []
        for _ in 0..<2_000 {
            let payee = payees.randomElement(using: &random)!
            let category = categories.randomElement(using: &random)!
            let record = try catalog.record(for: Self.entry(payee: payee, category: category))
            events.append((payee, category, record.payload))
        }
        let read = { (payload: [UInt8]) throws -> JournalEntryPosted in
            try #require(try catalog.decodeBody(code: JournalEntryPosted.eventType.code, version: JournalEntryPosted.eventType.version, payload: payload)
                .as(JournalEntryPosted.self))
        }
        var payloadByText: [String: [UInt8]] = [:]
        for event in events {
            let entry = try read(event.payload)
            #expect(entry.payee == event.payee && entry.category == event.category, "seed \(seed)")
            let text = event.payee + "\u{0}" + event.category
            if let earlier = payloadByText[text] { #expect(earlier == event.payload, "equal texts, equal bytes (seed \(seed))") }
            payloadByText[text] = event.payload
        }
        #expect(Set(payloadByText.values).count == payloadByText.count, "different texts, different bytes (seed \(seed))")

        let erased = Set(payees.filter { _ in Bool.random(using: &random) })
        for payee in erased { try keys.erase("payee:\(payee)") }
        var readAs: [String: String] = [:]
        for event in events {
            let entry = try read(event.payload)
            let shown = try #require(entry.payee)
            #expect(erased.contains(event.payee) == shown.hasPrefix(SubjectKeys.erasedMarker), "seed \(seed)")
            #expect(entry.category == event.category, "the owner's text is untouched (seed \(seed))")
            if let earlier = readAs[event.payee] { #expect(earlier == shown, "seed \(seed)") }
            readAs[event.payee] = shown
        }
        #expect(Set(readAs.values).count == readAs.count, "different names still read differently once erased (seed \(seed))")
        // A name met again after its erasure is a new subject: it reads in clear, not as the erased one.
        for payee in erased.sorted().prefix(5) {
            let again = try catalog.record(for: Self.entry(payee: payee, category: "Fuel"))
            #expect(try read(again.payload).payee == payee, "seed \(seed)")
        }
    }

    /// A `SUBJECTS` file older than the log (a backup from before a new payee) lacks that
    /// payee's sealed text: verify names it as lost (`text#N`), never as erased.
    @Test func aReferenceTheSubjectFileDoesNotHoldIsReportedAsLost() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.create(at: root, name: "Marsh household", baseCurrency: .usd, timeZone: "UTC", options: Self.options)
            try ledger.appendEvents([Self.entry(payee: "Bea's Bakery")])
            let path = StoreLayout(root: root).subjectKeyFilePath
            let older = try #require(FileManager.default.contents(atPath: path))
            try ledger.appendEvents([Self.entry(payee: "Al's Garage")])
            try ledger.close()
            try older.write(to: URL(fileURLWithPath: path))
            let verification = try StoreVerifier.verify(at: root, options: Self.options)
            #expect(!verification.isIntact && verification.missingSubjectKeys.contains { $0.hasPrefix("text#") }, "\(verification.missingSubjectKeys)")
        }
    }

    /// One changed character among the sealed texts is damage, refused by name, not an erasure.
    @Test func aDamagedSealedTextIsRefusedByName() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.create(at: root, name: "Marsh household", baseCurrency: .usd, timeZone: "UTC", options: Self.options)
            try ledger.appendEvents([Self.entry(payee: "Bea's Bakery")])
            try ledger.close()
            let path = StoreLayout(root: root).subjectKeyFilePath
            var text = try String(contentsOfFile: path, encoding: .utf8)
            let texts = try #require(text.range(of: "\"text\":\""))
            let at = text.index(texts.upperBound, offsetBy: 3)
            text.replaceSubrange(at...at, with: text[at] == "A" ? "B" : "A")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let refused = #expect(throws: LedgerError.self) { try Ledger.open(at: root, options: Self.options) }
            #expect(refused?.message.contains("sealed texts") == true, "\(String(describing: refused))")
        }
    }
}
