/// The fixed 64-byte header at the start of every segment file.
///
/// ```
/// offset size field
///      0    8 magic "TALLYSEG"
///      8    2 format version (1)
///     10    2 header length (64)
///     12    4 reserved, zero
///     16    8 first sequence number of the segment
///     24   32 chain hash before the segment's first event
///     56    4 reserved, zero
///     60    4 CRC32C of bytes 0..<60
/// ```
struct SegmentHeader: Hashable, Sendable {
    var firstSequence: UInt64
    var startHash: [UInt8]

    func encoded() -> [UInt8] {
        precondition(startHash.count == 32)
        var writer = ByteWriter(capacity: LogFormat.segmentHeaderBytes)
        writer.append(contentsOf: LogFormat.segmentMagic)
        writer.append(LogFormat.version)
        writer.append(UInt16(LogFormat.segmentHeaderBytes))
        writer.append(UInt32(0))
        writer.append(firstSequence)
        writer.append(contentsOf: startHash)
        writer.append(UInt32(0))
        writer.append(CRC32C.checksum(writer.bytes))
        assert(writer.bytes.count == LogFormat.segmentHeaderBytes)
        return writer.bytes
    }

    /// Decodes and checks a header; `bytes` holds exactly 64 bytes.
    static func decode(_ bytes: [UInt8], path: String) throws -> SegmentHeader {
        precondition(bytes.count == LogFormat.segmentHeaderBytes)
        let stored = bytes.loadLittleEndian(UInt32.self, at: 60)
        let computed = CRC32C.checksum(bytes[0..<60])
        guard stored == computed else {
            throw LogError(.corrupt, "segment header checksum mismatch (stored \(hex32(stored)), computed \(hex32(computed)))", path: path, offset: 0)
        }
        guard Array(bytes[0..<8]) == LogFormat.segmentMagic else {
            throw LogError(.corrupt, "segment header magic is not TALLYSEG", path: path, offset: 0)
        }
        let version = bytes.loadLittleEndian(UInt16.self, at: 8)
        guard version == LogFormat.version else {
            throw LogError(.unsupportedVersion, "segment format version \(version) is not supported (this code reads version \(LogFormat.version))", path: path, offset: 8)
        }
        guard bytes.loadLittleEndian(UInt16.self, at: 10) == UInt16(LogFormat.segmentHeaderBytes),
              bytes.loadLittleEndian(UInt32.self, at: 12) == 0,
              bytes.loadLittleEndian(UInt32.self, at: 56) == 0
        else {
            throw LogError(.corrupt, "segment header has a bad length or non-zero reserved bytes", path: path, offset: 0)
        }
        let firstSequence = bytes.loadLittleEndian(UInt64.self, at: 16)
        guard firstSequence >= 1 else {
            throw LogError(.corrupt, "segment header names first sequence 0", path: path, offset: 16)
        }
        return SegmentHeader(firstSequence: firstSequence, startHash: Array(bytes[24..<56]))
    }
}

/// The fixed 88-byte header in front of every frame body.
///
/// ```
/// offset size field
///      0    4 magic "TFRM"
///      4    2 format version (1)
///      6    2 flags: bit 0 = body is an LZ4 block; bit 1 = body is sealed; bit 2 = events lost (alone); other bits zero
///      8    8 first sequence number
///     16    4 event count (≥ 1)
///     20    4 uncompressed body length
///     24    4 stored body length (bytes following the header)
///     28    4 key identifier of a sealed body (≥ 1); zero when not sealed
///     32    8 smallest recorded time in the frame (µs)
///     40    8 largest recorded time in the frame (µs)
///     48   32 chain hash after the frame's last event
///     80    4 frame checksum: CRC32C(bytes 0..<80 ‖ stored body)
///     84    4 header checksum: CRC32C(bytes 0..<84)
/// ```
struct FrameHeader: Hashable, Sendable {
    var flags: UInt16
    var firstSequence: UInt64
    var count: UInt32
    var uncompressedLength: UInt32
    var storedLength: UInt32
    var keyID: UInt32
    var recordedAtMin: Int64
    var recordedAtMax: Int64
    var lastHash: [UInt8]
    var frameChecksum: UInt32

    var lastSequence: UInt64 { firstSequence + UInt64(count) - 1 }
    var frameBytes: Int64 { Int64(LogFormat.frameHeaderBytes) + Int64(storedLength) }
    var isCompressed: Bool { flags & LogFormat.frameFlagLZ4 != 0 }
    var isSealed: Bool { flags & LogFormat.frameFlagSealed != 0 }
    /// Whether the frame stands for events a repair set aside as lost (``LogFormat/frameFlagLost``).
    var isLost: Bool { flags & LogFormat.frameFlagLost != 0 }
    /// Body bytes before sealing: the LZ4 block or the records.
    var unsealedLength: Int { Int(storedLength) - (isSealed ? FrameSealing.overheadBytes : 0) }

    /// Writes the header's fields (bytes 0..<80) into `frame[0..<88]`; the checksums follow with ``writeChecksums(into:)``
    /// once the body is in `frame[88...]`.
    static func writeFields(
        into frame: inout [UInt8],
        flags: UInt16, firstSequence: UInt64, count: UInt32, uncompressedLength: UInt32, storedLength: UInt32, keyID: UInt32,
        recordedAtMin: Int64, recordedAtMax: Int64, lastHash: [UInt8]
    ) {
        precondition(frame.count >= LogFormat.frameHeaderBytes && lastHash.count == 32)
        frame.replaceSubrange(0..<4, with: LogFormat.frameMagic)
        frame.storeLittleEndian(LogFormat.version, at: 4)
        frame.storeLittleEndian(flags, at: 6)
        frame.storeLittleEndian(firstSequence, at: 8)
        frame.storeLittleEndian(count, at: 16)
        frame.storeLittleEndian(uncompressedLength, at: 20)
        frame.storeLittleEndian(storedLength, at: 24)
        frame.storeLittleEndian(keyID, at: 28)
        frame.storeLittleEndian(recordedAtMin, at: 32)
        frame.storeLittleEndian(recordedAtMax, at: 40)
        frame.replaceSubrange(48..<80, with: lastHash)
    }

    /// Writes an unsealed frame's header into `frame[0..<88]`, computing both checksums over the body already in `frame[88...]`.
    static func write(
        into frame: inout [UInt8],
        flags: UInt16, firstSequence: UInt64, count: UInt32, uncompressedLength: UInt32,
        recordedAtMin: Int64, recordedAtMax: Int64, lastHash: [UInt8]
    ) {
        writeFields(
            into: &frame, flags: flags, firstSequence: firstSequence, count: count, uncompressedLength: uncompressedLength,
            storedLength: UInt32(frame.count - LogFormat.frameHeaderBytes), keyID: 0,
            recordedAtMin: recordedAtMin, recordedAtMax: recordedAtMax, lastHash: lastHash)
        writeChecksums(into: &frame)
    }

    /// Computes both checksums of a frame whose fields and body are in place.
    static func writeChecksums(into frame: inout [UInt8]) {
        precondition(frame.count >= LogFormat.frameHeaderBytes)
        let frameChecksum = frame.withUnsafeBytes { raw in
            CRC32C.update(CRC32C.update(0, UnsafeRawBufferPointer(rebasing: raw[0..<80])),
                          UnsafeRawBufferPointer(rebasing: raw[LogFormat.frameHeaderBytes...]))
        }
        frame.storeLittleEndian(frameChecksum, at: 80)
        let headerChecksum = frame.withUnsafeBytes { CRC32C.update(0, UnsafeRawBufferPointer(rebasing: $0[0..<84])) }
        frame.storeLittleEndian(headerChecksum, at: 84)
    }

    /// Decodes a header and checks its own checksum and fields (not the body).
    /// `offset` is where the frame starts in `path`, for error messages.
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String, offset: Int64) throws -> FrameHeader {
        precondition(bytes.count >= LogFormat.frameHeaderBytes)
        func field<T: FixedWidthInteger>(_: T.Type, _ at: Int) -> T {
            T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self))
        }
        let stored = field(UInt32.self, 84)
        let computed = CRC32C.update(0, UnsafeRawBufferPointer(rebasing: bytes[0..<84]))
        guard stored == computed else {
            throw LogError(.corrupt, "frame header checksum mismatch (stored \(hex32(stored)), computed \(hex32(computed)))", path: path, offset: offset)
        }
        guard Array(bytes[0..<4]) == LogFormat.frameMagic else {
            throw LogError(.corrupt, "frame header magic is not TFRM", path: path, offset: offset)
        }
        let version = field(UInt16.self, 4)
        guard version == LogFormat.version else {
            throw LogError(.unsupportedVersion, "frame format version \(version) is not supported (this code reads version \(LogFormat.version))", path: path, offset: offset)
        }
        let header = FrameHeader(
            flags: field(UInt16.self, 6),
            firstSequence: field(UInt64.self, 8),
            count: field(UInt32.self, 16),
            uncompressedLength: field(UInt32.self, 20),
            storedLength: field(UInt32.self, 24),
            keyID: field(UInt32.self, 28),
            recordedAtMin: field(Int64.self, 32),
            recordedAtMax: field(Int64.self, 40),
            lastHash: Array(bytes[48..<80]),
            frameChecksum: field(UInt32.self, 80)
        )
        guard header.flags & ~(LogFormat.frameFlagLZ4 | LogFormat.frameFlagSealed | LogFormat.frameFlagLost) == 0,
              header.isSealed == (header.keyID != 0),
              !header.isLost || header.flags == LogFormat.frameFlagLost
        else {
            throw LogError(.corrupt, "frame header has unknown flags, or a key identifier that disagrees with its sealed flag", path: path, offset: offset)
        }
        guard header.count >= 1, header.count <= LogFormat.frameEventsMax, header.firstSequence >= 1,
              header.firstSequence <= UInt64.max - UInt64(header.count)
        else {
            throw LogError(.corrupt, "frame header has an impossible event count \(header.count) or first sequence \(header.firstSequence)", path: path, offset: offset)
        }
        guard Int(header.uncompressedLength) <= LogFormat.frameBytesMax, header.unsealedLength >= 0,
              header.isCompressed || header.unsealedLength == Int(header.uncompressedLength),
              header.unsealedLength <= BlockCompression.bound(Int(header.uncompressedLength))
        else {
            throw LogError(.corrupt, "frame header has impossible lengths (uncompressed \(header.uncompressedLength), stored \(header.storedLength))", path: path, offset: offset)
        }
        guard header.recordedAtMin <= header.recordedAtMax else {
            throw LogError(.corrupt, "frame header's recorded times are out of order", path: path, offset: offset)
        }
        return header
    }

    /// The frame that stands, at the same place and length, for `damaged`'s events once a repair
    /// set them aside: its header's sequence range, times and stored chain hash, flagged lost,
    /// with a body of zeros.
    static func lostFrame(replacing damaged: FrameHeader) -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: LogFormat.frameHeaderBytes + Int(damaged.storedLength))
        write(
            into: &frame, flags: LogFormat.frameFlagLost, firstSequence: damaged.firstSequence, count: damaged.count,
            uncompressedLength: damaged.storedLength, recordedAtMin: damaged.recordedAtMin, recordedAtMax: damaged.recordedAtMax,
            lastHash: damaged.lastHash)
        return frame
    }

    /// Checks the frame checksum against the stored body that follows the header.
    func checkBody(header bytes: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, path: String, offset: Int64) throws {
        let computed = CRC32C.update(CRC32C.update(0, UnsafeRawBufferPointer(rebasing: bytes[0..<80])), body)
        guard computed == frameChecksum else {
            throw LogError(.corrupt, "frame checksum mismatch for events \(firstSequence)…\(lastSequence) (stored \(hex32(frameChecksum)), computed \(hex32(computed)))", path: path, offset: offset)
        }
    }
}

func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}
