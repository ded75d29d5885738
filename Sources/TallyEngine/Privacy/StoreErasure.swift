internal import Foundation
internal import TallyLog

/// "Erase all data": deletes a store, its keys and its read models, and says what it deleted.
///
/// The keys go first (the keyring's key set, then the store's `KEYS` file, then its per-subject
/// keys, `SUBJECTS`): from that moment
/// nothing sealed under the store's data keys opens again, backups of the log included, even if
/// the rest of the deletion is interrupted. Then the read models (outside the store for an
/// encrypted one) and the store's directory. It holds the writer's lock while it works, so it
/// never deletes a store a writer has open.
///
/// ```swift
/// let deleted = try StoreErasure.eraseEverything(at: "books")
/// for path in deleted { print("deleted \(path)") }
/// ```
public enum StoreErasure {
    /// Deletes the store at `root`, its keys and its read models.
    /// - Parameters:
    ///   - root: the store's directory; it must hold a Tally store (nothing else is ever deleted).
    ///   - keyring: an embedder's keyring whose key set is destroyed too (nil: the store's own `KEYS`).
    /// - Returns: what was deleted, keys first.
    /// - Throws: ``StoreError`` `notFound`/`notAStore` when `root` is not a store, `io` when a deletion
    ///   fails; `LogError` `locked` while a writer has the store open (nothing is deleted then).
    @discardableResult
    public static func eraseEverything(at root: String, keyring: (any LedgerKeyring)? = nil) throws -> [String] {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        let encrypted = layout.isEncrypted
        let readModels = layout.readModelPath
        let lock = try PosixFileSystem().lockForWriting(directory: layout.logDirectory)
        defer { lock.release() }
        var deleted: [String] = []
        if let remote = try LogStorage.remoteLocation(in: layout.logDirectory) {
            // A log on PostgreSQL goes first, with the keys kept beside it there (every node's
            // copy of them is then useless): under the ledger's lease, so no node writes meanwhile.
            let writer = try PostgresLogWriter.open(remote, owner: LogStorage.processOwnerName)
            defer { try? writer.close() }
            try PostgresLogWriter.discard(remote)
            deleted.append("the ledger \(remote.displayName) and its keys in the database")
        }
        if let keyring, try keyring.load() != nil {
            try keyring.remove()
            deleted.append("the keyring's key set")
        }
        if FileManager.default.fileExists(atPath: layout.keyFilePath) {
            try StoreKeyFile(root: root).remove()
            deleted.append(layout.keyFilePath)
        }
        if FileManager.default.fileExists(atPath: layout.subjectKeyFilePath) {
            try remove(layout.subjectKeyFilePath)
            deleted.append(layout.subjectKeyFilePath)
        }
        for suffix in ReadModelStore.fileSuffixes where FileManager.default.fileExists(atPath: readModels + suffix) {
            try remove(readModels + suffix)
            if encrypted || suffix.isEmpty { deleted.append(readModels + suffix) }
        }
        try remove(root)
        deleted.append(root)
        return deleted
    }

    private static func remove(_ path: String) throws {
        do { try FileManager.default.removeItem(atPath: path) } catch {
            throw StoreError(.io, "cannot delete '\(path)': \((error as NSError).localizedDescription); run the erase again to finish it")
        }
    }
}
