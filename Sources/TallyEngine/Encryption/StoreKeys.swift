internal import Crypto
internal import CryptoExtras
internal import Foundation
import TallyLog

/// An encrypted store's key set as its keyring keeps it: the data keys, each wrapped (AES key
/// wrap, RFC 3394) by the key-encryption key derived from a ``LedgerKey``, and how to derive it.
///
/// JSON, one object (documented in `Schemas/keys-format.md`):
/// `{"format":"tally-keys-1","kdf":{"name":"hkdf-sha256"|"scrypt","salt":…,"rounds":…,"blockSize":…,"parallelism":…},
/// "sealingKey":1,"dataKeys":[{"id":1,"wrapped":…}],"checksum":…}`, byte strings in base64.
///
/// `checksum` is SHA-256, in hex, of the set's compact JSON without it (keys sorted): a
/// changed character of a wrapped key or of the salt is damage, reported as such
/// (`keyFileDamaged`), never as a wrong key. A set written before it had none is read as it is.
struct StoreKeys: Codable, Sendable {
    struct Derivation: Codable, Sendable, Equatable {
        /// `hkdf-sha256` for a random key, `scrypt` for a passphrase.
        var name: String
        var salt: String
        var rounds: Int?
        var blockSize: Int?
        var parallelism: Int?
    }

    struct WrappedKey: Codable, Sendable {
        var id: UInt32
        var wrapped: String
    }

    static let formatName = "tally-keys-1"
    /// scrypt's cost for passphrases: N = 2^15, r = 8, p = 1 (32 MiB, about 0.1 s).
    static let scryptRounds = 1 << 15

    var format: String
    var kdf: Derivation
    var sealingKey: UInt32
    var dataKeys: [WrappedKey]
    /// The set's checksum (above); nil in a set written before checksums.
    var checksum: String?

    /// A new key set: one random data key, wrapped by `key`'s key-encryption key.
    static func create(key: LedgerKey) throws -> (keys: StoreKeys, logKeys: LogKeys) {
        let dataKey = SymmetricKey(size: .bits256)
        let derivation = newDerivation(for: key)
        let kek = try derive(key, derivation)
        let wrapped = try AES.KeyWrap.wrap(dataKey, using: kek)
        let keys = StoreKeys(
            format: formatName, kdf: derivation, sealingKey: 1,
            dataKeys: [WrappedKey(id: 1, wrapped: wrapped.base64EncodedString())])
        return (keys, try LogKeys(sealingKeyID: 1, keys: [1: dataKey]))
    }

    /// Reads a key set from a keyring's bytes.
    /// - Throws: ``StoreError`` `badKey` when the bytes are not a key set (truncated, damaged, another format).
    static func decode(_ bytes: [UInt8], from origin: String) throws -> StoreKeys {
        let keys: StoreKeys
        do { keys = try JSONDecoder().decode(StoreKeys.self, from: Data(bytes)) } catch {
            throw StoreError(.badKey, "\(origin) is damaged or truncated (not a Tally key set); restore it from a backup: without it the store cannot be opened")
        }
        if let stored = keys.checksum, stored != (try? keys.computedChecksum()) {
            throw StoreError(.keyFileDamaged, "\(origin) is damaged: its contents do not match their checksum (a changed character); it is not a wrong key. Restore the file from a backup: without it the store cannot be opened")
        }
        guard keys.format == formatName, !keys.dataKeys.isEmpty, keys.dataKeys.contains(where: { $0.id == keys.sealingKey }),
              ["hkdf-sha256", "scrypt"].contains(keys.kdf.name), Data(base64Encoded: keys.kdf.salt)?.count == 32
        else {
            throw StoreError(.badKey, "\(origin) is not a key set this version reads (format \(keys.format)); restore it from a backup")
        }
        return keys
    }

    /// The key set's bytes, for a keyring.
    func encoded() throws -> [UInt8] {
        var sealed = self
        sealed.checksum = try computedChecksum()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return Array(try encoder.encode(sealed)) + [0x0A]
    }

    /// SHA-256, in hex, of the set's compact JSON with keys sorted and no checksum.
    func computedChecksum() throws -> String {
        var bare = self
        bare.checksum = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return SHA256.hash(data: try encoder.encode(bare)).map { String(format: "%02x", $0) }.joined()
    }

    /// Unwraps every data key with `key`.
    /// - Throws: ``StoreError`` `wrongKey` when `key` is not the store's key.
    func unlock(with key: LedgerKey) throws -> LogKeys {
        let kek = try Self.derive(key, kdf)
        var unwrapped: [UInt32: SymmetricKey] = [:]
        for dataKey in dataKeys {
            guard let bytes = Data(base64Encoded: dataKey.wrapped),
                  let plain = try? AES.KeyWrap.unwrap(bytes, using: kek), plain.bitCount == 256
            else {
                let expected = kdf.name == "scrypt" ? "a passphrase" : "a key file made by `tally key new`"
                let given = key.kind == .passphrase ? "a passphrase" : "a Tally key"
                let hint = expected == given || (kdf.name == "scrypt") == (key.kind == .passphrase) ? "" : " (the store's key is \(expected); \(given) was given)"
                throw StoreError(.wrongKey, "\(key.origin) does not open this store: it is not the key the store was encrypted with\(hint); nothing was opened or changed")
            }
            unwrapped[dataKey.id] = plain
        }
        return try LogKeys(sealingKeyID: sealingKey, keys: unwrapped)
    }

    /// The same data keys wrapped by `newKey`'s key-encryption key (with a fresh salt); the log is untouched.
    func rewrapped(from oldKey: LedgerKey, to newKey: LedgerKey) throws -> StoreKeys {
        let logKeys = try unlock(with: oldKey)
        let derivation = Self.newDerivation(for: newKey)
        let kek = try Self.derive(newKey, derivation)
        var result = self
        result.kdf = derivation
        result.dataKeys = try logKeys.identifiers.map { id in
            WrappedKey(id: id, wrapped: try AES.KeyWrap.wrap(logKeys.key(id)!, using: kek).base64EncodedString())
        }
        return result
    }

    /// The set with one more data key (the next identifier), wrapped by `key`'s key-encryption
    /// key, that new frames are sealed under; the older keys stay to open older frames.
    func addingDataKey(with key: LedgerKey) throws -> (keys: StoreKeys, id: UInt32) {
        _ = try unlock(with: key)
        let kek = try Self.derive(key, kdf)
        guard let last = dataKeys.map(\.id).max(), last < UInt32.max else {
            throw StoreError(.badKey, "the store's key set has no room for another data key")
        }
        var result = self
        let id = last + 1
        result.dataKeys.append(WrappedKey(id: id, wrapped: try AES.KeyWrap.wrap(SymmetricKey(size: .bits256), using: kek).base64EncodedString()))
        result.sealingKey = id
        return (result, id)
    }

    private static func newDerivation(for key: LedgerKey) -> Derivation {
        let salt = Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).base64EncodedString()
        switch key.kind {
        case .random: return Derivation(name: "hkdf-sha256", salt: salt)
        case .passphrase: return Derivation(name: "scrypt", salt: salt, rounds: scryptRounds, blockSize: 8, parallelism: 1)
        }
    }

    /// The key-encryption key: HKDF-SHA256 over a random key, scrypt over a passphrase.
    private static func derive(_ key: LedgerKey, _ derivation: Derivation) throws -> SymmetricKey {
        guard let salt = Data(base64Encoded: derivation.salt) else {
            throw StoreError(.badKey, "the store's key set has a damaged salt; restore it from a backup")
        }
        switch derivation.name {
        case "scrypt":
            let rounds = derivation.rounds ?? scryptRounds
            let blockSize = derivation.blockSize ?? 8
            let parallelism = derivation.parallelism ?? 1
            guard rounds >= 2, rounds <= 1 << 20, rounds & (rounds - 1) == 0, (1...32).contains(blockSize), (1...16).contains(parallelism) else {
                throw StoreError(.badKey, "the store's key set asks for scrypt parameters outside the accepted range; restore it from a backup")
            }
            return try KDF.Scrypt.deriveKey(
                from: key.secret, salt: salt, outputByteCount: 32, rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        default:
            return HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: key.secret), salt: salt,
                info: Array("tally key-encryption key 1".utf8), outputByteCount: 32)
        }
    }
}
