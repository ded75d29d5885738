public import TallyLog

/// One recorded fact: the envelope the log keeps for every event, and its payload.
///
/// ```swift
/// for event in try ledgerEvents { print(event.sequence, event.type.name, event.entity) }
/// ```
public struct Event: Hashable, Sendable {
    /// Gapless from 1, in log order.
    public let sequence: UInt64
    /// When the ledger learned the fact; non-decreasing in log order.
    public let recordedAt: Instant
    /// When it happened in the world; may be in the past (backdated).
    public let effectiveAt: Instant
    /// The event that caused this one (a split names its deposit).
    public let cause: UInt64?
    /// The caller's key for this fact (a bank transaction id, a recurring item's month).
    public let idempotencyKey: String?
    /// The schema version the event was written in; ``body`` is always the current version.
    public let storedVersion: UInt16
    /// The payload, upcast to the current version of its type.
    public let body: EventBody

    /// An event as the log holds it; readers and the write pipeline make them. Each parameter
    /// is the property of the same name; a nil `storedVersion` means the body's current version.
    public init(
        sequence: UInt64, recordedAt: Instant, effectiveAt: Instant, cause: UInt64?,
        idempotencyKey: String?, storedVersion: UInt16? = nil, body: EventBody
    ) {
        self.sequence = sequence
        self.recordedAt = recordedAt
        self.effectiveAt = effectiveAt
        self.cause = cause
        self.idempotencyKey = idempotencyKey
        self.storedVersion = storedVersion ?? body.type.version
        self.body = body
    }

    /// The entity the event is about, e.g. `pot:holiday`: derived from the payload when
    /// asked, so that decoding and folding never build it.
    public var entity: String { body.payload.entity }

    /// The event's type.
    public var type: EventType { body.type }
}

/// An event about to be appended: the log assigns its sequence number and recorded time.
public struct NewEvent: Hashable, Sendable {
    /// When it happened in the world; may be in the past (backdated).
    public var effectiveAt: Instant { didSet { preparedRecord = nil; vouchedContentKeyCount = 0 } }
    /// The event that caused this one: an event already in the log, or one earlier in the
    /// same command (`.earlierInBatch(index)`).
    public var cause: CauseReference? { didSet { preparedRecord = nil; vouchedContentKeyCount = 0 } }
    /// The caller's key for this fact; a command's key is put on its first event.
    public var idempotencyKey: String? { didSet { preparedRecord = nil; vouchedContentKeyCount = 0 } }
    /// The payload.
    public var body: EventBody { didSet { preparedRecord = nil; vouchedContentKeyCount = 0 } }
    /// Where the event came from when it was read from a file (`events.ndjson:12`), for the
    /// messages that refuse it; not recorded, and not part of equality.
    var origin: String? { originFile.map { "\($0):\(originLine)" } }
    /// The file and line ``origin`` names, kept apart and joined only for a message: an
    /// import reads millions of rows, and each would otherwise make a text of its own.
    private var originFile: String?
    private var originLine = 0
    /// The event's log record, made ahead by ``EventCatalog/prepare(_:)`` (an import builds
    /// records on one core while the write pipeline commits on the other); any change to
    /// the event drops it. Not part of equality.
    private(set) var preparedRecord: LogRecord?
    /// Not 0: the count of ``idempotencyKey``, a dated content key that the import made from
    /// the very row this event was built from, so that it derives from the event without
    /// computing its digest a second time (``JournalCSV/LoggedContentKey``); any change to
    /// the event drops it. Not part of equality.
    private(set) var vouchedContentKeyCount: UInt32 = 0

    /// An event to append.
    ///
    /// ```swift
    /// let event = NewEvent(effectiveAt: ledger.now, body: EventBody(AccountClosed(account: "Assets:Old Bank")))
    /// ```
    public init(effectiveAt: Instant, cause: CauseReference? = nil, idempotencyKey: String? = nil, body: EventBody) {
        self.effectiveAt = effectiveAt
        self.cause = cause
        self.idempotencyKey = idempotencyKey
        self.body = body
    }

    public static func == (lhs: NewEvent, rhs: NewEvent) -> Bool {
        lhs.effectiveAt == rhs.effectiveAt && lhs.cause == rhs.cause && lhs.idempotencyKey == rhs.idempotencyKey && lhs.body == rhs.body
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(effectiveAt)
        hasher.combine(cause)
        hasher.combine(idempotencyKey)
        hasher.combine(body)
    }

    /// The event's type.
    public var type: EventType { body.type }
    /// The entity the event is about, e.g. `pot:holiday`.
    public var entity: String { body.payload.entity }
}


extension NewEvent {
    /// Notes that the event was read from `line` of `file` (``origin``).
    mutating func setOrigin(file: String, line: Int) {
        originFile = file
        originLine = line
    }

    /// Keeps the record ``EventCatalog/prepare(_:)`` made for this very event.
    mutating func setPreparedRecord(_ record: LogRecord) { preparedRecord = record }
    mutating func vouchContentKey(count: UInt32) { vouchedContentKeyCount = count }
}
