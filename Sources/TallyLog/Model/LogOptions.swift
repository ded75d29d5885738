import Glibc

/// How a writer cuts frames and segments, when it syncs, and where its clock comes from.
///
/// ```swift
/// var options = LogOptions()
/// options.syncMode = .none            // bulk import: call writer.sync() per batch
/// options.segmentBytesLimit = 8 << 20
/// let writer = try LogWriter.create(directory: path, options: options)
/// ```
public struct LogOptions: Sendable {
    /// When appends reach the disk.
    public enum SyncMode: Hashable, Sendable {
        /// Every commit is written and `fdatasync`ed before `append` returns (the default).
        case everyCommit
        /// Commits are written but not synced; the caller calls ``LogWriter/sync()`` (tests, bulk imports).
        case none
    }

    /// The size past which the writer starts a new segment (a frame never spans segments). Default 128 MiB.
    public var segmentBytesLimit: Int64
    /// The largest uncompressed frame body, in bytes. One `append` call must fit in one frame. Default 64 MiB.
    public var frameBytesLimit: Int
    /// The most events in one frame. One `append` call must fit in one frame. Default 100,000.
    public var frameEventsLimit: Int
    /// The writer's clock: microseconds since the Unix epoch. Default: the system realtime clock.
    public var clock: @Sendable () -> Int64
    /// When commits are synced. Default ``SyncMode/everyCommit``.
    public var syncMode: SyncMode
    /// Where the log's files live: the real disk (``PosixFileSystem``, the default) or a simulated one
    /// (``SimulatedDisk``) for fault simulation.
    public var fileSystem: any LogFileSystem
    /// The data keys of an encrypted log (nil, the default, for a log that is not sealed): the writer
    /// seals every frame under ``LogKeys/sealingKeyID``, and recovery opens sealed frames with them.
    public var keys: LogKeys? = nil
    /// Test hook: called before each frame write with the frame's first sequence number; throwing fails the write.
    var faultInjection: (@Sendable (_ firstSequence: UInt64) throws -> Void)?

    /// Creates options; every argument has a default.
    public init(
        segmentBytesLimit: Int64 = 128 << 20,
        frameBytesLimit: Int = 64 << 20,
        frameEventsLimit: Int = 100_000,
        clock: @escaping @Sendable () -> Int64 = LogOptions.systemClock,
        syncMode: SyncMode = .everyCommit,
        fileSystem: any LogFileSystem = PosixFileSystem()
    ) {
        self.segmentBytesLimit = segmentBytesLimit
        self.frameBytesLimit = frameBytesLimit
        self.frameEventsLimit = frameEventsLimit
        self.clock = clock
        self.syncMode = syncMode
        self.fileSystem = fileSystem
        self.faultInjection = nil
    }

    /// The system realtime clock in microseconds since the Unix epoch.
    public static let systemClock: @Sendable () -> Int64 = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }

    func validated() throws -> LogOptions {
        guard segmentBytesLimit >= LogFormat.segmentBytesMin, segmentBytesLimit <= LogFormat.segmentBytesMax else {
            throw LogError(.invalidArgument, "segmentBytesLimit \(segmentBytesLimit) is outside \(LogFormat.segmentBytesMin)…\(LogFormat.segmentBytesMax)")
        }
        guard frameBytesLimit >= 1, frameBytesLimit <= LogFormat.frameBytesMax else {
            throw LogError(.invalidArgument, "frameBytesLimit \(frameBytesLimit) is outside 1…\(LogFormat.frameBytesMax)")
        }
        guard frameEventsLimit >= 1, frameEventsLimit <= LogFormat.frameEventsMax else {
            throw LogError(.invalidArgument, "frameEventsLimit \(frameEventsLimit) is outside 1…\(LogFormat.frameEventsMax)")
        }
        return self
    }
}

/// Sizes of a log, from frame headers (nothing is decompressed).
public struct LogStatistics: Hashable, Sendable {
    /// Events in the log (the head's sequence number).
    public let events: UInt64
    /// Frames (commits).
    public let frames: UInt64
    /// Segment files.
    public let segments: Int
    /// Bytes of segment files on disk, headers included.
    public let bytesOnDisk: Int64
    /// Bytes of frame bodies before compression.
    public let uncompressedBytes: Int64
    /// Bytes of frame bodies as stored.
    public let storedBytes: Int64

    /// Uncompressed over stored body bytes, as an exact fraction `(numerator, denominator)`.
    public var compressionRatio: (numerator: Int64, denominator: Int64) { (uncompressedBytes, storedBytes) }

    /// Uncompressed over stored body bytes in thousandths, rounded down (2500 means 2.5×); 0 for an empty log.
    public var compressionRatioPerMille: Int64 {
        storedBytes == 0 ? 0 : uncompressedBytes.multipliedReportingOverflow(by: 1000).overflow
            ? uncompressedBytes / storedBytes * 1000 : uncompressedBytes * 1000 / storedBytes
    }
}
