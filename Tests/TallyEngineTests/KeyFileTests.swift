import Foundation
import Glibc
import Testing
import TallyEngine
import TallyLog
import TallyTestSupport

/// Keys of an encrypted store: key files and passphrases, the store's wrapped key set, a wrong,
/// truncated or missing key (refused, nothing changed), rotation (rewraps, never rewrites the log).
@Suite struct KeyFileTests {
    static let start = "2026-05-01T09:00:00Z"

    /// A store encrypted with a new key file beside it, with a few entries; the ledger is closed.
    static func makeEncryptedStore(at root: String, key: LedgerKey) throws {
        let clock = ManualClock(start)
        var options = Ledger.Options(clock: clock.function, syncMode: .none)
        options.key = key
        options.encrypt = true
        let ledger = try Ledger.create(at: root, name: "Rosalind's books", baseCurrency: .usd, timeZone: "UTC", options: options)
        for index in 0..<5 {
            try ledger.appendEvents([NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(
                account: "Assets:Cash", counterAccount: "Income:Gift", amount: usd("\(index + 1).00"))))])
        }
        try ledger.close()
    }

    static func options(_ key: LedgerKey?) -> Ledger.Options {
        var options = Ledger.Options()
        options.key = key
        return options
    }

    /// Every file of the store with its bytes (the read models live outside an encrypted store).
    static func snapshot(_ root: String) -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: root + "/" + relative) { result[relative] = data }
        }
        return result
    }

    static func code(_ body: () throws -> Void) -> StoreError.Code? {
        do { try body() } catch let error as LedgerError { return (error.underlying as? StoreError)?.code } catch let error as StoreError {
            return error.code
        } catch { return nil }
        return nil
    }

    func withKeyedStore(_ body: (String, String, LedgerKey) throws -> Void) throws {
        try withTemporaryStore { root in
            let parent = (root as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            let keyPath = parent + "/home.key"
            let key = try LedgerKey.makeKeyFile(at: keyPath)
            try Self.makeEncryptedStore(at: root, key: key)
            defer {
                let path = StoreLayout(root: root).runtimeReadModelPath
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            try body(root, keyPath, key)
        }
    }

    @Test func aKeyFileIsOwnerOnlyNeverOverwrittenAndReadsBack() throws {
        try withTemporaryStore { root in
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let path = root + "/k"
            _ = try LedgerKey.makeKeyFile(at: path)
            var status = stat()
            #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasPrefix("tally-key-1:") && text.utf8.count == 12 + 44 + 1)
            #expect(throws: StoreError.self) { try LedgerKey.makeKeyFile(at: path) }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == text, "never overwritten")
            let key = try LedgerKey.file(path)
            let secret = String(text.dropFirst(12).prefix(20))
            #expect(!"\(key)".contains(secret) && !String(reflecting: key).contains(secret), "a key printed its secret")
            #expect("\(key)".contains(path))
        }
    }

    @Test func truncatedEmptyOrShortKeysAreRefusedByName() throws {
        let full = LedgerKey.newKeyText()
        for cut in [1, 5, 12, 20, full.utf8.count - 1] {
            let text = String(full.prefix(cut))
            #expect(Self.code { _ = try LedgerKey(text: text, origin: "key file 'k'") } == .badKey, "cut at \(cut)")
        }
        #expect(Self.code { _ = try LedgerKey(text: "", origin: "k") } == .badKey)
        #expect(Self.code { _ = try LedgerKey(text: "short", origin: "k") } == .badKey)
        #expect(Self.code { _ = try LedgerKey(text: full + "AA", origin: "k") } == .badKey)
        _ = try LedgerKey(text: full + "\n", origin: "k")
        _ = try LedgerKey(text: "correct horse battery staple", origin: "k")
        do { _ = try LedgerKey(text: String(full.prefix(30)), origin: "the key file 'home.key'") } catch let error as StoreError {
            #expect(error.message.contains("the key file 'home.key' is truncated or damaged"), "\(error)")
        }
    }

    @Test func theRightKeyOpensAndNothingElseDoesOrChangesAnything() throws {
        try withKeyedStore { root, keyPath, key in
            let before = Self.snapshot(root)
            #expect(Self.code { _ = try Ledger.open(at: root, options: Self.options(nil)) } == .keyRequired)
            #expect(Self.code { _ = try Ledger.openForReading(at: root, options: Self.options(nil)) } == .keyRequired)
            #expect(Self.code { _ = try StoreVerifier.verify(at: root, options: Self.options(nil)) } == .keyRequired)
            #expect(Self.code { _ = try Ledger.rebuild(at: root, options: Self.options(nil)) } == .keyRequired)
            #expect(Self.code { _ = try StoreRepair.repair(at: root) } == .keyRequired)
            let other = try LedgerKey(text: LedgerKey.newKeyText(), origin: "the key file 'other.key'")
            #expect(Self.code { _ = try Ledger.open(at: root, options: Self.options(other)) } == .wrongKey)
            let passphrase = try LedgerKey(text: "a long enough passphrase", origin: "TALLY_KEY")
            #expect(Self.code { _ = try Ledger.openForReading(at: root, options: Self.options(passphrase)) } == .wrongKey)
            #expect(Self.snapshot(root) == before, "a refused key changed the store")

            let ledger = try Ledger.openForReading(at: root, options: Self.options(try LedgerKey.file(keyPath)))
            #expect(try ledger.balances().count == 2)
            try ledger.close()
            #expect(try StoreVerifier.verify(at: root, options: Self.options(key)).isIntact)
        }
    }

    @Test func aDamagedOrTruncatedKeySetIsRefusedAndTheStoreKeepsItsBytes() throws {
        try withKeyedStore { root, _, key in
            let keysPath = StoreLayout(root: root).keyFilePath
            let original = try Data(contentsOf: URL(fileURLWithPath: keysPath))
            for length in [0, 10, original.count / 2, original.count - 3] {
                try original.prefix(length).write(to: URL(fileURLWithPath: keysPath))
                #expect(Self.code { _ = try Ledger.open(at: root, options: Self.options(key)) } == .badKey, "KEYS cut to \(length)")
            }
            try FileManager.default.removeItem(atPath: keysPath)
            #expect(Self.code { _ = try Ledger.open(at: root, options: Self.options(nil)) } == .badKey)
            #expect(Self.code { _ = try Ledger.open(at: root, options: Self.options(key)) } == .badKey)
            // And with the marker gone too, the sealed log itself refuses to be read without keys.
            let marker = try Data(contentsOf: URL(fileURLWithPath: StoreLayout(root: root).sealedMarkerPath))
            try FileManager.default.removeItem(atPath: StoreLayout(root: root).sealedMarkerPath)
            do { _ = try Ledger.open(at: root, options: Self.options(nil)); Issue.record("opened without keys") } catch let error as LedgerError {
                #expect((error.underlying as? LogError)?.code == .keyRequired, "\(error)")
            }
            try marker.write(to: URL(fileURLWithPath: StoreLayout(root: root).sealedMarkerPath))
            try original.write(to: URL(fileURLWithPath: keysPath))
            try Ledger.open(at: root, options: Self.options(key)).close()
        }
    }

    @Test func rotationRewrapsTheDataKeyAndNeverTouchesTheLog() throws {
        try withKeyedStore { root, keyPath, key in
            let log = StoreLayout(root: root).logDirectory
            let segments = try FileManager.default.contentsOfDirectory(atPath: log).filter { $0.hasSuffix(".tlog") }.sorted()
            let before = try segments.map { try Data(contentsOf: URL(fileURLWithPath: log + "/" + $0)) }
            let newKey = try LedgerKey(text: "the household's new passphrase", origin: "TALLY_KEY")
            let wrong = try LedgerKey(text: LedgerKey.newKeyText(), origin: "k")
            #expect(Self.code { try LedgerKeys.rotate(at: root, from: wrong, to: newKey) } == .wrongKey)
            try LedgerKeys.rotate(at: root, from: key, to: newKey)
            #expect(try segments.map { try Data(contentsOf: URL(fileURLWithPath: log + "/" + $0)) } == before)
            #expect(Self.code { _ = try Ledger.open(at: root, options: Self.options(try LedgerKey.file(keyPath))) } == .wrongKey)
            let ledger = try Ledger.open(at: root, options: Self.options(newKey))
            #expect(try ledger.balances().count == 2)
            try ledger.close()
            var status = stat()
            #expect(stat(StoreLayout(root: root).keyFilePath, &status) == 0 && status.st_mode & 0o777 == 0o600)
        }
    }

    /// The key identifier of every frame, read from the segment files' frame headers.
    static func frameKeyIdentifiers(_ root: String) throws -> [UInt32] {
        let log = StoreLayout(root: root).logDirectory
        var identifiers: [UInt32] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: log).filter({ $0.hasSuffix(".tlog") }).sorted() {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: log + "/" + name)))
            func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) } }
            var offset = 64
            while offset + 88 <= bytes.count {
                #expect(bytes[offset + 6] & 2 == 2, "frame at \(offset) of \(name) is not sealed")
                identifiers.append(u32(offset + 28))
                offset += 88 + Int(u32(offset + 24))
            }
        }
        return identifiers
    }

    @Test func aNewDataKeySealsLaterFramesAndEarlierFramesStillOpen() throws {
        try withKeyedStore { root, _, key in
            let before = try Self.frameKeyIdentifiers(root)
            #expect(before.count == 6 && before.allSatisfy { $0 == 1 })
            let wrong = try LedgerKey(text: LedgerKey.newKeyText(), origin: "k")
            #expect(Self.code { try LedgerKeys.addDataKey(at: root, key: wrong) } == .wrongKey)
            #expect(try LedgerKeys.addDataKey(at: root, key: key) == 2)
            let ledger = try Ledger.open(at: root, options: Self.options(key))
            try ledger.appendEvents([NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(
                account: "Assets:Cash", counterAccount: "Income:Gift", amount: usd("100.00"))))])
            try ledger.close()
            #expect(try Self.frameKeyIdentifiers(root) == before + [2])
            try Ledger.rebuild(at: root, options: Self.options(key))
            let reader = try Ledger.openForReading(at: root, options: Self.options(key))
            let balances = try reader.balances()
            #expect(balances.contains { "\($0)".contains("115.00") }, "\(balances)")
            try reader.close()
            #expect(try StoreVerifier.verify(at: root, options: Self.options(key)).isIntact)
        }
    }

    @Test func aPlainStoreRefusesAKeyAndEncryptionNeedsOne() throws {
        try withTemporaryStore { root in
            var options = Ledger.Options()
            options.encrypt = true
            #expect(Self.code { _ = try Ledger.create(at: root, name: "H", baseCurrency: .usd, timeZone: "UTC", options: options) } == .keyRequired)
            #expect(!FileManager.default.fileExists(atPath: root))
            try Ledger.create(at: root, name: "H", baseCurrency: .usd, timeZone: "UTC").close()
            let key = try LedgerKey(text: LedgerKey.newKeyText(), origin: "k")
            #expect(Self.code { _ = try Ledger.open(at: root, options: Self.options(key)) } == .notEncrypted)
            #expect(try LedgerKeys.isEncrypted(at: root) == false)
        }
    }

    /// An embedder's keyring keeps the wrapped keys; the store keeps none.
    @Test func anEmbeddersKeyringHoldsTheKeysApartFromTheStore() throws {
        final class MemoryKeyring: LedgerKeyring, @unchecked Sendable {
            let lock = NSLock()
            var bytes: [UInt8]?
            func load() throws -> [UInt8]? { lock.withLock { bytes } }
            func save(_ keys: [UInt8]) throws { lock.withLock { bytes = keys } }
            func remove() throws { lock.withLock { bytes = nil } }
        }
        try withTemporaryStore { root in
            let keyring = MemoryKeyring()
            let key = try LedgerKey(text: LedgerKey.newKeyText(), origin: "k")
            var options = Ledger.Options()
            options.key = key
            options.keyring = keyring
            options.encrypt = true
            try Ledger.create(at: root, name: "H", baseCurrency: .usd, timeZone: "UTC", options: options).close()
            defer {
                let path = StoreLayout(root: root).runtimeReadModelPath
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            #expect(keyring.bytes != nil)
            #expect(!FileManager.default.fileExists(atPath: StoreLayout(root: root).keyFilePath))
            #expect(StoreLayout(root: root).isEncrypted)
            try Ledger.open(at: root, options: options).close()
            var withoutKey = options
            withoutKey.key = nil
            #expect(Self.code { _ = try Ledger.open(at: root, options: withoutKey) } == .keyRequired)

            // A creation that fails (a store is there already) takes its keys out of the keyring again.
            let other = MemoryKeyring()
            var again = options
            again.keyring = other
            #expect(Self.code { _ = try Ledger.create(at: root, name: "H", baseCurrency: .usd, timeZone: "UTC", options: again) } == .alreadyExists)
            #expect(other.bytes == nil)
        }
    }
}
