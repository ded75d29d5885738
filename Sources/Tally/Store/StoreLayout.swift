internal import Foundation

/// Where a store keeps its parts: the directory holds `STORE` (a marker naming the
/// format), `log/` (the event log, the source of truth) and, later, the read models.
public struct StoreLayout: Hashable, Sendable {
    /// The store's directory.
    public let root: String

    public init(root: String) { self.root = root }

    /// The event log's directory.
    public var logDirectory: String { root + "/log" }
    /// The SQLite database of the read models (rebuildable from the log at any time).
    public var readModelPath: String { root + "/readmodels.sqlite" }
    /// The marker file that says "this directory is a Tally store".
    public var markerPath: String { root + "/STORE" }

    /// Present when `tally demo` made the store, so that only such a store is replaced.
    public var demoMarkerPath: String { root + "/DEMO" }

    static let markerText = "tally store format 1\n"

    /// Whether the directory holds a Tally store.
    public var exists: Bool { FileManager.default.fileExists(atPath: markerPath) }

    /// Throws unless the directory holds a Tally store.
    func requireStore() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else {
            throw StoreError(.notFound, "no store at '\(root)': create one with `tally init --store \(root)`")
        }
        guard isDirectory.boolValue, exists else {
            throw StoreError(.notAStore, "'\(root)' is not a Tally store (no STORE marker)")
        }
    }

    /// Creates the directory and its marker; refuses a non-empty directory.
    func createDirectory() throws {
        let manager = FileManager.default
        if exists {
            throw StoreError(.alreadyExists, "a store already exists at '\(root)'")
        }
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: root, isDirectory: &isDirectory) {
            let contents = (try? manager.contentsOfDirectory(atPath: root)) ?? []
            guard isDirectory.boolValue, contents.isEmpty else {
                throw StoreError(.alreadyExists, "'\(root)' exists and is not an empty directory; choose another --store")
            }
        }
        try manager.createDirectory(atPath: root, withIntermediateDirectories: true)
        guard manager.createFile(atPath: markerPath, contents: Data(Self.markerText.utf8)) else {
            throw StoreError(.notAStore, "cannot write '\(markerPath)'")
        }
    }
}
