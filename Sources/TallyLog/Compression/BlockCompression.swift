import CLZ4

/// LZ4 block compression of a byte buffer, for the log's frames and for anything else a
/// store keeps compressed (read-model snapshots). The caller keeps the uncompressed length:
/// an LZ4 block does not record it.
///
/// ```swift
/// let packed = BlockCompression.compress(bytes)          // nil when it would not shrink
/// let bytes = try BlockCompression.decompress(packed!, count: bytes.count)
/// ```
///
/// Both efforts write the same LZ4 block format, read by the same ``decompress(_:count:)``:
/// the effort is the writer's choice alone and never part of what is stored.
public enum BlockCompression {
    /// How hard ``compress(_:effort:)`` looks for repeats.
    public enum Effort: Sendable {
        /// LZ4's fast compressor (`LZ4_compress_default`): for what is written often and kept
        /// briefly (read-model snapshots).
        case fast
        /// LZ4's high-compression search (`LZ4_compress_HC`) at its lightest level: for what is
        /// kept for good (the log's frames). On the log of a 1M-row journal import it stores
        /// 20.6 MB where the fast compressor stores 30.8 MB, for about 3 ms more per 10,000
        /// events compressed, and decompresses no slower.
        case high
    }

    /// The high-compression level ``Effort/high`` uses: the lightest of LZ4HC's search
    /// levels, which finds most of what the heavier ones find (level 9: 3 % smaller, twice
    /// the time).
    static let highCompressionLevel: Int32 = 2

    /// The most bytes `length` input bytes can compress to.
    public static func bound(_ length: Int) -> Int {
        Int(LZ4_compressBound(Int32(clamping: length)))
    }

    /// The LZ4 block of `bytes`, or nil when it is not smaller than the input (store the
    /// input as it is then).
    public static func compress(_ bytes: [UInt8], effort: Effort = .fast) -> [UInt8]? {
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return nil }
        let capacity = bound(bytes.count)
        var output = [UInt8](repeating: 0, count: capacity)
        let produced: Int32 = bytes.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                let source = source.baseAddress!.assumingMemoryBound(to: CChar.self)
                let target = target.baseAddress!.assumingMemoryBound(to: CChar.self)
                switch effort {
                case .fast: return LZ4_compress_default(source, target, Int32(bytes.count), Int32(capacity))
                case .high: return LZ4_compress_HC(source, target, Int32(bytes.count), Int32(capacity), highCompressionLevel)
                }
            }
        }
        guard produced > 0, Int(produced) < bytes.count else { return nil }
        output.removeLast(capacity - Int(produced))
        return output
    }

    /// The `count` bytes an LZ4 block decompresses to.
    ///
    /// - Throws: ``LogError`` `corrupt` when the block does not decompress to exactly `count` bytes.
    public static func decompress(_ block: UnsafeRawBufferPointer, count: Int) throws -> [UInt8] {
        guard count >= 0, count <= Int(Int32.max), block.count <= Int(Int32.max) else {
            throw LogError(.corrupt, "a compressed block declares \(count) bytes, beyond the limit")
        }
        var output = [UInt8](repeating: 0, count: count)
        let produced: Int32 = output.withUnsafeMutableBytes { target in
            guard let source = block.baseAddress, let destination = target.baseAddress else { return count == 0 ? 0 : -1 }
            return LZ4_decompress_safe(
                source.assumingMemoryBound(to: CChar.self), destination.assumingMemoryBound(to: CChar.self),
                Int32(block.count), Int32(count))
        }
        guard produced == Int32(count) else {
            throw LogError(.corrupt, "a compressed block does not decompress to its declared \(count) bytes")
        }
        return output
    }

    /// ``decompress(_:count:)`` of an array.
    public static func decompress(_ block: [UInt8], count: Int) throws -> [UInt8] {
        try block.withUnsafeBytes { try decompress($0, count: count) }
    }
}
