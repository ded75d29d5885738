import Glibc

/// The outcome of ``verifyLog(directory:expect:capturingHashesAt:fileSystem:keys:progress:)``.
///
/// Every digest it reports is recomputed from the events' bytes; the chain hashes stored in frame
/// headers are only compared with, never reported, so a rewritten event cannot hide behind them.
public struct LogVerification: Sendable {
    /// How the log compared with an expected digest.
    public enum Expectation: Hashable, Sendable {
        /// The recomputed hash at the expected sequence number equals the expected hash.
        case matched
        /// The recomputed hash at the expected sequence number differs.
        case mismatched(recomputed: [UInt8])
        /// The log ends before the expected sequence number.
        case logShorter(head: UInt64)
        /// The event at the expected sequence number, or one before it, could not be read, so its hash
        /// cannot be recomputed.
        case unreadable(lastGood: LogDigest)
    }

    /// The last event's sequence number and the chain hash recomputed from the data through it: ``recomputedHead``
    /// when every event could be read, else ``lastGood``.
    public let head: LogDigest
    /// The chain recomputed from the data through the last event, never a hash stored in the log: it differs
    /// from a digest kept earlier whenever an event up to it was rewritten. `nil` when some event could not be
    /// read (a damaged frame body or segment header), since then no hash after it can be recomputed.
    public let recomputedHead: LogDigest?
    /// The last event before the first problem, with its recomputed chain hash (``head`` when there is none):
    /// every event up to it passed every check.
    public let lastGood: LogDigest
    /// The sequence number where the first problem lies (the first event of the damaged frame or segment), or `nil`.
    public let firstDamagedSequence: UInt64?
    /// The last sequence number the log's frame headers name (after a problem, as the headers claim).
    public let lastSequence: UInt64
    /// The recomputed chain hash after each event asked for with `capturingHashesAt`, keyed by sequence
    /// number (0 for the genesis hash). An event that could not be read, or past the log's end, is absent.
    public let hashes: [UInt64: [UInt8]]
    /// Events read.
    public let events: UInt64
    /// Frames read.
    public let frames: UInt64
    /// Segment files read.
    public let segments: Int
    /// Every problem found, in log order, each naming its segment file and byte offset.
    public let problems: [LogError]
    /// A torn last frame that the next `LogWriter.open` will cut (a crash mid-write), or a last frame the
    /// active writer was seen still writing. Neither is a problem.
    public let tornTail: LogError?
    /// Whether a writer held the log's lock when verification started. A bad last frame is still reported
    /// as a problem then, unless the frame was seen changing (being written) while it was checked.
    public let writerActive: Bool
    /// The comparison with `expect`, when one was given.
    public let expectation: Expectation?
    /// Events the log acknowledged (its published head, `PUBLISHED`, reaches them) that are no
    /// longer in it: the log was cut short after they were written. `nil` for a whole log.
    ///
    /// ```swift
    /// if let missing = report.missingAtEnd { print("events \(missing.lowerBound)…\(missing.upperBound) are gone") }
    /// ```
    public var missingAtEnd: ClosedRange<UInt64>? = nil
    /// Events a repair set aside as lost to damage (``LogRepair/repair(directory:fileSystem:keys:)``), in
    /// log order: their frames stand in the log with their sequence ranges and stored chain hashes and
    /// no events. Not a problem: every other event was checked. Across a lost range the recomputed
    /// chain goes on from the hash the lost frame stores (the events it was computed from are gone).
    ///
    /// ```swift
    /// for lost in report.lostEvents { print("events \(lost.lowerBound)…\(lost.upperBound) were lost to damage") }
    /// ```
    public var lostEvents: [ClosedRange<UInt64>] = []

    /// No problems, and the expected digest (if any) matched.
    public var isValid: Bool { problems.isEmpty && (expectation == nil || expectation == .matched) }
}

/// Reads the whole log and checks everything: segment headers, every frame header and CRC32C,
/// decompression and decoding, sequence continuity, recorded-time order, and every hash link.
///
/// Problems are collected with their segment file and offset rather than stopping at the first one:
/// after a bad frame body the walk resumes at the next frame; after a bad header, at the next segment.
/// The digests reported (``LogVerification/head``, ``LogVerification/lastGood``, the expectation and
/// ``LogVerification/hashes``) are recomputed from the events themselves.
///
/// ```swift
/// let report = try verifyLog(directory: path, expect: try LogDigest(parsing: saved))
/// print(report.recomputedHead ?? report.lastGood)          // keep it somewhere else
/// ```
/// - Parameters:
///   - directory: the log directory.
///   - expect: a digest kept from earlier; its sequence number's recomputed hash must equal its hash.
///   - sequences: sequence numbers whose recomputed chain hash to return in ``LogVerification/hashes``
///     (a read model's checkpoint, say).
///   - fileSystem: where the log's files live (default: the real disk).
///   - progress: called after each frame with the last sequence number checked.
/// - Throws: ``LogError`` only when the directory cannot be read at all.
public func verifyLog(
    directory: String, expect: LogDigest? = nil, capturingHashesAt sequences: Set<UInt64> = [],
    fileSystem: any LogFileSystem = PosixFileSystem(), keys: LogKeys? = nil, progress: ((UInt64) -> Void)? = nil
) throws -> LogVerification {
    var verifier = Verifier(
        directory: directory, expect: expect, capturing: sequences,
        writerActive: fileSystem.isLockedForWriting(directory: directory), fileSystem: fileSystem, keys: keys)
    try verifier.run(progress: progress)
    return verifier.result()
}

/// Where a problem lies, for repair: its segment (index in the file list), byte offset, the first
/// sequence number it touches and the stored chain hash before it; and for a frame whose body
/// alone is damaged, its header (its events can be set aside and the frames after it kept).
struct ProblemSite {
    var problem: LogError
    var segment: Int
    var offset: Int64
    var sequence: UInt64
    var hashBefore: [UInt8]
    var damagedBody: FrameHeader?
}

struct Verifier {
    let directory: String
    let fileSystem: any LogFileSystem
    /// The keys that open sealed frames, or nil for a log that is not sealed.
    let keys: LogKeys?
    let expect: LogDigest?
    let writerActive: Bool
    /// Sequence numbers whose recomputed hash is kept (the expected digest's among them).
    let capture: Set<UInt64>
    var captured: [UInt64: [UInt8]] = [:]
    var problems: [LogError] = []
    var tornTail: LogError? = nil
    var nextSequence: UInt64 = 1
    /// The chain as the log stores it: each frame is checked against the hash its predecessor stored, so one
    /// rewritten frame is one problem rather than a problem in every later frame.
    var hash = LogFormat.genesisHash
    /// The chain recomputed from the events alone, never taking a stored hash; `nil` once an event cannot be read.
    var recomputed: [UInt8]? = LogFormat.genesisHash
    /// The last event that passed every check before the first problem, with its recomputed hash.
    var lastGood = LogDigest.genesis
    var lastRecordedAt = Int64.min
    var events: UInt64 = 0
    var frames: UInt64 = 0
    var segments = 0
    /// After damage that hides where the log continues, the next segment's header is taken as given.
    var resynchronise = false
    /// The first problem's location, for repair: segment index in the file list and offset.
    var firstDamage: (segment: Int, offset: Int64, sequence: UInt64)? = nil
    /// Where each problem lies, in log order, for repair.
    var sites: [ProblemSite] = []
    /// Frames a repair set aside as lost, met on the walk.
    var lostEvents: [ClosedRange<UInt64>] = []
    /// The published head (`PUBLISHED`), read before the walk: the log must reach it.
    var published: UInt64? = nil
    /// Where the last segment's complete frames end (its first torn byte, or its length).
    var lastSegmentEnd: Int64 = 0
    /// The log was cut short: it ends before its published head.
    var shortBy: (head: UInt64, published: UInt64)? = nil

    init(directory: String, expect: LogDigest?, capturing sequences: Set<UInt64> = [], writerActive: Bool, fileSystem: any LogFileSystem, keys: LogKeys?) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.keys = keys
        self.expect = expect
        self.writerActive = writerActive
        var capture = sequences
        if let expect { capture.insert(expect.sequence) }
        self.capture = capture
        if capture.contains(0) { captured[0] = LogFormat.genesisHash }
    }

    /// Records a problem at `segment`; `damagedBody` is the header of a frame whose header checks and
    /// whose body fails its checksum (a repair can set its events aside and keep what follows).
    mutating func report(_ problem: LogError, segment: Int, damagedBody: FrameHeader? = nil) {
        problems.append(problem)
        if firstDamage == nil { firstDamage = (segment, problem.offset ?? 0, nextSequence) }
        sites.append(ProblemSite(
            problem: problem, segment: segment, offset: problem.offset ?? 0, sequence: nextSequence, hashBefore: hash,
            damagedBody: damagedBody))
    }

    /// Damage that hides events: nothing after it can be recomputed.
    mutating func loseTheChain() {
        recomputed = nil
    }

    mutating func run(progress: ((UInt64) -> Void)?) throws {
        let files = try StoreDirectory.segments(in: directory, fileSystem: fileSystem)
        guard !files.isEmpty else {
            throw LogError(.notFound, "no log here (no .tlog segment files)", path: directory)
        }
        segments = files.count
        // Read before the walk: a writer appends after it publishes nothing it has not written.
        published = PublishedHead.readDurable(in: directory, fileSystem: fileSystem)
        for (index, file) in files.enumerated() {
            let descriptor: any LogFile
            do { descriptor = try fileSystem.open(file.path, mode: .read) } catch let error as LogError {
                report(error, segment: index)
                resynchronise = true
                loseTheChain()
                continue
            }
            defer { descriptor.close() }
            try verifySegment(index: index, file: file, descriptor: descriptor, isLast: index == files.count - 1, progress: progress)
        }
        checkPublishedHead(lastSegment: files.count - 1)
    }

    /// A log that ends before its published head lost acknowledged events off its end: damage,
    /// even when its last frame is merely torn (that frame, or more, had been published).
    mutating func checkPublishedHead(lastSegment: Int) {
        let head = nextSequence - 1
        guard let published, published > head, !resynchronise else { return }
        shortBy = (head, published)
        tornTail = nil
        let problem = PublishedHead.shortLogError(head: head, published: published, directory: directory)
        problems.append(problem)
        if firstDamage == nil { firstDamage = (lastSegment, lastSegmentEnd, nextSequence) }
        sites.append(ProblemSite(problem: problem, segment: lastSegment, offset: lastSegmentEnd, sequence: nextSequence, hashBefore: hash, damagedBody: nil))
    }

    mutating func verifySegment(index: Int, file: (firstSequence: UInt64, path: String), descriptor: any LogFile, isLast: Bool, progress: ((UInt64) -> Void)?) throws {
        let path = file.path
        let fileLength = try descriptor.size()
        lastSegmentEnd = 0
        guard try checkSegmentHeader(index: index, file: file, descriptor: descriptor, fileLength: fileLength, isLast: isLast) else { return }
        var offset = Int64(LogFormat.segmentHeaderBytes)
        while offset < fileLength {
            let remaining = fileLength - offset
            let headerBytes = try descriptor.read(count: LogFormat.frameHeaderBytes, at: offset)
            if try headerBytes.count < LogFormat.frameHeaderBytes || (headerBytes[0] == 0 && StoreScanner.isZero(descriptor, from: offset, to: fileLength)) {
                let problem = LogError(.tornFrame, "\(remaining) bytes at the end are not a complete frame", path: path, offset: offset)
                lastSegmentEnd = offset
                if isLast { tornTail = problem } else { report(LogError(.corrupt, problem.message, path: path, offset: offset), segment: index); loseTheChain() }
                return
            }
            let frame: FrameHeader
            do { frame = try headerBytes.withUnsafeBytes { try FrameHeader.decode($0, path: path, offset: offset) } } catch let error as LogError {
                report(error, segment: index)
                resynchronise = true
                loseTheChain()
                return
            }
            let frameEnd = offset + frame.frameBytes
            if frameEnd > fileLength {
                let problem = LogError(.tornFrame, "the frame for events \(frame.firstSequence)…\(frame.lastSequence) runs past the end of the file", path: path, offset: offset)
                lastSegmentEnd = offset
                if isLast { tornTail = problem } else { report(LogError(.corrupt, problem.message, path: path, offset: offset), segment: index); loseTheChain() }
                return
            }
            let inFlight = try checkFrame(frame, headerBytes: headerBytes, at: offset, frameEnd: frameEnd, segment: index, descriptor: descriptor, isLastFrame: isLast && frameEnd == fileLength)
            if inFlight {
                lastSegmentEnd = offset
                return
            }
            offset = frameEnd
            progress?(frame.lastSequence)
        }
        lastSegmentEnd = offset
    }

    /// Checks a segment's header against the walk so far; false when the rest of the segment cannot be read.
    mutating func checkSegmentHeader(index: Int, file: (firstSequence: UInt64, path: String), descriptor: any LogFile, fileLength: Int64, isLast: Bool) throws -> Bool {
        let path = file.path
        let headerBytes = try descriptor.read(count: LogFormat.segmentHeaderBytes, at: 0)
        if try headerBytes.count < LogFormat.segmentHeaderBytes || (headerBytes.allSatisfy { $0 == 0 } && StoreScanner.isZero(descriptor, from: 0, to: fileLength)) {
            if isLast && !resynchronise && file.firstSequence == nextSequence {
                tornTail = LogError(.tornFrame, "the last segment's header is incomplete (a crash while rolling); LogWriter.open will rewrite it", path: path, offset: 0)
            } else {
                report(LogError(.corrupt, "segment header is truncated or zeroed", path: path, offset: 0), segment: index)
                resynchronise = true
                loseTheChain()
            }
            return false
        }
        let header: SegmentHeader
        do { header = try SegmentHeader.decode(headerBytes, path: path) } catch let error as LogError {
            report(error, segment: index)
            resynchronise = true
            loseTheChain()
            return false
        }
        if header.firstSequence != file.firstSequence {
            report(LogError(.corrupt, "segment header says first sequence \(header.firstSequence) but the file is named for \(file.firstSequence)", path: path, offset: 16), segment: index)
        }
        if resynchronise {
            nextSequence = header.firstSequence
            hash = header.startHash
            resynchronise = false
        } else {
            if header.firstSequence != nextSequence {
                report(LogError(.corrupt, "segment starts at sequence \(header.firstSequence) but \(nextSequence) comes next (a segment is missing or overlaps)", path: path, offset: 16), segment: index)
                nextSequence = header.firstSequence
            }
            if header.startHash != hash {
                report(LogError(.chainMismatch, "segment's starting chain hash differs from the hash recomputed through event \(nextSequence - 1)", path: path, offset: 24), segment: index)
                hash = header.startHash
            }
        }
        return true
    }

    /// Checks one complete frame: sequence, recorded time, checksum, decoding and both chains.
    /// Returns true when it is the last frame and the writer was seen still writing it (the walk stops).
    /// `isLastFrame`: the frame ends the log's last segment (only such a frame can be in flight).
    mutating func checkFrame(_ frame: FrameHeader, headerBytes: [UInt8], at offset: Int64, frameEnd: Int64, segment index: Int, descriptor: any LogFile, isLastFrame: Bool) throws -> Bool {
        let path = descriptor.path
        if frame.firstSequence != nextSequence {
            report(LogError(.corrupt, "frame starts at sequence \(frame.firstSequence) but \(nextSequence) comes next", path: path, offset: offset), segment: index)
            nextSequence = frame.firstSequence
        }
        if frame.recordedAtMin < lastRecordedAt {
            report(LogError(.corrupt, "frame's recorded time goes back before the previous frame's", path: path, offset: offset), segment: index)
        }
        let body = try descriptor.read(count: Int(frame.storedLength), at: offset + Int64(LogFormat.frameHeaderBytes))
        if frame.isLost {
            try checkLostFrame(frame, headerBytes: headerBytes, body: body, at: offset, segment: index, path: path)
            return false
        }
        var checksumFailed = false
        do {
            do {
                try headerBytes.withUnsafeBytes { headerRaw in
                    try body.withUnsafeBytes { try frame.checkBody(header: headerRaw, body: $0, path: path, offset: offset) }
                }
            } catch {
                checksumFailed = true
                throw error
            }
            let keys = self.keys
            let records = try headerBytes.withUnsafeBytes { header in
                try body.withUnsafeBytes { try FrameCodec.uncompressedBody(frame, headerBytes: header, stored: $0, keys: keys, path: path, offset: offset) }
            }
            let stored = try rechain(frame, records: records, path: path, offset: offset)
            if stored != frame.lastHash {
                report(LogError(.chainMismatch, "the chain recomputed through event \(frame.lastSequence) differs from the hash stored in its frame: an event in \(frame.firstSequence)…\(frame.lastSequence) or before was rewritten", path: path, offset: offset), segment: index)
            }
        } catch let error as LogError where error.code == .keyRequired {
            // Without the keys nothing past the headers can be checked: say so once, report nothing as damage.
            throw error
        } catch let error as LogError {
            if isLastFrame && writerActive,
               try Verifier.lastFrameIsInFlight(checked: headerBytes + body, at: offset, frameEnd: frameEnd, in: descriptor, directory: directory, fileSystem: fileSystem) {
                tornTail = LogError(.tornFrame, "the writer was still writing the last frame, for events \(frame.firstSequence)…\(frame.lastSequence)", path: path, offset: offset)
                return true
            }
            report(error, segment: index, damagedBody: checksumFailed ? frame : nil)
            loseTheChain()
        }
        // Continue from what the header says, so one damaged frame does not hide the rest.
        hash = frame.lastHash
        nextSequence = frame.lastSequence + 1
        lastRecordedAt = max(lastRecordedAt, frame.recordedAtMax)
        events += UInt64(frame.count)
        frames += 1
        if problems.isEmpty, let recomputed {
            lastGood = LogDigest(sequence: frame.lastSequence, hash: recomputed)
        }
        return false
    }

    /// A frame a repair set aside: its checksum must hold; its events are counted as lost, and both
    /// chains go on from the hash it stores.
    mutating func checkLostFrame(_ frame: FrameHeader, headerBytes: [UInt8], body: [UInt8], at offset: Int64, segment index: Int, path: String) throws {
        do {
            try headerBytes.withUnsafeBytes { headerRaw in
                try body.withUnsafeBytes { try frame.checkBody(header: headerRaw, body: $0, path: path, offset: offset) }
            }
            lostEvents.append(frame.firstSequence...frame.lastSequence)
            if recomputed != nil { recomputed = frame.lastHash }
            if capture.contains(frame.lastSequence), recomputed != nil { captured[frame.lastSequence] = frame.lastHash }
        } catch let error as LogError {
            report(error, segment: index)
            loseTheChain()
        }
        hash = frame.lastHash
        nextSequence = frame.lastSequence + 1
        lastRecordedAt = max(lastRecordedAt, frame.recordedAtMax)
        frames += 1
        if problems.isEmpty, let recomputed {
            lastGood = LogDigest(sequence: frame.lastSequence, hash: recomputed)
        }
    }

    /// Folds a frame's events into both chains: the one from the previous frame's stored hash (returned, to
    /// compare with this frame's), and the one recomputed from the data alone (``recomputed``), capturing the
    /// hashes asked for. While the two agree (always, on a sound log) each event is hashed once.
    mutating func rechain(_ frame: FrameHeader, records: [UInt8], path: String, offset: Int64) throws -> [UInt8] {
        let agreeing = recomputed == hash
        var stored = hash
        var data = recomputed
        var captured = self.captured
        let capturing = !capture.isEmpty
        let capture = self.capture
        try FrameCodec.decodeBody(records, header: frame, path: path, offset: offset) { event in
            stored = ChainHash.next(after: stored, event)
            if agreeing { data = stored } else if let previous = data { data = ChainHash.next(after: previous, event) }
            if capturing, capture.contains(event.sequence), let data { captured[event.sequence] = data }
        }
        self.captured = captured
        recomputed = data
        return stored
    }

    /// How long a bad last frame is watched for a write in progress before it counts as damage.
    static let inFlightGraceMicroseconds: Int = 50_000

    /// Whether a last frame that failed its checks is being written right now, rather than damaged.
    ///
    /// The lock probe (``DirectoryLock/isHeld(directory:)``) cannot decide this alone: it says some open file
    /// description holds the writer's lock, which is also true of an idle writer (whose last frame may have
    /// been damaged on disk), and of a crashed writer's lock kept by a child it forked without `exec`.
    /// Taking its word would hide damage from `verifyLog`, whose job is to find it. So a frame counts as in flight
    /// only if, while a writer still holds the lock, it is seen changing within
    /// ``inFlightGraceMicroseconds``: its bytes differ from `checked` (what was read and failed), or the
    /// file no longer reaches `frameEnd` (a failed write cut back). A writer writes a frame with one `pwrite`
    /// and never rewrites one in place, so bytes that stay the same are damage. Costs nothing on sound logs;
    /// at most the grace period once, for a bad last frame while a writer is open.
    /// - Parameters:
    ///   - checked: the frame header and body as read (the body possibly short).
    ///   - offset: where the frame starts; `frameEnd`: where its header says it ends.
    static func lastFrameIsInFlight(checked: [UInt8], at offset: Int64, frameEnd: Int64, in descriptor: any LogFile, directory: String, fileSystem: any LogFileSystem = PosixFileSystem()) throws -> Bool {
        var waited = 0
        var pause = 1_000
        while true {
            guard fileSystem.isLockedForWriting(directory: directory) else { return false }
            if try descriptor.size() < frameEnd { return true }
            if try descriptor.read(count: checked.count, at: offset) != checked { return true }
            if waited >= inFlightGraceMicroseconds { return false }
            usleep(useconds_t(pause))
            waited += pause
            pause = min(pause * 2, 16_000)
        }
    }

    func result() -> LogVerification {
        let lastSequence = nextSequence - 1
        let recomputedHead = recomputed.map { LogDigest(sequence: lastSequence, hash: $0) }
        var problems = self.problems
        var expectation: LogVerification.Expectation? = nil
        if let expect {
            if expect.sequence > lastSequence {
                expectation = .logShorter(head: lastSequence)
                problems.append(LogError(.notFound, "the log ends at sequence \(lastSequence), before the expected digest's sequence \(expect.sequence): events were removed", path: directory))
            } else if let recomputedHash = captured[expect.sequence] {
                if recomputedHash == expect.hash {
                    expectation = .matched
                } else {
                    expectation = .mismatched(recomputed: recomputedHash)
                    problems.append(LogError(.chainMismatch, "the hash recomputed at sequence \(expect.sequence) is \(hexString(recomputedHash)), not the expected \(hexString(expect.hash)): history was rewritten", path: directory))
                }
            } else {
                expectation = .unreadable(lastGood: lastGood)
                problems.append(LogError(.corrupt, "the hash at sequence \(expect.sequence) cannot be recomputed: the log is damaged before it (the last good event is \(lastGood))", path: directory))
            }
        }
        var verification = LogVerification(
            head: recomputedHead ?? lastGood, recomputedHead: recomputedHead, lastGood: lastGood,
            firstDamagedSequence: firstDamage?.sequence, lastSequence: lastSequence, hashes: captured,
            events: events, frames: frames, segments: segments, problems: problems,
            tornTail: tornTail, writerActive: writerActive, expectation: expectation)
        verification.missingAtEnd = shortBy.map { ($0.head + 1)...$0.published }
        verification.lostEvents = lostEvents
        return verification
    }
}
