import Glibc

/// A read-only view of a log as of ``open(directory:fileSystem:)`` or the last ``refresh()``.
///
/// Any number of readers may run, in any process, while one writer appends: a reader takes no lock.
/// While a writer holds the lock, the view ends at the last commit it has published
/// (`PublishedHead`: after its `fdatasync`), so a reader never shows an event a power loss
/// could still take back; a frame still being written at the very end of the log is "not yet
/// committed" and simply ends the view. Every frame read is checked against its CRC32C;
/// damage throws ``LogError`` `.corrupt`, it is never returned.
///
/// ```swift
/// let reader = try LogReader.open(directory: path)
/// try reader.forEach(from: 1) { event in apply(event) }
/// let start = try reader.firstSequence(recordedAtOrAfter: midnight)
/// ```
public struct LogReader: Sendable {
    var snapshot: StoreSnapshot

    /// Opens a view of the log in `directory`, walking frame headers (nothing is decompressed)
    /// from where the log's index (``LogIndexFile``) says the last scan ended, or from the start.
    /// - Parameters:
    ///   - directory: the log directory.
    ///   - fileSystem: where the log's files live (default: the real disk).
    ///   - keys: the data keys of an encrypted log (``LogKeys``); nil for a log that is not sealed.
    /// - Throws: ``LogError`` `.notFound`, `.corrupt`, `.chainMismatch`, `.unsupportedVersion`, `.io`;
    ///   `.keyRequired` when the log is sealed and no keys were given;
    ///   `.truncated` when the log ends before its published head (events were cut off its end).
    public static func open(directory: String, fileSystem: any LogFileSystem = PosixFileSystem(), keys: LogKeys? = nil) throws -> LogReader {
        let (role, published) = readerRole(directory, fileSystem: fileSystem)
        let snapshot = try StoreScanner.scan(
            directory: directory, role: role, prior: LogIndexFile.read(in: directory, fileSystem: fileSystem), fileSystem: fileSystem, keys: keys)
        try requireWhole(snapshot, published: published)
        return LogReader(snapshot: snapshot)
    }

    /// Moves the view to the current end of the log; sealed segments already seen are not
    /// re-read, and the last one is walked on from its last frame seen.
    /// - Throws: as ``open(directory:fileSystem:keys:)``.
    public mutating func refresh() throws {
        let fileSystem = snapshot.fileSystem
        let (role, published) = Self.readerRole(snapshot.directory, fileSystem: fileSystem)
        let next = try StoreScanner.scan(
            directory: snapshot.directory, role: role, reuse: snapshot, prior: ScanPrior(snapshot), fileSystem: fileSystem, keys: snapshot.keys)
        try Self.requireWhole(next, published: published)
        snapshot = next
    }

    /// While a writer holds the lock, the view ends at what it has published (made durable).
    /// Returns the role and the durable published head (read before the scan, so it is never
    /// ahead of what the scan finds on a whole log).
    private static func readerRole(_ directory: String, fileSystem: any LogFileSystem) -> (StoreScanner.Role, UInt64?) {
        // The published head is read before the probe: a writer that publishes and closes in
        // between leaves a view that is merely one commit short, never one past it.
        let durable = PublishedHead.readDurable(in: directory, fileSystem: fileSystem)
        let published = PublishedHead.read(in: directory, fileSystem: fileSystem)
        let active = fileSystem.isLockedForWriting(directory: directory)
        return (.reader(writerActive: active, publishedThrough: active ? published : nil), durable)
    }

    /// Refuses a view that ends before the published head read before it was scanned: the log
    /// lost events it had acknowledged, and answering from the rest would hide that.
    private static func requireWhole(_ snapshot: StoreSnapshot, published: UInt64?) throws {
        if let published, published > snapshot.head.sequence {
            throw PublishedHead.shortLogError(head: snapshot.head.sequence, published: published, directory: snapshot.directory)
        }
    }

    /// The digest of the last event in view.
    public var head: LogDigest { snapshot.head }

    /// Calls `body` with every event from `sequence` through `last` (default: the head), in order.
    ///
    /// Streams one frame at a time, so memory stays bounded by the largest frame.
    /// - Throws: ``LogError`` `.corrupt` when a frame fails its checksum or decoding, and whatever `body` throws.
    public func forEach(from sequence: UInt64 = 1, through last: UInt64? = nil, _ body: (LoggedEvent) throws -> Void) throws {
        try forEach(from: sequence, through: last, withFrameEndHashes: { event, _ in try body(event) })
    }

    /// Calls `body` with every event from `sequence` through `last` (default: the head), in
    /// order, and with the chain hash after the event when it is the last of its frame (the
    /// hash the frame's checked header stores; nil for every other event). A fold that
    /// records the chain hash of its checkpoint ends its batches at a frame's end and takes
    /// the hash from here, instead of decoding and hashing a frame again
    /// (``hash(of:)``).
    public func forEach(
        from sequence: UInt64 = 1, through last: UInt64? = nil, withFrameEndHashes body: (LoggedEvent, [UInt8]?) throws -> Void
    ) throws {
        let first = max(sequence, 1)
        let end = min(last ?? snapshot.head.sequence, snapshot.head.sequence)
        guard first <= end, let entry = entryIndex(containing: first) else { return }
        try walkFrames(from: entry) { frame in
            if frame.header.lastSequence < first { return true }
            if frame.header.firstSequence > end { return false }
            let frameLast = frame.header.lastSequence
            try frame.decode { event in
                if event.sequence >= first && event.sequence <= end {
                    try body(event, event.sequence == frameLast ? frame.header.lastHash : nil)
                }
            }
            return frameLast < end
        }
    }

    /// Calls `body` with the event at each of `sequences`, in log order, decoding each
    /// frame that holds one of them once, however many of them it holds: a run of scattered
    /// look-ups (an import's repeated keys, each naming the event that first used it) costs
    /// a frame per frame touched, not a frame per event. Each event is passed once; 0 and
    /// numbers past the head are passed over.
    ///
    /// - Parameter sequences: event numbers, in any order (ascending costs no sort).
    /// - Throws: ``LogError`` `.corrupt` when a frame fails its checksum or decoding, and whatever `body` throws.
    public func forEach(at sequences: [UInt64], _ body: (LoggedEvent) throws -> Void) throws {
        let sequences = zip(sequences, sequences.dropFirst()).allSatisfy { $0 <= $1 } ? sequences : sequences.sorted()
        let head = snapshot.head.sequence
        var next = sequences.startIndex
        while next < sequences.endIndex, sequences[next] == 0 { next += 1 }
        while next < sequences.endIndex, sequences[next] <= head {
            guard let entry = entryIndex(containing: sequences[next]) else { return }
            var decoded = false
            // From the sparse index's entry, over frame headers, to the frame holding the
            // next number; that frame is decoded, and the walk starts again from the index.
            try walkFrames(from: entry) { frame in
                if frame.header.lastSequence < sequences[next] { return true }
                try frame.decode { event in
                    while next < sequences.endIndex, sequences[next] < event.sequence { next += 1 }
                    guard next < sequences.endIndex, sequences[next] == event.sequence else { return }
                    try body(event)
                    while next < sequences.endIndex, sequences[next] == event.sequence { next += 1 }
                }
                while next < sequences.endIndex, sequences[next] <= frame.header.lastSequence { next += 1 }
                decoded = true
                return false
            }
            guard decoded else {
                throw LogError(.corrupt, "event \(sequences[next]) is within the head (\(head)) but no frame holds it", path: snapshot.directory)
            }
        }
    }

    /// Up to `limit` events starting at `from` (0 reads as 1).
    public func events(from: UInt64, limit: Int) throws -> [LoggedEvent] {
        guard limit > 0 else { return [] }
        let from = max(from, 1)
        var events: [LoggedEvent] = []
        let through = from.addingReportingOverflow(UInt64(limit) - 1)
        try forEach(from: from, through: through.overflow ? .max : through.partialValue) { events.append($0) }
        return events
    }

    /// The first event recorded at or after `instant` (µs since the epoch), or `nil` when every event is earlier.
    ///
    /// Binary search over the sparse frame index, then a walk over frame headers; decompresses at most one frame.
    public func firstSequence(recordedAtOrAfter instant: Int64) throws -> UInt64? {
        let entries = snapshot.entries
        guard !entries.isEmpty else { return nil }
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].recordedAtMin >= instant { high = middle } else { low = middle + 1 }
        }
        if low == 0 { return entries[0].firstSequence }
        var answer: UInt64? = nil
        try walkFrames(from: low - 1) { frame in
            if frame.header.recordedAtMax < instant { return true }
            if frame.header.recordedAtMin >= instant {
                answer = frame.header.firstSequence
                return false
            }
            try frame.decode { event in
                if answer == nil && event.recordedAt >= instant { answer = event.sequence }
            }
            return false
        }
        return answer
    }

    /// The chain hash after event `sequence`, recomputed from the hash stored before its frame
    /// (the head's is the last frame's stored hash); ``LogFormat/genesisHash`` for 0, `nil`
    /// past the head.
    public func hash(of sequence: UInt64) throws -> [UInt8]? {
        if sequence == 0 { return LogFormat.genesisHash }
        // The head's hash is the last frame's, checked when the view was opened: no frame is decoded.
        if sequence == snapshot.head.sequence { return snapshot.head.hash }
        guard sequence <= snapshot.head.sequence, let entry = entryIndex(containing: sequence) else { return nil }
        var result: [UInt8]? = nil
        try walkFrames(from: entry) { frame in
            if frame.header.lastSequence < sequence { return true }
            var hash = frame.hashBefore
            var decoded = false
            try frame.decode { event in
                decoded = true
                guard event.sequence <= sequence else { return }
                hash = ChainHash.next(after: hash, event)
            }
            // Events set aside as lost have no hash of their own; the frame's last keeps its stored one.
            result = decoded ? hash : sequence == frame.header.lastSequence ? frame.header.lastHash : nil
            return false
        }
        return result
    }

    /// Counts and sizes, from the frame headers walked at open (no I/O).
    public func statistics() throws -> LogStatistics {
        let segments = snapshot.segments
        return LogStatistics(
            events: snapshot.head.sequence,
            frames: segments.reduce(0) { $0 + $1.frames },
            segments: segments.count,
            bytesOnDisk: segments.reduce(0) { $0 + $1.validLength },
            uncompressedBytes: segments.reduce(0) { $0 + $1.uncompressedBytes },
            storedBytes: segments.reduce(0) { $0 + $1.storedBytes })
    }

    // MARK: Walking frames

    /// The index entry whose frames contain `sequence` (the last entry starting at or before it).
    func entryIndex(containing sequence: UInt64) -> Int? {
        let entries = snapshot.entries
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].firstSequence <= sequence { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    /// Visits frames in log order from index entry `entry` to the end of the view, while `visit` returns true.
    func walkFrames(from entry: Int, _ visit: (FrameCursor) throws -> Bool) throws {
        let start = snapshot.entries[entry]
        var offset = start.offset
        var hashBefore = start.hashBefore
        for segmentIndex in start.segment..<snapshot.segments.count {
            let segment = snapshot.segments[segmentIndex]
            if segmentIndex != start.segment {
                offset = Int64(LogFormat.segmentHeaderBytes)
                hashBefore = segment.header.startHash
            }
            guard offset < segment.validLength else { continue }
            let file = try snapshot.fileSystem.open(segment.path, mode: .read)
            defer { file.close() }
            while offset < segment.validLength {
                let headerBytes = try file.read(count: LogFormat.frameHeaderBytes, at: offset)
                guard headerBytes.count == LogFormat.frameHeaderBytes else {
                    throw LogError(.corrupt, "segment is shorter than when the reader opened it", path: segment.path, offset: offset)
                }
                let header = try headerBytes.withUnsafeBytes { try FrameHeader.decode($0, path: segment.path, offset: offset) }
                let cursor = FrameCursor(
                    file: file, path: segment.path, offset: offset, header: header, headerBytes: headerBytes, hashBefore: hashBefore,
                    keys: snapshot.keys)
                guard try visit(cursor) else { return }
                hashBefore = header.lastHash
                offset += header.frameBytes
            }
        }
    }
}

/// One frame found by a walk: its header, and a way to read, check and decode its body on demand.
struct FrameCursor {
    let file: any LogFile
    let path: String
    let offset: Int64
    let header: FrameHeader
    let headerBytes: [UInt8]
    let hashBefore: [UInt8]
    let keys: LogKeys?

    /// Reads the body, checks the frame checksum, decompresses and decodes every event. A frame a
    /// repair set aside as lost (``FrameHeader/isLost``) is checked and holds no event to visit.
    func decode(_ visit: (LoggedEvent) throws -> Void) throws {
        let stored = try file.read(count: Int(header.storedLength), at: offset + Int64(LogFormat.frameHeaderBytes))
        guard stored.count == Int(header.storedLength) else {
            throw LogError(.corrupt, "segment ends inside the frame for events \(header.firstSequence)…\(header.lastSequence)", path: path, offset: offset)
        }
        let records = try stored.withUnsafeBytes { body -> [UInt8]? in
            try headerBytes.withUnsafeBytes { try header.checkBody(header: $0, body: body, path: path, offset: offset) }
            if header.isLost { return nil }
            return try headerBytes.withUnsafeBytes {
                try FrameCodec.uncompressedBody(header, headerBytes: $0, stored: body, keys: keys, path: path, offset: offset)
            }
        }
        guard let records else { return }
        try FrameCodec.decodeBody(records, header: header, path: path, offset: offset, visit)
    }
}
