/// Constants and limits of the on-disk log format, documented byte by byte in `Schemas/log-format.md`.
public enum LogFormat {
    /// The format version written into every segment and frame header.
    public static let version: UInt16 = 1

    /// The chain hash before event 1: 32 zero bytes.
    public static let genesisHash = [UInt8](repeating: 0, count: 32)

    /// The most UTF-8 bytes in an entity.
    public static let entityBytesMax = 255
    /// The most UTF-8 bytes in an idempotency key (the least is 1).
    public static let idempotencyKeyBytesMax = 255
    /// The most bytes in a payload: 1 MiB.
    public static let payloadBytesMax = 1 << 20
    /// The hard ceiling for `LogOptions.frameBytesLimit`: 256 MiB.
    public static let frameBytesMax = 1 << 28
    /// The hard ceiling for `LogOptions.frameEventsLimit`.
    public static let frameEventsMax = 1 << 20
    /// The least `LogOptions.segmentBytesLimit`.
    public static let segmentBytesMin: Int64 = 256
    /// The hard ceiling for `LogOptions.segmentBytesLimit`: 1 TiB.
    public static let segmentBytesMax: Int64 = 1 << 40

    /// Bytes of a segment header.
    public static let segmentHeaderBytes = 64
    /// Bytes of a frame header.
    public static let frameHeaderBytes = 88
    /// The segment header's magic, ASCII `TALLYSEG`.
    static let segmentMagic: [UInt8] = Array("TALLYSEG".utf8)
    /// The frame header's magic, ASCII `TFRM`.
    static let frameMagic: [UInt8] = Array("TFRM".utf8)
    /// Frame flag: the body is one LZ4 block (else it is the uncompressed records).
    static let frameFlagLZ4: UInt16 = 1
    /// Frame flag: the stored body is sealed (AES-256-GCM, `nonce ‖ ciphertext ‖ tag`) under the data key
    /// whose identifier is in the header's bytes 28..<32.
    static let frameFlagSealed: UInt16 = 2
    /// Frame flag: the frame's events were lost to damage and a repair set them aside. The header keeps
    /// the damaged frame's sequence range, recorded times and stored chain hash (so the chain goes on
    /// through it); the body is zeros, as long as the damaged one was (copied to `quarantine/` first).
    static let frameFlagLost: UInt16 = 4
    /// Segment file suffix.
    static let segmentSuffix = ".tlog"
    /// Digits in a segment file name.
    static let segmentNameDigits = 20
}
