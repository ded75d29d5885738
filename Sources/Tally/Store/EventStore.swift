internal import Foundation
public import TallyLog

/// A store's event log opened for writing: the single writer of a store directory.
///
/// It appends catalog events after checking their envelopes; it does not validate
/// business rules (that is the `Ledger`'s job) and never interprets money.
///
/// ```swift
/// let store = try EventStore.create(at: ".tally", ledger: LedgerCreated(name: "Home",
///     baseCurrency: .usd, timeZone: "America/New_York"), effectiveAt: now)
/// let result = try store.append([NewEvent(effectiveAt: now, body: .depositReceived(deposit))])
/// ```
public final class EventStore: Sendable {
    /// Where the store lives.
    public let layout: StoreLayout
    let writer: LogWriter

    private init(layout: StoreLayout, writer: LogWriter) {
        self.layout = layout
        self.writer = writer
    }

    /// Creates a store in an absent or empty directory and records `ledger_created` as its
    /// first event. On failure nothing is left behind.
    ///
    /// - Throws: ``StoreError`` (`alreadyExists`) for an existing store or a non-empty
    ///   directory; `LogError` for I/O failures.
    public static func create(
        at root: String, ledger: LedgerCreated, effectiveAt: Instant, options: LogOptions = LogOptions()
    ) throws -> EventStore {
        let layout = StoreLayout(root: root)
        let existed = FileManager.default.fileExists(atPath: root)
        try layout.createDirectory()
        do {
            let writer = try LogWriter.create(directory: layout.logDirectory, options: options)
            let store = EventStore(layout: layout, writer: writer)
            _ = try store.append([NewEvent(effectiveAt: effectiveAt, body: .ledgerCreated(ledger))])
            return store
        } catch {
            if existed {
                try? FileManager.default.removeItem(atPath: layout.logDirectory)
                try? FileManager.default.removeItem(atPath: layout.markerPath)
            } else {
                try? FileManager.default.removeItem(atPath: root)
            }
            throw error
        }
    }

    /// Opens an existing store for writing, recovering a torn last frame.
    ///
    /// - Throws: ``StoreError`` when there is no store; `LogError` (`locked`) when another
    ///   writer holds it, (`corrupt`) naming the segment and offset of any damage.
    public static func open(at root: String, options: LogOptions = LogOptions()) throws -> EventStore {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        return EventStore(layout: layout, writer: try LogWriter.open(directory: layout.logDirectory, options: options))
    }

    /// The last event's sequence number and hash.
    public var head: LogDigest { writer.head }

    /// Appends events as one atomic, durable commit.
    ///
    /// - Throws: ``EventCodingError`` for a payload that would not read back exactly;
    ///   `LogError` (`invalidRecord`) when a cause does not name an earlier event,
    ///   (`limitExceeded`) past a limit, or an I/O error. Either way nothing is appended.
    @discardableResult
    public func append(_ events: [NewEvent]) throws -> AppendResult {
        return try writer.append(events.map { try EventCatalog.record(for: $0) })
    }

    /// Appends encoded records as one durable commit of their own, at the sequence number
    /// and recorded time the caller decided (the ledger folds them before they reach the log).
    ///
    /// - Throws: `LogError` (`invalidRecord`) when the log is not where the pin says; as
    ///   ``append(_:)-5u1ru`` otherwise. Either way nothing is appended.
    @discardableResult
    func append(records: [LogRecord], pinnedTo pin: AppendPin) throws -> AppendResult {
        try writer.append(records, pinnedTo: pin)
    }

    /// The same, without blocking a task's thread while the commit is synced.
    @discardableResult
    public func append(_ events: [NewEvent]) async throws -> AppendResult {
        return try await writer.append(events.map { try EventCatalog.record(for: $0) })
    }

    /// Releases the writer lock.
    public func close() throws { try writer.close() }
}

/// A store's event log opened for reading: any number at once, while a writer appends.
public struct EventStoreReader: Sendable {
    /// Where the store lives.
    public let layout: StoreLayout
    let reader: LogReader

    /// Opens a store for reading.
    /// - Throws: ``StoreError`` when there is no store; `LogError` for damage.
    public static func open(at root: String) throws -> EventStoreReader {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        return EventStoreReader(layout: layout, reader: try LogReader.open(directory: layout.logDirectory))
    }

    /// The last event's sequence number and hash when the reader was opened.
    public var head: LogDigest { reader.head }

    /// Streams decoded events in log order, frame by frame.
    ///
    /// - Throws: `LogError` for damage (naming segment and offset), ``EventCodingError`` for
    ///   a payload this build cannot read, or whatever `body` throws.
    public func forEach(from first: UInt64 = 1, through last: UInt64? = nil, _ body: (Event) throws -> Void) throws {
        try reader.forEach(from: first, through: last) { logged in
            try body(try EventCatalog.decode(logged))
        }
    }

    /// Streams the raw log records, undecoded.
    public func forEachRecord(from first: UInt64 = 1, through last: UInt64? = nil, _ body: (LoggedEvent) throws -> Void) throws {
        try reader.forEach(from: first, through: last, body)
    }

    /// The first event recorded at or after an instant, found without reading the whole log.
    public func firstSequence(recordedAtOrAfter instant: Instant) throws -> UInt64? {
        try reader.firstSequence(recordedAtOrAfter: instant.microsecondsSinceEpoch)
    }

    /// Sizes and counts of the log on disk.
    public func statistics() throws -> LogStatistics { try reader.statistics() }
}
