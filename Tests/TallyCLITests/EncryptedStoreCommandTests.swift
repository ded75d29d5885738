import Foundation
import Glibc
import Tally
import TallyLog
import Testing

/// `tally init --encrypt --key-file`, `--key-file` / `TALLY_KEY_FILE` on every later command,
/// `tally key new` and `tally key rotate`, as a user runs them: the right key answers, a missing,
/// wrong or truncated one is refused by name and changes nothing.
@Suite struct EncryptedStoreCommandTests {
    static let journal = [
        "date,account,counter_account,amount,currency,payee,category,external_id",
        "2026-05-01,Assets:Checking,Income:Salary,2500.00,USD,Zephyr Analytics,Salary,bank-001",
        "2026-05-02,Expenses:Dining,Assets:Checking,42.10,USD,Quillon Bistro,Dining,bank-002",
    ].joined(separator: "\n") + "\n"

    /// An encrypted store with the journal imported; the key file is made by init.
    func encryptedStore(_ directory: TemporaryDirectory) throws -> (store: String, key: String) {
        let store = directory.path + "/store"
        let key = directory.path + "/home.key"
        let created = try TallyProcess.run(["init", "--store", store, "--encrypt", "--key-file", key, "--name", "Ottoline Books"])
        try #require(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput.contains("wrote a new key to \(key)"))
        let imported = try TallyProcess.run(["import", try directory.file("bank.csv", Self.journal), "--store", store, "--key-file", key])
        try #require(imported.status == 0, "\(imported.standardError)")
        return (store, key)
    }

    func forget(_ store: String) {
        let path = StoreLayout(root: store).runtimeReadModelPath
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func anEncryptedStoreAnswersWithItsKeyAndShowsNoStringOnDisk() throws {
        let directory = try TemporaryDirectory()
        let (store, key) = try encryptedStore(directory)
        defer { forget(store) }
        let balances = try TallyProcess.run(["balances", "--store", store, "--key-file", key])
        #expect(balances.status == 0, "\(balances.standardError)")
        #expect(balances.standardOutput.contains("2,457.90"))
        let fromEnvironment = try TallyProcess.run(["balances", "--store", store], environment: ["TALLY_KEY_FILE": key])
        #expect(fromEnvironment.standardOutput == balances.standardOutput)
        let verify = try TallyProcess.run(["verify", "--store", store, "--key-file", key])
        #expect(verify.status == 0, "\(verify.standardError)")
        for (path, bytes) in try directory.snapshot("store") {
            for text in ["Zephyr Analytics", "Quillon Bistro", "Ottoline Books", "Expenses:Dining", "Income:Salary", "bank-001"] {
                #expect(bytes.range(of: Data(text.utf8)) == nil, "'\(text)' in \(path)")
            }
        }
    }

    @Test func aMissingWrongOrTruncatedKeyIsRefusedAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let (store, key) = try encryptedStore(directory)
        defer { forget(store) }
        let before = try directory.snapshot("store")
        let missing = try TallyProcess.run(["balances", "--store", store])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("is encrypted: give its key with --key-file"), "\(missing.standardError)")
        let other = directory.path + "/other.key"
        #expect(try TallyProcess.run(["key", "new", other]).status == 0)
        let wrong = try TallyProcess.run(["tx", "list", "--store", store, "--key-file", other])
        #expect(wrong.status != 0)
        let wrongVerify = try TallyProcess.run(["verify", "--store", store, "--key-file", other])
        #expect(wrongVerify.status != 0)
        #expect(wrongVerify.standardError.contains("does not open this store"), "\(wrongVerify.standardError)")
        let truncated = try directory.file("cut.key", String(try String(contentsOfFile: key, encoding: .utf8).prefix(30)))
        let cut = try TallyProcess.run(["balances", "--store", store, "--key-file", truncated])
        #expect(cut.status != 0)
        #expect(cut.standardError.contains("is truncated or damaged"), "\(cut.standardError)")
        let absent = try TallyProcess.run(["balances", "--store", store, "--key-file", directory.path + "/absent.key"])
        #expect(absent.status != 0)
        #expect(absent.standardError.contains("cannot read the key file"), "\(absent.standardError)")
        #expect(try directory.snapshot("store") == before)
    }

    @Test func rotationMovesTheStoreToTheNewKeyWithoutRewritingTheLog() throws {
        let directory = try TemporaryDirectory()
        let (store, key) = try encryptedStore(directory)
        defer { forget(store) }
        let logBefore = try directory.snapshot("store/log").filter { $0.key.hasSuffix(".tlog") }
        let newKey = directory.path + "/new.key"
        let wrongOld = try TallyProcess.run(["key", "rotate", "--store", store, "--key-file", newKey + ".x", "--new-key-file", newKey])
        #expect(wrongOld.status != 0)
        #expect(!FileManager.default.fileExists(atPath: newKey))
        let rotated = try TallyProcess.run(["key", "rotate", "--store", store, "--key-file", key, "--new-key-file", newKey])
        #expect(rotated.status == 0, "\(rotated.standardError)")
        #expect(try directory.snapshot("store/log").filter { $0.key.hasSuffix(".tlog") } == logBefore)
        #expect(try TallyProcess.run(["balances", "--store", store, "--key-file", key]).status != 0)
        let after = try TallyProcess.run(["balances", "--store", store, "--key-file", newKey])
        #expect(after.status == 0 && after.standardOutput.contains("2,457.90"), "\(after.standardError)")
    }

    @Test func initRefusesAKeyWithoutEncryptionAndEncryptionWithoutAKey() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/store"
        let noKey = try TallyProcess.run(["init", "--store", store, "--encrypt"], environment: ["TALLY_KEY_FILE": ""])
        #expect(noKey.status != 0)
        #expect(noKey.standardError.contains("--encrypt needs a key"))
        let keyOnly = try TallyProcess.run(["init", "--store", store, "--key-file", directory.path + "/k"])
        #expect(keyOnly.status != 0)
        #expect(!FileManager.default.fileExists(atPath: store))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/k"))
        // A plain store ignores a key set for the shell, but refuses one given on the command line.
        #expect(try TallyProcess.run(["init", "--store", store]).status == 0)
        let key = directory.path + "/k"
        #expect(try TallyProcess.run(["key", "new", key]).status == 0)
        #expect(try TallyProcess.run(["balances", "--store", store], environment: ["TALLY_KEY_FILE": key]).status == 0)
        let given = try TallyProcess.run(["balances", "--store", store, "--key-file", key])
        #expect(given.status != 0)
        #expect(given.standardError.contains("is not encrypted"), "\(given.standardError)")
    }

    /// Found measuring: a store removed by hand and made again at the same path met the read models
    /// of the one before (they live outside the store); each store's identifier now names its own.
    @Test func aStoreMadeAgainAtTheSamePathStartsWithReadModelsOfItsOwn() throws {
        let directory = try TemporaryDirectory()
        let (store, key) = try encryptedStore(directory)
        let first = StoreLayout(root: store).runtimeReadModelPath
        try FileManager.default.removeItem(atPath: store)
        let again = try TallyProcess.run(["init", "--store", store, "--encrypt", "--key-file", key])
        #expect(again.status == 0, "\(again.standardError)")
        defer { forget(store) }
        #expect(StoreLayout(root: store).runtimeReadModelPath != first)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: first + suffix) }
        let imported = try TallyProcess.run(["import", try directory.file("again.csv", Self.journal), "--store", store, "--key-file", key])
        #expect(imported.status == 0, "\(imported.standardError)")
        let balances = try TallyProcess.run(["balances", "--store", store, "--key-file", key])
        #expect(balances.standardOutput.contains("2,457.90"), "\(balances.standardOutput)\(balances.standardError)")
    }

    /// The demo household moved into an encrypted store: `export`, then `restore --encrypt`.
    @Test func aPlainLedgerRestoredEncryptedKeepsItsDigestAndAnswersAndShowsNoString() throws {
        let directory = try TemporaryDirectory()
        let demo = directory.path + "/demo"
        #expect(try TallyProcess.run(["demo", "--store", demo, "--months", "3", "--seed", "7"]).status == 0)
        let export = try TallyProcess.run(["export", directory.path + "/ledger.ndjson", "--store", demo])
        try #require(export.status == 0, "\(export.standardError)")
        let head = try #require(export.standardOutput.split(separator: "\n").first { $0.hasPrefix("head ") }.map(String.init))
        let store = directory.path + "/sealed"
        let key = directory.path + "/k.key"
        let restored = try TallyProcess.run([
            "restore", directory.path + "/ledger.ndjson", "--store", store, "--encrypt", "--key-file", key,
            "--expect", String(head.dropFirst(5)), "--progress", "none"])
        #expect(restored.status == 0, "\(restored.standardError)")
        defer { forget(store) }
        #expect(restored.standardOutput.contains(head))
        let original = try TallyProcess.run(["balances", "--store", demo, "--as-of", "2024-03-15"])
        let sealed = try TallyProcess.run(["balances", "--store", store, "--key-file", key, "--as-of", "2024-03-15"])
        #expect(sealed.status == 0, "\(sealed.standardError)")
        #expect(sealed.standardOutput == original.standardOutput)
        #expect(try TallyProcess.run(["balances", "--store", store]).status != 0, "the restored store needs its key")
        for (path, bytes) in try directory.snapshot("sealed") {
            for text in ["Demo household", "Acme Corp", "Groceries", "Emergency fund"] {
                #expect(bytes.range(of: Data(text.utf8)) == nil, "'\(text)' in \(path)")
            }
        }
        let staging = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("tally-restore") }
        #expect(staging.isEmpty)
    }

    @Test func verifyWarnsWhenTheKeyFileIsReadableByOthers() throws {
        let directory = try TemporaryDirectory()
        let (store, key) = try encryptedStore(directory)
        defer { forget(store) }
        #expect(chmod(key, 0o644) == 0)
        let verify = try TallyProcess.run(["verify", "--store", store, "--key-file", key])
        #expect((verify.standardOutput + verify.standardError).contains(key), "\(verify.standardOutput)\(verify.standardError)")
    }
}
