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
    var isEmpty: Bool { lastSequence < header.firstSequence }
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
    var segments: [SegmentState]
    var entries: [IndexEntry]
    var tail: TailState
    var head: LogDigest
    var lastRecordedAt: Int64
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
    static func scan(directory: String, role: Role, reuse: StoreSnapshot? = nil, fileSystem: any LogFileSystem) throws -> StoreSnapshot {
        let files = try StoreDirectory.segments(in: directory, fileSystem: fileSystem)
        guard !files.isEmpty else {
            throw LogError(.notFound, "no log here (no .tlog segment files); create one with LogWriter.create", path: directory)
        }
        var snapshot = StoreSnapshot(
            directory: directory, fileSystem: fileSystem, segments: [], entries: [], tail: .clean, head: .genesis, lastRecordedAt: .min)
        var startIndex = 0
        if let reuse, reuse.segments.count >= 2 {
            let keep = reuse.segments.count - 1
            if files.count > keep, zip(files[0..<keep], reuse.segments[0..<keep]).allSatisfy({ $0.path == $1.path }) {
                snapshot.segments = Array(reuse.segments[0..<keep])
                snapshot.entries = reuse.entries.filter { $0.segment < keep }
                let sealed = reuse.segments[keep - 1]
                snapshot.head = LogDigest(sequence: sealed.lastSequence, hash: sealed.lastHash)
                snapshot.lastRecordedAt = sealed.lastRecordedAt
                startIndex = keep
            }
        }
        var reachedPublished = false
        for (index, file) in files.enumerated() where index >= startIndex {
            let isLast = index == files.count - 1
            let descriptor = try fileSystem.open(file.path, mode: .read)
            defer { descriptor.close() }
            let fileLength = try descriptor.size()
            let expectedFirst = snapshot.head.sequence + 1
            guard file.firstSequence == expectedFirst else {
                let previous = index == 0 ? "the log starts at sequence 1" : "the previous segment ends at \(snapshot.head.sequence)"
                throw LogError(.corrupt, "segment file is named for sequence \(file.firstSequence) but \(previous): a segment is missing or misnamed", path: file.path, offset: 0)
            }
            let headerBytes = try descriptor.read(count: LogFormat.segmentHeaderBytes, at: 0)
            if try headerBytes.count < LogFormat.segmentHeaderBytes || (headerBytes.allSatisfy { $0 == 0 } && isZero(descriptor, from: 0, to: fileLength)) {
                guard isLast else {
                    throw LogError(.corrupt, "sealed segment has a truncated or zeroed header", path: file.path, offset: 0)
                }
                snapshot.tail = .tornSegmentHeader(path: file.path, firstSequence: file.firstSequence)
                break
            }
            let header = try SegmentHeader.decode(headerBytes, path: file.path)
            guard header.firstSequence == file.firstSequence else {
                throw LogError(.corrupt, "segment header says first sequence \(header.firstSequence) but the file is named for \(file.firstSequence)", path: file.path, offset: 16)
            }
            guard header.startHash == snapshot.head.hash else {
                throw LogError(.chainMismatch, "segment header's starting chain hash does not match the hash after event \(snapshot.head.sequence) in the previous segment", path: file.path, offset: 24)
            }
            var segment = SegmentState(
                path: file.path, header: header, validLength: Int64(LogFormat.segmentHeaderBytes), fileLength: fileLength,
                lastSequence: header.firstSequence - 1, lastHash: header.startHash, frames: 0, uncompressedBytes: 0, storedBytes: 0,
                lastRecordedAt: snapshot.lastRecordedAt)
            var offset = Int64(LogFormat.segmentHeaderBytes)
            var lastEntryOffset: Int64? = nil
            let segmentIndex = snapshot.segments.count
            frames: while offset < fileLength {
                let remaining = fileLength - offset
                let frameHeaderBytes = try descriptor.read(count: LogFormat.frameHeaderBytes, at: offset)
                if frameHeaderBytes.count < LogFormat.frameHeaderBytes || frameHeaderBytes[0] == 0 {
                    // A short header, or a zero start: torn if the header is short or everything to the end is zero.
                    let zero = try isZero(descriptor, from: offset, to: fileLength)
                    if zero || remaining < Int64(LogFormat.frameHeaderBytes) {
                        guard isLast else {
                            throw LogError(.corrupt, "sealed segment ends with \(remaining) bytes that are not a frame", path: file.path, offset: offset)
                        }
                        snapshot.tail = zero ? .zeroTail(offset: offset) : .tornFrame(offset: offset)
                        break frames
                    }
                }
                let frame = try frameHeaderBytes.withUnsafeBytes { try FrameHeader.decode($0, path: file.path, offset: offset) }
                guard frame.firstSequence == segment.lastSequence + 1 else {
                    throw LogError(.corrupt, "frame starts at sequence \(frame.firstSequence) but \(segment.lastSequence + 1) comes next (sequence gap or overlap)", path: file.path, offset: offset)
                }
                guard frame.recordedAtMin >= snapshot.lastRecordedAt else {
                    throw LogError(.corrupt, "frame's recorded time \(frame.recordedAtMin) is before the previous frame's \(snapshot.lastRecordedAt)", path: file.path, offset: offset)
                }
                if case .reader(_, let published?) = role, frame.firstSequence > published {
                    // Written by the active writer but not yet durable: not part of the view.
                    snapshot.tail = .uncommitted(offset: offset)
                    reachedPublished = true
                    break frames
                }
                let frameEnd = offset + frame.frameBytes
                if frameEnd > fileLength {
                    guard isLast else {
                        throw LogError(.corrupt, "sealed segment ends inside the frame for events \(frame.firstSequence)…\(frame.lastSequence)", path: file.path, offset: offset)
                    }
                    snapshot.tail = .tornFrame(offset: offset)
                    break frames
                }
                let isLastFrame = isLast && frameEnd == fileLength
                let checkBody: Bool
                switch role {
                case .writer: checkBody = isLast
                case .reader: checkBody = isLastFrame
                }
                if checkBody {
                    let body = try descriptor.read(count: Int(frame.storedLength), at: offset + Int64(LogFormat.frameHeaderBytes))
                    do {
                        try frameHeaderBytes.withUnsafeBytes { headerRaw in
                            try body.withUnsafeBytes { try frame.checkBody(header: headerRaw, body: $0, path: file.path, offset: offset) }
                        }
                        if case .writer = role, isLastFrame {
                            try checkChain(frame, body: body, hashBefore: segment.lastHash, path: file.path, offset: offset)
                        }
                    } catch let error as LogError {
                        if case .reader(writerActive: true, _) = role, isLastFrame, error.code == .corrupt {
                            snapshot.tail = .uncommitted(offset: offset)
                            break frames
                        }
                        throw error
                    }
                }
                if lastEntryOffset.map({ offset - $0 >= indexStrideBytes }) ?? true {
                    snapshot.entries.append(IndexEntry(
                        segment: segmentIndex, offset: offset, firstSequence: frame.firstSequence,
                        recordedAtMin: frame.recordedAtMin, hashBefore: segment.lastHash))
                    lastEntryOffset = offset
                }
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
            snapshot.segments.append(segment)
            snapshot.head = LogDigest(sequence: segment.lastSequence, hash: segment.lastHash)
            if reachedPublished { break }
        }
        return snapshot
    }

    /// Decompresses a frame, recomputes its chain from `hashBefore` and compares with the stored last hash.
    static func checkChain(_ frame: FrameHeader, body: [UInt8], hashBefore: [UInt8], path: String, offset: Int64) throws {
        let records = try body.withUnsafeBytes { try FrameCodec.uncompressedBody(frame, stored: $0, path: path, offset: offset) }
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
