internal import Foundation
internal import Glibc
internal import TallyLog

/// Where an encrypted store's wrapped data keys live: its own key file (``StoreKeyFile``, the
/// default) or an embedder's keyring (a platform keychain, a secrets service).
///
/// The keyring holds only wrapped keys: each data key is wrapped (AES key wrap, RFC 3394) by the
/// key-encryption key that ``LedgerKey`` derives, so a keyring's bytes open nothing without the key.
/// Keeping them apart from the log means a copy of the log alone opens nothing either.
///
/// ```swift
/// struct KeychainKeyring: LedgerKeyring {
///     func load() throws -> [UInt8]? { try Keychain.read("tally.home") }
///     func save(_ keys: [UInt8]) throws { try Keychain.write("tally.home", keys) }
/// }
/// var options = Ledger.Options.standard
/// options.keyring = KeychainKeyring()
/// ```
public protocol LedgerKeyring: Sendable {
    /// The wrapped key set as last saved, or nil when there is none (the store is not encrypted).
    func load() throws -> [UInt8]?
    /// Replaces the wrapped key set, all at once (a crash leaves the old set or the new one).
    func save(_ keys: [UInt8]) throws
    /// Destroys the key set for good (``StoreErasure/eraseEverything(at:keyring:)``): after it,
    /// nothing sealed under the store's data keys can be opened, copies of the log included.
    func remove() throws
}

/// The default keyring: the store's `KEYS` file, readable by its owner only, replaced atomically
/// (a new file synced, renamed over the old, the directory synced).
public struct StoreKeyFile: LedgerKeyring {
    /// The key file's path.
    public let path: String

    /// The key file of the store at `root`: `root/KEYS`.
    public init(root: String) { path = StoreLayout(root: root).keyFilePath }

    /// A key file at `path` (the store's subject key file uses the same atomic replacement).
    init(path: String) { self.path = path }

    /// The file's bytes, or nil when it does not exist.
    /// - Throws: ``StoreError`` `io` when it exists but cannot be read.
    public func load() throws -> [UInt8]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError(.io, "cannot read the store's key file '\(path)'")
        }
        return Array(data)
    }

    /// Writes `keys` to a new owner-only file beside the key file, syncs it, renames it over the
    /// key file and syncs the directory.
    /// - Throws: ``StoreError`` `io` naming the call; the old key file is then unchanged.
    public func save(_ keys: [UInt8]) throws {
        // A name of this call's own: two processes may replace the file at once (a node's
        // readers bring a store's keys up to a database's copy without the writer's lock).
        let temporary = path + ".new.\(getpid()).\(UInt32.random(in: .min ... .max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, ownerOnlyFileMode)
        guard descriptor >= 0 else { throw Self.failure("open", temporary) }
        var closed = false
        defer { if !closed { close(descriptor) } }
        guard fchmod(descriptor, ownerOnlyFileMode) == 0 else { throw Self.failure("fchmod", temporary) }
        let written = keys.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == keys.count, fsync(descriptor) == 0 else {
            let error = Self.failure(written == keys.count ? "fsync" : "write", temporary)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        closed = true
        guard rename(temporary, path) == 0 else {
            let error = Self.failure("rename", path)
            unlink(temporary)
            throw error
        }
        let directory = (path as NSString).deletingLastPathComponent
        let handle = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if handle >= 0 {
            defer { close(handle) }
            guard fsync(handle) == 0 else { throw Self.failure("fsync", directory) }
        }
    }

    /// Deletes the key file (nothing when it does not exist) and syncs its directory.
    /// - Throws: ``StoreError`` `io` naming the call.
    public func remove() throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw Self.failure("unlink", path) }
    }

    private static func failure(_ call: String, _ path: String) -> StoreError {
        StoreError(.io, "\(call) failed for the key file '\(path)': \(String(cString: strerror(errno)))")
    }
}
