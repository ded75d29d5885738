import Foundation
import Synchronization
import Glibc

/// The single writer of a log directory: appends frames with group commit, rolls segments, recovers on open.
///
/// Many threads (and tasks) may call ``append(_:)-4reaa`` at once: calls that arrive while a commit is in
/// flight are packed into the next frame and share its one write and one `fdatasync` (leader/follower
/// group commit). Each call's records stay together, in one frame, with contiguous sequence numbers.
///
/// ```swift
/// let writer = try LogWriter.create(directory: "/var/lib/tally/log")
/// let result = try writer.append([record])
/// print(result.first, writer.head)      // 1  1:5f3a…
/// try writer.close()
/// ```
public final class LogWriter: Sendable {
    let core: WriterCore
    /// The last scan of this writer's own view (``reader()``): the next one resumes from it.
    let lastScan = Mutex<StoreSnapshot?>(nil)
    /// The head through which the open checked every frame (``LogScrub``): recorded as
    /// scrubbed when the writer closes after committing something.
    let scrubbedAtOpen: LogDigest?

    private init(core: WriterCore, scrubbedAtOpen: LogDigest? = nil) {
        self.core = core
        self.scrubbedAtOpen = scrubbedAtOpen
    }

    deinit {
        try? core.close()
    }

    /// Creates an empty log in `directory` (made if missing; its parent must exist) and opens it for writing.
    /// - Throws: ``LogError`` `.alreadyExists` when the directory already holds segments, `.locked` when
    ///   another writer holds it, `.io` on a failed system call.
    public static func create(directory: String, options: LogOptions = .init()) throws -> LogWriter {
        let options = try options.validated()
        let fileSystem = options.fileSystem
        try fileSystem.makeDirectory(directory)
        // The directory's own entry must survive a crash too, or the log vanishes with it.
        try fileSystem.syncDirectory(StoreDirectory.parent(of: directory))
        let lock = try options.lockForWriting(directory: directory)
        do {
            guard try StoreDirectory.segments(in: directory, fileSystem: fileSystem).isEmpty else {
                throw LogError(.alreadyExists, "a log already exists here; open it with LogWriter.open", path: directory)
            }
            let path = StoreDirectory.join(directory, StoreDirectory.segmentName(firstSequence: 1))
            let file = try createSegment(
                path: path, header: SegmentHeader(firstSequence: 1, startHash: LogFormat.genesisHash), directory: directory, fileSystem: fileSystem)
            let published: PublishedHeadFile
            do { published = try PublishedHeadFile(directory: directory, sequence: 0, fileSystem: fileSystem) } catch { file.close(); throw error }
            let state = WriterState(
                directory: directory, active: file, activeLength: Int64(LogFormat.segmentHeaderBytes), activeFrames: 0,
                nextSequence: 1, lastHash: LogFormat.genesisHash, lastRecordedAt: .min, published: published)
            return LogWriter(core: WriterCore(lock: lock, state: state, options: options))
        } catch {
            lock.release()
            throw error
        }
    }

    /// Opens an existing log for writing, after recovery.
    ///
    /// Recovery walks the last segment frame by frame, checking every checksum and the chain of its last
    /// frame, and validates every sealed segment's header and the continuity between segments. A torn
    /// last frame (one that runs past the end of the file, or a zero tail) is cut off and the cut synced,
    /// unless it holds events the log had published (`PUBLISHED`): a log that ends before its published
    /// head was cut short after the fact and refuses to open (``LogError/Code/truncated``). Every frame
    /// not read back since the last writer's open (none, on a log whose frames were all checked) has its
    /// checksum checked first, so damage in the middle of the log refuses to open too.
    /// Any other damage refuses to open, naming the segment file and byte offset; nothing is rewritten.
    /// To cut a damaged log deliberately, use ``LogRepair/repair(directory:fileSystem:keys:)``.
    /// Another writer's lock is waited for up to ``LogOptions/lockWaitMicroseconds``.
    /// - Throws: ``LogError`` `.notFound`, `.locked` (still held after the wait), `.corrupt`, `.truncated`,
    ///   `.chainMismatch`, `.unsupportedVersion`, `.io`.
    public static func open(directory: String, options: LogOptions = .init()) throws -> LogWriter {
        let options = try options.validated()
        let fileSystem = options.fileSystem
        guard fileSystem.exists(directory) else {
            throw LogError(.notFound, "the log directory does not exist; create a log with LogWriter.create", path: directory)
        }
        let lock = try options.lockForWriting(directory: directory)
        do {
            let snapshot = try StoreScanner.scan(
                directory: directory, role: .writer, prior: LogIndexFile.read(in: directory, fileSystem: fileSystem), fileSystem: fileSystem,
                keys: options.keys)
            // A log shorter than what it acknowledged lost events off its end: writing on would
            // hand their sequence numbers to new events and fork the chain.
            if let published = PublishedHead.readDurable(in: directory, fileSystem: fileSystem), published > snapshot.head.sequence {
                throw PublishedHead.shortLogError(head: snapshot.head.sequence, published: published, directory: directory)
            }
            // Damage in the middle of the log stops the writer before it acknowledges anything.
            try LogScrub.run(snapshot)
            let state = try recover(snapshot, fileSystem: fileSystem)
            let writer = LogWriter(core: WriterCore(lock: lock, state: state, options: options), scrubbedAtOpen: snapshot.head)
            if snapshot.tail == .clean {
                writer.lastScan.withLock { $0 = snapshot }
                if snapshot.framesWalked >= LogIndexFile.worthWritingFrames { LogIndexFile.write(snapshot) }
            } else {
                // The tail was cut: what an index said about it no longer holds.
                LogIndexFile.remove(in: directory, fileSystem: fileSystem)
            }
            return writer
        } catch {
            lock.release()
            throw error
        }
    }

    /// Appends `records` as one atomic commit and returns once it is durable.
    ///
    /// The records get contiguous sequence numbers and one recorded time, `max(clock(), previous)`.
    /// With ``LogOptions/SyncMode/everyCommit`` the frame is written and `fdatasync`ed before this returns.
    /// A failed write is cut back off the file; every call in that commit throws and the log is as before.
    /// - Throws: ``LogError`` `.invalidRecord` or `.limitExceeded` (nothing appended), `.io`, `.closed`.
    public func append(_ records: [LogRecord]) throws -> AppendResult {
        let request = try core.makeRequest(records, continuation: nil)
        return try core.appendBlocking(request)
    }

    /// Appends `records` as one commit of their own (never shared with another call) at a sequence number
    /// and recorded time the caller decided beforehand: a single writer that folds events into derived
    /// state before they reach the log (a ledger's read models) knows both and needs them to hold.
    ///
    /// ```swift
    /// let next = writer.head.sequence + 1
    /// let at = max(clock(), writer.lastRecordedAt)
    /// // … fold records as next, next + 1 … recorded at `at` …
    /// try writer.append(records, pinnedTo: AppendPin(firstSequence: next, recordedAt: at))
    /// ```
    /// - Throws: ``LogError`` `.invalidRecord` when the log's next sequence number is not `pin.firstSequence`
    ///   or `pin.recordedAt` is earlier than the last commit's (nothing appended); as ``append(_:)-4reaa`` otherwise.
    public func append(_ records: [LogRecord], pinnedTo pin: AppendPin) throws -> AppendResult {
        try append(records, pinnedTo: pin, encodedAhead: nil)
    }

    /// ``append(_:pinnedTo:)`` with the frame most likely encoded already, on another thread,
    /// by ``encodeAhead(_:pinnedTo:)``: used when it was made of the same records at the same
    /// pin on the head the log still has, else encoded again here. Either way the same bytes
    /// reach the log.
    public func append(_ records: [LogRecord], pinnedTo pin: AppendPin, encodedAhead: FrameEncodedAhead?) throws -> AppendResult {
        let request = try core.makeRequest(records, continuation: nil)
        request.pin = pin
        request.encodedAhead = encodedAhead
        return try core.appendBlocking(request)
    }

    /// Starts encoding the frame that ``append(_:pinnedTo:encodedAhead:)`` of `records` at
    /// `pin` will write (sequence numbers, causes, chain hashes, compression, checksums,
    /// sealing) on another thread, and returns at once; nil when `pin` does not follow the
    /// log's head. Records that cannot be committed as they are leave the frame unmade, and
    /// the append says why.
    ///
    /// A single writer that folds events into derived state before they reach the log (a
    /// ledger's read models) encodes while it folds: on two cores the frame is ready when the
    /// fold is.
    ///
    /// ```swift
    /// let ahead = writer.encodeAhead(records, pinnedTo: pin)
    /// // … fold the records …
    /// try writer.append(records, pinnedTo: pin, encodedAhead: ahead)
    /// ```
    public func encodeAhead(_ records: [LogRecord], pinnedTo pin: AppendPin) -> FrameEncodedAhead? {
        let (head, lastRecordedAt, keys) = core.lock.withLock { (core.head, core.lastRecordedAt, core.options.keys) }
        guard !records.isEmpty, pin.firstSequence == head.sequence + 1, pin.recordedAt >= lastRecordedAt else { return nil }
        let ahead = FrameEncodedAhead(pin: pin, previousHash: head.hash, records: records)
        core.encoder.submit { ahead.encode(keys: keys) }
        return ahead
    }

    /// The recorded time of the last commit (microseconds since the Unix epoch; `Int64.min` for an empty log):
    /// the next commit is recorded at this time or later.
    public var lastRecordedAt: Int64 {
        core.lock.withLock { core.lastRecordedAt }
    }

    /// Appends `records` like the blocking overload, without blocking the cooperative thread pool:
    /// the commit runs on the writer's own thread (or a blocking caller leading the group).
    public func append(_ records: [LogRecord]) async throws -> AppendResult {
        let bound = try validateBatch(records, options: core.options)
        return try await withCheckedThrowingContinuation { continuation in
            core.enqueueAsync(AppendRequest(records: records, boundBytes: bound, continuation: continuation))
        }
    }

    /// The digest of the last committed event (``LogDigest/genesis`` for an empty log).
    public var head: LogDigest {
        core.lock.withLock { core.head }
    }

    /// A view of the log through this writer's head: every commit it made, whether or not readers in
    /// other processes see it yet (they see what `PublishedHead` says, and a failed write of that file
    /// leaves them a commit behind until the next one). The writer's own process reads its commits here.
    ///
    /// ```swift
    /// let result = try writer.append(records)
    /// try writer.reader().forEach(from: result.first, through: result.last) { event in … }
    /// ```
    /// - Throws: ``LogError`` as ``LogReader/open(directory:fileSystem:keys:)``.
    public func reader() throws -> LogReader {
        let head = self.head.sequence
        let earlier = lastScan.withLock { $0 }
        let snapshot = try StoreScanner.scan(
            directory: core.directory, role: .reader(writerActive: true, publishedThrough: head),
            prior: earlier.map { ScanPrior($0) }, fileSystem: core.options.fileSystem, keys: core.options.keys)
        lastScan.withLock { $0 = snapshot }
        return LogReader(snapshot: snapshot)
    }

    /// Syncs everything written so far (for ``LogOptions/SyncMode/none``).
    public func sync() throws {
        try core.sync()
    }

    /// Waits for the commit in flight, fails queued appends with `.closed`, syncs, writes the
    /// log's index (``LogIndexFile``) for the next open, and releases the lock.
    public func close() throws {
        try core.close { [self] in
            // Everything written is synced by now: index it, resuming from this writer's last scan.
            if let scrubbedAtOpen, core.head.sequence > scrubbedAtOpen.sequence {
                ScrubbedPrefix.write(scrubbedAtOpen, in: core.directory, fileSystem: core.options.fileSystem)
            }
            let earlier = lastScan.withLock { $0 }
            // Nothing appended since this writer's last scan (a rebuild, a reading command):
            // that scan is the log as it stands, so its last frame is not read back again.
            if let earlier, earlier.head == core.head, earlier.tail == .clean {
                LogIndexFile.write(earlier)
                return
            }
            if let snapshot = try? StoreScanner.scan(
                directory: core.directory, role: .writer, prior: earlier.map { ScanPrior($0) }, fileSystem: core.options.fileSystem,
                keys: core.options.keys),
               snapshot.tail == .clean {
                LogIndexFile.write(snapshot)
            }
        }
    }

    // MARK: Open helpers

    static func createSegment(path: String, header: SegmentHeader, directory: String, fileSystem: any LogFileSystem) throws -> any LogFile {
        var cleanedUp = true
        return try createSegment(path: path, header: header, directory: directory, fileSystem: fileSystem, cleanedUp: &cleanedUp)
    }

    /// Creates a segment file holding only its header, synced with its directory entry. On failure the file is
    /// removed and the removal synced; `cleanedUp` is false when that failed too, and the file may come back
    /// after a crash (a writer must then stop: it must not write past it).
    static func createSegment(
        path: String, header: SegmentHeader, directory: String, fileSystem: any LogFileSystem, cleanedUp: inout Bool
    ) throws -> any LogFile {
        let file = try fileSystem.open(path, mode: .createNew)
        do {
            let bytes = header.encoded()
            try file.write(bytes, at: 0)
            try file.fullSync()
            try fileSystem.syncDirectory(directory)
            return file
        } catch {
            file.close()
            do {
                try fileSystem.remove(path)
                try fileSystem.syncDirectory(directory)
            } catch {
                cleanedUp = false
            }
            throw error
        }
    }

    private static func recover(_ snapshot: StoreSnapshot, fileSystem: any LogFileSystem) throws -> WriterState {
        let directory = snapshot.directory
        switch snapshot.tail {
        case .tornSegmentHeader(let path, let firstSequence):
            let file = try fileSystem.open(path, mode: .readWrite)
            let published: PublishedHeadFile
            do {
                try file.truncate(to: 0)
                try file.write(SegmentHeader(firstSequence: firstSequence, startHash: snapshot.head.hash).encoded(), at: 0)
                try file.fullSync()
                try fileSystem.syncDirectory(directory)
                published = try PublishedHeadFile(directory: directory, sequence: snapshot.head.sequence, fileSystem: fileSystem)
            } catch {
                file.close()
                throw error
            }
            return WriterState(
                directory: directory, active: file, activeLength: Int64(LogFormat.segmentHeaderBytes), activeFrames: 0,
                nextSequence: snapshot.head.sequence + 1, lastHash: snapshot.head.hash, lastRecordedAt: snapshot.lastRecordedAt,
                published: published)
        case .clean, .tornFrame, .zeroTail, .uncommitted:
            let last = snapshot.segments[snapshot.segments.count - 1]
            let file = try fileSystem.open(last.path, mode: .readWrite)
            let published: PublishedHeadFile
            do {
                if last.fileLength != last.validLength {
                    assert(snapshot.tail != .clean)
                    try file.truncate(to: last.validLength)
                    try file.fullSync()
                } else {
                    // A writer that stopped between a write and its fdatasync left frames that
                    // checked but may not be on the disk yet: make them durable, then publish them.
                    try file.dataSync()
                }
                published = try PublishedHeadFile(directory: directory, sequence: snapshot.head.sequence, fileSystem: fileSystem)
            } catch {
                file.close()
                throw error
            }
            return WriterState(
                directory: directory, active: file, activeLength: last.validLength, activeFrames: Int(last.frames),
                nextSequence: snapshot.head.sequence + 1, lastHash: snapshot.head.hash, lastRecordedAt: snapshot.lastRecordedAt,
                published: published)
        }
    }
}

/// The sequence number and recorded time an append must land at (``LogWriter/append(_:pinnedTo:)``).
public struct AppendPin: Sendable, Hashable {
    /// The sequence number the first record must get.
    public var firstSequence: UInt64
    /// The recorded time every record gets, microseconds since the Unix epoch.
    public var recordedAt: Int64

    /// A pin; each parameter is the property of the same name.
    public init(firstSequence: UInt64, recordedAt: Int64) {
        self.firstSequence = firstSequence
        self.recordedAt = recordedAt
    }
}

/// What the leader owns while it commits: the active segment and the chain's end.
struct WriterState: Sendable {
    var directory: String
    var active: any LogFile
    var activeLength: Int64
    /// How much of the active segment is known to be on the disk: its length at the last successful sync.
    var syncedLength: Int64 = 0
    var activeFrames: Int
    var nextSequence: UInt64
    var lastHash: [UInt8]
    var lastRecordedAt: Int64
    /// What readers may see (``PublishedHead``).
    var published: PublishedHeadFile
}

/// A frame being encoded on another thread for a pinned append
/// (``LogWriter/encodeAhead(_:pinnedTo:)``): what it was made from, and the frame once done.
public final class FrameEncodedAhead: Sendable {
    /// The pin the frame's sequence numbers and recorded time come from.
    let pin: AppendPin
    /// The chain hash before the frame's first event: the log's head when it was made.
    let previousHash: [UInt8]
    /// The records it was made of: kept, so that their storage cannot be reused while this
    /// lives, and an append can tell the very same array by its address.
    private let records: [LogRecord]
    private let done = DispatchSemaphore(value: 0)
    /// Set once the encoding ended: the frame, or nil when a record's cause is not an
    /// earlier event (the append then refuses it as it would without this).
    private let encoded = Mutex<(frame: [UInt8], lastHash: [UInt8])??>(nil)

    init(pin: AppendPin, previousHash: [UInt8], records: [LogRecord]) {
        self.pin = pin
        self.previousHash = previousHash
        self.records = records
    }

    /// Whether `other` is the array this frame was made of (the same storage, not merely
    /// equal records): O(1), and never true of different records.
    func isMade(of other: [LogRecord]) -> Bool {
        records.withUnsafeBufferPointer { mine in
            other.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress && mine.count == theirs.count }
        }
    }

    /// Resolves the records at the pin and encodes them; runs on the encoder's thread.
    func encode(keys: LogKeys?) {
        let frame: (frame: [UInt8], lastHash: [UInt8])?
        switch WriterCore.resolve(records, first: pin.firstSequence, recordedAt: pin.recordedAt) {
        case .success(let events): frame = FrameCodec.encode(events, previousHash: previousHash, keys: keys)
        case .failure: frame = nil
        }
        encoded.withLock { $0 = .some(frame) }
        done.signal()
    }

    /// The frame and its last chain hash once the encoding ended (nil when the records
    /// could not be resolved: the append makes them again and says why).
    func wait() -> (frame: [UInt8], lastHash: [UInt8])? {
        done.wait()
        done.signal()
        return encoded.withLock { $0! }
    }
}

/// The thread that encodes a writer's frames ahead (``LogWriter/encodeAhead(_:pinnedTo:)``):
/// its own, not a shared pool's, because the append waits for the frame and a pool whose
/// threads all wait on the same writer (an embedder's callers) would never run it; kept while
/// frames come and for two idle seconds after, because a new thread per frame cost an import
/// a sixth of its time (each new thread's allocations fault in fresh memory).
final class FrameEncoder: @unchecked Sendable {
    private let lock = ConditionLock()
    private var jobs: [@Sendable () -> Void] = []
    private var running = false

    /// Runs `job` on the encoder's thread, after the jobs before it.
    func submit(_ job: @escaping @Sendable () -> Void) {
        lock.lock()
        jobs.append(job)
        if running {
            lock.broadcast()
        } else {
            running = true
            DedicatedThread.start("TallyLog.encodeAhead") { [self] in work() }
        }
        lock.unlock()
    }

    private func work() {
        lock.lock()
        while true {
            guard !jobs.isEmpty else {
                if !lock.wait(seconds: 2), jobs.isEmpty {
                    running = false
                    break
                }
                continue
            }
            let job = jobs.removeFirst()
            lock.unlock()
            job()
            lock.lock()
        }
        lock.unlock()
    }
}

/// One `append` call waiting for its commit.
final class AppendRequest: @unchecked Sendable {
    let records: [LogRecord]
    let boundBytes: Int
    let continuation: CheckedContinuation<AppendResult, any Error>?
    /// The sequence number and recorded time the caller decided; such a request commits alone.
    var pin: AppendPin?
    /// Its frame, encoded on another thread for this pin (used when it still fits the head).
    var encodedAhead: FrameEncodedAhead?
    /// Set by the leader under the lock.
    var outcome: Result<AppendResult, LogError>?

    init(records: [LogRecord], boundBytes: Int, continuation: CheckedContinuation<AppendResult, any Error>?) {
        self.records = records
        self.boundBytes = boundBytes
        self.continuation = continuation
    }
}

/// The writer's shared state: a queue of requests and a leader flag under one lock. Whoever finds no
/// leader becomes it, takes every queued request that fits one frame, and commits them with one write and
/// one sync while the others wait. `state` is touched only by the current leader.
final class WriterCore: @unchecked Sendable {
    let lock = ConditionLock()
    /// Encodes frames ahead, on a thread of its own (``FrameEncoder``).
    let encoder = FrameEncoder()
    let options: LogOptions
    /// The log directory (never changes; `state` is the leader's alone).
    let directory: String
    private let directoryLock: any LogWriterLock
    private var state: WriterState
    private var pending: [AppendRequest] = []
    private var leaderActive = false
    private var closed = false
    private var stopped: LogError?
    private var helperStarted = false
    private(set) var head: LogDigest
    private(set) var lastRecordedAt: Int64

    init(lock directoryLock: any LogWriterLock, state: WriterState, options: LogOptions) {
        self.directoryLock = directoryLock
        self.directory = state.directory
        var state = state
        state.syncedLength = state.activeLength  // create and recovery sync what they leave
        self.state = state
        self.options = options
        self.head = LogDigest(sequence: state.nextSequence - 1, hash: state.lastHash)
        self.lastRecordedAt = state.lastRecordedAt
    }

    func makeRequest(_ records: [LogRecord], continuation: CheckedContinuation<AppendResult, any Error>?) throws -> AppendRequest {
        AppendRequest(records: records, boundBytes: try validateBatch(records, options: options), continuation: continuation)
    }

    private func unavailable() -> LogError? {
        if let stopped { return stopped }
        if closed { return LogError(.closed, "the writer is closed", path: state.directory) }
        return nil
    }

    func appendBlocking(_ request: AppendRequest) throws -> AppendResult {
        lock.lock()
        if let error = unavailable() {
            lock.unlock()
            throw error
        }
        pending.append(request)
        while request.outcome == nil {
            if !leaderActive {
                leaderActive = true
                lock.unlock()
                leadOnce()
                lock.lock()
                leaderActive = false
                lock.broadcast()
            } else {
                lock.wait()
            }
        }
        let outcome = request.outcome!
        lock.unlock()
        return try outcome.get()
    }

    func enqueueAsync(_ request: AppendRequest) {
        lock.lock()
        if let error = unavailable() {
            lock.unlock()
            request.continuation?.resume(throwing: error)
            return
        }
        pending.append(request)
        if !helperStarted {
            helperStarted = true
            DedicatedThread.start("TallyLog.commit") { [self] in helperLoop() }
        }
        lock.broadcast()
        lock.unlock()
    }

    /// The commit thread for async callers: leads whenever requests wait and nobody leads.
    private func helperLoop() {
        lock.lock()
        while true {
            while !closed && (pending.isEmpty || leaderActive) { lock.wait() }
            if closed { break }
            leaderActive = true
            lock.unlock()
            leadOnce()
            lock.lock()
            leaderActive = false
            lock.broadcast()
        }
        lock.unlock()
    }

    /// Takes a batch, commits it outside the lock, publishes the outcomes.
    private func leadOnce() {
        lock.lock()
        var batch: [AppendRequest] = []
        var events = 0
        var bytes = 0
        while let next = pending.first {
            if !batch.isEmpty && (events + next.records.count > options.frameEventsLimit || bytes + next.boundBytes > options.frameBytesLimit) {
                break
            }
            // A pinned request commits alone: its sequence numbers and time were decided for it.
            if !batch.isEmpty && (next.pin != nil || batch[0].pin != nil) { break }
            batch.append(next)
            events += next.records.count
            bytes += next.boundBytes
            pending.removeFirst()
        }
        let refusal = unavailable()
        lock.unlock()
        guard !batch.isEmpty else { return }

        var outcomes: [Result<AppendResult, LogError>]
        var stop: LogError? = nil
        if let refusal {
            outcomes = Array(repeating: .failure(refusal), count: batch.count)
        } else {
            (outcomes, stop) = commit(batch)
        }

        lock.lock()
        for (request, outcome) in zip(batch, outcomes) { request.outcome = outcome }
        if let stop, stopped == nil { stopped = stop }
        head = LogDigest(sequence: state.nextSequence - 1, hash: state.lastHash)
        lastRecordedAt = state.lastRecordedAt
        lock.broadcast()
        lock.unlock()
        for (request, outcome) in zip(batch, outcomes) {
            guard let continuation = request.continuation else { continue }
            switch outcome {
            case .success(let result): continuation.resume(returning: result)
            case .failure(let error): continuation.resume(throwing: error)
            }
        }
    }

    /// Assigns sequence numbers, encodes one frame, writes and syncs it. Runs on the leader only.
    /// - Returns: one outcome per request, and an error that stops the writer if the file state is unknown.
    private func commit(_ batch: [AppendRequest]) -> ([Result<AppendResult, LogError>], LogError?) {
        var recordedAt = max(options.clock(), state.lastRecordedAt)
        if let pin = batch[0].pin {
            assert(batch.count == 1, "a pinned append commits alone")
            guard pin.firstSequence == state.nextSequence, pin.recordedAt >= state.lastRecordedAt else {
                let error = LogError(.invalidRecord, "the append was pinned to sequence \(pin.firstSequence) at \(pin.recordedAt) µs, but the log's next sequence is \(state.nextSequence) and its last commit was recorded at \(state.lastRecordedAt) µs")
                return ([.failure(error)], nil)
            }
            recordedAt = pin.recordedAt
        }
        var outcomes: [Result<AppendResult, LogError>?] = Array(repeating: nil, count: batch.count)
        var ranges: [(index: Int, first: UInt64, last: UInt64)] = []
        var next = state.nextSequence
        let frame: [UInt8], lastHash: [UInt8]
        if batch.count == 1, let pin = batch[0].pin, let ahead = batch[0].encodedAhead, ahead.isMade(of: batch[0].records),
           ahead.pin == pin, ahead.previousHash == state.lastHash, let encoded = ahead.wait() {
            // Encoded on another thread from these very records at this pin on this head
            // (which resolved their causes too): the events need not be made again here.
            (frame, lastHash) = encoded
            next += UInt64(batch[0].records.count)
            ranges.append((0, pin.firstSequence, next - 1))
        } else {
            var events: [LoggedEvent] = []
            events.reserveCapacity(batch.reduce(0) { $0 + $1.records.count })
            for (index, request) in batch.enumerated() {
                let first = next
                switch Self.resolve(request.records, first: first, recordedAt: recordedAt) {
                case .failure(let failure):
                    outcomes[index] = .failure(failure)
                case .success(let resolved):
                    events.append(contentsOf: resolved)
                    next += UInt64(resolved.count)
                    ranges.append((index, first, next - 1))
                }
            }
            guard !events.isEmpty else { return (outcomes.map { $0! }, nil) }
            (frame, lastHash) = FrameCodec.encode(events, previousHash: state.lastHash, keys: options.keys)
        }
        let firstSequence = ranges[0].first
        var stop: LogError? = nil
        do {
            try write(frame, firstSequence: firstSequence, stop: &stop)
        } catch let error as LogError {
            for range in ranges { outcomes[range.index] = .failure(error) }
            return (outcomes.map { $0! }, stop)
        } catch {
            let wrapped = LogError(.io, "\(error)", path: state.directory)
            for range in ranges { outcomes[range.index] = .failure(wrapped) }
            return (outcomes.map { $0! }, stop)
        }
        state.nextSequence = next
        state.lastHash = lastHash
        state.lastRecordedAt = recordedAt
        // Durable (or, without syncing, written): readers may see it. A failed publish only
        // keeps readers one commit behind until the next one. Without syncing it is published
        // as not yet durable, and the sync that makes it so publishes it again as durable.
        try? state.published.publish(next - 1, durable: options.syncMode == .everyCommit)
        let head = LogDigest(sequence: next - 1, hash: lastHash)
        for range in ranges {
            outcomes[range.index] = .success(AppendResult(first: range.first, last: range.last, recordedAt: recordedAt, head: head))
        }
        return (outcomes.map { $0! }, nil)
    }

    /// The records as the events they become from sequence number `first` on, recorded at
    /// `recordedAt`: each cause resolved to a sequence number, or the first record whose
    /// cause is not an earlier event.
    static func resolve(_ records: [LogRecord], first: UInt64, recordedAt: Int64) -> Result<[LoggedEvent], LogError> {
        var resolved: [LoggedEvent] = []
        resolved.reserveCapacity(records.count)
        for (position, record) in records.enumerated() {
            let sequence = first + UInt64(position)
            var cause: UInt64? = nil
            switch record.cause {
            case .none: break
            case .sequence(let earlier):
                guard earlier < sequence else {
                    return .failure(LogError(.invalidRecord, "record \(position): cause names sequence \(earlier), which is not an earlier event (this record would be \(sequence))"))
                }
                cause = earlier
            case .earlierInBatch(let earlier):
                cause = first + UInt64(earlier)
            }
            resolved.append(LoggedEvent(
                sequence: sequence, recordedAt: recordedAt, kind: record.kind, version: record.version,
                effectiveAt: record.effectiveAt, entity: record.entity, cause: cause,
                idempotencyKey: record.idempotencyKey, payload: record.payload))
        }
        return .success(resolved)
    }

    /// Rolls if needed, writes the frame at the end of the active segment, syncs; on failure cuts it back off.
    private func write(_ frame: [UInt8], firstSequence: UInt64, stop: inout LogError?) throws {
        if state.activeFrames > 0 && state.activeLength + Int64(frame.count) > options.segmentBytesLimit {
            try roll(firstSequence: firstSequence, stop: &stop)
        }
        let start = state.activeLength
        var written = false
        do {
            try options.faultInjection?(firstSequence)
            try state.active.write(frame, at: start)
            written = true
            if options.syncMode == .everyCommit {
                try state.active.dataSync()
                state.syncedLength = start + Int64(frame.count)
            }
        } catch {
            // Leave the file as before. After a failed fdatasync the page cache cannot be trusted
            // (a later sync may report success for lost pages), so the writer stops: reopen to recover.
            if written && options.syncMode == .everyCommit {
                stop = LogError(.io, "the writer stopped after a failed fdatasync; reopen the log to recover", path: state.active.path, offset: start)
            }
            do {
                try state.active.truncate(to: start)
                try state.active.dataSync()
                state.syncedLength = start
            } catch let truncation as LogError {
                stop = LogError(.io, "the writer stopped: cutting back a failed write also failed (\(truncation.message)); reopen the log to recover", path: state.active.path, offset: start)
                cutBackToSynced()
            }
            throw error
        }
        state.activeLength = start + Int64(frame.count)
        state.activeFrames += 1
    }

    /// After a failed sync, cuts the active segment back to what the last successful sync made durable, so
    /// that no later reader or writer (a reopen in this boot reads the page cache) takes pages the kernel
    /// dropped for data on the disk. Best effort: the writer has stopped already.
    private func cutBackToSynced() {
        try? state.active.truncate(to: state.syncedLength)
        try? state.active.dataSync()
    }

    /// Seals the active segment (synced) and starts the next, named by `firstSequence`.
    /// A failed sync stops the writer (the segment's unsynced pages may be gone), and so does a new segment
    /// that failed and could not be removed (it could come back after a crash, beside frames written after it).
    private func roll(firstSequence: UInt64, stop: inout LogError?) throws {
        if options.syncMode != .everyCommit {
            do {
                try state.active.dataSync()
                state.syncedLength = state.activeLength
                try? state.published.publish(state.nextSequence - 1, durable: true)
            } catch {
                stop = LogError(.io, "the writer stopped after a failed fdatasync; reopen the log to recover", path: state.active.path)
                cutBackToSynced()
                throw error
            }
        }
        let path = StoreDirectory.join(state.directory, StoreDirectory.segmentName(firstSequence: firstSequence))
        var cleanedUp = true
        let file: any LogFile
        do {
            file = try LogWriter.createSegment(
                path: path, header: SegmentHeader(firstSequence: firstSequence, startHash: state.lastHash), directory: state.directory,
                fileSystem: options.fileSystem, cleanedUp: &cleanedUp)
        } catch {
            if !cleanedUp {
                stop = LogError(.io, "the writer stopped: a new segment failed and could not be removed; reopen the log to recover", path: path)
            }
            throw error
        }
        state.active.close()
        state.active = file
        state.activeLength = Int64(LogFormat.segmentHeaderBytes)
        state.syncedLength = state.activeLength
        state.activeFrames = 0
    }

    private func takeLeadership() {
        while leaderActive { lock.wait() }
        leaderActive = true
    }

    func sync() throws {
        lock.lock()
        if let error = unavailable() {
            lock.unlock()
            throw error
        }
        takeLeadership()
        lock.unlock()
        defer {
            lock.lock()
            leaderActive = false
            lock.broadcast()
            lock.unlock()
        }
        do {
            try state.active.dataSync()
            state.syncedLength = state.activeLength
            try? state.published.publish(state.nextSequence - 1, durable: true)
        } catch let error as LogError {
            cutBackToSynced()
            lock.withLock { if stopped == nil { stopped = LogError(.io, "the writer stopped after a failed fdatasync; reopen the log to recover", path: state.active.path) } }
            throw error
        }
    }

    func close(beforeUnlocking: () -> Void = {}) throws {
        lock.lock()
        if closed {
            lock.unlock()
            return
        }
        takeLeadership()
        closed = true
        let abandoned = pending
        pending.removeAll()
        let error = LogError(.closed, "the writer was closed before this append was committed", path: state.directory)
        for request in abandoned { request.outcome = .failure(error) }
        lock.broadcast()
        lock.unlock()
        for request in abandoned { request.continuation?.resume(throwing: error) }
        var syncError: (any Error)? = nil
        if options.syncMode != .everyCommit && stopped == nil {
            do {
                try state.active.dataSync()
                try? state.published.publish(state.nextSequence - 1, durable: true)
            } catch {
                syncError = error
                cutBackToSynced()
            }
        }
        state.active.close()
        state.published.close()
        if syncError == nil && stopped == nil { beforeUnlocking() }
        directoryLock.release()
        lock.withLock {
            leaderActive = false
            lock.broadcast()
        }
        if let syncError { throw syncError }
    }
}
