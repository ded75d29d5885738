/// `INDEX` in a log directory: where the last scan of each segment ended (its last frame,
/// and the scan's state before it) and the sparse frame index up to there, so that opening a
/// log walks only the frames written since, not every frame header of every segment.
///
/// It is a cache, never the truth: the writer rewrites it (write to a temporary name, then
/// rename; no sync) after an open that walked many frames and when it closes; a file that is
/// missing, torn, of another version, or that does not match the segments (a different
/// start hash, a file now shorter, a frame before the resume point that does not end there
/// with the restored chain hash) is ignored and the log walked from its start
/// (``StoreScanner/checkResumePoint(_:header:descriptor:path:)``).
/// Repair removes it. `verify` never reads it.
///
/// Layout (little-endian): `TLIX`, version `UInt16` (2), segment count `UInt32`; per segment
/// its first sequence, name, start hash and resume point (the offset of the frame before it,
/// -1 for none, follows its offset); entry count `UInt32` and entries; then the CRC32C of
/// everything before it. Version 1 (no previous offset) is ignored: the next open walks the
/// log and writes version 2.
enum LogIndexFile {
    static let name = "INDEX"
    static let magic: [UInt8] = Array("TLIX".utf8)
    static let version: UInt16 = 2
    /// A scan that walked at least this many frames is worth an index for the next open.
    static let worthWritingFrames = 256
    /// The length of a chain hash.
    static let hashBytes = LogFormat.genesisHash.count

    static func encode(_ prior: ScanPrior) -> [UInt8] {
        var writer = ByteWriter(capacity: 128 + prior.entries.count * 64)
        writer.append(contentsOf: magic)
        writer.append(version)
        writer.append(UInt32(prior.segments.count))
        for segment in prior.segments {
            writer.append(segment.firstSequence)
            let name = Array(segment.name.utf8)
            writer.append(UInt16(name.count))
            writer.append(contentsOf: name)
            writer.append(contentsOf: segment.startHash)
            let resume = segment.resume
            writer.append(resume.offset)
            writer.append(resume.previousOffset ?? -1)
            writer.append(resume.lastSequence)
            writer.append(contentsOf: resume.lastHash)
            writer.append(resume.lastRecordedAt)
            writer.append(resume.frames)
            writer.append(resume.uncompressedBytes)
            writer.append(resume.storedBytes)
        }
        writer.append(UInt32(prior.entries.count))
        for entry in prior.entries {
            writer.append(UInt32(entry.segment))
            writer.append(entry.offset)
            writer.append(entry.firstSequence)
            writer.append(entry.recordedAtMin)
            writer.append(contentsOf: entry.hashBefore)
        }
        writer.append(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// The prior a file holds, or nil when it is anything but a whole, checked index.
    static func decode(_ bytes: [UInt8]) -> ScanPrior? {
        guard bytes.count >= magic.count + 2 + 4 + 4 + 4 else { return nil }
        let body = bytes.count - 4
        return bytes.withUnsafeBytes { raw -> ScanPrior? in
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[body...]))
            guard let stored: UInt32 = reader.read(), stored == CRC32C.checksum(Array(bytes[..<body])) else { return nil }
            reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[..<body]))
            func hash() -> [UInt8]? {
                guard reader.remaining >= hashBytes else { return nil }
                let value = Array(UnsafeRawBufferPointer(rebasing: reader.base[reader.position..<(reader.position + hashBytes)]))
                reader.position += hashBytes
                return value
            }
            guard reader.remaining >= magic.count,
                  Array(UnsafeRawBufferPointer(rebasing: reader.base[0..<magic.count])) == magic else { return nil }
            reader.position = magic.count
            guard let fileVersion: UInt16 = reader.read(), fileVersion == version, let count: UInt32 = reader.read() else { return nil }
            var segments: [ScanPrior.Segment] = []
            for _ in 0..<count {
                guard let first: UInt64 = reader.read(), let nameLength: UInt16 = reader.read(),
                      reader.remaining >= Int(nameLength) else { return nil }
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: reader.base[reader.position..<(reader.position + Int(nameLength))]), as: UTF8.self)
                reader.position += Int(nameLength)
                guard let startHash = hash(), let offset: Int64 = reader.read(), let previousOffset: Int64 = reader.read(),
                      previousOffset >= -1, let lastSequence: UInt64 = reader.read(),
                      let lastHash = hash(), let lastRecordedAt: Int64 = reader.read(), let frames: UInt64 = reader.read(),
                      let uncompressed: Int64 = reader.read(), let stored: Int64 = reader.read() else { return nil }
                segments.append(ScanPrior.Segment(
                    firstSequence: first, name: name, startHash: startHash,
                    resume: ResumePoint(offset: offset, previousOffset: previousOffset == -1 ? nil : previousOffset, lastSequence: lastSequence, lastHash: lastHash, lastRecordedAt: lastRecordedAt,
                                        frames: frames, uncompressedBytes: uncompressed, storedBytes: stored)))
            }
            guard let entryCount: UInt32 = reader.read() else { return nil }
            var entries: [IndexEntry] = []
            entries.reserveCapacity(Int(entryCount))
            for _ in 0..<entryCount {
                guard let segment: UInt32 = reader.read(), Int(segment) < segments.count, let offset: Int64 = reader.read(),
                      let first: UInt64 = reader.read(), let recordedAtMin: Int64 = reader.read(), let hashBefore = hash() else { return nil }
                entries.append(IndexEntry(segment: Int(segment), offset: offset, firstSequence: first, recordedAtMin: recordedAtMin, hashBefore: hashBefore))
            }
            guard reader.remaining == 0 else { return nil }
            return ScanPrior(segments: segments, entries: entries, isFromFile: true)
        }
    }

    /// The index in `directory`, when there is a readable one.
    static func read(in directory: String, fileSystem: any LogFileSystem) -> ScanPrior? {
        fileSystem.readHint(StoreDirectory.join(directory, name), limit: 1 << 30).flatMap(decode)
    }

    /// Writes the index of `snapshot` (best effort: a failure leaves the old file or none).
    static func write(_ snapshot: StoreSnapshot) {
        let prior = ScanPrior(snapshot)
        guard !prior.segments.isEmpty else { return }
        snapshot.fileSystem.replaceHint(StoreDirectory.join(snapshot.directory, name), with: encode(prior))
    }

    /// Removes the index (repair: the segments it describes change).
    static func remove(in directory: String, fileSystem: any LogFileSystem) {
        fileSystem.removeHint(StoreDirectory.join(directory, name))
    }
}
