internal import Foundation
public import GRDB
internal import Synchronization
public import TallyLog

/// The engine an application embeds: it runs commands against the ledger's state, appends
/// their events atomically to the log, folds them into the read models, and answers queries.
///
/// ```swift
/// let ledger = try Ledger.create(at: path, name: "Home", baseCurrency: .usd, timeZone: "America/New_York")
/// let salary = NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(
///     account: "Assets:Bank", counterAccount: "Income:Salary", amount: try Money(parsing: "2500.00", commodity: .usd))))
/// try ledger.perform(idempotencyKey: "bank:tx-1", request: salary) { _ in [salary] }
/// let balances = try ledger.balances()   // Assets:Bank 2500.00 USD, Income:Salary -2500.00 USD
/// ```
///
/// With Tally's products registered (``Options/features``; `import Tally`), their command
/// methods and queries are methods of the ledger too, such as
/// `deposit(account:amount:source:externalId:effectiveAt:idempotencyKey:)` and
/// `wealthSummary(account:asOf:knownAt:)`.
///
/// ## The write pipeline
/// Commands queue; the next group is taken whole. Inside one SQLite write transaction each
/// command is planned against state that includes the earlier ones, encoded and folded;
/// every check that can fail (rules, overflow, limits) fails there, before the log is
/// touched, and a refused command changes nothing. The group's events are then appended as
/// one frame with one `fdatasync`, the transaction commits, and observers are told. If that
/// commit fails after the append, the ledger marks its read models behind and folds the
/// log into them before the next command: nothing traps and nothing is half done.
///
/// ## Who may write, who may read
/// One ledger opened with ``open(at:options:)`` or ``create(at:name:baseCurrency:timeZone:options:)``
/// per store holds the writer lock. Any number of ledgers opened with
/// ``openForReading(at:options:)``, in any process, answer from the newest committed
/// read-model state and never take the lock, except to fold a log the read models are behind
/// when no writer is live.
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
        /// The most events a ``committedEvents(after:)`` consumer may leave unread before its
        /// stream ends with ``SubscriptionError`` (it resumes from its last sequence number).
        public var subscriptionBufferEvents: Int
        /// Test hook: called after a group's frame is durable and before its SQLite commit;
        /// throwing makes that commit fail, as a full disk or an I/O error would.
        var faultAfterAppend: (@Sendable () throws -> Void)?
        /// Test hook: wraps the log's writer when a ledger opens for writing, so that a simulated
        /// backend's failures (a lost commit acknowledgement, a fenced writer) reach the pipeline.
        var logWriterWrapper: (@Sendable (any LogWriting) -> any LogWriting)?
        /// How long a reader waits for another process's writer lock when it must fold the
        /// log into read models it cannot use as they are. Default 60 s.
        public var readerLockWaitMicroseconds: Int64
        /// How long a writer waits for another process's writer lock before it throws `locked`,
        /// like SQLite's busy timeout. Default 0: one attempt. The `tally` command waits 5 s.
        public var writerLockWaitMicroseconds: Int64 = 0
        /// Called once when a writer has waited a second for the lock and waits on, with how long
        /// it has waited: a program says why it seems stuck.
        public var writerLockWaitNotice: (@Sendable (_ waitedMicroseconds: Int64) -> Void)? = nil
        /// The features the ledger records and keeps read models for, beside the engine's own:
        /// Tally's products (``LedgerFeature``; `TallyProducts` offers `Ledger.Options.standard`)
        /// and an embedder's. Give the same list every time the store is opened.
        ///
        /// ```swift
        /// let ledger = try Ledger.open(at: ".tally", options: Ledger.Options(features: [MerchantTags()]))
        /// ```
        public var features: [any LedgerFeature]
        /// More read models, folded after the engine's and the features' (``Ledger/projectors``)
        /// in the same database and the same transaction as every command: each is
        /// checkpointed, caught up on open, rebuilt by ``Ledger/rebuild(at:options:progress:)``
        /// and checked by `verify` like the built-in ones. Give the same list every time the
        /// store is opened: a projector left out is not folded, and its checkpoint stays
        /// where it was (it catches up when it is registered again).
        ///
        /// ```swift
        /// var options = Ledger.Options()
        /// options.projectors = [MerchantTotalsProjector()]
        /// let ledger = try Ledger.open(at: ".tally", options: options)
        /// ```
        public var projectors: [any Projector]
        /// Where the log's files live: the real disk (the default) or a `SimulatedDisk` for
        /// deterministic fault simulation. The store's directory, its marker and the read
        /// models stay on the real disk; ``Ledger/create(at:name:baseCurrency:timeZone:options:)``
        /// needs the real disk (a simulation installs a created log's files on its disk).
        public var logFileSystem: any LogFileSystem
        /// Told how an open folds the log into read models that are behind it: the last
        /// sequence number folded and the log's head, after each batch. An open that finds
        /// no read models (deleted, new, another version) folds through the bulk path of a
        /// rebuild; one that finds them a few commits behind catches up commit by commit.
        /// A reader's open reports through the same callback when it folds as the writer.
        ///
        /// ```swift
        /// var options = Ledger.Options.standard
        /// options.openProgress = { folded, head in print("\(folded) of \(head)") }
        /// ```
        public var openProgress: (@Sendable (_ folded: UInt64, _ head: UInt64) -> Void)? = nil
        /// The key of an encrypted store (``LedgerKey``): needed by every open of such a store, and
        /// by ``Ledger/create(at:name:baseCurrency:timeZone:options:)`` with ``encrypt``. A store that
        /// is not encrypted refuses a key (``StoreError`` `notEncrypted`).
        public var key: LedgerKey? = nil
        /// For ``Ledger/create(at:name:baseCurrency:timeZone:options:)``: keep the log in a ledger on
        /// PostgreSQL instead of the store's own files. The store's directory then holds the read
        /// models, the local lock and a `log/POSTGRES` file naming the location; every later open
        /// of the directory reads and writes the log in the database (``LogStorage``).
        ///
        /// ```swift
        /// var options = Ledger.Options.standard
        /// options.postgres = try PostgresLogLocation("postgresql://tally@db:5432/books?ledger=home")
        /// let ledger = try Ledger.create(at: "/var/cache/tally/home", name: "Home", baseCurrency: .usd,
        ///     timeZone: "UTC", options: options)
        /// ```
        public var postgres: PostgresLogLocation? = nil
        /// Where the store's wrapped data keys live: nil (the default) for the store's own `KEYS`
        /// file, or an embedder's ``LedgerKeyring``. Give the same keyring every time.
        public var keyring: (any LedgerKeyring)? = nil
        /// At creation: encrypt the store at rest (every log frame sealed with AES-256-GCM under a
        /// data key wrapped by ``key``). Ignored by every other call: a store is encrypted or not
        /// from its creation on.
        public var encrypt: Bool = false
        /// The unwrapped data keys, once ``unlocked(at:)`` opened them.
        var logKeys: LogKeys? = nil
        /// The store's per-subject keys, once ``unlocked(at:)`` loaded them (or a creation made them).
        var subjectKeys: SubjectKeys? = nil
        /// For tests and the demo only: new subjects' identifiers and keys derived from this seed, so
        /// that the same household gives the same digest in two stores. Never for a real store.
        package var subjectKeySeed: UInt64? = nil

        /// Options for opening a ledger; each parameter is the property of the same name, and
        /// the defaults are those of a production store (sync every commit, monthly snapshots,
        /// the engine's events and read models only).
        ///
        /// ```swift
        /// let options = Ledger.Options(syncMode: .none, features: [MerchantTags()])
        /// ```
        public init(
            clock: @escaping @Sendable () -> Instant = { Instant.now },
            syncMode: LogOptions.SyncMode = .everyCommit,
            segmentBytesLimit: Int64 = LogOptions().segmentBytesLimit,
            snapshotInterval: SnapshotInterval = .default,
            subscriptionBufferEvents: Int = 10_000,
            readerLockWaitMicroseconds: Int64 = 60_000_000,
            features: [any LedgerFeature] = [],
            projectors: [any Projector] = [],
            logFileSystem: any LogFileSystem = PosixFileSystem()
        ) {
            self.features = features
            self.projectors = projectors
            self.clock = clock
            self.syncMode = syncMode
            self.segmentBytesLimit = segmentBytesLimit
            self.snapshotInterval = snapshotInterval
            self.subscriptionBufferEvents = subscriptionBufferEvents
            self.readerLockWaitMicroseconds = readerLockWaitMicroseconds
            self.logFileSystem = logFileSystem
        }

        /// The engine's event types and every feature's, after checking that no two share a
        /// code or a name and that each declares its postings.
        ///
        /// - Throws: ``LedgerError`` `invalidArgument` naming the clash.
        public func catalog() throws -> EventCatalog {
            do {
                return try EventCatalog(EventCatalog.engineTypes + features.flatMap(\.eventTypes)).sealing(with: subjectKeys)
            } catch let error as EventCodingError {
                throw LedgerError(.invalidArgument, error.message)
            }
        }

        /// The engine's projectors, then each feature's, then ``projectors``, after checking
        /// that no two share a name or a table.
        ///
        /// - Throws: ``LedgerError`` `invalidArgument` naming the clash.
        public func registeredProjectors() throws -> [any Projector] {
            let all = Ledger.projectors + features.flatMap(\.projectors) + projectors
            var names: Set<String> = []
            var owners = Dictionary(uniqueKeysWithValues: ReadModelStore.engineTables.map { ($0.lowercased(), "the engine") })
            for projector in all {
                guard !projector.name.isEmpty, names.insert(projector.name).inserted else {
                    throw LedgerError(.invalidArgument, "two projectors are named '\(projector.name)'; every projector needs a name of its own (it is its checkpoint's key)")
                }
                for table in projector.tables {
                    if let owner = owners[table.lowercased()] {
                        throw LedgerError(.invalidArgument, "projector '\(projector.name)' lists table '\(table)', which \(owner) already owns")
                    }
                    owners[table.lowercased()] = "projector '\(projector.name)'"
                }
            }
            return all
        }

        var logOptions: LogOptions {
            var options = LogOptions()
            let clock = self.clock
            options.clock = { clock().microsecondsSinceEpoch }
            options.syncMode = syncMode
            options.segmentBytesLimit = segmentBytesLimit
            options.fileSystem = logFileSystem
            options.keys = logKeys
            options.lockWaitMicroseconds = writerLockWaitMicroseconds
            options.lockWaitNotice = writerLockWaitNotice
            return options
        }

        /// For a creation: with ``encrypt``, makes a data key, wraps it by ``key`` and keeps the
        /// unwrapped key in these options; returns the key set's bytes for the keyring.
        ///
        /// - Throws: ``StoreError`` `keyRequired` for ``encrypt`` without a key; ``LedgerError``
        ///   `invalidArgument` for a key without ``encrypt``; `alreadyExists` for an embedder's keyring
        ///   that already holds keys.
        mutating func prepareEncryption() throws -> [UInt8]? {
            guard encrypt else {
                if let key {
                    throw LedgerError(.invalidArgument, "\(key.origin) was given but encryption was not asked for: add --encrypt (Ledger.Options.encrypt) or drop the key")
                }
                return nil
            }
            guard let key else {
                throw StoreError(.keyRequired, "an encrypted store needs a key: give --key-file FILE or TALLY_KEY_FILE=FILE (`tally key new FILE` makes one)")
            }
            if let keyring, try keyring.load() != nil {
                throw LedgerError(.alreadyExists, "the keyring already holds a key set (of another store?); give this store a keyring of its own")
            }
            let (keys, logKeys) = try StoreKeys.create(key: key)
            self.logKeys = logKeys
            return try keys.encoded()
        }

        /// The keyring the store at `root` keeps its wrapped keys in.
        func resolvedKeyring(at root: String) -> any LedgerKeyring {
            keyring ?? StoreKeyFile(root: root)
        }

        /// These options with the store's data keys unwrapped, for an encrypted store; unchanged for
        /// one that is not.
        ///
        /// - Throws: ``StoreError`` `keyRequired` for an encrypted store without ``key``, `wrongKey` when
        ///   the key does not open its keys, `badKey` for a damaged key set, `notEncrypted` for a key given
        ///   to a store that is not encrypted.
        public func unlocked(at root: String) throws -> Options {
            if subjectKeys != nil { return self }
            // A store whose log is on PostgreSQL reads its keys as the database holds them now.
            try StoreLayout(root: root).refreshFromDatabase()
            var options = try unlockedLogKeys(at: root)
            options.subjectKeys = try SubjectKeys.load(root: root, logKeys: options.logKeys, seed: subjectKeySeed)
            return options
        }

        private func unlockedLogKeys(at root: String) throws -> Options {
            if logKeys != nil { return self }
            let keyring = resolvedKeyring(at: root)
            let origin = self.keyring == nil ? "the store's key file '\(StoreLayout(root: root).keyFilePath)'" : "the keyring's key set"
            guard let bytes = try keyring.load() else {
                if StoreLayout(root: root).isEncrypted {
                    throw StoreError(.badKey, "the store at '\(root)' is encrypted but its key set is gone (\(origin) is missing or empty): it cannot be opened; restore the key set from a backup")
                }
                if let key {
                    throw StoreError(.notEncrypted, "the store at '\(root)' is not encrypted, but \(key.origin) was given: drop the key (--key-file, TALLY_KEY_FILE)")
                }
                return self
            }
            guard let key else {
                throw StoreError(.keyRequired, "the store at '\(root)' is encrypted: give its key with --key-file FILE or TALLY_KEY_FILE=FILE (Ledger.Options.key); nothing was opened")
            }
            var options = self
            options.logKeys = try StoreKeys.decode(bytes, from: origin).unlock(with: key)
            let layout = StoreLayout(root: root)
            if !layout.isEncrypted {
                // The key set proves the store encrypted: put the marker back, so that its read
                // models never land in the store.
                try StoreCreation.writeSynced("", to: layout.sealedMarkerPath)
            }
            return options
        }
    }

    /// Where the store lives.
    public let layout: StoreLayout
    /// The ledger's time zone, for "as of a date" and transaction dates.
    public let calendar: LedgerCalendar
    /// The log opened for writing; nil for a ledger opened for reading.
    let store: EventStore?
    package let readModels: ReadModelStore
    let options: Options
    let pipeline: WritePipeline
    private let queue: CommandQueue
    let observers: Subscriptions
    /// Why the read models cannot answer (a rebuild that failed part way left them empty):
    /// every read throws this instead of an empty answer until a rebuild succeeds.
    private let readModelsFailure = Mutex<String?>(nil)

    /// The engine's own projectors: balances, idempotency keys, settings and the log's event
    /// types (``EventTypesProjector``); features' follow.
    public static var projectors: [any Projector] {
        [BalancesProjector(), IdempotencyProjector(), SettingsProjector(), EventTypesProjector()]
    }

    /// For a ledger opened for reading: the log head its read models had folded when it opened.
    private let readerHead: LogDigest

    /// The event types this ledger records and reads: the engine's and its features'.
    public let catalog: EventCatalog

    private init(
        layout: StoreLayout, store: EventStore?, readModels: ReadModelStore, calendar: LedgerCalendar, options: Options,
        catalog: EventCatalog, readerHead: LogDigest = .genesis
    ) {
        self.layout = layout
        self.catalog = catalog
        self.readerHead = readerHead
        self.store = store
        self.readModels = readModels
        self.calendar = calendar
        self.options = options
        let observers = Subscriptions(
            root: layout.root, catalog: catalog, fileSystem: options.logFileSystem, keys: options.logKeys, bufferEvents: options.subscriptionBufferEvents,
            head: store?.head.sequence ?? readerHead.sequence)
        self.observers = observers
        let pipeline = WritePipeline(
            root: layout.root, catalog: catalog, fileSystem: options.logFileSystem, keys: options.logKeys, faultAfterAppend: options.faultAfterAppend, store: store,
            readModels: readModels, clock: options.clock, observers: observers)
        self.pipeline = pipeline
        self.queue = CommandQueue { group in pipeline.run(group) }
    }

    /// Creates a store and its ledger.
    ///
    /// - Throws: ``LedgerError``: `store` if a store exists there (a ``StoreError``
    ///   `alreadyExists` underneath), `invalidEvent` for an unknown time zone,
    ///   `invalidArgument` for a base currency that is not an ISO currency.
    public static func create(
        at root: String, name: String, baseCurrency: Commodity, timeZone: String, options: Options = Options()
    ) throws -> Ledger {
        try LedgerError.boundary {
            let calendar = try LedgerCalendar(timeZoneIdentifier: timeZone)
            guard baseCurrency.isISOCurrency else {
                throw LedgerError(.invalidArgument, "the base currency must be an ISO 4217 currency, not \(baseCurrency.code)")
            }
            _ = try options.registeredProjectors()
            _ = try options.catalog()
            guard options.logFileSystem is PosixFileSystem else {
                throw LedgerError(.invalidArgument, "a store is created on the real disk; a simulated log file system is for Ledger.open")
            }
            var options = options
            let keys = try options.prepareEncryption()
            options.subjectKeys = try SubjectKeys.new(root: root, logKeys: options.logKeys, seed: options.subjectKeySeed)
            let catalog = try options.catalog()
            // An embedder's keyring gets the keys before the store exists: a creation killed in
            // between leaves keys without a store (the next creation says the keyring is taken),
            // never a sealed store whose data key is lost.
            if let keys, let keyring = options.keyring { try keyring.save(keys) }
            let store: EventStore
            do {
                store = try EventStore.create(
                    at: root, ledger: LedgerCreated(name: name, baseCurrency: baseCurrency, timeZone: timeZone),
                    effectiveAt: options.clock(), catalog: catalog, options: options.logOptions,
                    keyFile: options.keyring == nil ? keys : nil, postgres: options.postgres
                )
            } catch {
                if keys != nil, let keyring = options.keyring { try? keyring.remove() }
                throw error
            }
            do {
                return try attach(store, calendar: calendar, options: options)
            } catch {
                try? store.close()
                throw error
            }
        }
    }

    /// Opens an existing store for writing: recovers the log, checks that the read models
    /// describe a prefix of it, then folds whatever they have not yet seen (after a crash
    /// between an append and its fold, nothing is lost).
    ///
    /// - Throws: ``LedgerError``: `store` when there is no store, or when the read models have
    ///   folded events this log does not hold (a ``StoreError`` `readModelsAhead` or
    ///   `readModelsDisagree` underneath: restore the newer log, or
    ///   ``rebuild(at:options:progress:)``); `locked` when another process writes; `store` for
    ///   damage (a `LogError` `corrupt` underneath, naming segment and offset).
    public static func open(at root: String, options: Options = Options()) throws -> Ledger {
        try LedgerError.boundary {
            try StoreLayout(root: root).requireStore()
            let options = try options.unlocked(at: root)
            _ = try options.registeredProjectors()
            let catalog = try options.catalog()
            let store = try EventStore.open(at: root, catalog: catalog, options: options.logOptions, wrappingWriter: options.logWriterWrapper)
            do {
                // One view of the log, the writer's own, for the calendar and the read models' agreement.
                let reader = try store.reader()
                return try attach(store, reader: reader, calendar: try reader.ledgerCalendar(), options: options)
            } catch {
                try? store.close()
                throw error
            }
        }
    }

    private static func attach(_ store: EventStore, reader: EventStoreReader? = nil, calendar: LedgerCalendar, options: Options) throws -> Ledger {
        let readModels = try foldReadModels(of: store.layout, from: try reader ?? store.reader(), calendar: calendar, options: options)
        // A feature missing at open (issue 34, item 5): the log holds types this process does
        // not register; it would write beside them and fold without them. Refused, naming them.
        let unregistered = try readModels.database.read { db in try EventTypesProjector.unregistered(in: store.catalog, db) }
        guard unregistered.isEmpty else {
            try? readModels.database.close()
            throw LedgerError(.invalidEvent, """
                the log holds events of \(unregistered.count == 1 ? "a type" : "types") this process does not register: \
                \(unregistered.joined(separator: ", ")); open the store with the feature that registers \
                \(unregistered.count == 1 ? "it" : "them") (Ledger.Options.features); nothing was opened for writing
                """)
        }
        return Ledger(layout: store.layout, store: store, readModels: readModels, calendar: calendar, options: options, catalog: store.catalog)
    }

    /// Brings a store's read models to the head of `reader`'s view: checks that they describe a
    /// prefix of it, then folds the rest (the bulk path of a rebuild when nothing is folded yet).
    /// The caller holds the store's writer lock (its directory's).
    private static func foldReadModels(
        of layout: StoreLayout, from reader: EventStoreReader, calendar: LedgerCalendar, options: Options
    ) throws -> ReadModelStore {
        var readModels: ReadModelStore
        let path = layout.readModelPath
        let projectors = try options.registeredProjectors()
        let snapshots = SnapshotSettings(calendar: calendar, interval: options.snapshotInterval)
        do {
            readModels = try ReadModelStore(path: path, projectors: projectors, snapshots: snapshots)
        } catch let error as DatabaseError {
            throw StoreError(.readModelsUnreadable, """
                the read models (\(layout.readModelPath)) cannot be opened: \(error.message ?? "\(error.resultCode)"); \
                they are derived from the log: run `tally rebuild` to make them again
                """)
        }
        do {
            try readModels.checkAgreement(with: reader)
            let nothingFolded = try readModels.database.read { db in
                try readModels.registeredCheckpointDigests(db).allSatisfy { $0.sequence == 0 }
            }
            let head = reader.head.sequence
            let progress = options.openProgress.map { report in { (folded: UInt64) in report(folded, head) } }
            if nothingFolded && head > 1 {
                // Nothing folded yet (read models deleted, new, or every projector of another
                // version): the bulk fold of a rebuild, not the per-commit catch-up; into a new
                // file when this one holds nothing else to keep.
                if try readModels.holdsOnlyRegisteredTables() {
                    try readModels.database.close()
                    try ReadModelStore.rebuildInNewFile(path: path, projectors: projectors, snapshots: snapshots, from: reader, progress: progress)
                    readModels = try ReadModelStore(path: path, projectors: projectors, snapshots: snapshots)
                } else {
                    try readModels.rebuild(from: reader, progress: progress)
                }
            } else {
                try readModels.catchUp(from: reader, progress: progress)
            }
        } catch {
            try? readModels.database.close()
            throw error
        }
        return readModels
    }

    /// Folds a store's log into its read models without writing the log: for a store whose log
    /// is on PostgreSQL, a reader on a node that did not write the newest events (a follower)
    /// takes only this node's directory lock, never the ledger's lease, so it never waits for
    /// the node that writes.
    /// - Returns: the sequence number the read models are folded through.
    /// - Throws: `LogError` `locked` when a process of this node holds the directory.
    @discardableResult
    static func follow(at root: String, options: Options) throws -> UInt64 {
        let layout = StoreLayout(root: root)
        let lock = try options.logFileSystem.lockForWriting(directory: layout.logDirectory)
        defer { lock.release() }
        // The keys as the database holds them now, under the lock: every event folded here
        // finds the key its writer saved before appending it.
        try layout.refreshFromDatabase(holdingLock: true)
        var options = options
        options.subjectKeys = nil
        options = try options.unlocked(at: root)
        let reader = try EventStoreReader.open(at: root, catalog: try options.catalog(), fileSystem: options.logFileSystem, keys: options.logKeys)
        let readModels = try foldReadModels(of: layout, from: reader, calendar: try reader.ledgerCalendar(), options: options)
        try readModels.database.close()
        return reader.head.sequence
    }

    /// Folds what is new in a store's log into its read models without appending: for a log on
    /// PostgreSQL as a follower (``follow(at:options:)``), for files as the writer that opens,
    /// catches up and closes.
    /// - Returns: the sequence number the read models are folded through.
    /// - Throws: `locked` when another process of this machine holds the store.
    @discardableResult
    static func catchUp(at root: String, options: Options) throws -> UInt64 {
        if try LogStorage.remoteLocation(in: StoreLayout(root: root).logDirectory) != nil {
            return try follow(at: root, options: options)
        }
        let ledger = try open(at: root, options: options)
        let folded = ledger.head.sequence
        try ledger.close()
        return folded
    }

    /// Opens a store for reading, without the writer lock: the ledger answers every query
    /// from the newest committed read-model state, while another process writes, as many
    /// times over as there are readers. Commands throw ``StoreError`` `readOnly`.
    ///
    /// When the read models are behind the log (or missing, or of an older version) and no
    /// writer is live, it takes the writer lock just long enough to fold the log into them;
    /// when a writer is live it answers from what that writer has committed, and waits for
    /// the writer (up to ``Options/readerLockWaitMicroseconds``) only if there are no usable
    /// read models at all.
    ///
    /// ```swift
    /// let reader = try Ledger.openForReading(at: ".tally")
    /// let balances = try reader.balances()
    /// ```
    ///
    /// - Throws: ``LedgerError`` as ``open(at:options:)`` does; `locked` when a writer kept the
    ///   store busy longer than the wait and no read models could be used.
    public static func openForReading(at root: String, options: Options = Options()) throws -> Ledger {
        try LedgerError.boundary {
            let layout = StoreLayout(root: root)
            try layout.requireStore()
            let options = try options.unlocked(at: root)
            let catalog = try options.catalog()
            // The view opened for the calendar serves the first look at the read models when no
            // checkpoint is past its head (the log only grows, so it is a prefix of the log the
            // read models folded); otherwise, and on every later look, the log is opened again
            // after the checkpoints are read.
            var opened: EventStoreReader? = try EventStoreReader.open(at: root, catalog: catalog, fileSystem: options.logFileSystem, keys: options.logKeys)
            let calendar = try opened!.ledgerCalendar()
            let snapshots = SnapshotSettings(calendar: calendar, interval: options.snapshotInterval)
            let registered = try options.registeredProjectors()
            let deadline = Instant.now.microsecondsSinceEpoch + options.readerLockWaitMicroseconds
            var caughtUp = false
            while true {
                if let readModels = try ReadModelStore.openForReading(path: layout.readModelPath, projectors: registered, snapshots: snapshots) {
                    do {
                        // Checkpoints first, then the log: a live writer publishes a commit to the
                        // log before its read models commit it, so the log is never the one behind.
                        let digests = try readModels.database.read { db in try readModels.registeredCheckpointDigests(db) }
                        let reader = try opened.flatMap { earlier in digests.allSatisfy { $0.sequence <= earlier.head.sequence } ? earlier : nil }
                            ?? EventStoreReader.open(at: root, catalog: catalog, fileSystem: options.logFileSystem, keys: options.logKeys)
                        opened = nil
                        let checkpoint = digests.map(\.sequence).min() ?? 0
                        if checkpoint >= reader.head.sequence || caughtUp
                            || LogReader.writerIsLive(directory: layout.logDirectory, fileSystem: options.logFileSystem) {
                            try readModels.checkAgreement(with: reader, digests: digests)
                            let folded = try readModels.checkpointDigest(reader, digests: digests)
                            return Ledger(
                                layout: layout, store: nil, readModels: readModels, calendar: calendar, options: options,
                                catalog: reader.catalog, readerHead: folded)
                        }
                        try readModels.database.close()
                    } catch {
                        try? readModels.database.close()
                        throw error
                    }
                }
                // Behind with no writer live, or no usable read models: fold the log as the writer
                // (of the read models only, for a log that lives in a database), or wait for the
                // live one: its lock is reported as a LedgerError by Ledger.open, waited for here.
                do {
                    var folding = options
                    folding.writerLockWaitMicroseconds = 0
                    try Ledger.catchUp(at: root, options: folding)
                    caughtUp = true
                } catch let error where LedgerError.reporting(error)?.code == .locked {
                    guard Instant.now.microsecondsSinceEpoch < deadline else { throw error }
                    usleep(20_000)
                }
            }
        }
    }

    /// Closes the ledger: waits for every queued and in-flight command, ends the event
    /// streams, then closes the log (releasing the writer lock) and the read-model database.
    public func close() throws {
        try LedgerError.boundary {
            queue.close()
            observers.finishAll()
            // Both are released even when the first fails (a log on a failed disk must not keep
            // the read-model database open).
            var failure: (any Error)?
            do { try store?.close() } catch { failure = error }
            do { try readModels.database.close() } catch { failure = failure ?? error }
            if let failure { throw failure }
        }
    }

    /// Flushes commits appended with ``Options/syncMode`` `.none` to disk.
    public func sync() throws { try writableStore().writer.sync() }

    /// The last event's sequence number and hash: the log's head for a writer, the head the
    /// read models answer from for a reader.
    public var head: LogDigest { store?.head ?? readerHead }

    /// Inside a command's plan: the sequence number its first event will get (the log's head
    /// plus the events of the commands planned before it in the same group). Outside a plan:
    /// the head's successor.
    public var nextSequence: UInt64 { pipeline.sequenceBeingPlanned ?? head.sequence + 1 }

    /// The current instant by the ledger's clock.
    public var now: Instant { options.clock() }

    /// Whether this ledger was opened for reading (commands throw ``StoreError`` `readOnly`).
    public var isReadOnly: Bool { store == nil }

    func writableStore() throws -> EventStore {
        guard let store else {
            throw StoreError(.readOnly, "this ledger was opened for reading; open it with Ledger.open to run commands")
        }
        return store
    }

    // MARK: Commands

    /// What a command did.
    public struct CommandResult: Sendable {
        /// The events it appended, or for a repeated idempotency key, those the first run appended.
        public let events: [Event]
        /// True when the key had been used: nothing was appended this time.
        public let wasAlreadyApplied: Bool
    }

    /// Runs a command through the write pipeline and waits for its commit.
    ///
    /// ```swift
    /// let result = try ledger.run(LedgerCommand(idempotencyKey: "k-1") { db in [event] })
    /// ```
    ///
    /// - Throws: ``LedgerError`` when the command is refused (nothing appended), including
    ///   `idempotencyConflict` for a key used before with different input, `store` (a
    ///   ``StoreError`` `readOnly` underneath) on a ledger opened for reading, `store` or
    ///   `locked` for the log's failures (``LedgerError/reporting(_:)``).
    @discardableResult
    public func run(_ command: LedgerCommand) throws -> CommandResult {
        try LedgerError.boundary {
            let pending = PendingCommand(command)
            try queue.submitAndWait([pending])
            return try pending.outcome!.get()
        }
    }

    /// Runs many commands in order, in as few commits as the frame limits allow (one for
    /// any batch up to 100,000 events), each planned against state that includes the
    /// earlier ones. A refused command fails alone; the others go on. TigerBeetle's
    /// `create_transfers` is the model.
    ///
    /// ```swift
    /// let results = try ledger.run(batch: deposits)      // one Result per command
    /// ```
    public func run(batch commands: [LedgerCommand]) throws -> [Result<CommandResult, any Error>] {
        let pending = commands.map { PendingCommand($0) }
        try LedgerError.boundary { try queue.submitAndWait(pending) }
        return pending.map { $0.outcome!.mapError { LedgerError.reporting($0) ?? $0 } }
    }

    /// Runs a command without blocking the cooperative thread pool: the commit runs on the
    /// ledger's own thread and concurrent callers share one `fdatasync`.
    @discardableResult
    public func run(_ command: LedgerCommand) async throws -> CommandResult {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                queue.enqueue([PendingCommand(command, continuation: continuation)])
            }
        } catch {
            throw LedgerError.reporting(error) ?? error
        }
    }

    /// Queues a command without waiting for it, so that one caller can keep several commands
    /// in flight (pipelining): await the returned ``SubmittedCommand/result`` for its
    /// outcome. Commands run in the order they are submitted, so one caller's commands are
    /// planned in its order, each against state that includes every earlier one that
    /// succeeded (a refused command fails alone, as in ``run(batch:)-1jcbj``). Commands in
    /// flight together share commits. The command runs whether or not its result is awaited;
    /// ``close()`` waits for it. Never blocks: the queue's own thread leads the commit.
    ///
    /// ```swift
    /// // Up to 8 deposits in flight, outcomes taken in order.
    /// var inFlight: [Ledger.SubmittedCommand] = []
    /// for command in deposits {
    ///     if inFlight.count == 8 { try await inFlight.removeFirst().result }
    ///     inFlight.append(ledger.submit(command))
    /// }
    /// for submitted in inFlight { try await submitted.result }
    /// ```
    public func submit(_ command: LedgerCommand) -> SubmittedCommand {
        let pending = PendingCommand(command)
        queue.enqueue([pending])
        return SubmittedCommand(pending: pending)
    }

    /// A command queued by ``Ledger/submit(_:)``, in flight until its commit.
    public struct SubmittedCommand: Sendable {
        let pending: PendingCommand

        /// What the command did, once its commit is durable (at once if it already is).
        /// Awaiting it more than once gives the same outcome.
        ///
        /// - Throws: what ``Ledger/run(_:)-8w1bu`` throws for the same command.
        public var result: CommandResult {
            get async throws {
                do {
                    return try await pending.outcomeWhenDelivered()
                } catch {
                    throw LedgerError.reporting(error) ?? error
                }
            }
        }
    }

    /// Runs any blocking work on the ledger (a product's command method, a query) on a
    /// thread of the process's shared blocking pool, so that the calling
    /// task never blocks the cooperative thread pool. The pool's threads are reused: a call
    /// starts no thread of its own when one is idle. Commands from concurrent callers still
    /// meet in the pipeline's queue and share commits.
    ///
    /// ```swift
    /// let result = try await ledger.run { ledger in
    ///     try ledger.deposit(account: "main", amount: try Money(parsing: "25.00", commodity: .usd))
    /// }
    /// ```
    public func run<T: Sendable>(_ body: @escaping @Sendable (Ledger) throws -> T) async throws -> T {
        try await BlockingPool.run { [self] in try body(self) }
    }

    /// The asynchronous ``run(batch:)``.
    public func run(batch commands: [LedgerCommand]) async -> [Result<CommandResult, any Error>] {
        guard !commands.isEmpty else { return [] }
        var pending: [PendingCommand] = []
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let batch = PendingBatch(count: commands.count, continuation: continuation)
            pending = commands.map { PendingCommand($0, batch: batch) }
            queue.enqueue(pending)
        }
        return pending.map { $0.outcome!.mapError { LedgerError.reporting($0) ?? $0 } }
    }

    /// Runs a command given as its parts and waits for it: ``run(_:)-2djfs`` for a
    /// blocking caller whose plan need not be `@Sendable` (it never outlives the call). Every
    /// product's command method is written this way, and an embedder's can be.
    ///
    /// ```swift
    /// let request = NewEvent(effectiveAt: now, body: EventBody(MerchantTagged(transactionId: "t1", merchant: "Grocer")))
    /// let result = try ledger.perform(idempotencyKey: key, request: request) { db in
    ///     guard try transactionExists(db, "t1") else { throw LedgerError(.notFound, "no transaction 't1'") }
    ///     return [request]
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - idempotencyKey: put on the first event; a repeat returns the first result.
    ///   - request: the first event, built from the command's input alone, that a repeat of
    ///     the key is compared with (``LedgerCommand/request``).
    ///   - requestHasEffectiveTime: whether the caller gave the request's effective time
    ///     (``LedgerCommand/requestHasEffectiveTime``).
    ///   - plan: reads state and returns the events to append, or throws ``LedgerError``.
    @discardableResult
    public func perform(
        idempotencyKey: String? = nil, request: NewEvent? = nil, requestHasEffectiveTime: Bool = false,
        _ plan: (Database) throws -> [NewEvent]
    ) throws -> CommandResult {
        // The caller waits for the outcome, so the plan never outlives this call, and it runs
        // on whichever thread leads the group while this one waits: never two at once.
        try withoutActuallyEscaping(plan) { plan in
            let sendable = unsafeBitCast(plan, to: (@Sendable (Database) throws -> [NewEvent]).self)
            return try run(LedgerCommand(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: requestHasEffectiveTime, plan: sendable))
        }
    }

    /// The former spelling of ``perform(idempotencyKey:request:requestHasEffectiveTime:_:)``:
    /// `dated` was the same flag as ``LedgerCommand/requestHasEffectiveTime`` under another name.
    @available(*, deprecated, renamed: "perform(idempotencyKey:request:requestHasEffectiveTime:_:)")
    @discardableResult
    public func perform(
        idempotencyKey: String? = nil, request: NewEvent? = nil, dated: Bool, _ plan: (Database) throws -> [NewEvent]
    ) throws -> CommandResult {
        try perform(idempotencyKey: idempotencyKey, request: request, requestHasEffectiveTime: dated, plan)
    }

    /// Appends events as given (an import of events in their JSON form) as one atomic
    /// commit, folds them, and tells observers. Business decisions already recorded are not
    /// made again, but each event must be admissible where it lands (``AdmissionChecked``: one
    /// `ledger_created`, signs, referenced pots, no wealth balance or pot below zero), and
    /// an event whose idempotency key was used before is skipped when it is the same event
    /// (a repeated file appends nothing) and refused as a conflict when it is not.
    ///
    /// - Throws: ``LedgerError`` naming the event (its position in `events`) that is not
    ///   admissible; nothing is appended.
    @discardableResult
    public func appendEvents(_ events: [NewEvent]) throws -> CommandResult {
        try run(Self.admitting(events))
    }

    /// Appends events as given, as ``appendEvents(_:)`` does, in commits of `batchSize`
    /// events (for inputs larger than one commit may hold), all or nothing: the whole input
    /// is first rehearsed against the read models, each batch admitted where it would land,
    /// and only when every event is admissible is the first batch appended.
    ///
    /// ```swift
    /// let results = try ledger.appendEvents(events, batchSize: 10_000)
    /// ```
    ///
    /// - Throws: ``LedgerError`` naming the first event that is not admissible; nothing is
    ///   appended. An I/O error while appending leaves the batches before it committed.
    @discardableResult
    public func appendEvents(_ events: [NewEvent], batchSize: Int) throws -> [CommandResult] {
        guard batchSize > 0 else {
            throw LedgerError(.invalidArgument, "the batch size must be at least 1 event, not \(batchSize)")
        }
        let batches = stride(from: 0, to: events.count, by: batchSize).map { Array(events[$0..<min($0 + batchSize, events.count)]) }
        try rehearse { plan in
            for batch in batches { try plan(Self.admitting(batch)) }
        }
        return try batches.map { try run(Self.admitting($0)) }
    }

    /// The command that appends events as decided, each checked by ``Admissibility``.
    static func admitting(_ events: [NewEvent]) -> LedgerCommand {
        var command = LedgerCommand { _ in events }
        command.admitsEvents = true
        return command
    }

    /// What `command` would record, planned exactly as ``run(_:)`` plans it (the same rules,
    /// against the same state, with the sequence numbers the events would take), and rolled
    /// back: nothing reaches the log or the read models. A `--dry-run`'s answer.
    ///
    /// ```swift
    /// let preview = try ledger.preview(try ledger.depositCommand(account: "main", amount: usd("100.00")))
    /// for event in preview.events { print(event.sequence, event.body.payload) }   // the deposit, then its split
    /// ```
    ///
    /// - Throws: what ``run(_:)`` would throw for the command (nothing is appended either way);
    ///   ``StoreError`` `readOnly` (as a ``LedgerError`` `store`) on a ledger opened for reading.
    public func preview(_ command: LedgerCommand) throws -> CommandResult {
        _ = try writableStore()
        return try queue.exclusively { try pipeline.rehearsing { plan in try plan(command) } }
    }

    /// Plans commands one after another as one group would, each against the state the
    /// earlier ones leave, and keeps nothing: the first refusal is thrown. Waits for the
    /// commands in flight and holds the next ones back while it runs.
    package func rehearse(_ body: (_ plan: (LedgerCommand) throws -> Void) throws -> Void) throws {
        _ = try writableStore()
        try queue.exclusively { try pipeline.rehearse(body) }
    }

    // MARK: Read models

    /// Rebuilds a store's read models from its log, whatever state they are in: a damaged or
    /// unreadable read-model file is deleted and made again, and read models ahead of or
    /// disagreeing with the log are simply replaced. Every registered projector (the
    /// built-in ones and ``Options/projectors``) folds the log afresh; a readable file keeps
    /// the tables no registered projector made (an embedder's projector left out this time
    /// keeps its tables and its checkpoint). Takes the writer lock for the duration.
    ///
    /// When the file holds nothing a rebuild must keep (the usual case), the log is folded
    /// into a new file that replaces the old one only once it is complete and durable: a
    /// rebuild that fails or is killed leaves the old read models as they were, and the new
    /// file is written without a WAL or syncs until its end, with its indexes made once.
    ///
    /// ```swift
    /// let head = try Ledger.rebuild(at: ".tally") { folded in print(folded) }
    /// ```
    ///
    /// - Returns: the log head the read models now describe.
    /// - Throws: ``StoreError`` when there is no store; `LogError` (`locked`) while another
    ///   process writes, (`corrupt`) for log damage (`tally repair` first); ``LedgerError``
    ///   when two registered projectors share a name or a table.
    @discardableResult
    public static func rebuild(at root: String, options: Options = Options(), progress: ((UInt64) -> Void)? = nil) throws -> LogDigest {
        try LedgerError.boundary {
            try StoreLayout(root: root).requireStore()
            let options = try options.unlocked(at: root)
            let registered = try options.registeredProjectors()
            let catalog = try options.catalog()
            let store = try EventStore.open(at: root, catalog: catalog, options: options.logOptions)
            defer { try? store.close() }
            let reader = try store.reader()
            let snapshots = SnapshotSettings(calendar: try reader.ledgerCalendar(), interval: options.snapshotInterval)
            let path = store.layout.readModelPath
            switch ReadModelStore.rebuildTarget(path: path, projectors: registered, snapshots: snapshots) {
            case .inPlace(let kept):
                defer { try? kept.database.close() }
                try kept.rebuild(from: reader, progress: progress)
            case .newFile:
                try ReadModelStore.rebuildInNewFile(path: path, projectors: registered, snapshots: snapshots, from: reader, progress: progress)
            }
            return reader.head
        }
    }

    /// Answers a typed query from the newest committed state of the read models, in one
    /// consistent snapshot (a query written in a feature's read-model layer:
    /// ``ReadModelQuery``).
    ///
    /// ```swift
    /// let merchant = try ledger.read(MerchantTagQueries.merchant(of: "Assets:Till"))
    /// ```
    ///
    /// - Throws: ``LedgerError`` (`readModels`) with the database's error attached.
    public func read<Value>(_ query: ReadModelQuery<Value>) throws -> Value {
        try LedgerError.boundary {
            try requireReadModels()
            return try readModels.database.read { db in try query.fetch(db) }
        }
    }

    /// Throws when a rebuild failed part way: the read models hold no answer worth giving.
    private func requireReadModels() throws {
        if let failure = readModelsFailure.withLock({ $0 }) {
            throw LedgerError(.readModels, "the read models cannot answer: a rebuild failed part way (\(failure)); they are empty or partial until `tally rebuild` succeeds")
        }
    }

    /// Reads the read models in a consistent snapshot, for the products and the package's
    /// tests; applications read through a ``ReadModelQuery``.
    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        try LedgerError.boundary {
            try requireReadModels()
            return try readModels.database.read(body)
        }
    }

    /// Drops every read model and folds the whole log again; `progress` gets the last
    /// sequence number folded. Waits for the commands in flight.
    public func rebuild(progress: ((UInt64) -> Void)? = nil) throws {
        try LedgerError.boundary {
            _ = try writableStore()
            try queue.exclusively {
                do {
                    try readModels.rebuild(from: try writableStore().reader(), progress: progress)
                    readModelsFailure.withLock { $0 = nil }
                } catch {
                    readModelsFailure.withLock { $0 = "\(error)" }
                    throw error
                }
            }
        }
    }
}

