/// Checks one `append` call before it is queued: every limit that does not depend on sequence numbers.
/// - Returns: an upper bound of the call's encoded bytes in a frame body.
func validateBatch(_ records: [LogRecord], options: LogOptions) throws -> Int {
    guard !records.isEmpty else {
        throw LogError(.invalidRecord, "an append needs at least one record")
    }
    guard records.count <= options.frameEventsLimit else {
        throw LogError(.limitExceeded, "an append of \(records.count) records exceeds frameEventsLimit (\(options.frameEventsLimit)); split it into several appends")
    }
    var bound = 0
    for (index, record) in records.enumerated() {
        let entityBytes = record.entity.utf8.count
        guard entityBytes <= LogFormat.entityBytesMax else {
            throw LogError(.limitExceeded, "record \(index): entity is \(entityBytes) UTF-8 bytes; the limit is \(LogFormat.entityBytesMax) (entityBytesMax)")
        }
        var keyBytes = 0
        if let key = record.idempotencyKey {
            keyBytes = key.utf8.count
            guard keyBytes >= 1 else {
                throw LogError(.invalidRecord, "record \(index): an idempotency key must not be empty; pass nil for no key")
            }
            guard keyBytes <= LogFormat.idempotencyKeyBytesMax else {
                throw LogError(.limitExceeded, "record \(index): idempotency key is \(keyBytes) UTF-8 bytes; the limit is \(LogFormat.idempotencyKeyBytesMax) (idempotencyKeyBytesMax)")
            }
        }
        guard record.payload.count <= LogFormat.payloadBytesMax else {
            throw LogError(.limitExceeded, "record \(index): payload is \(record.payload.count) bytes; the limit is \(LogFormat.payloadBytesMax) (payloadBytesMax)")
        }
        switch record.cause {
        case .none: break
        case .sequence(let sequence):
            guard sequence >= 1 else {
                throw LogError(.invalidRecord, "record \(index): cause names sequence 0; sequence numbers start at 1")
            }
        case .earlierInBatch(let earlier):
            guard earlier >= 0, earlier < index else {
                throw LogError(.invalidRecord, "record \(index): cause names record \(earlier) of the batch, which does not come before it")
            }
        }
        bound += FrameCodec.recordBytesBound(entityBytes: entityBytes, keyBytes: keyBytes, payloadBytes: record.payload.count)
    }
    guard bound <= options.frameBytesLimit else {
        throw LogError(.limitExceeded, "an append of up to \(bound) encoded bytes exceeds frameBytesLimit (\(options.frameBytesLimit)); split it into several appends")
    }
    return bound
}

extension LogWriter {
    /// Checks records as ``append(_:)-4reaa`` would (every limit the log enforces) without
    /// appending them, so that a caller building a commit of many parts can refuse one part
    /// alone, before anything reaches the log.
    ///
    /// - Returns: an upper bound of the records' encoded bytes in a frame.
    /// - Throws: ``LogError`` `.invalidRecord` or `.limitExceeded`, naming the record.
    @discardableResult
    public static func validate(_ records: [LogRecord], frameEventsLimit: Int, frameBytesLimit: Int) throws -> Int {
        var options = LogOptions()
        options.frameEventsLimit = frameEventsLimit
        options.frameBytesLimit = frameBytesLimit
        return try validateBatch(records, options: options)
    }

    /// An upper bound of one record's encoded bytes in a frame.
    public static func boundBytes(of record: LogRecord) -> Int {
        FrameCodec.recordBytesBound(
            entityBytes: record.entity.utf8.count, keyBytes: record.idempotencyKey?.utf8.count ?? 0, payloadBytes: record.payload.count)
    }

    /// The most events and uncompressed bytes one commit may hold.
    public var frameLimits: (events: Int, bytes: Int) {
        (core.options.frameEventsLimit, core.options.frameBytesLimit)
    }
}
