/// Operations on an encrypted store's keys.
public enum LedgerKeys {
    /// Rotates the key-encryption key: the store's data keys are unwrapped with `oldKey` and
    /// wrapped again with `newKey` (a fresh salt), and the keyring's key set replaced in one step.
    /// The log is not rewritten: its frames stay sealed under the same data keys.
    ///
    /// ```swift
    /// try LedgerKeys.rotate(at: "books", from: try .file("old.key"), to: try .file("new.key"))
    /// ```
    /// - Parameters:
    ///   - root: the store's directory.
    ///   - oldKey: the key that opens the store now.
    ///   - newKey: the key that opens it from now on.
    ///   - keyring: where the wrapped keys live (nil: the store's `KEYS` file).
    /// - Throws: ``StoreError`` `notFound`/`notAStore` without a store, `notEncrypted` for a store
    ///   that is not encrypted, `wrongKey` when `oldKey` does not open it, `badKey` for a damaged key
    ///   set, `io` when the new set cannot be written. Either way the old key still opens the store.
    public static func rotate(at root: String, from oldKey: LedgerKey, to newKey: LedgerKey, keyring: (any LedgerKeyring)? = nil) throws {
        try StoreLayout(root: root).requireStore()
        let keyring = keyring ?? StoreKeyFile(root: root)
        guard let bytes = try keyring.load() else {
            throw StoreError(.notEncrypted, "the store at '\(root)' is not encrypted: it has no keys to rotate")
        }
        let keys = try StoreKeys.decode(bytes, from: "the store's key set")
        let rotated = try keys.rewrapped(from: oldKey, to: newKey)
        try keyring.save(try rotated.encoded())
    }

    /// Adds a new data key that every frame written from now on is sealed under (its identifier is
    /// the next one, and frames name it in their header); frames sealed earlier keep their keys,
    /// which stay in the key set. The log is not rewritten. A writer open at the time goes on
    /// with the key it opened with until it is opened again.
    ///
    /// ```swift
    /// let id = try LedgerKeys.addDataKey(at: "books", key: try .file("home.key"))   // 2
    /// ```
    /// - Returns: the new key's identifier.
    /// - Throws: as ``rotate(at:from:to:keyring:)``.
    @discardableResult
    public static func addDataKey(at root: String, key: LedgerKey, keyring: (any LedgerKeyring)? = nil) throws -> UInt32 {
        try StoreLayout(root: root).requireStore()
        let keyring = keyring ?? StoreKeyFile(root: root)
        guard let bytes = try keyring.load() else {
            throw StoreError(.notEncrypted, "the store at '\(root)' is not encrypted: it has no data keys")
        }
        let (keys, id) = try StoreKeys.decode(bytes, from: "the store's key set").addingDataKey(with: key)
        try keyring.save(try keys.encoded())
        return id
    }

    /// Whether the store at `root` is encrypted at rest (its keyring holds a key set).
    ///
    /// - Throws: ``StoreError`` `io` when the keyring cannot be read.
    public static func isEncrypted(at root: String, keyring: (any LedgerKeyring)? = nil) throws -> Bool {
        try (keyring ?? StoreKeyFile(root: root)).load() != nil
    }
}
