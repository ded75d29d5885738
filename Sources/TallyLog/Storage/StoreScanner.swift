import Glibc

/// One entry of the sparse in-memory frame index: the first frame of a segment, then a frame
/// at least ``StoreScanner/indexStrideBytes`` past the previous entry.
struct IndexEntry: Sendable {
    var segment: Int
    var offset: Int64
    var firstSequence: UInt64
    var recordedAtMin: Int64
    var hashBefore: [UInt8]
}

/// What a scan learned about one segment file.
struct SegmentState: Sendable {
    var path: String
    var header: SegmentHeader
    /// Bytes up to the end of the last good frame (the header's 64 for an empty segment).
    var validLength: Int64
    var fileLength: Int64
    var lastSequence: UInt64
    var lastHash: [UInt8]
    var frames: UInt64
    var uncompressedBytes: Int64
    var storedBytes: Int64
    /// The recorded time of the last event up to and including this segment (`.min` before any event).
    var lastRecordedAt: Int64
    /// Where a later scan can pick this segment up: its last frame, and the state before it
    /// (nil before the first frame).
    var resume: ResumePoint? = nil
    var isEmpty: Bool { lastSequence < header.firstSequence }
}

/// A segment's last frame and the scan's state just before it: a later scan restores the state
/// and walks on from that frame (checked again, with whatever follows it), instead of walking
/// every frame header from the segment's start (``LogIndexFile``, a writer's own snapshots).
struct ResumePoint: Sendable, Equatable {
    var offset: Int64
    /// Where the frame before it starts (nil when it is the segment's first frame): a scan
    /// resuming from ``LogIndexFile`` reads that one header to check the restored state.
    var previousOffset: Int64?
    var lastSequence: UInt64
    var lastHash: [UInt8]
    var lastRecordedAt: Int64
    var frames: UInt64
    var uncompressedBytes: Int64
    var storedBytes: Int64
}

/// What an earlier scan knew, to resume from: each segment's file, start hash and resume
/// point, and the sparse index entries before those points.
struct ScanPrior: Sendable {
    struct Segment: Sendable {
        var firstSequence: UInt64
        var name: String
        var startHash: [UInt8]
        var resume: ResumePoint
    }

    var segments: [Segment]
    var entries: [IndexEntry]
    /// Read from ``LogIndexFile`` (a cache another process wrote): the frame resumed at has
    /// its chain recomputed from the restored hash before it is trusted.
    var isFromFile: Bool

    /// The resume points of a snapshot's segments, up to the first that has none.
    init(_ snapshot: StoreSnapshot, isFromFile: Bool = false) {
        var segments: [Segment] = []
        for segment in snapshot.segments {
            guard let resume = segment.resume else { break }
            segments.append(Segment(
                firstSequence: segment.header.firstSequence, name: StoreDirectory.name(of: segment.path),
                startHash: segment.header.startHash, resume: resume))
        }
        self.segments = segments
        self.entries = snapshot.entries.filter { entry in
            entry.segment < segments.count && entry.offset < segments[entry.segment].resume.offset
        }
        self.isFromFile = isFromFile
    }

    init(segments: [Segment], entries: [IndexEntry], isFromFile: Bool) {
        self.segments = segments
        self.entries = entries
        self.isFromFile = isFromFile
    }
}

/// How the last segment ends.
enum TailState: Sendable, Equatable {
    /// The last segment ends at a frame boundary.
    case clean
    /// A frame at this offset runs past the end of the file (or its header is short): a crash mid-write.
    case tornFrame(offset: Int64)
    /// Zero bytes from this offset to the end of the file.
    case zeroTail(offset: Int64)
    /// The last segment file is shorter than its header, or all zero: a crash while rolling.
    case tornSegmentHeader(path: String, firstSequence: UInt64)
    /// Readers only, while a writer holds the lock: the last frame does not check yet.
    case uncommitted(offset: Int64)
}

/// Everything an open needs: segments, the sparse frame index, the tail, the head.
struct StoreSnapshot: Sendable {
    var directory: String
    var fileSystem: any LogFileSystem
    /// The keys that open sealed frames, or nil for a log that is not sealed.
    var keys: LogKeys?
    var segments: [SegmentState]
    var entries: [IndexEntry]
    var tail: TailState
    var head: LogDigest
    var lastRecordedAt: Int64
    /// How many frame headers this scan walked (resumed segments count only what followed).
    var framesWalked: Int = 0
}

/// Walks a log directory's segments and frame headers (with `pread`, without decompressing), checking
/// segment headers, continuity between segments and frames, and, where the role asks, frame checksums.
enum StoreScanner {
    enum Role: Sendable {
        /// Checks every frame checksum of the last segment and the chain of its last frame.
        case writer
        /// Checks the last frame's checksum only; a bad last frame is "not yet committed" when a writer is active.
        ///
        /// This trusts the lock probe alone, deliberately: a reader never returns a frame that fails its
        /// checks, so the cost of a wrong "active" (an idle writer whose last frame was damaged on disk) is
        /// only that the view ends one frame early and the damage surfaces later, when `forEach` decodes that
        /// frame once it is no longer last, when the writer closes, or at once through `verifyLog`, which does
        /// not take the probe's word (see `Verifier.lastFrameIsInFlight`). ``DirectoryLock/release()`` unlocks
        /// explicitly, so the probe does not outlive a writer that closed, even while a process spawned at that
        /// moment still shares the lock's file description.
        ///
        /// `publishedThrough`, read from ``PublishedHead`` while a writer is active, ends the view at
        /// the last commit the writer made durable: frames written but not yet synced are not shown.
        case reader(writerActive: Bool, publishedThrough: UInt64? = nil)
    }

    static let indexStrideBytes: Int64 = 64 << 10

    /// Scans `directory`. With `reuse`, an earlier snapshot of the same log, its sealed segments
    /// (all but its last) are trusted as they were, since sealed segments never change.
    /// Scans `directory`, resuming each segment from `prior` where it can (see ``ScanPrior``);
    /// a prior read from the index file that does not hold up is dropped and the log walked
    /// from its start, so the file can only save time, never change an answer.
    static func scan(directory: String, role: Role, reuse: StoreSnapshot? = nil, prior: ScanPrior?, fileSystem: any LogFileSystem, keys: LogKeys? = nil) throws -> StoreSnapshot {
        guard let prior, prior.isFromFile else {
            return try walk(directory: directory, role: role, reuse: reuse, prior: prior, fileSystem: fileSystem, keys: keys)
        }
        do {
            return try walk(directory: directory, role: role, reuse: reuse, prior: prior, fileSystem: fileSystem, keys: keys)
        } catch let error as LogError where error.code == .keyRequired {
            throw error
        } catch {
            return try walk(directory: directory, role: role, reuse: reuse, prior: nil, fileSystem: fileSystem, keys: keys)
        }
    }

    static func scan(directory: String, role: Role, reuse: StoreSnapshot? = nil, fileSystem: any LogFileSystem, keys: LogKeys? = nil) throws -> StoreSnapshot {
        try walk(directory: directory, role: role, reuse: reuse, prior: nil, fileSystem: fileSystem, keys: keys)
    }

    private static func walk(directory: String, role: Role, reuse: StoreSnapshot?, prior: ScanPrior?, fileSystem: any LogFileSystem, keys: LogKeys? = nil) throws -> StoreSnapshot {
        let files = try StoreDirectory.segments(in: directory, fileSystem: fileSystem)
        guard !files.isEmpty else {
            throw LogError(.notFound, "no log here (no .tlog segment files); create one with LogWriter.create", path: directory)
        }
        var snapshot = StoreSnapshot(
            directory: directory, fileSystem: fileSystem, keys: keys, segments: [], entries: [], tail: .clean, head: .genesis, lastRecordedAt: .min)
        let startIndex = keepSealedSegments(of: reuse, files: files, in: &snapshot)
        for (index, file) in files.enumerated() where index >= startIndex {
            let descriptor = try fileSystem.open(file.path, mode: .read)
            defer { descriptor.close() }
            guard var walk = try SegmentWalk(
                path: file.path, named: file.firstSequence, isFirstFile: index == 0, isLast: index == files.count - 1,
                descriptor: descriptor, role: role, keys: keys, in: &snapshot)
            else { break }
            try walk.resume(from: prior, in: &snapshot)
            let reachedPublished = try walk.walkFrames(in: &snapshot)
            snapshot.segments.append(walk.segment)
            snapshot.head = LogDigest(sequence: walk.segment.lastSequence, hash: walk.segment.lastHash)
            if reachedPublished { break }
        }
        return snapshot
    }

    /// Takes the sealed segments (all but the last) of `reuse`, an earlier snapshot of the same
    /// log, as they were when the files still match (sealed segments never change); returns the
    /// index of the first file left to walk.
    private static func keepSealedSegments(of reuse: StoreSnapshot?, files: [(firstSequence: UInt64, path: String)], in snapshot: inout StoreSnapshot) -> Int {
        guard let reuse, reuse.segments.count >= 2 else { return 0 }
        let keep = reuse.segments.count - 1
        guard files.count > keep, zip(files[0..<keep], reuse.segments[0..<keep]).allSatisfy({ $0.path == $1.path }) else { return 0 }
        snapshot.segments = Array(reuse.segments[0..<keep])
        snapshot.entries = reuse.entries.filter { $0.segment < keep }
        let sealed = reuse.segments[keep - 1]
        snapshot.head = LogDigest(sequence: sealed.lastSequence, hash: sealed.lastHash)
        snapshot.lastRecordedAt = sealed.lastRecordedAt
        return keep
    }

    /// The walk of one segment file: its header, then its frames one by one, into the snapshot.
    private struct SegmentWalk {
        let path: String
        let isLast: Bool
        let descriptor: any LogFile
        let fileLength: Int64
        let role: Role
        let keys: LogKeys?
        /// The segment's place in the snapshot.
        let segmentIndex: Int
        /// What the walk has learned so far.
        var segment: SegmentState
        /// The next frame's offset.
        var offset = Int64(LogFormat.segmentHeaderBytes)
        /// The offset of the segment's last sparse index entry.
        var lastEntryOffset: Int64? = nil
        /// The offset of the frame before the one at ``offset``.
        var previousOffset: Int64? = nil

        /// Reads and checks the segment's header against its file name (`firstSequence`) and
        /// the chain so far; nil when the last segment's header is torn (a crash while rolling:
        /// the snapshot's tail says so).
        init?(
            path: String, named firstSequence: UInt64, isFirstFile: Bool, isLast: Bool, descriptor: any LogFile,
            role: Role, keys: LogKeys?, in snapshot: inout StoreSnapshot
        ) throws {
            let fileLength = try descriptor.size()
            guard firstSequence == snapshot.head.sequence + 1 else {
                let previous = isFirstFile ? "the log starts at sequence 1" : "the previous segment ends at \(snapshot.head.sequence)"
                throw LogError(.corrupt, "segment file is named for sequence \(firstSequence) but \(previous): a segment is missing or misnamed", path: path, offset: 0)
            }
            let headerBytes = try descriptor.read(count: LogFormat.segmentHeaderBytes, at: 0)
            if try headerBytes.count < LogFormat.segmentHeaderBytes || (headerBytes.allSatisfy { $0 == 0 } && isZero(descriptor, from: 0, to: fileLength)) {
                guard isLast else {
                    throw LogError(.corrupt, "sealed segment has a truncated or zeroed header", path: path, offset: 0)
                }
                snapshot.tail = .tornSegmentHeader(path: path, firstSequence: firstSequence)
                return nil
            }
            let header = try SegmentHeader.decode(headerBytes, path: path)
            guard header.firstSequence == firstSequence else {
                throw LogError(.corrupt, "segment header says first sequence \(header.firstSequence) but the file is named for \(firstSequence)", path: path, offset: 16)
            }
            guard header.startHash == snapshot.head.hash else {
                throw LogError(.chainMismatch, "segment header's starting chain hash does not match the hash after event \(snapshot.head.sequence) in the previous segment", path: path, offset: 24)
            }
            self.path = path
            self.isLast = isLast
            self.descriptor = descriptor
            self.fileLength = fileLength
            self.role = role
            self.keys = keys
            self.segmentIndex = snapshot.segments.count
            self.segment = SegmentState(
                path: path, header: header, validLength: Int64(LogFormat.segmentHeaderBytes), fileLength: fileLength,
                lastSequence: header.firstSequence - 1, lastHash: header.startHash, frames: 0, uncompressedBytes: 0, storedBytes: 0,
                lastRecordedAt: snapshot.lastRecordedAt)
        }

        /// Resumes where an earlier scan left this same segment: at its last frame, with the
        /// state before it (nothing when `prior` knows no such point for it).
        mutating func resume(from prior: ScanPrior?, in snapshot: inout StoreSnapshot) throws {
            let header = segment.header
            guard let prior, prior.segments.indices.contains(segmentIndex) else { return }
            let earlier = prior.segments[segmentIndex]
            guard earlier.firstSequence == header.firstSequence, earlier.name == StoreDirectory.name(of: path),
                  earlier.startHash == header.startHash, earlier.resume.offset + Int64(LogFormat.frameHeaderBytes) <= fileLength,
                  earlier.resume.lastSequence >= header.firstSequence - 1, earlier.resume.lastRecordedAt >= snapshot.lastRecordedAt
            else { return }
            let resume = earlier.resume
            segment.lastSequence = resume.lastSequence
            segment.lastHash = resume.lastHash
            segment.frames = resume.frames
            segment.uncompressedBytes = resume.uncompressedBytes
            segment.storedBytes = resume.storedBytes
            segment.validLength = resume.offset
            segment.lastRecordedAt = resume.lastRecordedAt
            snapshot.lastRecordedAt = resume.lastRecordedAt
            for entry in prior.entries where entry.segment == segmentIndex && entry.offset < resume.offset {
                snapshot.entries.append(entry)
                lastEntryOffset = entry.offset
            }
            offset = resume.offset
            previousOffset = resume.previousOffset
            if prior.isFromFile {
                try checkResumePoint(resume, header: header, descriptor: descriptor, path: path)
            }
        }

        /// Walks the frames from ``offset`` to the end of the file, or to where the log's
        /// good part ends (the tail says how); true when it stopped at the end of what a
        /// reader may see (frames past the published head).
        mutating func walkFrames(in snapshot: inout StoreSnapshot) throws -> Bool {
            while offset < fileLength {
                let frameHeaderBytes = try descriptor.read(count: LogFormat.frameHeaderBytes, at: offset)
                if let tail = try tornTail(frameHeaderBytes) {
                    snapshot.tail = tail
                    return false
                }
                let frame = try frameHeaderBytes.withUnsafeBytes { try FrameHeader.decode($0, path: path, offset: offset) }
                guard frame.firstSequence == segment.lastSequence + 1 else {
                    throw LogError(.corrupt, "frame starts at sequence \(frame.firstSequence) but \(segment.lastSequence + 1) comes next (sequence gap or overlap)", path: path, offset: offset)
                }
                guard frame.recordedAtMin >= snapshot.lastRecordedAt else {
                    throw LogError(.corrupt, "frame's recorded time \(frame.recordedAtMin) is before the previous frame's \(snapshot.lastRecordedAt)", path: path, offset: offset)
                }
                if case .reader(_, let published?) = role, frame.firstSequence > published {
                    // Written by the active writer but not yet durable: not part of the view.
                    snapshot.tail = .uncommitted(offset: offset)
                    return true
                }
                let frameEnd = offset + frame.frameBytes
                if frameEnd > fileLength {
                    guard isLast else {
                        throw LogError(.corrupt, "sealed segment ends inside the frame for events \(frame.firstSequence)…\(frame.lastSequence)", path: path, offset: offset)
                    }
                    snapshot.tail = .tornFrame(offset: offset)
                    return false
                }
                guard try checkBody(of: frame, headerBytes: frameHeaderBytes, isLastFrame: isLast && frameEnd == fileLength) else {
                    snapshot.tail = .uncommitted(offset: offset)
                    return false
                }
                advance(past: frame, to: frameEnd, in: &snapshot)
            }
            return false
        }

        /// The tail state when the frame header at ``offset`` is short, or starts with a zero
        /// and is followed only by zeros (a crash mid-write of the last segment); nil for a
        /// header to decode.
        private func tornTail(_ frameHeaderBytes: [UInt8]) throws -> TailState? {
            guard frameHeaderBytes.count < LogFormat.frameHeaderBytes || frameHeaderBytes[0] == 0 else { return nil }
            let remaining = fileLength - offset
            let zero = try isZero(descriptor, from: offset, to: fileLength)
            guard zero || remaining < Int64(LogFormat.frameHeaderBytes) else { return nil }
            guard isLast else {
                throw LogError(.corrupt, "sealed segment ends with \(remaining) bytes that are not a frame", path: path, offset: offset)
            }
            return zero ? .zeroTail(offset: offset) : .tornFrame(offset: offset)
        }

        /// Checks the frame's body where the role asks (a writer: every frame of the last
        /// segment, and the chain of the last frame; a reader: the last frame); false when a
        /// reader finds the last frame of an active writer not checking yet (not committed).
        private func checkBody(of frame: FrameHeader, headerBytes frameHeaderBytes: [UInt8], isLastFrame: Bool) throws -> Bool {
            let checksBody: Bool
            switch role {
            case .writer: checksBody = isLast
            case .reader: checksBody = isLastFrame
            }
            guard checksBody else { return true }
            let body = try descriptor.read(count: Int(frame.storedLength), at: offset + Int64(LogFormat.frameHeaderBytes))
            do {
                try frameHeaderBytes.withUnsafeBytes { headerRaw in
                    try body.withUnsafeBytes { try frame.checkBody(header: headerRaw, body: $0, path: path, offset: offset) }
                }
                if case .writer = role, isLastFrame {
                    try checkChain(frame, headerBytes: frameHeaderBytes, body: body, hashBefore: segment.lastHash, keys: keys, path: path, offset: offset)
                }
            } catch let error as LogError {
                if case .reader(writerActive: true, _) = role, isLastFrame, error.code == .corrupt { return false }
                throw error
            }
            return true
        }

        /// Takes the checked frame into the segment: a sparse index entry when due, the
        /// resume point before it, and the segment's counts, chain and recorded time after it.
        private mutating func advance(past frame: FrameHeader, to frameEnd: Int64, in snapshot: inout StoreSnapshot) {
            if lastEntryOffset.map({ offset - $0 >= indexStrideBytes }) ?? true {
                snapshot.entries.append(IndexEntry(
                    segment: segmentIndex, offset: offset, firstSequence: frame.firstSequence,
                    recordedAtMin: frame.recordedAtMin, hashBefore: segment.lastHash))
                lastEntryOffset = offset
            }
            segment.resume = ResumePoint(
                offset: offset, previousOffset: previousOffset, lastSequence: segment.lastSequence, lastHash: segment.lastHash,
                lastRecordedAt: snapshot.lastRecordedAt, frames: segment.frames, uncompressedBytes: segment.uncompressedBytes,
                storedBytes: segment.storedBytes)
            previousOffset = offset
            snapshot.framesWalked += 1
            segment.lastSequence = frame.lastSequence
            segment.lastHash = frame.lastHash
            segment.frames += 1
            segment.uncompressedBytes += Int64(frame.uncompressedLength)
            segment.storedBytes += Int64(frame.storedLength)
            segment.validLength = frameEnd
            snapshot.lastRecordedAt = frame.recordedAtMax
            segment.lastRecordedAt = frame.recordedAtMax
            offset = frameEnd
        }
    }

    /// Checks a resume point read from ``LogIndexFile`` against the segment, as a walk of the
    /// frame headers before it would have found it: the frame before the resume point (or
    /// the segment's header, when it resumes at the first frame) must end exactly there and
    /// store the restored chain hash, sequence number and recorded time. One frame header is
    /// read, nothing is decompressed; the frame at the resume point is then walked and
    /// checked as every frame is.
    ///
    /// - Throws: ``LogError`` `corrupt` when the index does not describe this segment (the
    ///   scan then drops it and walks the segment from its start).
    static func checkResumePoint(_ resume: ResumePoint, header: SegmentHeader, descriptor: any LogFile, path: String) throws {
        func stale(_ why: String) -> LogError {
            LogError(.corrupt, "the log's index does not describe this segment (\(why))", path: path, offset: resume.offset)
        }
        guard let previousOffset = resume.previousOffset else {
            guard resume.offset == Int64(LogFormat.segmentHeaderBytes), resume.lastHash == header.startHash,
                  resume.lastSequence == header.firstSequence - 1, resume.frames == 0 else {
                throw stale("its first frame does not follow the segment's header")
            }
            return
        }
        guard previousOffset >= Int64(LogFormat.segmentHeaderBytes), previousOffset < resume.offset else {
            throw stale("the frame before the resume point is out of place")
        }
        let bytes = try descriptor.read(count: LogFormat.frameHeaderBytes, at: previousOffset)
        guard bytes.count == LogFormat.frameHeaderBytes else { throw stale("the frame before the resume point is missing") }
        let previous = try bytes.withUnsafeBytes { try FrameHeader.decode($0, path: path, offset: previousOffset) }
        guard previousOffset + previous.frameBytes == resume.offset, previous.lastHash == resume.lastHash,
              previous.lastSequence == resume.lastSequence, previous.recordedAtMax == resume.lastRecordedAt,
              resume.frames >= 1 else {
            throw stale("the frame before the resume point does not end there with the restored chain hash")
        }
    }

    /// Decompresses a frame, recomputes its chain from `hashBefore` and compares with the stored last hash.
    /// A frame set aside as lost has no events to hash: its stored hash carries the chain on.
    static func checkChain(_ frame: FrameHeader, headerBytes: [UInt8], body: [UInt8], hashBefore: [UInt8], keys: LogKeys?, path: String, offset: Int64) throws {
        if frame.isLost { return }
        let records = try headerBytes.withUnsafeBytes { header in
            try body.withUnsafeBytes { try FrameCodec.uncompressedBody(frame, headerBytes: header, stored: $0, keys: keys, path: path, offset: offset) }
        }
        var hash = hashBefore
        try FrameCodec.decodeBody(records, header: frame, path: path, offset: offset) { hash = ChainHash.next(after: hash, $0) }
        guard hash == frame.lastHash else {
            throw LogError(.chainMismatch, "the chain recomputed through event \(frame.lastSequence) differs from the hash stored in its frame: history was rewritten", path: path, offset: offset)
        }
    }

    /// Whether every byte in `from..<to` is zero.
    static func isZero(_ descriptor: any LogFile, from: Int64, to: Int64) throws -> Bool {
        var position = from
        while position < to {
            let chunk = try descriptor.read(count: Int(min(to - position, 1 << 16)), at: position)
            if chunk.isEmpty { return true }
            if !chunk.allSatisfy({ $0 == 0 }) { return false }
            position += Int64(chunk.count)
        }
        return true
    }
}
