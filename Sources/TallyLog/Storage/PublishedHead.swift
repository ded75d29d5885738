import Glibc

/// The last sequence number a writer has made visible to readers: `PUBLISHED` in the log
/// directory, 16 bytes (a magic, the sequence as a little-endian UInt64, and the CRC32C of
/// those 12 bytes). The magic says whether the commits through it are known to be durable:
/// `TLPH` when they are, `TLPW` when they were only written.
///
/// A writer that syncs every commit (``LogOptions/SyncMode/everyCommit``) publishes it only
/// after its `fdatasync`, as durable, so a reader in another process never sees an event that
/// a power loss could still take back, even though the frame's bytes are in the file (and the
/// page cache) a little before. With ``LogOptions/SyncMode/none`` a commit is published as
/// soon as it is written, as not durable, and published again as durable by the
/// ``LogWriter/sync()`` (or segment roll, or close) that makes it so. The file itself is
/// written without a sync: after a crash it can only be behind what the log durably holds,
/// and the next writer publishes its recovered head when it opens. While no writer holds the
/// lock, readers read everything that checks.
///
/// Because a durable published head is never ahead of what is on the disk, a log that ends
/// before it was cut short after the fact (bytes or a segment removed from its end): that is
/// damage, never a crash artefact. Writers refuse to open it, readers refuse to read it,
/// `verifyLog` reports it and only a repair, deliberately, accepts the shorter log
/// (``shortLogError(head:published:directory:)``).
enum PublishedHead {
    static let fileName = "PUBLISHED"
    static let byteCount = 16
    private static let durableMagic: [UInt8] = Array("TLPH".utf8)
    private static let writtenMagic: [UInt8] = Array("TLPW".utf8)

    static func path(in directory: String) -> String { StoreDirectory.join(directory, fileName) }

    /// The record for `sequence`, durable or only written.
    static func encoded(_ sequence: UInt64, durable: Bool = true) -> [UInt8] {
        var bytes = (durable ? durableMagic : writtenMagic) + [UInt8](repeating: 0, count: byteCount - 4)
        bytes.storeLittleEndian(sequence, at: 4)
        bytes.storeLittleEndian(CRC32C.checksum(bytes[0..<12]), at: 12)
        return bytes
    }

    /// The published sequence, durable or not, or nil when the file is missing, short or fails
    /// its check (a log written before there was one, or a read that raced a write): the reader
    /// then relies on frame checks alone, as before.
    static func read(in directory: String, fileSystem: any LogFileSystem = PosixFileSystem()) -> UInt64? {
        record(in: directory, fileSystem: fileSystem).map(\.sequence)
    }

    /// The published sequence when it is known to be durable: the log must reach it.
    static func readDurable(in directory: String, fileSystem: any LogFileSystem = PosixFileSystem()) -> UInt64? {
        guard let record = record(in: directory, fileSystem: fileSystem), record.durable else { return nil }
        return record.sequence
    }

    private static func record(in directory: String, fileSystem: any LogFileSystem) -> (sequence: UInt64, durable: Bool)? {
        guard let file = try? fileSystem.open(path(in: directory), mode: .read) else { return nil }
        defer { file.close() }
        guard let bytes = try? file.read(count: byteCount, at: 0), bytes.count == byteCount,
              bytes.loadLittleEndian(UInt32.self, at: 12) == CRC32C.checksum(bytes[0..<12]) else { return nil }
        let magic = Array(bytes[0..<4])
        guard magic == durableMagic || magic == writtenMagic else { return nil }
        return (bytes.loadLittleEndian(UInt64.self, at: 4), magic == durableMagic)
    }

    /// The error for a log whose last event, `head`, comes before its published head: the events
    /// after it were acknowledged, then lost from the end of the log.
    static func shortLogError(head: UInt64, published: UInt64, directory: String) -> LogError {
        let missing = published - head
        return LogError(
            .truncated,
            "the log ends at event \(head) but had acknowledged events through \(published) (its PUBLISHED head): "
                + "events \(head + 1)…\(published) (\(missing) event\(missing == 1 ? "" : "s")) were cut off its end after they were written. "
                + "Restore the log from a copy that has them, or run `repair` to accept the shorter log",
            path: directory)
    }

    /// Sets the published head to `sequence`, synced (repair: the log was cut below it, and a
    /// head left higher would make the cut log read as cut short).
    static func reset(to sequence: UInt64, in directory: String, fileSystem: any LogFileSystem) throws {
        let file = try fileSystem.open(path(in: directory), mode: .readWriteCreate)
        defer { file.close() }
        try file.write(encoded(sequence), at: 0)
        try file.fullSync()
        try fileSystem.syncDirectory(directory)
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

    /// Makes events through `sequence` visible to readers; `durable` when they are synced.
    func publish(_ sequence: UInt64, durable: Bool = true) throws {
        try file.write(PublishedHead.encoded(sequence, durable: durable), at: 0)
    }

    func close() { file.close() }
}
