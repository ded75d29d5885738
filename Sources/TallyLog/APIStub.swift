// TEMPORARY stand-in for the log API until the log branch merges.
public enum CauseReference: Hashable, Sendable { case sequence(UInt64); case earlierInBatch(Int) }
public struct LogRecord: Hashable, Sendable {
    public var kind: UInt32; public var version: UInt16; public var effectiveAt: Int64; public var entity: String
    public var cause: CauseReference?; public var idempotencyKey: String?; public var payload: [UInt8]
    public init(kind: UInt32, version: UInt16, effectiveAt: Int64, entity: String, cause: CauseReference?, idempotencyKey: String?, payload: [UInt8]) {
        self.kind = kind; self.version = version; self.effectiveAt = effectiveAt; self.entity = entity; self.cause = cause; self.idempotencyKey = idempotencyKey; self.payload = payload
    }
}
public struct LoggedEvent: Hashable, Sendable {
    public let sequence: UInt64; public let recordedAt: Int64; public let kind: UInt32; public let version: UInt16; public let effectiveAt: Int64
    public let entity: String; public let cause: UInt64?; public let idempotencyKey: String?; public let payload: [UInt8]
    public init(sequence: UInt64, recordedAt: Int64, kind: UInt32, version: UInt16, effectiveAt: Int64, entity: String, cause: UInt64?, idempotencyKey: String?, payload: [UInt8]) {
        self.sequence = sequence; self.recordedAt = recordedAt; self.kind = kind; self.version = version; self.effectiveAt = effectiveAt; self.entity = entity; self.cause = cause; self.idempotencyKey = idempotencyKey; self.payload = payload
    }
}
