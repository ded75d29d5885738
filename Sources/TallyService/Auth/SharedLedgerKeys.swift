import Foundation
import Synchronization
import TallyLog

/// The API keys of each ledger where a deployment's nodes share its logs on PostgreSQL: kept
/// (hashed, as in `keys.json`) beside the ledger's log in the database, as the ledger's file
/// `API_KEYS`, so that the node that takes a ledger over accepts the keys its clients hold.
///
/// Each node caches a ledger's keys for ``freshSeconds``: a key made on one node is found on
/// another at once (an unknown key id reloads the ledger's keys, at most once a second per
/// ledger); a key revoked on one node is refused there at once and on the others within
/// ``freshSeconds`` (only the node that holds a ledger serves it; the others redirect).
final class SharedLedgerKeys: Sendable {
    /// The name of the ledger's file that holds its keys.
    static let fileName = "API_KEYS"
    /// How long a node trusts its copy of a ledger's keys.
    static let freshSeconds: UInt64 = 2

    private struct Cached {
        var records: [KeyStore.Record]
        var loadedAt: UInt64
    }

    private let location: @Sendable (String) throws -> PostgresLogLocation
    private let cache = Mutex<[String: Cached]>([:])

    /// Keys of the ledgers at `location(id)`.
    init(location: @escaping @Sendable (String) throws -> PostgresLogLocation) {
        self.location = location
    }

    private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// The ledger's keys: the cached copy while fresh, else the database's; `missing` names a
    /// key id the caller looks for (a copy without it is reloaded when older than a second).
    func records(of ledger: String, missing id: String? = nil) throws -> [KeyStore.Record] {
        let now = Self.now
        if let cached = cache.withLock({ $0[ledger] }) {
            let age = now - cached.loadedAt
            let fresh = age < Self.freshSeconds * 1_000_000_000
            let lacks = id.map { id in !cached.records.contains { $0.id == id } } ?? false
            if fresh && !(lacks && age >= 1_000_000_000) { return cached.records }
        }
        let records = try load(ledger)
        cache.withLock { $0[ledger] = Cached(records: records, loadedAt: now) }
        return records
    }

    /// Replaces the ledger's keys in the database, then in this node's cache.
    func publish(_ records: [KeyStore.Record], of ledger: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try PostgresLedgerFiles.store(Array(try encoder.encode(records)), named: Self.fileName, of: location(ledger))
        } catch let error as LogError {
            throw ServiceError("the keys of ledger '\(ledger)' cannot be stored in the database: \(error.message)")
        }
        cache.withLock { $0[ledger] = Cached(records: records, loadedAt: Self.now) }
    }

    private func load(_ ledger: String) throws -> [KeyStore.Record] {
        let bytes: [UInt8]?
        do {
            bytes = try PostgresLedgerFiles.file(named: Self.fileName, of: location(ledger))
        } catch let error as LogError {
            throw ServiceError("the keys of ledger '\(ledger)' cannot be read from the database: \(error.message)")
        }
        guard let bytes else { return [] }
        do {
            return try JSONDecoder().decode([KeyStore.Record].self, from: Data(bytes))
        } catch {
            throw ServiceError("the keys of ledger '\(ledger)' in the database are not a key list this server wrote (\(error))")
        }
    }
}
