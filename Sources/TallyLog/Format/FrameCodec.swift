#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Encodes events into a frame and decodes a frame back; pure, no I/O.
///
/// Records inside the uncompressed body, one after another:
///
/// ```
/// varint kind ‖ varint version
/// ‖ zigzag varint (recordedAt − previous recordedAt; the first record's previous is the header's minimum)
/// ‖ zigzag varint (effectiveAt − recordedAt)
/// ‖ varint cause distance (0 = none, else sequence − cause)
/// ‖ varint entity length ‖ entity ‖ varint key length (0 = none) ‖ key ‖ varint payload length ‖ payload
/// ```
enum FrameCodec {
    /// The most bytes one record can take in a frame body (used to admit calls before sequence numbers exist).
    static func recordBytesBound(entityBytes: Int, keyBytes: Int, payloadBytes: Int) -> Int {
        5 + 3 + 10 + 10 + 10 + (2 + entityBytes) + (2 + keyBytes) + (3 + payloadBytes)
    }

    /// Builds a complete frame (header and body) for `events`, which carry their final sequence numbers and times.
    /// - Returns: the frame bytes and the chain hash after the last event.
    /// With `keys`, the body is sealed (after compression) under their sealing key.
    static func encode(_ events: [LoggedEvent], previousHash: [UInt8], keys: LogKeys? = nil) -> (frame: [UInt8], lastHash: [UInt8]) {
        precondition(!events.isEmpty)
        var body = ByteWriter(capacity: events.reduce(0) { $0 + 48 + $1.payload.count + $1.entity.utf8.count })
        var hash = previousHash
        var previousRecordedAt = events[0].recordedAt
        var recordedAtMax = events[0].recordedAt
        for (index, event) in events.enumerated() {
            precondition(event.sequence == events[0].sequence + UInt64(index), "sequence numbers in a frame are consecutive")
            precondition(event.recordedAt >= previousRecordedAt, "recorded times in a frame are non-decreasing")
            body.appendVarint(UInt64(event.kind))
            body.appendVarint(UInt64(event.version))
            body.appendZigzag(event.recordedAt &- previousRecordedAt)
            body.appendZigzag(event.effectiveAt &- event.recordedAt)
            body.appendVarint(event.cause.map { event.sequence - $0 } ?? 0)
            var entity = event.entity
            entity.withUTF8 { body.appendVarint(UInt64($0.count)); body.bytes.append(contentsOf: $0) }
            if var key = event.idempotencyKey {
                key.withUTF8 { body.appendVarint(UInt64($0.count)); body.bytes.append(contentsOf: $0) }
            } else {
                body.appendVarint(0)
            }
            body.appendVarint(UInt64(event.payload.count))
            body.bytes.append(contentsOf: event.payload)
            previousRecordedAt = event.recordedAt
            recordedAtMax = max(recordedAtMax, event.recordedAt)
            hash = ChainHash.next(after: hash, event)
        }
        let uncompressed = body.bytes
        let headerBytes = LogFormat.frameHeaderBytes
        var flags: UInt16 = 0
        var stored: [UInt8]
        if let packed = BlockCompression.compress(uncompressed, effort: .high) {
            flags = LogFormat.frameFlagLZ4
            stored = packed
        } else {
            stored = uncompressed
        }
        let keyID = keys?.sealingKeyID ?? 0
        if keys != nil { flags |= LogFormat.frameFlagSealed }
        var frame = [UInt8](repeating: 0, count: headerBytes)
        FrameHeader.writeFields(
            into: &frame, flags: flags, firstSequence: events[0].sequence, count: UInt32(events.count),
            uncompressedLength: UInt32(uncompressed.count),
            storedLength: UInt32(stored.count + (keys == nil ? 0 : FrameSealing.overheadBytes)), keyID: keyID,
            recordedAtMin: events[0].recordedAt, recordedAtMax: recordedAtMax, lastHash: hash)
        if let keys, let key = keys.keys[keyID] {
            // Sealed after compression, bound to the header (sequence range, lengths, times, chain hash).
            stored = FrameSealing.seal(stored, key: key, associatedData: frame[0..<80])
        }
        frame.append(contentsOf: stored)
        FrameHeader.writeChecksums(into: &frame)
        return (frame, hash)
    }

    /// Turns a checked stored body into the uncompressed records of an unsealed frame.
    static func uncompressedBody(_ header: FrameHeader, stored: UnsafeRawBufferPointer, path: String, offset: Int64) throws -> [UInt8] {
        try [UInt8](repeating: 0, count: LogFormat.frameHeaderBytes).withUnsafeBytes {
            try uncompressedBody(header, headerBytes: $0, stored: stored, keys: nil, path: path, offset: offset)
        }
    }

    /// Turns a checked stored body into the uncompressed records: opens a sealed body with its key
    /// (the header's first 80 bytes as associated data), then decompresses.
    ///
    /// - Throws: ``LogError`` `keyRequired` for a sealed frame without keys; `corrupt` for an unsealed frame
    ///   in an encrypted log, a key identifier the keys do not hold, a body that does not authenticate, or one
    ///   that does not decompress.
    static func uncompressedBody(
        _ header: FrameHeader, headerBytes: UnsafeRawBufferPointer, stored: UnsafeRawBufferPointer, keys: LogKeys?,
        path: String, offset: Int64
    ) throws -> [UInt8] {
        let range = "\(header.firstSequence)…\(header.lastSequence)"
        var opened: [UInt8]? = nil
        switch (header.isSealed, keys) {
        case (false, nil):
            break
        case (true, nil):
            throw LogError(.keyRequired, "the frame for events \(range) is sealed (encrypted at rest): open the log with its keys", path: path, offset: offset)
        case (false, _?):
            throw LogError(.corrupt, "the frame for events \(range) is not sealed, but this log is encrypted: it was not written by the log's writer", path: path, offset: offset)
        case (true, let keys?):
            guard let key = keys.keys[header.keyID] else {
                throw LogError(.corrupt, "the frame for events \(range) is sealed under key \(header.keyID), which the log's keys do not hold", path: path, offset: offset)
            }
            guard let body = FrameSealing.open(stored, key: key, associatedData: UnsafeRawBufferPointer(rebasing: headerBytes[0..<80])) else {
                throw LogError(.corrupt, "the frame for events \(range) does not authenticate under key \(header.keyID): its body or header was altered", path: path, offset: offset)
            }
            opened = body
        }
        if let opened {
            guard header.isCompressed else { return opened }
            do {
                return try BlockCompression.decompress(opened, count: Int(header.uncompressedLength))
            } catch {
                throw LogError(.corrupt, "frame body for events \(range) does not decompress to its declared \(header.uncompressedLength) bytes", path: path, offset: offset)
            }
        }
        guard header.isCompressed else { return Array(stored) }
        do {
            return try BlockCompression.decompress(stored, count: Int(header.uncompressedLength))
        } catch {
            throw LogError(.corrupt, "frame body for events \(range) does not decompress to its declared \(header.uncompressedLength) bytes", path: path, offset: offset)
        }
    }

    /// Decodes the records of an uncompressed body, checking every field against the header.
    static func decodeBody(
        _ body: [UInt8], header: FrameHeader, path: String, offset: Int64,
        _ visit: (LoggedEvent) throws -> Void
    ) throws {
        func damaged(_ what: String) -> LogError {
            LogError(.corrupt, "frame for events \(header.firstSequence)…\(header.lastSequence): \(what)", path: path, offset: offset)
        }
        try body.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            // A frame's entities: every length from 16 bytes up to the longest an entity may be.
            var entities = RecentTexts(slotCount: 16, kept: 16...LogFormat.entityBytesMax)
            var previousRecordedAt = header.recordedAtMin
            for index in 0..<UInt64(header.count) {
                let sequence = header.firstSequence + index
                guard let kind = reader.readVarint(), kind <= UInt64(UInt32.max),
                      let version = reader.readVarint(), version <= UInt64(UInt16.max),
                      let recordedDelta = reader.readZigzag(),
                      let effectiveDelta = reader.readZigzag(),
                      let causeDistance = reader.readVarint()
                else { throw damaged("record \(sequence) has a malformed envelope") }
                let recordedAt = previousRecordedAt &+ recordedDelta
                guard recordedDelta >= 0, recordedAt <= header.recordedAtMax else {
                    throw damaged("record \(sequence) has a recorded time outside the frame's range")
                }
                guard causeDistance < sequence else { throw damaged("record \(sequence) names a cause before sequence 1") }
                guard let entityLength = reader.readVarint(), entityLength <= UInt64(LogFormat.entityBytesMax),
                      let entityBytes = reader.readBytes(Int(entityLength)),
                      let entity = entities.text(entityBytes)
                else { throw damaged("record \(sequence) has a malformed entity") }
                guard let keyLength = reader.readVarint(), keyLength <= UInt64(LogFormat.idempotencyKeyBytesMax),
                      let keyBytes = reader.readBytes(Int(keyLength)),
                      let key = keyLength == 0 ? Optional("") : UTF8Text.string(keyBytes.assumingMemoryBound(to: UInt8.self))
                else { throw damaged("record \(sequence) has a malformed idempotency key") }
                guard let payloadLength = reader.readVarint(), payloadLength <= UInt64(LogFormat.payloadBytesMax),
                      let payload = reader.readBytes(Int(payloadLength))
                else { throw damaged("record \(sequence) has a malformed payload") }
                previousRecordedAt = recordedAt
                try visit(LoggedEvent(
                    sequence: sequence, recordedAt: recordedAt, kind: UInt32(kind), version: UInt16(version),
                    effectiveAt: recordedAt &+ effectiveDelta, entity: entity,
                    cause: causeDistance == 0 ? nil : sequence - causeDistance,
                    idempotencyKey: keyLength == 0 ? nil : key, payload: Array(payload)))
            }
            guard reader.remaining == 0 else { throw damaged("\(reader.remaining) bytes follow the last record") }
            guard previousRecordedAt == header.recordedAtMax else { throw damaged("the last recorded time differs from the header's") }
        }
    }
}

/// The texts a run of decodes met last (a frame's entities; a read's account names), so that
/// a text equal to one of them is that string again, compared byte for byte, instead of a
/// new one allocated and validated: a frame's events name few entities over and over (an
/// import's rows post to a handful of accounts), and the events of a read few accounts.
///
/// Only texts whose length is in `kept` are kept: one of up to 15 bytes lives inside its
/// `String` value, made without allocating, so keeping it saves nothing (caching those cost
/// more than it saved, measured), and a long one (a note) rarely repeats.
package struct RecentTexts {
    private var slots: [String?]
    private let kept: ClosedRange<Int>

    /// A window of `slotCount` texts (a power of two), keeping texts of `kept` bytes.
    package init(slotCount: Int, kept: ClosedRange<Int>) {
        precondition(slotCount > 0 && slotCount & (slotCount - 1) == 0, "a power of two")
        slots = Array(repeating: nil, count: slotCount)
        self.kept = kept
    }

    /// The text of `bytes`, the one met recently when equal; nil when not valid UTF-8.
    package mutating func text(_ bytes: UnsafeRawBufferPointer) -> String? {
        let typed = bytes.assumingMemoryBound(to: UInt8.self)
        guard kept.contains(bytes.count), let first = typed.first, let last = typed.last else { return UTF8Text.string(typed) }
        let place = (bytes.count &* 7 &+ Int(first) &* 3 &+ Int(last)) & (slots.count - 1)
        if let recent = slots[place], Self.equal(recent, bytes) { return recent }
        let decoded = UTF8Text.string(typed)
        if decoded != nil { slots[place] = decoded }
        return decoded
    }

    private static func equal(_ text: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in utf8.count == bytes.count && memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
    }
}
