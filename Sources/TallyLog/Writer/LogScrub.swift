/// The check a writer makes before it writes anything: every frame not yet scrubbed since the
/// last check is read back from the disk and its checksum checked, so that damage in the middle
/// of the log (a flipped byte in a frame written long ago) stops the writer before it
/// acknowledges a commit on top of it.
///
/// What was scrubbed is remembered in ``ScrubbedPrefix`` (`SCRUBBED`), written when a writer
/// that committed something closes (a writer that commits nothing, a refused command, leaves
/// the store's files as they were), so each frame is read once by the first writer that opens
/// after it was written: opening a healthy log whose frames were all scrubbed reads no frame
/// at all, and a writer that follows a bulk import reads the imported frames once. A frame
/// damaged after it was scrubbed is found by `verifyLog` (and, through a repair, loses only
/// its own events).
enum LogScrub {
    /// What a scrub read.
    struct Outcome: Sendable, Equatable {
        /// Frames whose checksum was checked.
        var frames: Int
        /// Bytes read (headers and bodies).
        var bytes: Int64
    }

    /// Checks every frame of `snapshot` after the scrubbed prefix; with `record`, then records the
    /// head as scrubbed (a writer records it when it closes, having committed).
    ///
    /// - Throws: ``LogError`` `.corrupt` naming the segment file and byte offset of the first
    ///   frame that fails its checksum (nothing is written then), `.io` for a failed read.
    @discardableResult
    static func run(_ snapshot: StoreSnapshot, record: Bool = false) throws -> Outcome {
        let head = snapshot.head
        guard head.sequence > 0 else { return Outcome(frames: 0, bytes: 0) }
        let reader = LogReader(snapshot: snapshot)
        let start = try scrubbedThrough(reader, prefix: ScrubbedPrefix.read(in: snapshot.directory, fileSystem: snapshot.fileSystem)) + 1
        guard start <= head.sequence, let entry = reader.entryIndex(containing: start) else { return Outcome(frames: 0, bytes: 0) }
        var outcome = Outcome(frames: 0, bytes: 0)
        try reader.walkFrames(from: entry) { frame in
            if frame.header.lastSequence < start { return true }
            let body = try frame.file.read(count: Int(frame.header.storedLength), at: frame.offset + Int64(LogFormat.frameHeaderBytes))
            do {
                guard body.count == Int(frame.header.storedLength) else {
                    throw LogError(.corrupt, "segment ends inside the frame for events \(frame.header.firstSequence)…\(frame.header.lastSequence)", path: frame.path, offset: frame.offset)
                }
                try body.withUnsafeBytes { raw in
                    try frame.headerBytes.withUnsafeBytes { try frame.header.checkBody(header: $0, body: raw, path: frame.path, offset: frame.offset) }
                }
            } catch let error as LogError {
                throw LogError(
                    .corrupt,
                    "\(error.message): the log is damaged before its end, so nothing is written on top of it. "
                        + "Run `verify` to see every damaged frame, and `repair` to set it aside",
                    path: error.path, offset: error.offset)
            }
            outcome.frames += 1
            outcome.bytes += frame.header.frameBytes
            return frame.header.lastSequence < head.sequence
        }
        if record { ScrubbedPrefix.write(head, in: snapshot.directory, fileSystem: snapshot.fileSystem) }
        return outcome
    }

    /// How far the log was scrubbed: the prefix's sequence when the frame ending there still
    /// stores the prefix's chain hash, else 0 (a log replaced, cut or rewritten since: scrub it all).
    static func scrubbedThrough(_ reader: LogReader, prefix: LogDigest?) throws -> UInt64 {
        guard let prefix, prefix.sequence > 0, prefix.sequence <= reader.head.sequence else { return 0 }
        if prefix.sequence == reader.head.sequence { return prefix.hash == reader.head.hash ? prefix.sequence : 0 }
        guard let entry = reader.entryIndex(containing: prefix.sequence) else { return 0 }
        var holds = false
        try reader.walkFrames(from: entry) { frame in
            if frame.header.lastSequence < prefix.sequence { return true }
            holds = frame.header.lastSequence == prefix.sequence && frame.header.lastHash == prefix.hash
            return false
        }
        return holds ? prefix.sequence : 0
    }
}

/// `SCRUBBED` in a log directory: the last event through which a writer read every frame back
/// and checked it (``LogScrub``), with the chain hash its frame stores. 48 bytes: `TLSC`, the
/// sequence (`UInt64`, little-endian), the 32-byte hash, and the CRC32C of those 44 bytes.
///
/// A cache, never the truth: written without a sync (by a rename, so it is whole or absent);
/// one that is missing, damaged, past the head, or whose hash the frame at its sequence does not
/// store, only makes the next writer scrub from the start. Repair removes it.
enum ScrubbedPrefix {
    static let fileName = "SCRUBBED"
    static let byteCount = 48
    private static let magic: [UInt8] = Array("TLSC".utf8)

    static func encoded(_ digest: LogDigest) -> [UInt8] {
        precondition(digest.hash.count == 32, "a chain hash is 32 bytes")
        var bytes = magic + [UInt8](repeating: 0, count: 8) + digest.hash
        bytes.storeLittleEndian(digest.sequence, at: 4)
        let checksum = CRC32C.checksum(bytes[0..<44])
        bytes += [0, 0, 0, 0]
        bytes.storeLittleEndian(checksum, at: 44)
        return bytes
    }

    /// The recorded prefix, or nil when there is no whole, checked record.
    static func read(in directory: String, fileSystem: any LogFileSystem) -> LogDigest? {
        guard let bytes = fileSystem.readHint(StoreDirectory.join(directory, fileName), limit: byteCount + 1),
              bytes.count == byteCount, Array(bytes[0..<4]) == magic,
              bytes.loadLittleEndian(UInt32.self, at: 44) == CRC32C.checksum(bytes[0..<44]) else { return nil }
        return LogDigest(sequence: bytes.loadLittleEndian(UInt64.self, at: 4), hash: Array(bytes[12..<44]))
    }

    /// Records `digest` as scrubbed (best effort: a failure leaves the old record or none).
    static func write(_ digest: LogDigest, in directory: String, fileSystem: any LogFileSystem) {
        fileSystem.replaceHint(StoreDirectory.join(directory, fileName), with: encoded(digest))
    }

    /// Removes the record (repair: the frames it describes change).
    static func remove(in directory: String, fileSystem: any LogFileSystem) {
        fileSystem.removeHint(StoreDirectory.join(directory, fileName))
    }
}
