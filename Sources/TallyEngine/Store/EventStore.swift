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
/// let result = try store.append([NewEvent(effectiveAt: now, body: EventBody(deposit))])
/// ```
public final class EventStore: Sendable {
    /// Where the store lives.
    public let layout: StoreLayout
    /// The event types this store reads and writes.
    public let catalog: EventCatalog
    /// The log's writer: segment files in `log/`, or a ledger on PostgreSQL (``LogStorage``).
    let writer: any LogWriting

    private init(layout: StoreLayout, catalog: EventCatalog, writer: any LogWriting) {
        self.layout = layout
        self.catalog = catalog
        self.writer = writer
    }

    /// Creates a store in an absent or empty directory and records `ledger_created` as its
    /// first event: all of it, or nothing.
    ///
    /// The complete store (marker, log, `ledger_created` synced) is built in a staging directory
    /// beside `root` and renamed onto it in one step, so no other process ever sees a partial store.
    /// Of two creations racing for one path exactly one succeeds; the other throws `alreadyExists`
    /// and leaves the winner's store alone. Missing parent directories are created (as `mkdir -p`)
    /// and kept. A staging directory left by a killed creation is never taken for a store; a later
    /// creation of the same path removes it once it is stale (unlocked for a minute).
    ///
    /// ```swift
    /// let store = try EventStore.create(at: "books", ledger: LedgerCreated(name: "Home",
    ///     baseCurrency: .usd, timeZone: "UTC"), effectiveAt: .now)
    /// ```
    /// - Parameters:
    ///   - root: the store's directory: absent, or an empty directory (it is replaced).
    ///   - ledger: the first event's payload.
    ///   - effectiveAt: the first event's effective time.
    ///   - catalog: the event types the store reads and writes (the engine's by default).
    ///     One without subject keys gets the store's (``SubjectKeys``).
    ///   - options: the log's options (its clock records the first event; with ``LogOptions/keys``
    ///     every frame is sealed).
    ///   - keyFile: for an encrypted store keeping its own keys, the wrapped key set written to its
    ///     `KEYS` file (owner-only) as part of the creation.
    /// - Throws: ``StoreError`` (`alreadyExists`) for an existing store, a non-empty directory or a
    ///   file; (`invalidPath`) for `.`, `..`, `/`, the current directory or a mount point; (`io`) for
    ///   a failed system call; `LogError` from the log. Either way nothing is left behind.
    public static func create(
        at root: String, ledger: LedgerCreated, effectiveAt: Instant, catalog: EventCatalog = .engine,
        options: LogOptions = LogOptions(), keyFile: [UInt8]? = nil, postgres: PostgresLogLocation? = nil
    ) throws -> EventStore {
        // Personal text is sealed from the first event on: a catalog without subject keys gets the
        // new store's own.
        let catalog = catalog.subjectKeys != nil ? catalog : catalog.sealing(with: try SubjectKeys.new(root: root, logKeys: options.keys, seed: nil))
        try StoreCreation.create(at: root, ledger: ledger, effectiveAt: effectiveAt, options: options, keyFile: keyFile, catalog: catalog, postgres: postgres)
        return try open(at: root, catalog: catalog, options: options)
    }

    /// Opens an existing store for writing, recovering a torn last frame.
    ///
    /// - Parameters:
    ///   - root: the store's directory.
    ///   - catalog: the event types the store reads and writes (the engine's by default).
    ///     One without subject keys gets the store's (``SubjectKeys``).
    ///   - options: the log's options.
    /// - Throws: ``StoreError`` when there is no store, or (`incomplete`) when its log holds no event;
    ///   `LogError` (`locked`) when another writer holds it, (`corrupt`) naming the segment and offset
    ///   of any damage.
    public static func open(at root: String, catalog: EventCatalog = .engine, options: LogOptions = LogOptions()) throws -> EventStore {
        try open(at: root, catalog: catalog, options: options, wrappingWriter: nil)
    }

    /// The same, with the log's writer wrapped (a test's simulated backend).
    static func open(
        at root: String, catalog: EventCatalog, options: LogOptions, wrappingWriter wrap: (@Sendable (any LogWriting) -> any LogWriting)?
    ) throws -> EventStore {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        let catalog = try catalog.withSubjectKeys(of: root, logKeys: options.keys)
        let opened = try LogStorage.openWriter(directory: layout.logDirectory, options: options)
        let writer = wrap.map { $0(opened) } ?? opened
        guard writer.head.sequence > 0 else {
            try? writer.close()
            throw StoreError(.incomplete, StoreLayout.incompleteMessage(root, "its log holds no event, not even ledger_created"))
        }
        do {
            // The keys were loaded before the lock was ours: another writer may have made
            // subjects (or erased one) since, and every save from here on starts from its file
            // (for a log on PostgreSQL, the database's copy, taken now that the lease is ours).
            try layout.refreshFromDatabase(holdingLock: true)
            try catalog.subjectKeys?.reloadForWriting()
        } catch {
            try? writer.close()
            throw error
        }
        return EventStore(layout: layout, catalog: catalog, writer: writer)
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
        let records = try events.map { try catalog.record(for: $0) }
        try saveSubjectKeys()
        return try writer.append(records)
    }

    /// Appends encoded records as one durable commit of their own, at the sequence number
    /// and recorded time the caller decided (the ledger folds them before they reach the log).
    ///
    /// - Throws: `LogError` (`invalidRecord`) when the log is not where the pin says; as
    ///   ``append(_:)-5u1ru`` otherwise. Either way nothing is appended.
    @discardableResult
    func append(records: [LogRecord], pinnedTo pin: AppendPin, encodedAhead: FrameEncodedAhead? = nil) throws -> AppendResult {
        // A record may name a subject made while it was encoded: its key is durable first.
        try saveSubjectKeys()
        return try writer.append(records, pinnedTo: pin, encodedAhead: encodedAhead)
    }

    /// The same, without blocking a task's thread while the commit is synced.
    @discardableResult
    public func append(_ events: [NewEvent]) async throws -> AppendResult {
        let records = try events.map { try catalog.record(for: $0) }
        try saveSubjectKeys()
        return try await writer.append(records)
    }

    /// The log through this writer's head, every commit it made included (readers in other
    /// processes may be a commit behind after a failed write of the published head).
    func reader() throws -> EventStoreReader {
        EventStoreReader(layout: layout, catalog: catalog, reader: try writer.openReader())
    }

    /// Saves subject keys made since the last save, before a record that may name one reaches
    /// the log: to the store's `SUBJECTS` file, and for a log on PostgreSQL to the database too,
    /// where every node that folds the log finds them.
    private func saveSubjectKeys() throws {
        guard let subjects = catalog.subjectKeys else { return }
        guard let remote = writer as? PostgresLogWriter else {
            try subjects.save()
            return
        }
        // The database's copy first: it always holds every key the store's file holds.
        try subjects.save(publishing: remote.publishSubjects)
    }

    /// Releases the writer lock.
    public func close() throws { try writer.close() }
}

/// A store's event log opened for reading: any number at once, while a writer appends.
public struct EventStoreReader: Sendable {
    /// Where the store lives.
    public let layout: StoreLayout
    /// The event types this reader decodes.
    public let catalog: EventCatalog
    let reader: any LogReading

    /// Opens a store for reading.
    /// - Parameters:
    ///   - root: the store's directory.
    ///   - catalog: the event types to decode (the engine's by default); an event of another
    ///     type throws when it is read.
    ///   - fileSystem: where the log's files live (default: the real disk).
    ///   - keys: an encrypted store's data keys (``Ledger/Options/unlocked(at:)`` opens them); nil otherwise.
    /// - Throws: ``StoreError`` when there is no store, or (`incomplete`) when its log holds no event;
    ///   `LogError` for damage, (`keyRequired`) for an encrypted store opened without its keys.
    public static func open(
        at root: String, catalog: EventCatalog = .engine, fileSystem: any LogFileSystem = PosixFileSystem(), keys: LogKeys? = nil
    ) throws -> EventStoreReader {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        let catalog = try catalog.withSubjectKeys(of: root, logKeys: keys)
        let reader = try LogStorage.openReader(directory: layout.logDirectory, fileSystem: fileSystem, keys: keys)
        guard reader.head.sequence > 0 else {
            throw StoreError(.incomplete, StoreLayout.incompleteMessage(root, "its log holds no event, not even ledger_created"))
        }
        return EventStoreReader(layout: layout, catalog: catalog, reader: reader)
    }

    /// Opens a store for reading with a ledger's options: their catalog, log file system and key
    /// (an encrypted store's keys are unwrapped with ``Ledger/Options/key``).
    ///
    /// ```swift
    /// let reader = try EventStoreReader.open(at: "books", options: .standard)
    /// ```
    /// - Throws: as ``open(at:catalog:fileSystem:keys:)``, and ``StoreError`` `keyRequired`,
    ///   `wrongKey`, `badKey` or `notEncrypted` from the key.
    public static func open(at root: String, options: Ledger.Options) throws -> EventStoreReader {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        let options = try options.unlocked(at: root)
        return try open(at: root, catalog: try options.catalog(), fileSystem: options.logFileSystem, keys: options.logKeys)
    }

    /// The last event's sequence number and hash when the reader was opened.
    public var head: LogDigest { reader.head }

    /// Streams decoded events in log order, frame by frame.
    ///
    /// - Throws: `LogError` for damage (naming segment and offset), ``EventCodingError`` for
    ///   a payload this build cannot read, or whatever `body` throws.
    public func forEach(from first: UInt64 = 1, through last: UInt64? = nil, _ body: (Event) throws -> Void) throws {
        let texts = DecodedTexts()
        try reader.forEach(from: first, through: last) { logged in
            try body(try catalog.decode(logged, sharing: texts))
        }
    }

    /// Decodes the events at `sequences` (any order; passed in log order, each once), each
    /// frame that holds one read once; 0 and numbers past the head are passed over.
    ///
    /// - Throws: `LogError` for damage, ``EventCodingError`` for a payload this build cannot
    ///   read, or whatever `body` throws.
    public func forEach(at sequences: [UInt64], _ body: (Event) throws -> Void) throws {
        let texts = DecodedTexts()
        try reader.forEach(at: sequences) { logged in
            try body(try catalog.decode(logged, sharing: texts))
        }
    }

    /// Streams decoded events in log order, each with the chain hash after it when it ends
    /// its frame (the hash the frame's checked header stores), nil otherwise.
    func forEach(from first: UInt64, withFrameEndHashes body: (Event, [UInt8]?) throws -> Void) throws {
        let texts = DecodedTexts()
        try reader.forEach(from: first, through: nil, withFrameEndHashes: { logged, hash in
            try body(try catalog.decode(logged, sharing: texts), hash)
        })
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

extension EventCatalog {
    /// This catalog, or when it has no subject keys, with the store's (its `SUBJECTS` file), so
    /// that a store opened with a bare catalog still seals and opens its personal text.
    func withSubjectKeys(of root: String, logKeys: LogKeys?) throws -> EventCatalog {
        if subjectKeys != nil { return self }
        // Keys read from the store's files: for a log on PostgreSQL, as the database holds them now.
        try StoreLayout(root: root).refreshFromDatabase()
        return sealing(with: try SubjectKeys.load(root: root, logKeys: logKeys))
    }
}
