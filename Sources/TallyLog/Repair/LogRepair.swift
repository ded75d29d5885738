import Glibc

/// What ``LogRepair/plan(directory:fileSystem:keys:)`` found: the cut a repair would make, if any.
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

    /// The cut, or `nil` when the log has no damage and a repair changes nothing.
    public let cut: Cut?
    /// The last event the log keeps, with its chain hash recomputed from the data.
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
    /// Whether anything changed.
    public var changed: Bool { cutPath != nil }
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

    /// Cuts the log at its first damaged structure, after copying everything cut into `quarantine/`.
    ///
    /// Verifies the whole log (as ``verifyLog(directory:expect:capturingHashesAt:fileSystem:keys:progress:)``); at the first problem, the
    /// bytes from the damaged frame (or the whole segment, for a damaged segment header) to the end of
    /// that segment are copied into `quarantine/`, every later segment is moved there, and the segment is
    /// truncated. Everything is synced. Events after the cut are gone from the log; the report says which.
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
        guard let cut = plan.cut, let segmentIndex else {
            return LogRepairReport(
                problem: nil, cutPath: nil, cutOffset: nil, firstRemovedSequence: nil, lastRemovedSequence: nil,
                kept: plan.kept, quarantined: [], bytesRemoved: 0)
        }
        // The index describes the segments as they were before the cut.
        LogIndexFile.remove(in: directory, fileSystem: fileSystem)
        ScrubbedPrefix.remove(in: directory, fileSystem: fileSystem)
        let quarantined = try execute(cut, segmentIndex: segmentIndex, directory: directory, fileSystem: fileSystem)
        // What the log acknowledged is now its kept head: the cut log is whole again.
        try PublishedHead.reset(to: plan.kept.sequence, in: directory, fileSystem: fileSystem)
        return LogRepairReport(
            problem: cut.problem, cutPath: cut.path, cutOffset: cut.offset, firstRemovedSequence: cut.firstRemovedSequence,
            lastRemovedSequence: cut.lastRemovedSequence, kept: plan.kept, quarantined: quarantined, bytesRemoved: cut.bytesRemoved)
    }

    /// Verifies the log (the caller holds the lock) and works out the cut and the index of its segment.
    static func assess(directory: String, fileSystem: any LogFileSystem, keys: LogKeys?) throws -> (plan: LogRepairPlan, segmentIndex: Int?) {
        var verifier = Verifier(directory: directory, expect: nil, writerActive: false, fileSystem: fileSystem, keys: keys)
        try verifier.run(progress: nil)
        let verification = verifier.result()
        guard let damage = verifier.firstDamage, let problem = verifier.problems.first else {
            return (LogRepairPlan(cut: nil, kept: verification.head, tornTail: verifier.tornTail), nil)
        }
        let files = try StoreDirectory.segments(in: directory, fileSystem: fileSystem)
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
        return (LogRepairPlan(cut: cut, kept: verification.lastGood, tornTail: verifier.tornTail), damage.segment)
    }

    /// Makes the cut: copies, moves, truncates and syncs. Returns the files written into `quarantine/`.
    static func execute(_ cut: LogRepairPlan.Cut, segmentIndex: Int, directory: String, fileSystem: any LogFileSystem) throws -> [String] {
        let quarantine = StoreDirectory.join(directory, StoreDirectory.quarantineName)
        try fileSystem.makeDirectory(quarantine)
        let stamp = String(LogOptions.systemClock())
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
