public import Crypto

/// The data keys that seal a log's frames (AES-256-GCM), each under a key identifier that
/// every sealed frame carries in its header.
///
/// The log knows keys and bytes only: where the keys come from (a key file, a keyring, a
/// passphrase) and how they are wrapped is the store's business. A log is sealed or not as a
/// whole: a writer with keys seals every frame under ``sealingKeyID``; a reader with keys
/// refuses a frame that is not sealed (an unsealed frame in an encrypted log was not written
/// by its writer), and a reader without keys refuses a sealed one (``LogError/Code/keyRequired``).
///
/// ```swift
/// let keys = try LogKeys(sealingKeyID: 1, keys: [1: SymmetricKey(size: .bits256)])
/// var options = LogOptions()
/// options.keys = keys
/// let writer = try LogWriter.create(directory: path, options: options)
/// let reader = try LogReader.open(directory: path, keys: keys)
/// ```
public struct LogKeys: Sendable {
    /// The identifier of the key new frames are sealed with.
    public let sealingKeyID: UInt32
    let keys: [UInt32: SymmetricKey]

    /// Creates a key set.
    /// - Parameters:
    ///   - sealingKeyID: the key new frames are sealed with; it must be in `keys`.
    ///   - keys: every data key the log's frames may name, by identifier (≥ 1), each 256 bits.
    /// - Throws: ``LogError`` `invalidArgument` for an identifier of 0, a key that is not 256 bits,
    ///   or a sealing key that is not in `keys`.
    public init(sealingKeyID: UInt32, keys: [UInt32: SymmetricKey]) throws {
        guard keys[sealingKeyID] != nil else {
            throw LogError(.invalidArgument, "the sealing key \(sealingKeyID) is not among the log's keys")
        }
        for (id, key) in keys {
            guard id >= 1 else { throw LogError(.invalidArgument, "a log key's identifier must be at least 1") }
            guard key.bitCount == 256 else {
                throw LogError(.invalidArgument, "log key \(id) has \(key.bitCount) bits; a log key has 256")
            }
        }
        self.sealingKeyID = sealingKeyID
        self.keys = keys
    }

    /// The identifiers of every key in the set, in increasing order.
    public var identifiers: [UInt32] { keys.keys.sorted() }

    /// The key with identifier `id`, for the store that wraps and rewraps them.
    package func key(_ id: UInt32) -> SymmetricKey? { keys[id] }
}

/// Seals and opens frame bodies: AES-256-GCM with a fresh random 96-bit nonce per frame, the
/// frame header's first 80 bytes (which hold the first sequence number and the event count) as
/// associated data. A sealed body is `nonce (12) ‖ ciphertext ‖ tag (16)`.
enum FrameSealing {
    /// Bytes a sealed body has beyond its plaintext: the nonce and the tag.
    static let overheadBytes = 12 + 16

    /// Seals `body` under `key`, binding it to `associatedData` (the header's bytes 0..<80).
    static func seal(_ body: [UInt8], key: SymmetricKey, associatedData: ArraySlice<UInt8>) -> [UInt8] {
        do {
            let box = try AES.GCM.seal(body, using: key, nonce: AES.GCM.Nonce(), authenticating: associatedData)
            var sealed = [UInt8]()
            sealed.reserveCapacity(body.count + overheadBytes)
            sealed.append(contentsOf: box.nonce)
            sealed.append(contentsOf: box.ciphertext)
            sealed.append(contentsOf: box.tag)
            return sealed
        } catch {
            // AES-GCM with a 256-bit key and a 96-bit nonce cannot fail on a body under 64 GiB.
            preconditionFailure("AES-GCM sealing failed: \(error)")
        }
    }

    /// Opens a sealed body; nil when it does not authenticate (damaged, moved, or sealed under another key).
    static func open(_ sealed: UnsafeRawBufferPointer, key: SymmetricKey, associatedData: UnsafeRawBufferPointer) -> [UInt8]? {
        guard sealed.count >= overheadBytes,
              let nonce = try? AES.GCM.Nonce(data: UnsafeRawBufferPointer(rebasing: sealed[0..<12])),
              let box = try? AES.GCM.SealedBox(
                nonce: nonce, ciphertext: UnsafeRawBufferPointer(rebasing: sealed[12..<(sealed.count - 16)]),
                tag: UnsafeRawBufferPointer(rebasing: sealed[(sealed.count - 16)...])),
              let opened = try? AES.GCM.open(box, using: key, authenticating: associatedData)
        else { return nil }
        return Array(opened)
    }
}

extension LogKeys: CustomStringConvertible, CustomDebugStringConvertible {
    /// The key identifiers and the sealing key; never a key's bytes.
    public var description: String { "LogKeys(sealing \(sealingKeyID), keys \(identifiers))" }
    /// The same as ``description``.
    public var debugDescription: String { description }
}
