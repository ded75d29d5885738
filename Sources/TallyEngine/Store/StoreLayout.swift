internal import Foundation

/// Where a store keeps its parts: the directory holds `STORE` (a marker naming the
/// format), `log/` (the event log, the source of truth) and, later, the read models.
public struct StoreLayout: Hashable, Sendable {
    /// The store's directory.
    public let root: String

    /// The layout of the store at `root`; nothing is read or created.
    public init(root: String) { self.root = root }

    /// The event log's directory.
    public var logDirectory: String { root + "/log" }
    /// The SQLite database of the read models (rebuildable from the log at any time).
    public var readModelPath: String { root + "/readmodels.sqlite" }
    /// The marker file that says "this directory is a Tally store".
    public var markerPath: String { root + "/STORE" }

    /// The store's key file (``StoreKeyFile``): present when the store is encrypted at rest and
    /// keeps its wrapped keys itself rather than in an embedder's keyring.
    public var keyFilePath: String { root + "/KEYS" }

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
