/// The writing end of a log, whatever holds it: segment files on a local disk (``LogWriter``)
/// or rows in PostgreSQL (``PostgresLogWriter``).
///
/// Both write the same frames (the same bytes, checksums, chain hashes and sealing), so a log
/// has the same head digest in either, and everything above this interface (a ledger's write
/// pipeline, its read models, verification of events) is the same for both. What differs is
/// where "append durably" lands and who else may write: a directory lock for files; a lease with
/// a fencing epoch and a compare-and-set on the head for PostgreSQL.
///
/// ```swift
/// let writer: any LogWriting = try LogStorage.openWriter(directory: "books/log")
/// let next = writer.head.sequence + 1
/// let result = try writer.append(records, pinnedTo: AppendPin(firstSequence: next, recordedAt: now), encodedAhead: nil)
/// ```
public protocol LogWriting: AnyObject, Sendable {
    /// The digest of the last committed event (``LogDigest/genesis`` for an empty log).
    var head: LogDigest { get }
    /// The recorded time of the last commit (µs since the Unix epoch; `Int64.min` when empty).
    var lastRecordedAt: Int64 { get }
    /// The most events and uncompressed bytes one commit may hold.
    var frameLimits: (events: Int, bytes: Int) { get }

    /// Appends `records` as one atomic commit and returns once it is durable; the log picks the
    /// sequence numbers (after its head) and the recorded time (`max(clock, last)`).
    /// - Throws: ``LogError``; nothing is appended when it throws, except that a commit whose
    ///   outcome could not be learned is reported as `io` naming that.
    func append(_ records: [LogRecord]) throws -> AppendResult
    /// The same, without blocking the cooperative thread pool.
    func append(_ records: [LogRecord]) async throws -> AppendResult
    /// Appends `records` as one commit of their own at the sequence number and recorded time the
    /// caller decided, with the frame encoded ahead when there is one (``encodeAhead(_:pinnedTo:)``).
    /// - Throws: ``LogError`` `invalidRecord` when the log is not where the pin says, `headMoved`
    ///   when another writer committed first or took the log over (reload and plan again); nothing
    ///   is appended when it throws.
    func append(_ records: [LogRecord], pinnedTo pin: AppendPin, encodedAhead: FrameEncodedAhead?) throws -> AppendResult
    /// Starts encoding the frame a pinned append of `records` will write, or returns nil when
    /// this log does not encode ahead or the pin does not follow its head.
    func encodeAhead(_ records: [LogRecord], pinnedTo pin: AppendPin) -> FrameEncodedAhead?
    /// Learns the log's head again from where it is kept, after another writer may have committed
    /// (a ``LogError/Code/headMoved`` append): ``head`` and ``lastRecordedAt`` change to it.
    func reloadHead() throws
    /// A view of the log through this writer's head, every commit it made included.
    func openReader() throws -> any LogReading
    /// Makes everything written so far durable (a no-op where every commit is).
    func sync() throws
    /// Ends writing: waits for the commit in flight, makes what was written durable, gives the
    /// log up for other writers.
    func close() throws
}

/// The reading end of a log: a view up to a head, events by sequence number and by time.
///
/// Any number of readers may read while a writer appends; a reader never returns an event
/// that failed its checks (checksum, decoding, sequence continuity).
public protocol LogReading: Sendable {
    /// The digest of the last event in view.
    var head: LogDigest { get }
    /// Calls `body` with every event from `sequence` through `last` (default: the head), in
    /// order, with the chain hash after an event that ends its frame (nil for the others).
    func forEach(
        from sequence: UInt64, through last: UInt64?, withFrameEndHashes body: (LoggedEvent, [UInt8]?) throws -> Void
    ) throws
    /// Calls `body` with the event at each of `sequences` (any order), in log order, each once;
    /// 0 and numbers past the head are passed over.
    func forEach(at sequences: [UInt64], _ body: (LoggedEvent) throws -> Void) throws
    /// The first event recorded at or after `instant` (µs since the epoch), or nil.
    func firstSequence(recordedAtOrAfter instant: Int64) throws -> UInt64?
    /// The chain hash after event `sequence` (``LogFormat/genesisHash`` for 0, nil past the head).
    func hash(of sequence: UInt64) throws -> [UInt8]?
    /// Counts and sizes of the log.
    func statistics() throws -> LogStatistics
}

extension LogReading {
    /// Calls `body` with every event from `sequence` through `last` (default: the head), in order.
    public func forEach(from sequence: UInt64 = 1, through last: UInt64? = nil, _ body: (LoggedEvent) throws -> Void) throws {
        try forEach(from: sequence, through: last, withFrameEndHashes: { event, _ in try body(event) })
    }
}

extension LogWriter: LogWriting {
    /// The file log learns its head only from its own commits: one writer holds the directory.
    public func reloadHead() throws {}

    /// ``reader()`` behind the interface.
    public func openReader() throws -> any LogReading { try reader() }
}

extension LogReader: LogReading {}
