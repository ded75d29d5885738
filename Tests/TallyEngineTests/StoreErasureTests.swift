import Foundation
import Testing
import TallyEngine
import TallyLog
import TallyTestSupport

/// "Erase all data": the keys first, then the read models and the store; nothing but a store is
/// ever deleted, nothing while a writer has it open; a copy of the log taken before opens nothing
/// once the keys it was sealed under are gone.
@Suite struct StoreErasureTests {
    final class MemoryKeyring: LedgerKeyring, @unchecked Sendable {
        let lock = NSLock()
        var bytes: [UInt8]?
        func load() throws -> [UInt8]? { lock.withLock { bytes } }
        func save(_ keys: [UInt8]) throws { lock.withLock { bytes = keys } }
        func remove() throws { lock.withLock { bytes = nil } }
    }

    static func encryptedOptions(_ key: LedgerKey, keyring: (any LedgerKeyring)? = nil) -> Ledger.Options {
        var options = Ledger.Options(clock: ManualClock("2026-05-01T09:00:00Z").function, syncMode: .none)
        options.key = key
        options.encrypt = true
        options.keyring = keyring
        return options
    }

    static func record(_ ledger: Ledger) throws {
        try ledger.appendEvents([NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(
            account: "Assets:Cash", counterAccount: "Income:Gift", amount: usd("12.00"), payee: "Philippa Marsh")))])
    }

    /// Creates an encrypted store under a new key holding one entry with a payee, closes it,
    /// and returns the options that open it.
    @discardableResult
    static func encryptedStoreWithOneEntry(at root: String, keyring: (any LedgerKeyring)? = nil) throws -> Ledger.Options {
        let key = try LedgerKey(text: LedgerKey.newKeyText(), origin: "k")
        let options = Self.encryptedOptions(key, keyring: keyring)
        let ledger = try Ledger.create(at: root, name: "H", baseCurrency: .usd, timeZone: "UTC", options: options)
        try Self.record(ledger)
        try ledger.close()
        return options
    }

    @Test func erasingAnEncryptedStoreDeletesItsKeysFirstThenEverythingElse() throws {
        try withTemporaryStore { root in
            try Self.encryptedStoreWithOneEntry(at: root)
            let readModels = StoreLayout(root: root).runtimeReadModelPath
            #expect(FileManager.default.fileExists(atPath: readModels))
            let deleted = try StoreErasure.eraseEverything(at: root)
            #expect(deleted.first == StoreLayout(root: root).keyFilePath)
            #expect(deleted.contains(readModels))
            #expect(deleted.last == root)
            #expect(!FileManager.default.fileExists(atPath: root))
            #expect(!FileManager.default.fileExists(atPath: readModels))
            #expect(!FileManager.default.fileExists(atPath: readModels + "-wal"))
            // Erasing again: there is nothing to erase, and it says so.
            #expect(throws: StoreError.self) { try StoreErasure.eraseEverything(at: root) }
        }
    }

    /// A rebuild killed half-way leaves its new file beside the read models (outside the
    /// store, for an encrypted one): it holds what they hold, so erasing goes for it too.
    @Test func erasingDeletesTheFileOfARebuildThatWasKilled() throws {
        try withTemporaryStore { root in
            try Self.encryptedStoreWithOneEntry(at: root)
            let readModels = StoreLayout(root: root).runtimeReadModelPath
            let leftover = readModels + ".rebuilding"
            try FileManager.default.copyItem(atPath: readModels, toPath: leftover)
            let deleted = try StoreErasure.eraseEverything(at: root)
            #expect(deleted.contains(leftover))
            #expect(!FileManager.default.fileExists(atPath: leftover))
        }
    }

    @Test func aCopyOfTheLogOpensNothingOnceTheKeyringsKeysAreGone() throws {
        try withTemporaryStore { root in
            let keyring = MemoryKeyring()
            let options = try Self.encryptedStoreWithOneEntry(at: root, keyring: keyring)
            let backup = root + "-backup"
            try FileManager.default.copyItem(atPath: root, toPath: backup)
            defer { try? FileManager.default.removeItem(atPath: backup) }
            let deleted = try StoreErasure.eraseEverything(at: root, keyring: keyring)
            #expect(deleted.first == "the keyring's key set")
            #expect(keyring.bytes == nil)
            // The backup still has its sealed log, and the user still has the key: neither opens it.
            do { _ = try Ledger.open(at: backup, options: options); Issue.record("the backup opened") } catch let error as LedgerError {
                #expect((error.underlying as? StoreError)?.code == .badKey, "\(error)")
                #expect(error.message.contains("its key set is gone"), "\(error)")
            }
            // Without the engine's word for it, the log itself refuses: its frames are sealed.
            #expect(throws: LogError.self) { try LogReader.open(directory: backup + "/log").forEach { _ in } }
            for name in try FileManager.default.contentsOfDirectory(atPath: backup + "/log") where name.hasSuffix(".tlog") {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: backup + "/log/" + name))
                #expect(bytes.range(of: Data("Philippa Marsh".utf8)) == nil)
            }
        }
    }

    @Test func onlyAStoreIsErasedAndNeverOneAWriterHasOpen() throws {
        try withTemporaryStore { root in
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: root + "/notes.txt"))
            #expect(throws: StoreError.self) { try StoreErasure.eraseEverything(at: root) }
            #expect(FileManager.default.fileExists(atPath: root + "/notes.txt"))
            try FileManager.default.removeItem(atPath: root)

            let ledger = try Ledger.create(at: root, name: "H", baseCurrency: .usd, timeZone: "UTC")
            do { try StoreErasure.eraseEverything(at: root); Issue.record("erased an open store") } catch let error as LogError {
                #expect(error.code == .locked)
            }
            #expect(StoreLayout(root: root).exists)
            try Self.record(ledger)
            try ledger.close()
            let deleted = try StoreErasure.eraseEverything(at: root)
            #expect(deleted == [StoreLayout(root: root).subjectKeyFilePath, StoreLayout(root: root).readModelPath, root], "the subject keys first")
            #expect(!FileManager.default.fileExists(atPath: root))
        }
    }
}
