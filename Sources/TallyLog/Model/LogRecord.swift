/// What caused an event: an event already in the log, or an earlier record of the same append.
///
/// A split names the deposit it splits; when both are appended together the
/// split says `.earlierInBatch(0)` and the log resolves it to the deposit's sequence number.
public enum CauseReference: Hashable, Sendable {
    /// An event already in the log (1 … head), or one appended earlier in the same frame.
    case sequence(UInt64)
    /// The record at this index of the same `append` call; it must come before the record naming it.
    case earlierInBatch(Int)
}

/// An event as an appender hands it in: the envelope fields and an opaque payload.
///
/// The log assigns the sequence number and the recorded time; everything else is stored as given.
///
/// ```swift
/// let deposit = LogRecord(kind: 7, version: 1, effectiveAt: now, entity: "wallet:1",
///                         idempotencyKey: "bank:tx-991", payload: encoded)
/// let split = LogRecord(kind: 8, version: 1, effectiveAt: now, entity: "wallet:1",
///                       cause: .earlierInBatch(0), payload: encodedSplit)
/// try writer.append([deposit, split])
/// ```
public struct LogRecord: Hashable, Sendable {
    /// Opaque event type code.
    public var kind: UInt32
    /// Opaque schema version of the payload.
    public var version: UInt16
    /// When the fact happened in the world: microseconds since the Unix epoch, UTC.
    public var effectiveAt: Int64
    /// The entity the event is about; at most ``LogFormat/entityBytesMax`` UTF-8 bytes.
    public var entity: String
    /// The event that caused this one, if any.
    public var cause: CauseReference?
    /// An optional idempotency key, 1 … ``LogFormat/idempotencyKeyBytesMax`` UTF-8 bytes.
    public var idempotencyKey: String?
    /// The encoded event; at most ``LogFormat/payloadBytesMax`` bytes.
    public var payload: [UInt8]

    /// Creates a record.
    public init(
        kind: UInt32,
        version: UInt16,
        effectiveAt: Int64,
        entity: String,
        cause: CauseReference? = nil,
        idempotencyKey: String? = nil,
        payload: [UInt8]
    ) {
        self.kind = kind
        self.version = version
        self.effectiveAt = effectiveAt
        self.entity = entity
        self.cause = cause
        self.idempotencyKey = idempotencyKey
        self.payload = payload
    }
}

/// An event as readers get it back: the record plus what the writer assigned.
public struct LoggedEvent: Hashable, Sendable {
    /// Gapless from 1.
    public let sequence: UInt64
    /// When the writer committed the event: µs since the epoch, non-decreasing in log order.
    public let recordedAt: Int64
    /// Opaque event type code.
    public let kind: UInt32
    /// Opaque schema version.
    public let version: UInt16
    /// When the fact happened in the world: µs since the epoch, UTC.
    public let effectiveAt: Int64
    /// The entity the event is about.
    public let entity: String
    /// The sequence number of the causing event, if any.
    public let cause: UInt64?
    /// The idempotency key, if any.
    public let idempotencyKey: String?
    /// The encoded event.
    public let payload: [UInt8]

    /// Creates an event (readers build these; tests may too).
    public init(
        sequence: UInt64,
        recordedAt: Int64,
        kind: UInt32,
        version: UInt16,
        effectiveAt: Int64,
        entity: String,
        cause: UInt64?,
        idempotencyKey: String?,
        payload: [UInt8]
    ) {
        self.sequence = sequence
        self.recordedAt = recordedAt
        self.kind = kind
        self.version = version
        self.effectiveAt = effectiveAt
        self.entity = entity
        self.cause = cause
        self.idempotencyKey = idempotencyKey
        self.payload = payload
    }
}

/// What one `append` call got: its contiguous range of sequence numbers and the head after the commit.
public struct AppendResult: Sendable, Hashable {
    /// The sequence number of the call's first record.
    public let first: UInt64
    /// The sequence number of the call's last record.
    public let last: UInt64
    /// The recorded time the writer assigned to the call's records.
    public let recordedAt: Int64
    /// The head of the log after the frame that carried the call (may be past ``last`` when the frame was shared).
    public let head: LogDigest
}
