internal import Foundation
public import GRDB
internal import Synchronization
public import TallyLog

/// The engine an application embeds: it runs commands against the ledger's current state,
/// appends their events atomically to the log, folds them into the read models, and
/// answers queries.
///
/// ```swift
/// let ledger = try Ledger.create(at: path, name: "Home", baseCurrency: .usd, timeZone: "America/New_York")
/// try ledger.deposit(account: "main", amount: try Money(parsing: "100.00", commodity: .usd), source: .bankTransfer)
/// let wallet = try ledger.wealthSummary(account: "main")   // spend 70.00, invest 30.00
/// ```
///
/// Commands are serialised: each validates against state that includes every earlier
/// command, and either appends all of its events in one durable commit or throws and
/// appends nothing. A command with an idempotency key that already ran returns the first
/// result and appends nothing.
public final class Ledger: Sendable {
    /// Options for opening a ledger.
    public struct Options: Sendable {
        /// The clock that stamps recorded times; tests and simulations replace it.
        public var clock: @Sendable () -> Instant
        /// Sync each commit (the default), or leave syncing to ``Ledger/sync()`` (bulk loads).
        public var syncMode: LogOptions.SyncMode
        /// The log's segment size limit.
        public var segmentBytesLimit: Int64
        /// Where read models snapshot state that is not a sum (envelopes' rollovers, net
        /// worth): monthly by default. Answers are the same at any interval; a shorter one
        /// folds fewer events per answer and stores more snapshots.
        public var snapshotInterval: SnapshotInterval

        public init(
            clock: @escaping @Sendable () -> Instant = { Instant.now },
            syncMode: LogOptions.SyncMode = .everyCommit,
            segmentBytesLimit: Int64 = LogOptions().segmentBytesLimit,
            snapshotInterval: SnapshotInterval = .default
        ) {
            self.clock = clock
            self.syncMode = syncMode
            self.segmentBytesLimit = segmentBytesLimit
            self.snapshotInterval = snapshotInterval
        }

        var logOptions: LogOptions {
            var options = LogOptions()
            let clock = self.clock
            options.clock = { clock().microsecondsSinceEpoch }
            options.syncMode = syncMode
            options.segmentBytesLimit = segmentBytesLimit
            return options
        }
    }

    /// Where the store lives.
    public var layout: StoreLayout { store.layout }
    /// The ledger's time zone, for "as of a date" and transaction dates.
    public let calendar: LedgerCalendar
    let store: EventStore
    let readModels: ReadModelStore
    let options: Options
    private let commandLock = Mutex(())
    private let observers = Mutex(Observers())

    /// Every projector a ledger keeps, in the order they fold.
    public static var projectors: [any Projector] {
        [
            BalancesProjector(), IdempotencyProjector(), SettingsProjector(),
            BudgetSettingsProjector(),
            TransactionsProjector(),
            PotsProjector(),
            BudgetsProjector(),
            RecurringProjector(),
            NetWorthProjector(),
            EnvelopesProjector(),
            ChallengesProjector(),
            WealthProjector(),
        ]
    }

    private init(store: EventStore, readModels: ReadModelStore, calendar: LedgerCalendar, options: Options) {
        self.store = store
        self.readModels = readModels
        self.calendar = calendar
        self.options = options
    }

    /// Creates a store and its ledger.
    ///
    /// - Throws: ``StoreError`` if a store exists there; ``EventCodingError`` for an unknown
    ///   time zone; ``LedgerError`` for a base currency that is not an ISO currency.
    public static func create(
        at root: String, name: String, baseCurrency: Commodity, timeZone: String, options: Options = Options()
    ) throws -> Ledger {
        let calendar = try LedgerCalendar(timeZoneIdentifier: timeZone)
        guard baseCurrency.isISOCurrency else {
            throw LedgerError(.invalidArgument, "the base currency must be an ISO 4217 currency, not \(baseCurrency.code)")
        }
        let store = try EventStore.create(
            at: root, ledger: LedgerCreated(name: name, baseCurrency: baseCurrency, timeZone: timeZone),
            effectiveAt: options.clock(), options: options.logOptions
        )
        do {
            return try attach(store, calendar: calendar, options: options)
        } catch {
            try? store.close()
            throw error
        }
    }

    /// Opens an existing store: recovers the log, then folds whatever the read models have
    /// not yet seen (after a crash between an append and its projection, nothing is lost).
    ///
    /// - Throws: ``StoreError`` when there is no store; `LogError` (`locked`) when another
    ///   process has it open, (`corrupt`) for damage, naming segment and offset.
    public static func open(at root: String, options: Options = Options()) throws -> Ledger {
        let store = try EventStore.open(at: root, options: options.logOptions)
        do {
            return try attach(store, calendar: try EventStoreReader.open(at: root).ledgerCalendar(), options: options)
        } catch {
            try? store.close()
            throw error
        }
    }

    private static func attach(_ store: EventStore, calendar: LedgerCalendar, options: Options) throws -> Ledger {
        let readModels = try ReadModelStore(
            path: store.layout.readModelPath, projectors: projectors,
            snapshots: SnapshotSettings(calendar: calendar, interval: options.snapshotInterval)
        )
        try readModels.catchUp(from: try EventStoreReader.open(at: store.layout.root))
        return Ledger(store: store, readModels: readModels, calendar: calendar, options: options)
    }

    /// Closes the log (releasing the writer lock) and the read-model database.
    public func close() throws {
        for continuation in observers.withLock({ $0.takeAll() }) { continuation.finish() }
        try store.close()
        try readModels.database.close()
    }

    /// Flushes commits appended with ``Options/syncMode`` `.none` to disk.
    public func sync() throws { try store.writer.sync() }

    /// The last event's sequence number and hash.
    public var head: LogDigest { store.head }

    /// The current instant by the ledger's clock.
    public var now: Instant { options.clock() }

    // MARK: Commands

    /// What a command did.
    public struct CommandResult: Sendable {
        /// The events it appended, or for a repeated idempotency key, those the first run appended.
        public let events: [Event]
        /// True when the key had been used: nothing was appended this time.
        public let wasAlreadyApplied: Bool
    }

    /// Runs a command: under the command lock, returns the first result for a known key;
    /// otherwise plans the events against current state (reading the read models), appends
    /// them as one commit, folds them, and tells observers.
    ///
    /// - Parameters:
    ///   - idempotencyKey: put on the first event; a repeat returns the first result.
    ///   - plan: reads state and returns the events to append, or throws ``LedgerError``.
    func perform(idempotencyKey: String? = nil, _ plan: (Database) throws -> [NewEvent]) throws -> CommandResult {
        try commandLock.withLock { _ in
            if let key = idempotencyKey,
               let range = try readModels.database.read({ db in try IdempotencyProjector.range(of: key, db) }) {
                var events: [Event] = []
                try EventStoreReader.open(at: layout.root).forEach(from: range.lowerBound, through: range.upperBound) { events.append($0) }
                return CommandResult(events: events, wasAlreadyApplied: true)
            }
            var planned = try readModels.database.read { db in try plan(db) }
            guard !planned.isEmpty else { return CommandResult(events: [], wasAlreadyApplied: false) }
            if let key = idempotencyKey { planned[0].idempotencyKey = key }
            let result = try store.append(planned)
            let events = planned.enumerated().map { index, event in
                Event(
                    sequence: result.first + UInt64(index),
                    recordedAt: Instant(microsecondsSinceEpoch: result.recordedAt),
                    effectiveAt: event.effectiveAt,
                    cause: event.cause.map { cause in
                        switch cause {
                        case .sequence(let sequence): sequence
                        case .earlierInBatch(let position): result.first + UInt64(position)
                        }
                    },
                    idempotencyKey: event.idempotencyKey, body: event.body
                )
            }
            try readModels.apply(events)
            observers.withLock { $0.publish(events) }
            return CommandResult(events: events, wasAlreadyApplied: false)
        }
    }

    /// Appends events as given (an import of events in their JSON form), folds them, and
    /// tells observers. Business rules are not checked: these are facts already decided.
    @discardableResult
    public func appendEvents(_ events: [NewEvent]) throws -> CommandResult {
        try perform { _ in events }
    }

    // MARK: Observing

    /// Committed events, as they are folded, from now on. The stream ends when the ledger closes.
    ///
    /// ```swift
    /// for await event in ledger.committedEvents() { print(event.sequence, event.type.name) }
    /// ```
    public func committedEvents() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        let id = observers.withLock { $0.add(continuation) }
        continuation.onTermination = { [weak self] _ in
            self?.observers.withLock { $0.remove(id) }
        }
        return stream
    }

    // MARK: Read models

    /// Reads the read models in a consistent snapshot.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try readModels.database.read(body)
    }

    /// Drops every read model and folds the whole log again; `progress` gets the last
    /// sequence number folded.
    public func rebuild(progress: ((UInt64) -> Void)? = nil) throws {
        try commandLock.withLock { _ in
            try readModels.rebuild(from: try EventStoreReader.open(at: layout.root), progress: progress)
        }
    }
}

/// The continuations of ``Ledger/committedEvents()`` streams.
struct Observers: ~Copyable {
    private var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
    private var nextID = 0

    mutating func add(_ continuation: AsyncStream<Event>.Continuation) -> Int {
        nextID += 1
        continuations[nextID] = continuation
        return nextID
    }

    mutating func remove(_ id: Int) { continuations[id] = nil }

    func publish(_ events: [Event]) {
        for continuation in continuations.values {
            for event in events { continuation.yield(event) }
        }
    }

    /// Removes every continuation, to be finished outside the lock (finishing one runs its
    /// termination handler, which takes the lock).
    mutating func takeAll() -> [AsyncStream<Event>.Continuation] {
        defer { continuations.removeAll() }
        return Array(continuations.values)
    }
}
