import Glibc

/// A damaged frame whose events a repair sets aside, keeping every frame after it: its header
/// checks (so its sequence range and stored chain hash are known) and its body does not.
public struct LostFrame: Sendable {
    /// The damage: the body's checksum mismatch.
    public let problem: LogError
    /// The segment file holding the frame.
    public let path: String
    /// The frame's byte offset in ``path``.
    public let offset: Int64
    /// The first event lost.
    public let firstSequence: UInt64
    /// The last event lost.
    public let lastSequence: UInt64
    /// How many events are lost.
    public var events: UInt64 { lastSequence - firstSequence + 1 }
}

/// What ``LogRepair/plan(directory:fileSystem:keys:)`` found: the frames a repair would set aside and
/// the cut it would make, if any.
public struct LogRepairPlan: Sendable {
    /// The part of the log a repair removes: from the first damaged structure to the end of the log.
    public struct Cut: Sendable {
        /// The damage that decides the cut (the first problem ``verifyLog(directory:expect:capturingHashesAt:fileSystem:keys:progress:)`` finds).
        public let problem: LogError
        /// The segment file that is cut (or removed whole).
        public let path: String
        /// The byte offset of the cut in ``path``; 0 when the whole segment goes (its header is damaged).
        public let offset: Int64
        /// The first sequence number no longer in the log: every event from it on is removed.
        public let firstRemovedSequence: UInt64
        /// The last sequence number removed, as the frame headers name it; `nil` when the damage hides where the
        /// log ended (a damaged header in the last segment).
        public let lastRemovedSequence: UInt64?
        /// Later segment files that are moved out whole.
        public let laterSegments: [String]
        /// Bytes moved out of the log.
        public let bytesRemoved: Int64

        /// How many events are removed, when ``lastRemovedSequence`` is known.
        public var eventsRemoved: UInt64? {
            lastRemovedSequence.map { $0 >= firstRemovedSequence ? $0 - firstRemovedSequence + 1 : 0 }
        }
    }

    /// The cut, or `nil` when the log has no damage past what ``setAside`` covers.
    public let cut: Cut?
    /// Damaged frames, before any cut, whose events are set aside as lost while every frame after
    /// them is kept: each is copied to `quarantine/` and replaced, in place, by a frame that keeps its
    /// sequence range and stored chain hash and holds no event.
    public var setAside: [LostFrame] = []
    /// The last event the log keeps: with its chain hash recomputed from the data, or, after frames set
    /// aside, the hash the frames store.
    public let kept: LogDigest
    /// A torn last frame (a crash mid-write). It is not damage: the next `LogWriter.open` cuts it by itself,
    /// and a repair leaves it to that (or removes it with the rest, when it lies after a cut).
    public let tornTail: LogError?
}

/// What ``LogRepair/repair(directory:fileSystem:keys:)`` removed.
public struct LogRepairReport: Sendable {
    /// The damage that decided the cut, or `nil` when the log was sound and nothing changed.
    public let problem: LogError?
    /// The segment file that was cut (or removed whole).
    public let cutPath: String?
    /// The byte offset in ``cutPath`` where the log now ends (0 when the file was removed whole).
    public let cutOffset: Int64?
    /// The first sequence number no longer in the log (every event from it on was removed).
    public let firstRemovedSequence: UInt64?
    /// The last sequence number removed, when the damage did not hide it.
    public let lastRemovedSequence: UInt64?
    /// The last event the log keeps, with its recomputed chain hash: the log's head after the repair.
    public let kept: LogDigest
    /// Files written into `quarantine/`: the cut bytes, and whole later segments.
    public let quarantined: [String]
    /// Bytes moved out of the log.
    public let bytesRemoved: Int64
    /// Damaged frames whose events were set aside as lost, every frame after them kept.
    public var setAside: [LostFrame] = []
    /// Whether anything changed.
    public var changed: Bool { cutPath != nil || !setAside.isEmpty }
}

/// Deliberate repair of a damaged log. Never automatic: `LogWriter.open` refuses damage, and this cuts it.
public enum LogRepair {
    /// Says what ``repair(directory:fileSystem:keys:)`` would cut, changing nothing.
    ///
    /// Takes the writer's lock while it looks (so it sees what a repair would), and releases it.
    /// ```swift
    /// let plan = try LogRepair.plan(directory: path)
    /// if let cut = plan.cut { print("would remove \(cut.firstRemovedSequence)… from \(cut.path) at byte \(cut.offset)") }
    /// ```
    /// - Throws: ``LogError`` `.locked` while a writer is open, `.notFound`, `.io`.
    public static func plan(directory: String, fileSystem: any LogFileSystem = PosixFileSystem(), keys: LogKeys? = nil) throws -> LogRepairPlan {
        let lock = try fileSystem.lockForWriting(directory: directory)
        defer { lock.release() }
        return try assess(directory: directory, fileSystem: fileSystem, keys: keys).plan
    }

    /// Sets aside the events of frames whose bodies are damaged, keeping every frame after them, and cuts
    /// the log at damage that hides what follows; everything removed is copied into `quarantine/` first.
    ///
    /// Verifies the whole log (as ``verifyLog(directory:expect:capturingHashesAt:fileSystem:keys:progress:)``).
    /// A frame whose header checks but whose body fails its checksum (a flipped byte), followed by events
    /// the log made durable (its durable published head, `PUBLISHED`, lies past it), is copied into
    /// `quarantine/` and replaced in place by a frame of the same length that keeps its
    /// sequence range and stored chain hash and holds no event: its events are lost, and `verifyLog`
    /// names them (``LogVerification/lostEvents``); every later frame, hash-linked from its own header,
    /// stays. At the first other problem (a damaged header, a sequence gap, a rewritten event, a damaged
    /// last frame, a log cut short), the bytes from there to the end of that segment are copied into
    /// `quarantine/`, every later segment is moved there, and the segment is truncated. Everything is
    /// synced. The report says which events were set aside and which cut.
    /// A torn last frame is left for `LogWriter.open`, which cuts it anyway.
    /// ```swift
    /// let report = try LogRepair.repair(directory: path)
    /// if report.changed { print("removed from \(report.firstRemovedSequence!) on; see \(report.quarantined)") }
    /// ```
    /// - Throws: ``LogError`` `.locked` while a writer is open, `.notFound`, `.io`.
    public static func repair(directory: String, fileSystem: any LogFileSystem = PosixFileSystem(), keys: LogKeys? = nil) throws -> LogRepairReport {
        let lock = try fileSystem.lockForWriting(directory: directory)
        defer { lock.release() }
        let (plan, segmentIndex) = try assess(directory: directory, fileSystem: fileSystem, keys: keys)
        guard plan.cut != nil || !plan.setAside.isEmpty else {
            return LogRepairReport(
                problem: nil, cutPath: nil, cutOffset: nil, firstRemovedSequence: nil, lastRemovedSequence: nil,
                kept: plan.kept, quarantined: [], bytesRemoved: 0)
        }
        // The index and the scrubbed prefix describe the segments as they were.
        LogIndexFile.remove(in: directory, fileSystem: fileSystem)
        ScrubbedPrefix.remove(in: directory, fileSystem: fileSystem)
        let stamp = String(LogOptions.systemClock())
        var quarantined = try setAside(plan.setAside, directory: directory, stamp: stamp, fileSystem: fileSystem)
        var report = LogRepairReport(
            problem: plan.cut?.problem ?? plan.setAside.first?.problem, cutPath: nil, cutOffset: nil, firstRemovedSequence: nil,
            lastRemovedSequence: nil, kept: plan.kept, quarantined: quarantined, bytesRemoved: 0)
        report.setAside = plan.setAside
        guard let cut = plan.cut, let segmentIndex else { return report }
        quarantined += try execute(cut, segmentIndex: segmentIndex, directory: directory, fileSystem: fileSystem, stamp: stamp)
        // What the log acknowledged is now its kept head: the cut log is whole again.
        try PublishedHead.reset(to: plan.kept.sequence, in: directory, fileSystem: fileSystem)
        report = LogRepairReport(
            problem: cut.problem, cutPath: cut.path, cutOffset: cut.offset, firstRemovedSequence: cut.firstRemovedSequence,
            lastRemovedSequence: cut.lastRemovedSequence, kept: plan.kept, quarantined: quarantined, bytesRemoved: cut.bytesRemoved)
        report.setAside = plan.setAside
        return report
    }

    /// Copies each damaged frame into `quarantine/` (synced), then replaces it in place by a lost frame
    /// of the same length (synced). Returns the copies.
    static func setAside(_ frames: [LostFrame], directory: String, stamp: String, fileSystem: any LogFileSystem) throws -> [String] {
        guard !frames.isEmpty else { return [] }
        let quarantine = StoreDirectory.join(directory, StoreDirectory.quarantineName)
        try fileSystem.makeDirectory(quarantine)
        var copies: [String] = []
        for lost in frames {
            let file = try fileSystem.open(lost.path, mode: .readWrite)
            defer { file.close() }
            let headerBytes = try file.read(count: LogFormat.frameHeaderBytes, at: lost.offset)
            let header = try headerBytes.withUnsafeBytes { try FrameHeader.decode($0, path: lost.path, offset: lost.offset) }
            precondition(header.firstSequence == lost.firstSequence && header.lastSequence == lost.lastSequence, "the frame set aside is the one verified")
            let name = (lost.path.split(separator: "/").last).map(String.init) ?? lost.path
            let target = StoreDirectory.join(quarantine, "\(name).frame-\(lost.offset).\(stamp)")
            let original = try file.read(count: Int(header.frameBytes), at: lost.offset)
            let copy = try fileSystem.open(target, mode: .createNew)
            do {
                try copy.write(original, at: 0)
                try copy.fullSync()
                copy.close()
            } catch {
                copy.close()
                throw error
            }
            try fileSystem.syncDirectory(quarantine)
            copies.append(target)
            let replacement = FrameHeader.lostFrame(replacing: header)
            assert(replacement.count == original.count, "a lost frame is as long as the frame it replaces")
            try file.write(replacement, at: lost.offset)
            try file.fullSync()
        }
        return copies
    }

    /// Verifies the log (the caller holds the lock) and works out the frames set aside, the cut and the
    /// index of its segment.
    static func assess(directory: String, fileSystem: any LogFileSystem, keys: LogKeys?) throws -> (plan: LogRepairPlan, segmentIndex: Int?) {
        var verifier = Verifier(directory: directory, expect: nil, writerActive: false, fileSystem: fileSystem, keys: keys)
        try verifier.run(progress: nil)
        let verification = verifier.result()
        let files = try StoreDirectory.segments(in: directory, fileSystem: fileSystem)
        // A damaged body is set aside when events the log made durable follow it (its durable
        // published head is past it): those were acknowledged, and are kept. Damage with nothing
        // durable after it (a writer without syncing that crashed, its unsynced frames torn out of
        // order) and every other damage is cut, as a crash's unsynced tail is.
        let durable = PublishedHead.readDurable(in: directory, fileSystem: fileSystem) ?? 0
        let cutAt = verifier.sites.firstIndex { site in
            guard let frame = site.damagedBody else { return true }
            return frame.lastSequence >= min(verification.lastSequence, durable)
        }
        let setAside = verifier.sites[..<(cutAt ?? verifier.sites.endIndex)].map { site in
            LostFrame(
                problem: site.problem, path: files[site.segment].path, offset: site.offset,
                firstSequence: site.damagedBody!.firstSequence, lastSequence: site.damagedBody!.lastSequence)
        }
        guard let cutAt else {
            let kept = setAside.isEmpty ? verification.head : LogDigest(sequence: verification.lastSequence, hash: verifier.hash)
            var plan = LogRepairPlan(cut: nil, kept: kept, tornTail: verifier.tornTail)
            plan.setAside = setAside
            return (plan, nil)
        }
        let site = verifier.sites[cutAt]
        let damage = (segment: site.segment, offset: site.offset, sequence: site.sequence)
        let problem = site.problem
        let cutFile = files[damage.segment]
        let offset = damage.offset < Int64(LogFormat.segmentHeaderBytes) ? 0 : damage.offset
        let later = Array(files[(damage.segment + 1)...].map(\.path))
        var bytes = max(0, try fileSystem.fileSize(cutFile.path) - offset)
        for path in later { bytes += try fileSystem.fileSize(path) }
        // A header damaged in the last segment hides where the log ended; a log cut short lost
        // everything through its published head.
        var last: UInt64? = verifier.resynchronise ? nil : verification.lastSequence
        if let short = verifier.shortBy { last = short.published }
        let cut = LogRepairPlan.Cut(
            problem: problem, path: cutFile.path, offset: offset, firstRemovedSequence: damage.sequence,
            lastRemovedSequence: last.map { max($0, damage.sequence - 1) }, laterSegments: later, bytesRemoved: bytes)
        let kept = setAside.isEmpty ? verification.lastGood : LogDigest(sequence: site.sequence - 1, hash: site.hashBefore)
        var plan = LogRepairPlan(cut: cut, kept: kept, tornTail: verifier.tornTail)
        plan.setAside = setAside
        return (plan, damage.segment)
    }

    /// Makes the cut: copies, moves, truncates and syncs. Returns the files written into `quarantine/`.
    static func execute(_ cut: LogRepairPlan.Cut, segmentIndex: Int, directory: String, fileSystem: any LogFileSystem, stamp: String) throws -> [String] {
        let quarantine = StoreDirectory.join(directory, StoreDirectory.quarantineName)
        try fileSystem.makeDirectory(quarantine)
        var quarantined: [String] = []
        let cutName = (cut.path.split(separator: "/").last).map(String.init) ?? cut.path

        // 1. Copy the cut bytes out, synced, before anything is removed.
        if cut.offset > 0, try fileSystem.fileSize(cut.path) > cut.offset {
            let target = StoreDirectory.join(quarantine, "\(cutName).from-\(cut.offset).\(stamp)")
            try copyTail(of: cut.path, from: cut.offset, to: target, fileSystem: fileSystem)
            quarantined.append(target)
        }
        // 2. Move whole segments out (the damaged one too when its header is damaged).
        for path in (cut.offset > 0 ? [] : [cut.path]) + cut.laterSegments {
            let name = (path.split(separator: "/").last).map(String.init) ?? path
            let target = StoreDirectory.join(quarantine, "\(name).\(stamp)")
            try fileSystem.rename(path, to: target)
            quarantined.append(target)
        }
        try fileSystem.syncDirectory(quarantine)
        // 3. Truncate the damaged segment at the cut.
        if cut.offset > 0 {
            let file = try fileSystem.open(cut.path, mode: .readWrite)
            defer { file.close() }
            try file.truncate(to: cut.offset)
            try file.fullSync()
        }
        // 4. An empty log still needs its first segment.
        if cut.offset == 0 && segmentIndex == 0 {
            let path = StoreDirectory.join(directory, StoreDirectory.segmentName(firstSequence: 1))
            try LogWriter.createSegment(
                path: path, header: SegmentHeader(firstSequence: 1, startHash: LogFormat.genesisHash), directory: directory,
                fileSystem: fileSystem).close()
        }
        try fileSystem.syncDirectory(directory)
        return quarantined
    }

    /// Copies the bytes of `path` from `offset` on into a new file `target`, synced.
    static func copyTail(of path: String, from offset: Int64, to target: String, fileSystem: any LogFileSystem) throws {
        let source = try fileSystem.open(path, mode: .read)
        defer { source.close() }
        let length = try source.size()
        let copy = try fileSystem.open(target, mode: .createNew)
        defer { copy.close() }
        var position = offset
        while position < length {
            let chunk = try source.read(count: Int(min(length - position, 1 << 20)), at: position)
            if chunk.isEmpty { break }
            try copy.write(chunk, at: position - offset)
            position += Int64(chunk.count)
        }
        try copy.fullSync()
    }
}
