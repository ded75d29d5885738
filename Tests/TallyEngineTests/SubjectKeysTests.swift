import Foundation
import Testing
@testable import TallyEngine
import TallyLog
import TallyTestSupport

/// Personal text sealed per subject (issue 16, item 3) on the engine alone: it never reaches the
/// log in plain, equal texts seal alike, a destroyed key reads as the erased marker, the version
/// before sealing still reads, and an erasure refuses bad input leaving the store byte-identical.
@Suite struct SubjectKeysTests {
    static func entry(payee: String?, category: String? = "Gifts") -> NewEvent {
        NewEvent(effectiveAt: Instant(microsecondsSinceEpoch: 1_777_000_000_000_000), body: EventBody(JournalEntryPosted(
            account: "Assets:Cash", counterAccount: "Income:Gift", amount: usd("12.00"), payee: payee, category: category)))
    }

    static func payee(of body: EventBody) -> String? { body.as(JournalEntryPosted.self)?.payee }

    @Test func personalTextIsSealedEqualTextsSealAlikeAndAGoneKeyReadsAsErased() throws {
        let keys = SubjectKeys.inMemory()
        let catalog = EventCatalog.engine.sealing(with: keys)
        let first = try catalog.record(for: Self.entry(payee: "Philippa Marsh"))
        let again = try catalog.record(for: Self.entry(payee: "Philippa Marsh"))
        let other = try catalog.record(for: Self.entry(payee: "Jon Stewart"))
        #expect(!EncryptedBytes.contains(first.payload, "Philippa Marsh") && !EncryptedBytes.contains(first.payload, "Gifts"))
        #expect(first.payload == again.payload, "a deterministic nonce: equal text, equal bytes")
        #expect(first.version == 2)
        #expect(Set(keys.subjects.map(\.name)) == ["owner", "payee:Philippa Marsh", "payee:Jon Stewart"])
        let identifier = try #require(keys.subject(named: "payee:Philippa Marsh")?.identifier)
        #expect(identifier.count == 32 && !identifier.contains("Philippa"))

        let read = { (record: LogRecord) in try catalog.decodeBody(code: record.kind, version: record.version, payload: record.payload) }
        #expect(Self.payee(of: try read(first)) == "Philippa Marsh")
        // Without the keys, and once the key is gone: the marker, the same for equal texts.
        let keyless = try EventCatalog.engine.decodeBody(code: first.kind, version: first.version, payload: first.payload)
        #expect(Self.payee(of: keyless)?.hasPrefix(SubjectKeys.erasedMarker) == true)
        try keys.erase("payee:Philippa Marsh")
        let erased = try #require(Self.payee(of: try read(first)))
        #expect(erased.hasPrefix("[erased ") && erased.hasSuffix("]") && erased.count == 17, "\(erased)")
        #expect(Self.payee(of: try read(again)) == erased)
        #expect(Self.payee(of: try read(other)) == "Jon Stewart", "another subject's text still opens")
        #expect(try read(first).as(JournalEntryPosted.self)?.category == "Gifts", "the owner's text still opens")
        #expect(try read(first).as(JournalEntryPosted.self)?.amount == usd("12.00"), "amounts are never sealed")
        #expect(throws: StoreError.self) { try keys.erase("payee:Philippa Marsh") }
    }

    @Test func theVersionBeforeSealingStillReadsAsTheCurrentOne() throws {
        let payload = JournalEntryPosted(account: "Assets:Cash", counterAccount: "Income:Gift", amount: usd("1.00"), payee: "Old Friend", category: nil)
        var writer = BinaryWriter()
        PlainTextVersion(payload).encode(to: &writer)
        #expect(EncryptedBytes.contains(writer.bytes, "Old Friend"), "version 1 is plain")
        let body = try EventCatalog.engine.sealing(with: .inMemory()).decodeBody(code: 5, version: 1, payload: writer.bytes)
        #expect(body == EventBody(payload))
        // An empty text has nothing to seal: plain, in any version.
        let empty = try EventCatalog.engine.sealing(with: .inMemory()).record(for: Self.entry(payee: "", category: nil))
        #expect(Self.payee(of: try EventCatalog.engine.decodeBody(code: 5, version: 2, payload: empty.payload)) == "")
    }

    @Test func aSealedControlCharacterIsStillRefusedByTheRecordCheck() throws {
        let catalog = EventCatalog.engine.sealing(with: .inMemory())
        let refused = #expect(throws: EventCodingError.self) { try catalog.record(for: Self.entry(payee: "Bell\u{7}")) }
        #expect(refused?.field == "data.payee", "\(String(describing: refused))")
    }

    /// Every file of the store, by path, with its bytes.
    static func snapshot(_ root: String) -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = root + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[relative] = FileManager.default.contents(atPath: path)
            }
        }
        return files
    }

    @Test func anUnknownSubjectOrASecondErasureIsRefusedAndTheStoreIsUnchanged() throws {
        try withTemporaryStore { root in
            let options = Ledger.Options(clock: ManualClock("2026-05-01T09:00:00Z").function, syncMode: .none)
            let ledger = try Ledger.create(at: root, name: "Marsh household", baseCurrency: .usd, timeZone: "UTC", options: options)
            try ledger.appendEvents([Self.entry(payee: "Philippa Marsh")])
            try ledger.close()
            #expect(try SubjectErasure.subjects(at: root, options: options).map(\.name) == ["owner", "payee:Philippa Marsh"])

            let before = Self.snapshot(root)
            let unknown = #expect(throws: LedgerError.self) { try SubjectErasure.erase("payee:Nobody", at: root, options: options) }
            #expect(unknown?.code == .notFound && unknown?.message.contains("nothing was changed") == true, "\(String(describing: unknown))")
            let malformed = #expect(throws: LedgerError.self) { try SubjectErasure.erase("Philippa Marsh", at: root, options: options) }
            #expect(malformed?.code == .invalidArgument && malformed?.message.contains("owner or payee:NAME") == true)
            #expect(Self.snapshot(root) == before, "a refused erasure changes no byte")

            let head = try EventStoreReader.open(at: root, options: options).head
            let outcome = try SubjectErasure.erase("payee:Philippa Marsh", at: root, options: options)
            #expect(outcome.sequence == head.sequence + 1)
            let afterFirst = Self.snapshot(root)
            for (path, bytes) in afterFirst { #expect(!EncryptedBytes.contains(Array(bytes), "Philippa Marsh"), "\(path)") }
            let twice = #expect(throws: LedgerError.self) { try SubjectErasure.erase("payee:Philippa Marsh", at: root, options: options) }
            #expect(twice?.code == .notFound && twice?.message.contains("already erased") == true)
            #expect(Self.snapshot(root) == afterFirst, "a second erasure changes no byte")
            let verification = try StoreVerifier.verify(at: root, options: options, expect: head)
            #expect(verification.isIntact, "\(verification.outcome)")
        }
    }

    @Test func aRepeatedCommandWithPersonalTextIsAlreadyApplied() throws {
        try withTemporaryStore { root in
            let options = Ledger.Options(clock: ManualClock("2026-05-01T09:00:00Z").function, syncMode: .none)
            let ledger = try Ledger.create(at: root, name: "Marsh household", baseCurrency: .usd, timeZone: "UTC", options: options)
            defer { try? ledger.close() }
            let event = Self.entry(payee: "Philippa Marsh")
            let command = LedgerCommand(idempotencyKey: "gift-1", request: event) { _ in [event] }
            let first = try ledger.run(command)
            let repeated = try ledger.run(command)
            #expect(!first.wasAlreadyApplied && repeated.wasAlreadyApplied && repeated.events == first.events)
        }
    }

    /// An import makes subjects on its second thread while the first one saves the keys and
    /// appends: a subject made while a save writes the file must stay "changed", so the save
    /// before the append that first names it writes it. Every subject sealed before the last
    /// save is in the file.
    @Test func aSubjectMadeWhileTheKeysAreSavedIsSavedByTheNextSave() throws {
        try withTemporaryStore { root in
            let options = Ledger.Options(clock: ManualClock("2026-05-01T09:00:00Z").function, syncMode: .none)
            try Ledger.create(at: root, name: "Household", baseCurrency: .usd, timeZone: "UTC", options: options).close()
            let keys = try SubjectKeys.load(root: root, logKeys: nil)
            let before = keys.subjects.count
            let payees = 300
            let done = DispatchSemaphore(value: 0)
            Thread {
                for index in 0..<payees { _ = keys.seal("Payee \(index)", subject: "payee:Payee \(index)") }
                done.signal()
            }.start()
            var saves = 0
            while done.wait(timeout: .now()) == .timedOut {
                try keys.save()
                saves += 1
            }
            try keys.save()
            let reloaded = try SubjectKeys.load(root: root, logKeys: nil)
            #expect(reloaded.subjects.count == before + payees, "\(reloaded.subjects.count - before) of \(payees) subjects reached the file (\(saves) saves ran beside the sealing)")
        }
    }

    /// Two writers load the keys before either holds the store's lock; the second to take it
    /// reloads them (as `EventStore.open` does), so its save keeps the subject the first one
    /// made and saved meanwhile instead of writing its own older set over it.
    @Test func aWriterReloadsTheKeysOnceTheLockIsItsSoAnotherWritersSubjectsStay() throws {
        try withTemporaryStore { root in
            let options = Ledger.Options(clock: ManualClock("2026-05-01T09:00:00Z").function, syncMode: .none)
            try Ledger.create(at: root, name: "Household", baseCurrency: .usd, timeZone: "UTC", options: options).close()
            let first = try SubjectKeys.load(root: root, logKeys: nil)
            let second = try SubjectKeys.load(root: root, logKeys: nil)
            let before = first.subjects.count
            _ = first.seal("Bea's Bakery", subject: "payee:Bea's Bakery")
            try first.save()
            try second.reloadForWriting()
            _ = second.seal("Al's Garage", subject: "payee:Al's Garage")
            try second.save()
            let names = try SubjectKeys.load(root: root, logKeys: nil).subjects.map(\.name)
            #expect(names.count == before + 2 && names.contains("payee:Bea's Bakery") && names.contains("payee:Al's Garage"), "\(names)")
            // The first writer's seal still opens from the file the second one wrote.
            let sealed = first.seal("Bea's Bakery", subject: "payee:Bea's Bakery")
            #expect(try SubjectKeys.load(root: root, logKeys: nil).open(sealed[...]) == "Bea's Bakery")
        }
    }

    @Test func aDamagedSubjectKeyFileIsRefusedByNameAndAnEncryptedStoresIsSealed() throws {
        try withTemporaryStore { root in
            var options = Ledger.Options(clock: ManualClock("2026-05-01T09:00:00Z").function, syncMode: .none)
            options.key = try LedgerKey(text: LedgerKey.newKeyText(), origin: "k")
            options.encrypt = true
            let ledger = try Ledger.create(at: root, name: "Marsh household", baseCurrency: .usd, timeZone: "UTC", options: options)
            try ledger.appendEvents([Self.entry(payee: "Philippa Marsh")])
            try ledger.close()
            defer {
                let path = StoreLayout(root: root).runtimeReadModelPath
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            let path = StoreLayout(root: root).subjectKeyFilePath
            let sealed = try #require(FileManager.default.contents(atPath: path))
            #expect(!EncryptedBytes.contains(Array(sealed), "payee:") && !EncryptedBytes.contains(Array(sealed), "Philippa"))
            var reopen = options
            reopen.encrypt = false
            try Ledger.openForReading(at: root, options: reopen).close()

            // Cut inside its header (written whole, never torn by a crash): refused by name.
            let headerEnd = try #require(sealed.firstIndex(of: 0x0A))
            try Data(sealed.prefix(headerEnd / 2)).write(to: URL(fileURLWithPath: path))
            let refused = #expect(throws: LedgerError.self) { try Ledger.open(at: root, options: reopen) }
            #expect(refused?.message.contains("SUBJECTS") == true, "\(String(describing: refused))")
            // Cut inside the last record, which an event names (no crash tears a record an
            // acknowledged event names): the open cuts the torn bytes, and verify names the loss.
            try Data(sealed.dropLast(10)).write(to: URL(fileURLWithPath: path))
            try Ledger.open(at: root, options: reopen).close()
            let verification = try StoreVerifier.verify(at: root, options: reopen)
            #expect(!verification.isIntact && !verification.missingSubjectKeys.isEmpty, "\(verification.missingSubjectKeys)")
        }
    }
}

/// Byte search for the tests above.
enum EncryptedBytes {
    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let needle = Array(needle.utf8)
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
