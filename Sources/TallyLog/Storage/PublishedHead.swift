import Glibc

/// The last sequence number a writer has made visible to readers: `PUBLISHED` in the log
/// directory, 16 bytes (`TLPH`, the sequence as a little-endian UInt64, and the CRC32C of
/// those 12 bytes).
///
/// A writer publishes a commit only after its `fdatasync` (``LogOptions/SyncMode/everyCommit``),
/// so a reader in another process never sees an event that a power loss could still take
/// back, even though the frame's bytes are in the file (and the page cache) a little before.
/// With ``LogOptions/SyncMode/none`` a commit is published as soon as it is written, as
/// that mode promises nothing more. The file itself is never synced: after a crash it can
/// only be behind, and the next writer publishes its recovered head (synced) when it opens.
/// While no writer holds the lock, readers read everything that checks.
enum PublishedHead {
    static let fileName = "PUBLISHED"
    static let byteCount = 16
    private static let magic: [UInt8] = Array("TLPH".utf8)

    static func path(in directory: String) -> String { StoreDirectory.join(directory, fileName) }

    /// The record for `sequence`.
    static func encoded(_ sequence: UInt64) -> [UInt8] {
        var bytes = magic + [UInt8](repeating: 0, count: byteCount - magic.count)
        bytes.storeLittleEndian(sequence, at: 4)
        bytes.storeLittleEndian(CRC32C.checksum(bytes[0..<12]), at: 12)
        return bytes
    }

    /// The published sequence, or nil when the file is missing, short or fails its check (a
    /// log written before there was one, or a read that raced a write): the reader then
    /// relies on frame checks alone, as before.
    static func read(in directory: String, fileSystem: any LogFileSystem = PosixFileSystem()) -> UInt64? {
        guard let file = try? fileSystem.open(path(in: directory), mode: .read) else { return nil }
        defer { file.close() }
        guard let bytes = try? file.read(count: byteCount, at: 0), bytes.count == byteCount,
              Array(bytes[0..<4]) == magic,
              bytes.loadLittleEndian(UInt32.self, at: 12) == CRC32C.checksum(bytes[0..<12]) else { return nil }
        return bytes.loadLittleEndian(UInt64.self, at: 4)
    }
}

/// A writer's handle on ``PublishedHead``: one positioned write of 16 bytes per commit.
struct PublishedHeadFile: Sendable {
    private let file: any LogFile

    /// Opens (or creates) the file in `directory` and publishes `sequence`.
    init(directory: String, sequence: UInt64, fileSystem: any LogFileSystem) throws {
        file = try fileSystem.open(PublishedHead.path(in: directory), mode: .readWriteCreate)
        do {
            try publish(sequence)
        } catch {
            file.close()
            throw error
        }
    }

    /// Makes events through `sequence` visible to readers.
    func publish(_ sequence: UInt64) throws {
        try file.write(PublishedHead.encoded(sequence), at: 0)
    }

    func close() { file.close() }
}
