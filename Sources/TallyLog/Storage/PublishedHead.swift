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
    /// Bytes of the record a writer writes (`TLPD`); 16 for the older `TLPH` and `TLPW` records.
    static let byteCount = 24
    private static let bothMagic: [UInt8] = Array("TLPD".utf8)
    private static let durableMagic: [UInt8] = Array("TLPH".utf8)
    private static let writtenMagic: [UInt8] = Array("TLPW".utf8)

    static func path(in directory: String) -> String { StoreDirectory.join(directory, fileName) }

    /// The record a writer writes: `TLPD`, the visible sequence, the durable one (0: none known),
    /// and the CRC32C of those 20 bytes.
    static func encoded(visible: UInt64, durable: UInt64) -> [UInt8] {
        precondition(durable <= visible, "what is durable is visible")
        var bytes = bothMagic + [UInt8](repeating: 0, count: byteCount - 4)
        bytes.storeLittleEndian(visible, at: 4)
        bytes.storeLittleEndian(durable, at: 12)
        bytes.storeLittleEndian(CRC32C.checksum(bytes[0..<20]), at: 20)
        return bytes
    }

    /// The record for `sequence`, durable through it or not durable at all.
    static func encoded(_ sequence: UInt64, durable: Bool = true) -> [UInt8] {
        encoded(visible: sequence, durable: durable ? sequence : 0)
    }

    /// The published sequence, durable or not, or nil when the file is missing, short or fails
    /// its check (a log written before there was one, or a read that raced a write): the reader
    /// then relies on frame checks alone, as before.
    static func read(in directory: String, fileSystem: any LogFileSystem = PosixFileSystem()) -> UInt64? {
        record(in: directory, fileSystem: fileSystem)?.visible
    }

    /// The last sequence published as durable: the log must reach it. Nil when none is known.
    static func readDurable(in directory: String, fileSystem: any LogFileSystem = PosixFileSystem()) -> UInt64? {
        record(in: directory, fileSystem: fileSystem)?.durable
    }

    /// The file holds two slots of ``byteCount`` bytes, written in turn: a write that fails half
    /// way (a full disk) damages one, and the other still holds the record before it. The valid
    /// slots' greatest sequences count.
    static func record(in directory: String, fileSystem: any LogFileSystem) -> (visible: UInt64, durable: UInt64?)? {
        guard let file = try? fileSystem.open(path(in: directory), mode: .read) else { return nil }
        defer { file.close() }
        guard let bytes = try? file.read(count: 2 * byteCount, at: 0), bytes.count >= 16 else { return nil }
        let magic = Array(bytes[0..<4])
        if magic == bothMagic || (bytes.count == 2 * byteCount && Array(bytes[byteCount..<(byteCount + 4)]) == bothMagic) {
            let slots = slots(of: bytes).compactMap { $0 }
            guard let visible = slots.map(\.visible).max(), let durable = slots.map(\.durable).max() else { return nil }
            return (visible, durable == 0 ? nil : durable)
        }
        guard magic == durableMagic || magic == writtenMagic,
              bytes.loadLittleEndian(UInt32.self, at: 12) == CRC32C.checksum(bytes[0..<12]) else { return nil }
        let sequence = bytes.loadLittleEndian(UInt64.self, at: 4)
        return (sequence, magic == durableMagic ? sequence : nil)
    }

    /// The two slots of a `TLPD` file's `bytes`: each slot's visible and durable sequences, or
    /// nil for a slot that is missing or fails its check.
    static func slots(of bytes: [UInt8]) -> [(visible: UInt64, durable: UInt64)?] {
        [0, byteCount].map { start in
            guard bytes.count >= start + byteCount else { return nil }
            let slot = Array(bytes[start..<(start + byteCount)])
            guard Array(slot[0..<4]) == bothMagic, slot.loadLittleEndian(UInt32.self, at: 20) == CRC32C.checksum(slot[0..<20]) else { return nil }
            return (slot.loadLittleEndian(UInt64.self, at: 4), slot.loadLittleEndian(UInt64.self, at: 12))
        }
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
        try file.write(encoded(sequence) + encoded(sequence), at: 0)
        try file.fullSync()
        try fileSystem.syncDirectory(directory)
    }
}

/// A writer's handle on ``PublishedHead``: one positioned write of 24 bytes per commit, carrying
/// the last sequence published as durable along with the visible one, so that publishing a commit
/// written without a sync never hides what an earlier sync made durable.
struct PublishedHeadFile: Sendable {
    private let file: any LogFile
    /// The last sequence published as durable.
    private var durable: UInt64
    /// The slot the next record goes to (0 or 1).
    private var slot = 0

    /// Opens (or creates) the file in `directory` and publishes `sequence` as durable, in both
    /// slots (a slot left from before could hold a greater sequence the log no longer has).
    init(directory: String, sequence: UInt64, fileSystem: any LogFileSystem) throws {
        // A file that already says `sequence`, visible and durable, stays as it is: an open that
        // appends nothing leaves the log's directory unchanged, byte for byte.
        let current = PublishedHead.record(in: directory, fileSystem: fileSystem)
        file = try fileSystem.open(PublishedHead.path(in: directory), mode: .readWriteCreate)
        durable = sequence
        do {
            if current?.visible != sequence || current?.durable != sequence {
                let record = PublishedHead.encoded(sequence)
                try file.write(record + record, at: 0)
            } else if let bytes = try? file.read(count: 2 * PublishedHead.byteCount, at: 0),
                      let first = PublishedHead.slots(of: bytes).first, first?.visible == sequence, first?.durable == sequence {
                // Left as it is, the file may hold `sequence` in one slot only: the next record
                // goes to the other, so that a write of it failing half way (a full disk) leaves
                // this one, and readers never fall back to an older head.
                slot = 1
            }
        } catch {
            file.close()
            throw error
        }
    }

    /// Makes events through `sequence` visible to readers; `durable` when they are synced.
    mutating func publish(_ sequence: UInt64, durable: Bool = true) throws {
        if durable { self.durable = sequence }
        let offset = Int64(slot * PublishedHead.byteCount)
        slot = 1 - slot
        try file.write(PublishedHead.encoded(visible: sequence, durable: min(self.durable, sequence)), at: offset)
    }

    func close() { file.close() }
}
