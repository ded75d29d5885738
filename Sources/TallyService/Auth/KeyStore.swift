import Crypto
import Foundation
import Synchronization
import TallyLog

/// The API keys of every ledger, kept hashed (SHA-256) in `keys.json` in the data directory,
/// readable by the owner alone (mode 0600). A key is `tally_<id>_<secret>`: the id finds the
/// record, the hash of the whole key proves it; the plain key is shown once, when made.
final class KeyStore: Sendable {
    struct Record: Codable, Sendable {
        let id: String
        let ledger: String?
        let scopes: [String]
        let sha256: String
        let createdAt: String

        enum CodingKeys: String, CodingKey {
            case id, ledger, scopes, sha256
            case createdAt = "created_at"
        }
    }

    private struct File: Codable {
        var adminSha256: String?
        var keys: [Record]

        enum CodingKeys: String, CodingKey {
            case adminSha256 = "admin_sha256"
            case keys
        }
    }

    private let path: String
    private let state: Mutex<File>
    /// The admin key's hash when it came from the environment (kept in memory only).
    private let environmentAdminSha256: String?

    /// Where the nodes of a deployment on PostgreSQL keep each ledger's keys (nil: `keys.json` alone).
    private let shared: SharedLedgerKeys?

    /// Opens (or starts) the key file. `adminKey` (from `TALLY_ADMIN_KEY`) is the admin key
    /// when given; else the stored one; else a new one is made, stored hashed and returned in
    /// ``generatedAdminKey`` to be printed once. With `shared`, ledgers' keys live in the
    /// database, for every node (`keys.json` keeps the admin key's hash only).
    init(directory: String, adminKey: String?, shared: SharedLedgerKeys? = nil) throws {
        self.shared = shared
        path = directory + "/keys.json"
        var file = File(adminSha256: nil, keys: [])
        if FileManager.default.fileExists(atPath: path) {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            do {
                file = try JSONDecoder().decode(File.self, from: data)
            } catch {
                throw ServiceError("\(path) is not a key file this server wrote (\(error)); restore it from a backup or move it away")
            }
        }
        environmentAdminSha256 = adminKey.map(Self.hash)
        if let adminKey, adminKey.utf8.count < 16 {
            throw ServiceError("TALLY_ADMIN_KEY must be at least 16 characters long")
        }
        var generated: String?
        if adminKey == nil && file.adminSha256 == nil {
            let key = "tally_admin_" + Self.randomHex(bytes: 32)
            file.adminSha256 = Self.hash(key)
            generated = key
        }
        state = Mutex(file)
        generatedAdminKey = generated
        try persist(file)
    }

    /// The admin key made at this start (first start, no `TALLY_ADMIN_KEY`): print it once.
    let generatedAdminKey: String?

    /// The principal a presented key stands for, or nil for a key that is unknown or revoked;
    /// `ledger` is the ledger the request names (where the keys of a shared deployment are looked up).
    /// - Throws: ``ServiceError`` when a shared deployment's keys cannot be read.
    func principal(for key: String, ledger: String?) throws -> Principal? {
        let digest = Self.hash(key)
        if let environmentAdminSha256, Self.equal(digest, environmentAdminSha256) {
            return Principal(keyId: "admin", ledger: nil, scopes: Set(Scope.allCases))
        }
        let local = state.withLock { file -> Principal? in
            if environmentAdminSha256 == nil, let admin = file.adminSha256, Self.equal(digest, admin) {
                return Principal(keyId: "admin", ledger: nil, scopes: Set(Scope.allCases))
            }
            return shared == nil ? Self.principal(digest: digest, key: key, in: file.keys) : nil
        }
        if let local { return local }
        guard let shared, let ledger else { return nil }
        let id = key.split(separator: "_", maxSplits: 2).dropFirst().first.map(String.init)
        return Self.principal(digest: digest, key: key, in: try shared.records(of: ledger, missing: id))
    }

    private static func principal(digest: String, key: String, in records: [Record]) -> Principal? {
        let parts = key.split(separator: "_", maxSplits: 2)
        guard parts.count == 3, parts[0] == "tally", let record = records.first(where: { $0.id == parts[1] }),
              equal(digest, record.sha256)
        else { return nil }
        return Principal(keyId: record.id, ledger: record.ledger, scopes: Set(record.scopes.compactMap(Scope.init(rawValue:))))
    }

    /// Makes a key for `ledger` with `scopes`; returns its record and the plain key (shown once).
    func create(ledger: String, scopes: Set<Scope>, now: String) throws -> (record: Record, key: String) {
        let id = Self.randomHex(bytes: 8)
        let key = "tally_\(id)_\(Self.randomHex(bytes: 32))"
        let record = Record(id: id, ledger: ledger, scopes: scopes.map(\.rawValue).sorted(), sha256: Self.hash(key), createdAt: now)
        if let shared {
            try shared.publish(try shared.records(of: ledger) + [record], of: ledger)
            return (record, key)
        }
        try state.withLock { file in
            var next = file
            next.keys.append(record)
            try persist(next)
            file = next
        }
        return (record, key)
    }

    /// The keys of `ledger` (ids and scopes, never a hash).
    func keys(of ledger: String) throws -> [Record] {
        if let shared { return try shared.records(of: ledger) }
        return state.withLock { $0.keys.filter { $0.ledger == ledger } }
    }

    /// Revokes a key of `ledger`; false when it has no such key.
    func revoke(id: String, ledger: String) throws -> Bool {
        if let shared {
            let records = try shared.records(of: ledger)
            guard records.contains(where: { $0.id == id }) else { return false }
            try shared.publish(records.filter { $0.id != id }, of: ledger)
            return true
        }
        return try state.withLock { file in
            guard file.keys.contains(where: { $0.id == id && $0.ledger == ledger }) else { return false }
            var next = file
            next.keys.removeAll { $0.id == id }
            try persist(next)
            file = next
            return true
        }
    }

    /// Revokes every key of `ledger` (its deletion); returns how many there were.
    func revokeAll(ledger: String) throws -> Int {
        if let shared {
            let count = try shared.records(of: ledger).count
            if count > 0 { try shared.publish([], of: ledger) }
            return count
        }
        return try state.withLock { file in
            let count = file.keys.filter { $0.ledger == ledger }.count
            guard count > 0 else { return 0 }
            var next = file
            next.keys.removeAll { $0.ledger == ledger }
            try persist(next)
            file = next
            return count
        }
    }

    private func persist(_ file: File) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(file)
        let temporary = path + ".tmp"
        _ = FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
        try handle.write(contentsOf: data)
        try handle.synchronize()
        try handle.close()
        guard rename(temporary, path) == 0 else { throw ServiceError("cannot replace \(path): errno \(errno)") }
        chmod(path, 0o600)
    }

    static func hash(_ key: String) -> String {
        hex(Array(SHA256.hash(data: Array(key.utf8))))
    }

    static func hex(_ bytes: [UInt8]) -> String { hexString(bytes) }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Compares two hex digests in time independent of where they differ.
    private static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

/// A failure of the service itself (its data directory, its key file), with what to do.
public struct ServiceError: Error, CustomStringConvertible, Sendable {
    /// What went wrong and the way out.
    public let description: String

    init(_ description: String) { self.description = description }
}
