/// A point of the hash chain: a sequence number and the chain hash after that event.
///
/// Keep the head digest printed by `verify` somewhere else; a later `verify` against it
/// proves that no event up to that sequence number was rewritten.
///
/// ```swift
/// let digest = try LogDigest(parsing: "1042:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
/// let report = try verifyLog(directory: path, expect: digest)
/// ```
public struct LogDigest: Hashable, Sendable, CustomStringConvertible {
    /// The sequence number of the event the hash ends at; 0 for the empty log.
    public let sequence: UInt64
    /// The 32-byte SHA-256 chain hash after event ``sequence`` (``LogFormat/genesisHash`` for sequence 0).
    public let hash: [UInt8]

    /// The digest of the empty log.
    public static let genesis = LogDigest(sequence: 0, hash: LogFormat.genesisHash)

    /// Creates a digest; `hash` must be 32 bytes.
    public init(sequence: UInt64, hash: [UInt8]) {
        precondition(hash.count == 32, "a chain hash is 32 bytes")
        self.sequence = sequence
        self.hash = hash
    }

    /// Parses the ``description`` form, `SEQUENCE:HEX64`.
    /// - Throws: ``LogError`` with code `.invalidArgument` when the text is not of that form.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let sequence = UInt64(parts[0]), parts[1].utf8.count == 64 else {
            throw LogError(.invalidArgument, "a log digest reads SEQUENCE:HEX64 (a decimal sequence number, a colon, 64 hex digits)")
        }
        var hash: [UInt8] = []
        hash.reserveCapacity(32)
        let digits = Array(parts[1].utf8)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else {
                throw LogError(.invalidArgument, "a log digest's hash must be 64 hex digits")
            }
            hash.append(high << 4 | low)
        }
        self.init(sequence: sequence, hash: hash)
    }

    /// `SEQUENCE:HEX64`, lowercase hex.
    public var description: String { "\(sequence):\(hexString(hash))" }
}

func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// Bytes as lowercase hexadecimal, two digits a byte: digests, key identifiers, key hashes.
package func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
}
