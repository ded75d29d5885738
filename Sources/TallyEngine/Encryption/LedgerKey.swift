internal import Foundation
internal import Glibc

/// The secret an encrypted store's key-encryption key is derived from: a random key made by
/// Tally (`tally key new`, derived through HKDF-SHA256) or a passphrase (derived through scrypt).
///
/// Its text form is what a key file holds: `tally-key-1:` and the base64 of 32 random bytes for
/// a key, anything else (at least 8 bytes, one line) for a passphrase. A key file that starts like
/// a Tally key but is cut short is refused as truncated, never taken for a passphrase.
///
/// ```swift
/// let key = try LedgerKey.makeKeyFile(at: "home.key")      // keep a copy apart from the store
/// var options = Ledger.Options.standard
/// options.key = key
/// options.encrypt = true
/// let ledger = try Ledger.create(at: "books", name: "Home", baseCurrency: .usd, timeZone: "UTC", options: options)
/// ```
public struct LedgerKey: Sendable {
    enum Kind: String, Sendable {
        /// 32 random bytes: HKDF-SHA256 makes the key-encryption key.
        case random
        /// A passphrase: scrypt makes the key-encryption key.
        case passphrase
    }

    let kind: Kind
    let secret: [UInt8]
    /// Where the key came from, for messages ("key file 'home.key'").
    public let origin: String
    /// The key file it was read from, if any (`verify` warns when others may read it).
    public private(set) var path: String? = nil

    /// The prefix of a Tally key's text form.
    static let prefix = "tally-key-1:"
    /// The fewest bytes a passphrase may have.
    public static let passphraseBytesMin = 8

    /// Parses a key's text form.
    /// - Parameters:
    ///   - text: a key file's contents (`tally-key-1:…`, or a passphrase); one trailing newline is ignored.
    ///   - origin: where the text came from, for messages.
    /// - Throws: ``StoreError`` `badKey` for an empty text, a Tally key that is truncated or damaged,
    ///   or a passphrase shorter than ``passphraseBytesMin`` bytes.
    public init(text: String, origin: String) throws {
        var text = text
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        self.origin = origin
        guard !text.isEmpty else { throw StoreError(.badKey, "\(origin) is empty: it should hold a key made by `tally key new`, or a passphrase") }
        if text.hasPrefix("tally-key-") || Self.prefix.hasPrefix(text) {
            let encoded = text.hasPrefix(Self.prefix) ? String(text.dropFirst(Self.prefix.count)) : ""
            guard let bytes = Data(base64Encoded: encoded), bytes.count == 32 else {
                throw StoreError(.badKey, "\(origin) is truncated or damaged: a Tally key is `\(Self.prefix)` and 44 base64 characters (32 bytes); restore the file from your copy")
            }
            kind = .random
            secret = Array(bytes)
        } else {
            guard text.utf8.count >= Self.passphraseBytesMin, !text.contains("\n") else {
                throw StoreError(.badKey, "\(origin) holds a passphrase shorter than \(Self.passphraseBytesMin) bytes or of more than one line; use a longer one, or a key made by `tally key new`")
            }
            kind = .passphrase
            secret = Array(text.utf8)
        }
    }

    /// Reads a key file.
    /// - Throws: ``StoreError`` `badKey` when the file cannot be read or is not a key (see ``init(text:origin:)``).
    public static func file(_ path: String) throws -> LedgerKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError(.badKey, "cannot read the key file '\(path)': it does not exist or is not readable")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw StoreError(.badKey, "the key file '\(path)' is not text: it should hold a key made by `tally key new`, or a passphrase")
        }
        var key = try LedgerKey(text: text, origin: "the key file '\(path)'")
        key.path = path
        return key
    }

    /// A new random key in its text form (`tally-key-1:` and 32 random bytes in base64).
    public static func newKeyText() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + Data(bytes).base64EncodedString()
    }

    /// Writes a new random key to a file of its own, readable by its owner only (0600), and returns it.
    /// - Throws: ``StoreError`` `alreadyExists` when the file exists (a key is never overwritten), `io` otherwise.
    public static func makeKeyFile(at path: String) throws -> LedgerKey {
        let text = newKeyText() + "\n"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST { throw StoreError(.alreadyExists, "'\(path)' already exists; a key file is never overwritten: choose another name") }
            throw StoreError(.io, "cannot create the key file '\(path)': \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        _ = fchmod(descriptor, 0o600)
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            let code = errno
            unlink(path)
            throw StoreError(.io, "cannot write the key file '\(path)': \(String(cString: strerror(code)))")
        }
        var key = try LedgerKey(text: text, origin: "the key file '\(path)'")
        key.path = path
        return key
    }
}

extension LedgerKey: CustomStringConvertible, CustomDebugStringConvertible {
    /// Where the key came from and its kind; never the secret.
    public var description: String { "LedgerKey(\(kind.rawValue), from \(origin))" }
    /// The same as ``description``: a key's secret is never printed, not even in a debugger.
    public var debugDescription: String { description }
}
