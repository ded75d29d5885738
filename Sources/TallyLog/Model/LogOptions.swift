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
    /// How long ``LogWriter/open(directory:options:)`` waits for another writer to release the log's
    /// lock before it throws `.locked`, in microseconds. Default 0: it does not wait (one attempt).
    ///
    /// ```swift
    /// var options = LogOptions()
    /// options.lockWaitMicroseconds = 5_000_000          // like SQLite's busy timeout
    /// options.lockWaitNotice = { waited in print("waiting for the writer lock (\(waited / 1_000_000) s)") }
    /// ```
    public var lockWaitMicroseconds: Int64 = 0
    /// Called once when a writer has waited ``lockWaitNoticeAfterMicroseconds`` for the lock and waits
    /// on, with how long it has waited: a program says why it seems stuck.
    public var lockWaitNotice: (@Sendable (_ waitedMicroseconds: Int64) -> Void)? = nil
    /// How long a writer waits for the lock before ``lockWaitNotice`` is called. Default one second.
    public var lockWaitNoticeAfterMicroseconds: Int64 = 1_000_000
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

    /// The longest wait for the writer lock: a day.
    static let lockWaitMicrosecondsMax: Int64 = 86_400_000_000

    /// Takes the writer's lock on `directory`, waiting up to ``lockWaitMicroseconds`` for another
    /// writer to release it (polling, 1 ms doubling to 50 ms), and calling ``lockWaitNotice``
    /// once when the wait grows long.
    /// - Throws: ``LogError`` `.locked` when it is still held at the end of the wait, saying how long
    ///   it waited; `.io` for a failed system call.
    func lockForWriting(directory: String) throws -> any LogWriterLock {
        let start = Self.monotonicMicroseconds()
        var pause: Int64 = 1_000
        var noticed = false
        while true {
            do {
                return try fileSystem.lockForWriting(directory: directory)
            } catch let error as LogError where error.code == .locked {
                let waited = Self.monotonicMicroseconds() - start
                guard waited < lockWaitMicroseconds else {
                    guard lockWaitMicroseconds > 0 else { throw error }
                    throw LogError(
                        .locked, "another writer held the log at \(directory) for the whole wait of \(Self.seconds(lockWaitMicroseconds)); "
                            + "try again when it is done, or wait longer (one writer per log)", path: error.path)
                }
                if !noticed && waited >= lockWaitNoticeAfterMicroseconds {
                    noticed = true
                    lockWaitNotice?(waited)
                }
                let sleep = min(pause, lockWaitMicroseconds - waited)
                usleep(useconds_t(max(sleep, 1)))
                pause = min(pause * 2, 50_000)
            }
        }
    }

    /// Microseconds on the monotonic clock (for waits; never for recorded times).
    static func monotonicMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }

    /// `1.5 s`, `5 s`, `250 ms`: a duration in microseconds as a person reads it.
    static func seconds(_ microseconds: Int64) -> String {
        if microseconds < 1_000_000 { return "\(microseconds / 1_000) ms" }
        let tenths = microseconds / 100_000
        return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
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
        guard lockWaitMicroseconds >= 0, lockWaitMicroseconds <= Self.lockWaitMicrosecondsMax else {
            throw LogError(.invalidArgument, "lockWaitMicroseconds \(lockWaitMicroseconds) is outside 0…\(Self.lockWaitMicrosecondsMax) (a day)")
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
