internal import Foundation
@_exported public import PostgresTestSupport
public import TallyEngine

/// A store for one test on one ``LogBackend``: its directory (read models, keys, and on files
/// the log itself) and, on PostgreSQL, where its log is in the database.
public struct TestStore: Sendable {
    /// The store's directory: what `Ledger.create(at:)` and `Ledger.open(at:)` take.
    public let root: String
    public let backend: LogBackend
    /// The log's location on the test cluster (nil on files).
    public let location: PostgresLogLocation?

    /// `options` that create this store on its backend (opening needs nothing more: the store's
    /// `log/` names its own location).
    public func options(_ options: Ledger.Options) -> Ledger.Options {
        var options = options
        options.postgres = location
        return options
    }
}

/// A fresh directory per test that touches disk, removed at the end, with a fresh ledger on
/// `backend` (PostgreSQL's cluster is the test process's own, thrown away when it ends).
public func withTemporaryStore<T>(on backend: LogBackend, _ body: (TestStore) throws -> T) throws -> T {
    let location = try backend.newLocation().map { try PostgresLogLocation($0) }
    return try withTemporaryStore { root in try body(TestStore(root: root, backend: backend, location: location)) }
}

/// The same, for a body that awaits.
public func withTemporaryStore<T>(on backend: LogBackend, _ body: (TestStore) async throws -> T) async throws -> T {
    let location = try backend.newLocation().map { try PostgresLogLocation($0) }
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("tally-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    return try await body(TestStore(root: root + "/store", backend: backend, location: location))
}
