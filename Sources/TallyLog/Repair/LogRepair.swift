import Glibc

/// What ``LogRepair/repair(directory:)`` removed.
public struct LogRepairReport: Sendable {
    /// The damage that decided the cut, or `nil` when the log was sound and nothing changed.
    public let problem: LogError?
    /// The segment file that was cut (or removed whole), and the byte offset of the cut.
    public let cutPath: String?
    public let cutOffset: Int64?
    /// The first sequence number no longer in the log (every event from it on was removed).
    public let firstRemovedSequence: UInt64?
    /// Files written into `quarantine/`: the cut bytes, and whole later segments.
    public let quarantined: [String]
    /// Bytes moved out of the log.
    public let bytesRemoved: Int64
    /// Whether anything changed.
    public var changed: Bool { cutPath != nil }
}

/// Deliberate repair of a damaged log. Never automatic: `LogWriter.open` refuses damage, and this cuts it.
public enum LogRepair {
    /// Cuts the log at its first damaged structure, after copying everything cut into `quarantine/`.
    ///
    /// Verifies the whole log (as ``verifyLog(directory:expect:progress:)``); at the first problem, the
    /// bytes from the damaged frame (or the whole segment, for a damaged segment header) to the end of
    /// that segment are copied into `quarantine/`, every later segment is moved there, and the segment is
    /// truncated. Everything is synced. Events after the cut are gone from the log; the report says which.
    /// A torn last frame is left for `LogWriter.open`, which cuts it anyway.
    /// ```swift
    /// let report = try LogRepair.repair(directory: path)
    /// if report.changed { print("removed from \(report.firstRemovedSequence!) on; see \(report.quarantined)") }
    /// ```
    /// - Throws: ``LogError`` `.locked` while a writer is open, `.notFound`, `.io`.
    public static func repair(directory: String) throws -> LogRepairReport {
        let lock = try DirectoryLock.acquire(directory: directory)
        defer { lock.release() }
        var verifier = Verifier(directory: directory, expect: nil, writerActive: false)
        try verifier.run(progress: nil)
        guard let damage = verifier.firstDamage, let problem = verifier.problems.first else {
            return LogRepairReport(problem: nil, cutPath: nil, cutOffset: nil, firstRemovedSequence: nil, quarantined: [], bytesRemoved: 0)
        }
        let files = try StoreDirectory.segments(in: directory)
        let quarantine = StoreDirectory.join(directory, StoreDirectory.quarantineName)
        try StoreDirectory.makeDirectory(quarantine)
        let stamp = String(LogOptions.systemClock())
        var quarantined: [String] = []
        var removed: Int64 = 0
        let cut = files[damage.segment]
        let cutOffset = damage.offset < Int64(LogFormat.segmentHeaderBytes) ? 0 : damage.offset
        let cutName = StoreDirectory.segmentName(firstSequence: cut.firstSequence)

        // 1. Copy the cut bytes out, synced, before anything is removed.
        if cutOffset > 0 {
            let source = try FileDescriptor.open(cut.path, flags: O_RDWR)
            defer { source.close() }
            let length = try source.size()
            let target = StoreDirectory.join(quarantine, "\(cutName).from-\(cutOffset).\(stamp)")
            let copy = try FileDescriptor.open(target, flags: O_WRONLY | O_CREAT | O_EXCL)
            defer { copy.close() }
            var position = cutOffset
            while position < length {
                let chunk = try source.read(count: Int(min(length - position, 1 << 20)), at: position)
                if chunk.isEmpty { break }
                try copy.write(chunk, at: position - cutOffset)
                position += Int64(chunk.count)
            }
            try copy.fullSync()
            quarantined.append(target)
            removed += length - cutOffset
        }
        // 2. Move whole segments out (the damaged one too when its header is damaged).
        let firstWhole = cutOffset > 0 ? damage.segment + 1 : damage.segment
        for file in files[firstWhole...] {
            let target = StoreDirectory.join(quarantine, "\(StoreDirectory.segmentName(firstSequence: file.firstSequence)).\(stamp)")
            var status = stat()
            if stat(file.path, &status) == 0 { removed += Int64(status.st_size) }
            guard rename(file.path, target) == 0 else { throw ioError("rename", path: file.path, errno: errno) }
            quarantined.append(target)
        }
        try syncDirectory(quarantine)
        // 3. Truncate the damaged segment at the cut.
        if cutOffset > 0 {
            let file = try FileDescriptor.open(cut.path, flags: O_RDWR)
            defer { file.close() }
            try file.truncate(to: cutOffset)
            try file.fullSync()
        }
        // 4. An empty log still needs its first segment.
        if firstWhole == 0 {
            let path = StoreDirectory.join(directory, StoreDirectory.segmentName(firstSequence: 1))
            try LogWriter.createSegment(path: path, header: SegmentHeader(firstSequence: 1, startHash: LogFormat.genesisHash), directory: directory).close()
        }
        try syncDirectory(directory)
        return LogRepairReport(
            problem: problem, cutPath: cut.path, cutOffset: cutOffset, firstRemovedSequence: damage.sequence,
            quarantined: quarantined, bytesRemoved: removed)
    }
}
