internal import Crypto
internal import Foundation
internal import Glibc

/// Where a store keeps its parts: the directory holds `STORE` (a marker naming the
/// format), `log/` (the event log, the source of truth) and, later, the read models.
public struct StoreLayout: Hashable, Sendable {
    /// The store's directory.
    public let root: String

    /// The layout of the store at `root`; nothing is read or created.
    public init(root: String) { self.root = root }

    /// The event log's directory.
    public var logDirectory: String { root + "/log" }
    /// The SQLite database of the read models (rebuildable from the log at any time): in the
    /// store, or for an encrypted store (``isEncrypted``) ``runtimeReadModelPath``, so that no
    /// plaintext the log protects is ever written into the store.
    public var readModelPath: String { isEncrypted ? runtimeReadModelPath : root + "/readmodels.sqlite" }

    /// Present in a store whose log is sealed, written by `init --encrypt`: it holds the store's
    /// random identifier (32 hex digits), which names its read models outside the store.
    public var sealedMarkerPath: String { root + "/SEALED" }

    /// Whether the store is encrypted at rest (its ``sealedMarkerPath`` exists).
    public var isEncrypted: Bool { FileManager.default.fileExists(atPath: sealedMarkerPath) }

    /// Where an encrypted store's read models live: memory-backed storage private to the user
    /// (`$XDG_RUNTIME_DIR`, else `/dev/shm`, else the temporary directory), in `tally-UID/`
    /// (0700), named by the SHA-256 of the store's real path and its identifier (so a store made
    /// again at the same path never meets the read models of the one before). Never on the
    /// store's disk, never in its backups; gone at reboot, after which the first open folds the
    /// log into them again.
    public var runtimeReadModelPath: String {
        let base = Self.runtimeBase
        var resolved = root
        if let real = realpath(root, nil) {
            resolved = String(cString: real)
            free(real)
        }
        let identifier = FileManager.default.contents(atPath: sealedMarkerPath).map { String(decoding: $0.prefix(64), as: UTF8.self) } ?? ""
        let digest = SHA256.hash(data: Array((resolved + "\n" + identifier).utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        return base + "/tally-\(getuid())/" + digest + ".sqlite"
    }

    /// The memory-backed directory an encrypted store's read models go under.
    static var runtimeBase: String {
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty,
           FileManager.default.fileExists(atPath: runtime) { return runtime }
        if FileManager.default.fileExists(atPath: "/dev/shm") { return "/dev/shm" }
        return NSTemporaryDirectory()
    }
    /// The marker file that says "this directory is a Tally store".
    public var markerPath: String { root + "/STORE" }

    /// The store's key file (``StoreKeyFile``): present when the store is encrypted at rest and
    /// keeps its wrapped keys itself rather than in an embedder's keyring.
    public var keyFilePath: String { root + "/KEYS" }
    /// The store's per-subject keys (``SubjectKeys``), owner-only: `root/SUBJECTS`.
    public var subjectKeyFilePath: String { root + "/SUBJECTS" }

    /// Present when `tally demo` made the store, so that only such a store is replaced.
    public var demoMarkerPath: String { root + "/DEMO" }

    static let markerText = "tally store format 1\n"

    /// Whether the directory holds a Tally store. `tally init` renames a complete store into place in
    /// one step, so the marker is there only when the store is complete.
    public var exists: Bool { FileManager.default.fileExists(atPath: markerPath) }

    /// Throws unless the directory holds a Tally store with its log.
    func requireStore() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else {
            throw StoreError(.notFound, "no store at '\(root)': create one with `tally init --store \(root)`")
        }
        guard isDirectory.boolValue, exists else {
            throw StoreError(.notAStore, "'\(root)' is not a Tally store (no STORE marker)")
        }
        guard FileManager.default.fileExists(atPath: logDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StoreError(.incomplete, Self.incompleteMessage(root, "it has a STORE marker but no log/ directory"))
        }
    }

    /// The message for a store an interrupted `init` (of a version before init became atomic) or a repair left unusable.
    static func incompleteMessage(_ root: String, _ what: String) -> String {
        "the store at '\(root)' is incomplete: \(what) (an interrupted `tally init` of an older version, or a repair "
            + "that cut every event); move the directory away and run `tally init` again, or restore it from a backup"
    }
}
