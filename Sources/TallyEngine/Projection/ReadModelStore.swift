internal import Foundation
internal import GRDBSQLite
public import GRDB
import TallyLog

/// The SQLite database of a store's read models (`readmodels.sqlite`, WAL), kept in step
/// with the log by its projectors. It can always be thrown away and rebuilt from the log.
public final class ReadModelStore: Sendable {
    /// The database; read it freely, write it only through ``apply(_:hash:)``.
    public let database: DatabasePool
    let projectors: [any Projector]
    /// What a fold needs to know of each of ``projectors``, in the same order: found once,
    /// not asked of every projector at every fold (a command's fold cast each to
    /// `any SnapshotTaking`, 2.6 % of a deposit command, and built each one's set of event
    /// types, 4.5 %).
    let foldTraits: [FoldTraits]
    /// The names of ``projectors``: the checkpoints this store reads and moves. A checkpoint
    /// of a projector not registered this time is left as it is.
    let projectorNames: Set<String>
    /// Tables the engine keeps beside the projectors' own.
    static let engineTables = ["projection_checkpoints", "projection_tables", "grdb_migrations"]
    /// Where projectors that keep snapshots take them; nil: none are taken (answers fold
    /// from the beginning, as a replay does).
    let snapshots: SnapshotSettings?

    /// Opens (or creates) the database and makes every projector's tables current: a
    /// projector whose version changed, or that is new, starts again from sequence 0.
    public init(path: String, projectors: [any Projector], snapshots: SnapshotSettings? = nil) throws {
        var configuration = Configuration()
        configuration.busyMode = Self.busyMode
        configuration.label = "tally.readmodels"
        configuration.prepareDatabase { db in try Self.prepareWriter(db) }
        try OwnerOnly.prepareDatabaseFile(path)
        database = try DatabasePool(path: path, configuration: configuration)
        self.projectors = projectors
        self.foldTraits = projectors.map(FoldTraits.init)
        self.projectorNames = Set(projectors.map(\.name))
        self.snapshots = snapshots
        try Self.engineMigrator.migrate(database)
        try database.write { db in
            for projector in projectors {
                let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT version FROM projection_checkpoints WHERE projector = ?"), arguments: [projector.name])
                // A rebuild that stopped before it created its deferred indexes again leaves
                // the projector to be folded afresh.
                if try row?[CheckpointColumns.version] as Int? != projector.version || !Self.hasIndexes(projector.indexesDeferredOnRebuild, db) {
                    try Self.reset(projector, db)
                }
            }
        }
    }

    /// The writer's cache and temporary storage: a group of commands folds in one transaction
    /// with a savepoint per command, and with SQLite's defaults (a 2 MiB cache, temporary
    /// files on disk) a large group spills its pages to the WAL and each savepoint's journal
    /// to a temporary file before it commits. Readers keep the defaults.
    static func prepareWriter(_ db: Database) throws {
        guard !db.configuration.readonly else { return }
        // Setting it writes the file's header even where it changes nothing, and a command
        // that is refused leaves the store's files as they were: only a file with no table.
        if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") == 0 { try db.execute(sql: incrementalVacuum) }
        try db.execute(sql: "PRAGMA cache_size = -\(writerCacheKiB); PRAGMA temp_store = MEMORY; PRAGMA journal_size_limit = \(walSizeLimit)")
    }

    /// The size the WAL is cut back to when it starts over after a checkpoint: a large group
    /// of commands grows it, and without a limit it keeps its largest size on disk for good.
    static let walSizeLimit = 4 << 20

    /// Read-model files keep the pages they free in a list of their own, unless they are made
    /// with this setting (it takes effect in a file with no table yet: a new store's, a
    /// rebuild's): then ``shrinkAfterBulkWrite(patience:)`` hands them back. An import packs
    /// its idempotency keys and empties their loose table as it goes, which left 0.7 MB of
    /// free pages in a 1M-row import's 24 MB of read models.
    static let incrementalVacuum = "PRAGMA auto_vacuum = INCREMENTAL"

    /// Packs the idempotency keys left loose (``PackedKeys/packLoose(_:)``): an import's end,
    /// whose batches packed them less often. A failure leaves them loose, as they were, for
    /// the next packing; the import itself is committed, so it is not reported.
    func packLooseKeys() {
        _ = try? database.write { db in try PackedKeys.packLoose(db) }
    }

    /// Hands the pages the file no longer uses back to the file system (in a file made with
    /// ``incrementalVacuum``; nothing otherwise), copies the WAL into the database file and
    /// cuts the WAL back to one page, waiting at most `patience` milliseconds for readers
    /// still in it; after a bulk write (an import or a rebuild) this leaves the store as small
    /// as its data. Returns false when a reader kept the WAL (it is then cut back at a later
    /// checkpoint, ``walSizeLimit``).
    ///
    /// The WAL is left holding one page (the header page written again unchanged), not
    /// empty: GRDB makes sure of a non-empty WAL whenever it opens a writer, by creating a
    /// table and dropping it, which would change the file on the next open instead.
    @discardableResult
    func shrinkAfterBulkWrite(patience milliseconds: Int32 = 200) throws -> Bool {
        try database.writeWithoutTransaction { db in try Self.shrinkAfterBulkWrite(db, patience: milliseconds) }
    }

    /// ``shrinkAfterBulkWrite(patience:)`` on the writer's connection.
    @discardableResult
    static func shrinkAfterBulkWrite(_ db: Database, patience milliseconds: Int32 = 200) throws -> Bool {
        if try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0 > 0 { try db.execute(sql: "PRAGMA incremental_vacuum") }
        sqlite3_busy_timeout(db.sqliteConnection, milliseconds)
        defer { sqlite3_busy_timeout(db.sqliteConnection, busyTimeoutMilliseconds) }
        do {
            _ = try db.checkpoint(.truncate)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            return false
        }
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        try db.execute(sql: "PRAGMA user_version = \(version)")
        return true
    }

    /// How long every connection to the read models waits for a lock held elsewhere, in
    /// milliseconds (``busyMode``).
    static let busyTimeoutMilliseconds: Int32 = 10_000

    /// ``busyTimeoutMilliseconds`` as every connection to the read models is configured.
    static var busyMode: Database.BusyMode { .timeout(TimeInterval(busyTimeoutMilliseconds) / 1_000) }

    /// The writer's page cache, in KiB.
    static let writerCacheKiB = 16_384

    /// The checkpoints: per projector, the version of its tables, the last sequence number it
    /// folded and the chain hash of that event (NULL when a store from before hashes were kept
    /// has not folded anything since), so that opening can tell a log that was cut or swapped
    /// under its read models.
    private init(database: DatabasePool, projectors: [any Projector], snapshots: SnapshotSettings?) {
        self.database = database
        self.projectors = projectors
        self.foldTraits = projectors.map(FoldTraits.init)
        self.projectorNames = Set(projectors.map(\.name))
        self.snapshots = snapshots
    }

    /// Opens the read models for reading only, or returns nil when they cannot answer as
    /// they are: no file, no checkpoints, or a projector missing or of another version (a
    /// writer must fold them first). Nothing is written.
    static func openForReading(path: String, projectors: [any Projector], snapshots: SnapshotSettings?) throws -> ReadModelStore? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = Self.busyMode
        configuration.label = "tally.readmodels.reader"
        let database: DatabasePool
        do {
            database = try DatabasePool(path: path, configuration: configuration)
        } catch {
            return nil
        }
        let usable = (try? database.read { db -> Bool in
            guard try db.tableExists("projection_checkpoints") else { return false }
            var versions: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT projector, version FROM projection_checkpoints") {
                versions[row[CheckpointColumns.projector]] = row[CheckpointColumns.version]
            }
            for projector in projectors {
                guard versions[projector.name] == projector.version, try hasIndexes(projector.indexesDeferredOnRebuild, db) else { return false }
            }
            return true
        }) ?? false
        guard usable else {
            try? database.close()
            return nil
        }
        return ReadModelStore(database: database, projectors: projectors, snapshots: snapshots)
    }

    /// Opens the read models for a rebuild when the file is there and passes SQLite's quick
    /// check; nil when it is missing, damaged or not a database (the rebuild then starts
    /// from a new file).
    static func openIfIntact(path: String, projectors: [any Projector], snapshots: SnapshotSettings?) -> ReadModelStore? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        var configuration = Configuration()
        configuration.busyMode = Self.busyMode
        configuration.label = "tally.readmodels"
        guard let database = try? DatabasePool(path: path, configuration: configuration) else { return nil }
        let intact = (try? database.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") == "ok" }) ?? false
        guard intact else {
            try? database.close()
            return nil
        }
        try? database.close()
        return try? ReadModelStore(path: path, projectors: projectors, snapshots: snapshots)
    }

    /// The lowest checkpoint with its chain hash, the hash read from `reader`'s log when the
    /// checkpoint has none (call after ``checkAgreement(with:)``).
    func checkpointDigest(_ reader: EventStoreReader, digests: [(projector: String, sequence: UInt64, hash: [UInt8]?)]) throws -> LogDigest {
        let lowest = digests.min(by: { $0.sequence < $1.sequence })
        guard let lowest, lowest.sequence > 0 else { return .genesis }
        if let hash = lowest.hash { return LogDigest(sequence: lowest.sequence, hash: hash) }
        guard let hash = try reader.reader.hash(of: lowest.sequence) else {
            throw StoreError(.readModelsAhead, "the read models have folded event \(lowest.sequence), which the log does not hold; run `tally rebuild`")
        }
        return LogDigest(sequence: lowest.sequence, hash: hash)
    }

    /// The engine's own tables, the only ones in the file that are not a projector's fold of
    /// the log, evolve through GRDB's `DatabaseMigrator`; each step is written so that a file
    /// made before the migrator (which holds the tables but no `grdb_migrations` record) takes
    /// it as well. A projector's tables are not migrated: they are derived from the log, so a
    /// change of its tables or fold raises ``Projector/version`` and the projector is folded
    /// again from the log, which keeps "a rebuild reproduces every table exactly" true.
    static let engineMigrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        // Per projector: the version of its tables, the last sequence number folded.
        migrator.registerMigration("projection_checkpoints") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS projection_checkpoints (
                    projector TEXT PRIMARY KEY NOT NULL,
                    version INTEGER NOT NULL,
                    sequence INTEGER NOT NULL
                ) STRICT
                """)
        }
        // The chain hash of the checkpoint's event, so that opening can tell a log that was
        // cut or swapped under its read models.
        migrator.registerMigration("projection_checkpoints.hash") { db in
            guard try !db.columns(in: "projection_checkpoints").contains(where: { $0.name == "hash" }) else { return }
            try db.alter(table: "projection_checkpoints") { table in table.add(column: "hash", .blob) }
        }
        // Which projector made which table: a rebuild drops exactly these, so that tables a
        // projector no longer lists go, and tables no registered projector made stay.
        migrator.registerMigration("projection_tables") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS projection_tables (
                    projector TEXT NOT NULL,
                    name TEXT NOT NULL,
                    PRIMARY KEY (projector, name)
                ) STRICT, WITHOUT ROWID
                """)
        }
        return migrator
    }()

    /// Drops the projector's tables (those it lists and those it made before), creates them
    /// afresh and sets its checkpoint to 0.
    private static func reset(_ projector: any Projector, _ db: Database) throws {
        let made = try String.fetchAll(db.cachedStatement(sql: "SELECT name FROM projection_tables WHERE projector = ?"), arguments: [projector.name])
        for table in Set(projector.tables + made) {
            try db.execute(sql: "DROP TABLE IF EXISTS \(table.quotedDatabaseIdentifier)")
        }
        try db.cachedStatement(sql: "DELETE FROM projection_tables WHERE projector = ?").execute(arguments: [projector.name])
        try projector.createTables(db)
        for table in projector.tables {
            try db.cachedStatement(sql: "INSERT INTO projection_tables (projector, name) VALUES (?, ?)").execute(arguments: [projector.name, table])
        }
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO projection_checkpoints (projector, version, sequence, hash) VALUES (?, ?, 0, NULL)")
            .execute(arguments: [projector.name, projector.version])
    }

    /// The last sequence number every registered projector has folded.
    public func checkpoint() throws -> UInt64 {
        try database.read { db in try Self.checkpoints(db).filter { projectorNames.contains($0.key) }.values.min() ?? 0 }
    }

    static func checkpoints(_ db: Database) throws -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        // Read at the start of every group of commands: compiled once per connection.
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT projector, sequence FROM projection_checkpoints")) {
            result[row[CheckpointColumns.projector]] = row.sequence(CheckpointColumns.sequence)
        }
        return result
    }

    private static func hasIndexes(_ names: [String], _ db: Database) throws -> Bool {
        for name in names where try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?"), arguments: [name]) == nil {
            return false
        }
        return true
    }

    /// Folds events (in log order, contiguous) into every projector that has not seen them,
    /// in one transaction with the checkpoints. `hash` is the chain hash of the last event.
    ///
    /// - Throws: ``StoreError`` (`readModelsDisagree`) when a projector's checkpoint leaves a
    ///   gap before the first event (nothing is folded); whatever a projector throws.
    public func apply(_ events: [Event], hash: [UInt8]?) throws {
        try apply(events, hash: hash, afterLostEvents: false)
    }

    /// ``apply(_:hash:)`` of events that follow events a repair set aside as lost to damage
    /// (`afterLostEvents`): every checkpoint moves past the lost ones first.
    func apply(_ events: [Event], hash: [UInt8]?, afterLostEvents: Bool) throws {
        try database.write { db in
            let checkpoints = afterLostEvents ? try Self.checkpoints(pastLostEventsBefore: events.first, projectors: projectors, db) : nil
            try fold(events[...], db, checkpoints: checkpoints)
            if let last = events.last?.sequence { try setCheckpoints(last, hash: hash, db) }
        }
    }

    /// Every projector's checkpoint, moved to just before `first` (past the lost events before it):
    /// a read hands the projectors every event from the least checkpoint on, so each stands at or
    /// after the lost events' start.
    static func checkpoints(pastLostEventsBefore first: Event?, projectors: [any Projector], _ db: Database) throws -> [String: UInt64]? {
        guard let first = first?.sequence else { return nil }
        let stored = try checkpoints(db)
        return Dictionary(uniqueKeysWithValues: projectors.map { ($0.name, max(stored[$0.name] ?? 0, first - 1)) })
    }

    /// Folds events into every projector whose checkpoint is before them, inside the caller's
    /// transaction, without moving any checkpoint: the write pipeline folds each command
    /// before its events reach the log and moves the checkpoints once the append is durable
    /// (``setCheckpoints(_:hash:_:)``).
    ///
    /// - Throws: ``StoreError`` (`readModelsDisagree`) when the events are not contiguous or
    ///   a projector's checkpoint leaves a gap before them; whatever a projector throws.
    ///
    /// `atLeast`: a sequence number every projector with a checkpoint has folded through,
    /// whatever `checkpoints` says (the events a write group folded before these).
    /// `holding`: the write group's held postings, which the balances fold adds to (nil: the
    /// postings are written as they are folded).
    func fold(
        _ events: ArraySlice<Event>, _ db: Database, checkpoints: [String: UInt64]? = nil, atLeast floor: UInt64 = 0, holding: HeldPostings? = nil
    ) throws {
        try Self.fold(
            events, db, projectors: projectors, snapshots: snapshots, traits: foldTraits,
            checkpoints: checkpoints.map { Self.inOrder($0, projectors: projectors) }, atLeast: floor, holding: holding)
    }

    /// ``fold(_:_:checkpoints:atLeast:holding:)`` with the checkpoints in the order of the
    /// projectors (``checkpointsInOrder(_:)``): a write group reads them once and folds each of
    /// its commands, where looking each projector up by name cost a hash of its name per
    /// projector and command.
    func fold(
        _ events: ArraySlice<Event>, _ db: Database, checkpointsInOrder checkpoints: [UInt64?], atLeast floor: UInt64, holding: HeldPostings?
    ) throws {
        try Self.fold(
            events, db, projectors: projectors, snapshots: snapshots, traits: foldTraits, checkpoints: checkpoints, atLeast: floor, holding: holding)
    }

    /// Each registered projector's checkpoint, in the order of ``projectors`` (nil: none yet).
    func checkpointsInOrder(_ db: Database) throws -> [UInt64?] {
        Self.inOrder(try Self.checkpoints(db), projectors: projectors)
    }

    /// `checkpoints` by name as a list in the order of `projectors`.
    static func inOrder(_ checkpoints: [String: UInt64], projectors: [any Projector]) -> [UInt64?] {
        projectors.map { checkpoints[$0.name] }
    }

    /// What a fold needs to know of a projector, beside the projector itself.
    struct FoldTraits {
        /// The projector as a ``SnapshotTaking``, when it is one.
        let snapshotTaker: (any SnapshotTaking)?
        /// The codes of its ``Projector/eventTypes``; nil: it reads every event.
        let eventCodes: EventCodeSet?
        /// The projector as the engine's ``BalancesProjector``, which can hold a write group's
        /// postings.
        let balances: BalancesProjector?
        /// The projector as the engine's ``EventTypesProjector``, which writes a type once per
        /// write group.
        let eventTypes: EventTypesProjector?
        /// The projector as the engine's ``IdempotencyProjector``, which can hold a write
        /// group's rows.
        let idempotency: IdempotencyProjector?

        init(_ projector: any Projector) {
            snapshotTaker = projector as? any SnapshotTaking
            eventCodes = projector.eventTypes.map(EventCodeSet.init(types:))
            balances = projector as? BalancesProjector
            eventTypes = projector as? EventTypesProjector
            idempotency = projector as? IdempotencyProjector
        }

        /// Whether the projector reads any of `events`, each read where it lies (a copy per
        /// event would retain every string in it: 5 % of an import's CPU).
        func readsAny(of events: ArraySlice<Event>) -> Bool {
            guard let eventCodes else { return true }
            return events.withUnsafeBufferPointer { buffer in
                guard var event = buffer.baseAddress else { return false }
                for _ in 0..<buffer.count {
                    if eventCodes.contains(event.pointee.body.type.code) { return true }
                    event += 1
                }
                return false
            }
        }
    }

    /// ``fold(_:_:checkpoints:atLeast:holding:)`` for these projectors, in any database (a rebuild's new file).
    /// `traits`: each projector's ``FoldTraits``, in order (nil: found now); `checkpoints`: each
    /// projector's checkpoint, in order (``inOrder(_:projectors:)``; nil: read now).
    ///
    /// A projector whose ``Projector/eventTypes`` include none of the events it is handed is
    /// not handed them at all (a deposit command's two events concern four of the ledger's
    /// projectors); its snapshots are still taken, except in a write group's fold
    /// (`holding`), which leaves them to the group's end (``takeSnapshots(_:last:)``).
    static func fold(
        _ events: ArraySlice<Event>, _ db: Database, projectors: [any Projector], snapshots: SnapshotSettings?,
        traits: [FoldTraits]? = nil, checkpoints: [UInt64?]? = nil, atLeast floor: UInt64 = 0, holding: HeldPostings? = nil,
        keys backlog: KeyBacklog? = nil
    ) throws {
        guard let first = events.first?.sequence, let last = events.last?.sequence else { return }
        guard last - first == UInt64(events.count - 1) else {
            throw StoreError(.readModelsDisagree, "events \(first)-\(last) handed to the read models are not contiguous")
        }
        let checkpoints = try checkpoints ?? Self.inOrder(Self.checkpoints(db), projectors: projectors)
        let traits = traits ?? projectors.map(FoldTraits.init)
        precondition(traits.count == projectors.count && checkpoints.count == projectors.count, "one fold's traits and checkpoint per projector")
        for (index, projector) in projectors.enumerated() {
            let checkpoint = checkpoints[index].map { max($0, floor) } ?? 0
            guard last > checkpoint else { continue }
            guard checkpoint + 1 >= first else {
                throw StoreError(.readModelsDisagree, "read model \(projector.name) has folded up to event \(checkpoint) but was handed events from \(first); run `tally rebuild`")
            }
            let start = events.startIndex + Int(checkpoint + 1 - first)
            let unseen = events[max(start, events.startIndex)...]
            if traits[index].readsAny(of: unseen) {
                if let holding, let balances = traits[index].balances {
                    try balances.apply(unseen, db, holding: holding)
                } else if let holding, let eventTypes = traits[index].eventTypes {
                    try eventTypes.apply(unseen, db, holding: holding)
                } else if let held = holding?.idempotency, let idempotency = traits[index].idempotency {
                    try idempotency.apply(unseen, db, holding: held)
                } else if let backlog, let idempotency = traits[index].idempotency {
                    try idempotency.apply(unseen, db, backlog: backlog)
                } else {
                    try projector.apply(unseen, db)
                }
            }
            // A write group's folds (those that hold) leave the snapshots to its end (``takeSnapshots(_:last:)``).
            if let snapshots, holding == nil {
                try traits[index].snapshotTaker?.takeSnapshots(db, settings: snapshots, last: events[events.endIndex - 1])
            }
        }
    }

    /// Takes the snapshots due once a write group's commands are folded, `last` being the
    /// group's last event: its folds, which hold their postings, take none, where each
    /// command's fold took them (two statements a command, for envelopes and net worth,
    /// when none was due). A snapshot is a cache of what folding from the previous one
    /// gives, and every event of a group has the group's recorded time, so the snapshots the
    /// group leaves are those its last fold took before.
    func takeSnapshots(_ db: Database, last: Event) throws {
        guard let snapshots else { return }
        for traits in foldTraits {
            try traits.snapshotTaker?.takeSnapshots(db, settings: snapshots, last: last)
        }
    }

    /// Moves every registered projector's checkpoint to `sequence` (whose chain hash is `hash`).
    func setCheckpoints(_ sequence: UInt64, hash: [UInt8]?, _ db: Database) throws {
        try Self.setCheckpoints(sequence, hash: hash, projectors: projectors, db)
    }

    /// ``setCheckpoints(_:hash:_:)`` for these projectors, in any database.
    static func setCheckpoints(_ sequence: UInt64, hash: [UInt8]?, projectors: [any Projector], _ db: Database) throws {
        var arguments: [(any DatabaseValueConvertible)?] = [Int64(sequence), hash.map { Data($0) }, Int64(sequence)]
        arguments += projectors.map(\.name)
        let placeholders = Array(repeating: "?", count: projectors.count).joined(separator: ", ")
        let sql = "UPDATE projection_checkpoints SET sequence = ?, hash = ? WHERE sequence < ? AND projector IN (\(placeholders))"
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
    }

    /// The checkpoints of the registered projectors with their hashes.
    func registeredCheckpointDigests(_ db: Database) throws -> [(projector: String, sequence: UInt64, hash: [UInt8]?)] {
        try Self.checkpointDigests(db).filter { projectorNames.contains($0.projector) }
    }

    /// Every projector's checkpoint with its hash.
    public static func checkpointDigests(_ db: Database) throws -> [(projector: String, sequence: UInt64, hash: [UInt8]?)] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT projector, sequence, hash FROM projection_checkpoints ORDER BY projector")).map { row in
            (row[CheckpointColumns.projector], row.sequence(CheckpointColumns.sequence), (row[CheckpointColumns.hash] as Data?).map { [UInt8]($0) })
        }
    }

    /// Checks that the read models describe a prefix of this log: no checkpoint past its
    /// head, and every checkpoint's hash equal to the log's at that sequence number.
    ///
    /// - Throws: ``StoreError`` `readModelsAhead` or `readModelsDisagree`, saying what happened
    ///   and the two ways out.
    ///
    /// A reader beside a live writer must take the checkpoints before it opens the log (the
    /// writer publishes a commit to the log before the read models commit it): pass them as
    /// `digests`; nil reads them now.
    public func checkAgreement(with reader: EventStoreReader, digests: [(projector: String, sequence: UInt64, hash: [UInt8]?)]? = nil) throws {
        let digests = try digests ?? database.read { db in try registeredCheckpointDigests(db) }
        let head = reader.head
        var hashes: [UInt64: [UInt8]?] = [:]
        for digest in digests where digest.sequence > 0 {
            guard digest.sequence <= head.sequence else {
                throw StoreError(.readModelsAhead, """
                    the read models have folded events up to \(digest.sequence) (read model \(digest.projector)), but the log ends at \(head.sequence): \
                    the log was cut or replaced by an older copy. Restore the newer log if you have it, or run `tally rebuild` to accept the log as it is \
                    (the read models are then rebuilt from it and the events after \(head.sequence) are gone)
                    """)
            }
            guard let expected = digest.hash else { continue }
            if hashes[digest.sequence] == nil { hashes[digest.sequence] = try reader.reader.hash(of: digest.sequence) }
            guard hashes[digest.sequence]! == expected else {
                throw StoreError(.readModelsDisagree, """
                    the read models folded a different event \(digest.sequence) than the log holds (read model \(digest.projector)): \
                    the log was replaced or rewritten after they folded it. Restore the log they were built from, or run `tally rebuild` \
                    to accept the log as it is
                    """)
            }
        }
    }

    /// Folds every event after the lowest checkpoint up to the reader's head, in batches of
    /// at least `batchSize` events per transaction ending at a frame's end, each with its
    /// checkpoint and the chain hash of its last event (its frame's); `progress` gets the last sequence folded. The log is read and decoded on
    /// a second thread while the previous batch is folded.
    public func catchUp(from reader: EventStoreReader, batchSize: Int = 10_000, progress: ((UInt64) -> Void)? = nil) throws {
        let start = try checkpoint()
        guard reader.head.sequence > start else { return }
        try EventBatches.read(from: reader, first: start + 1, batchSize: batchSize) { batch, hash, afterLostEvents in
            guard let last = batch.last?.sequence else { return }
            try apply(batch, hash: hash, afterLostEvents: afterLostEvents)
            progress?(last)
        }
    }

    /// Drops every read model and folds the whole log again, in bulk mode: deferred indexes
    /// are created once at the end, and SQLite does not sync while it folds (the read models
    /// are derived data; the log is the truth). Afterwards the usual
    /// durability is restored and the WAL is checkpointed into the database.
    ///
    /// Only the registered projectors' tables are dropped (those they list and those they
    /// made before): tables of a projector not registered this time stay, with its
    /// checkpoint, and so does any table no projector made. When the database holds nothing
    /// else, it is emptied as a whole, which costs nothing next to dropping its tables page
    /// by page.
    public func rebuild(from reader: EventStoreReader, batchSize: Int = 20_000, progress: ((UInt64) -> Void)? = nil) throws {
        if try database.read({ db in try holdsOnlyRegisteredTables(db) }) { try database.erase() }
        try Self.engineMigrator.migrate(database)
        let deferredIndexes = try database.write { db in try Self.resetForRebuild(projectors, db) }
        let (synchronous, cacheSize) = try database.writeWithoutTransaction { db in
            (try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? 2, try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000)
        }
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = OFF; PRAGMA cache_size = -32768")
        }
        var folded: Result<Void, any Error> = .success(())
        do {
            try catchUp(from: reader, batchSize: batchSize, progress: progress)
        } catch {
            folded = .failure(error)
        }
        // The indexes come back even when the fold failed, so the tables stay usable.
        try database.write { db in
            for sql in deferredIndexes { try db.execute(sql: sql) }
        }
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous); PRAGMA cache_size = \(cacheSize)")
            try Self.shrinkAfterBulkWrite(db)
        }
        try folded.get()
    }
}

extension ReadModelStore {
    /// Drops and creates every projector's tables with its checkpoint at 0, then drops the
    /// indexes it defers on a rebuild; returns their SQL, to create them again at the end.
    private static func resetForRebuild(_ projectors: [any Projector], _ db: Database) throws -> [String] {
        var deferredIndexes: [String] = []
        for projector in projectors {
            try reset(projector, db)
            for name in projector.indexesDeferredOnRebuild {
                guard let sql = try String.fetchOne(db.cachedStatement(sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?"), arguments: [name]) else { continue }
                deferredIndexes.append(sql)
                try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
            }
        }
        return deferredIndexes
    }

    /// How a rebuild treats the read-model file at a path.
    enum RebuildTarget {
        /// Fold into a new file and put it in place of this one (missing, damaged, or holding
        /// nothing but the engine's and the registered projectors' tables).
        case newFile
        /// Fold in place, keeping the tables of projectors not registered this time.
        case inPlace(ReadModelStore)
    }

    /// Decides how to rebuild the read models at `path`: in a new file unless the file holds
    /// tables that must outlive the rebuild (another projector's, or tables no projector
    /// made), which an intact file then keeps through an in-place rebuild.
    static func rebuildTarget(path: String, projectors: [any Projector], snapshots: SnapshotSettings?) -> RebuildTarget {
        guard FileManager.default.fileExists(atPath: path) else { return .newFile }
        var configuration = Configuration()
        configuration.busyMode = Self.busyMode
        configuration.label = "tally.readmodels.peek"
        guard let peek = try? DatabaseQueue(path: path, configuration: configuration) else { return .newFile }
        let keepsOthers = (try? peek.read { db in try !holdsOnlyTables(of: projectors, db) }) ?? false
        try? peek.close()
        guard keepsOthers, let kept = openIfIntact(path: path, projectors: projectors, snapshots: snapshots) else { return .newFile }
        return .inPlace(kept)
    }

    /// Folds the whole log into a new database file beside `path`, then puts it in place of
    /// the old one: the old read models stay whole and usable until the new ones are
    /// complete, durable and renamed over them, so a rebuild that fails or is killed leaves
    /// them as they were (a stray `.rebuilding` file is removed by the next rebuild).
    ///
    /// The new file is written the fast way a file nobody else sees can be: one connection
    /// holding an exclusive lock, the rollback journal in memory, no syncs while folding,
    /// deferred indexes created once at the end; then it is turned to WAL, synced, and
    /// renamed. Before the rename the old file's `-wal` and `-shm` go (a WAL left beside the
    /// new file would be replayed into it); a crash between the two leaves the old file at
    /// its last checkpoint, which the next open checks against the log and catches up.
    static func rebuildInNewFile(
        path: String, projectors: [any Projector], snapshots: SnapshotSettings?, from reader: EventStoreReader,
        batchSize: Int = 20_000, progress: ((UInt64) -> Void)? = nil
    ) throws {
        let building = path + ".rebuilding"
        do {
            try foldIntoNewFile(building, projectors: projectors, snapshots: snapshots, from: reader, batchSize: batchSize, progress: progress)
            try StoreCreation.syncFile(building)
            for suffix in databaseSuffixes.dropFirst() {
                try removeIfPresent(path + suffix)
            }
            guard rename(building, path) == 0 else {
                throw StoreError(.io, "rename failed for \(building) to \(path): \(String(cString: strerror(errno)))")
            }
            try StoreCreation.syncDirectory((path as NSString).deletingLastPathComponent)
        } catch {
            try? removeDatabaseFiles(building)
            throw error
        }
    }

    /// Folds the whole log into a new database file at `building` (any file there first
    /// removed), the fast way a file nobody else sees can be written (``rebuildInNewFile``,
    /// and `verify --deep`, which compares it with the read models in use).
    static func foldIntoNewFile(
        _ building: String, projectors: [any Projector], snapshots: SnapshotSettings?, from reader: EventStoreReader,
        batchSize: Int = 20_000, progress: ((UInt64) -> Void)? = nil
    ) throws {
        try removeDatabaseFiles(building)
        try OwnerOnly.prepareDatabaseFile(building)
        do {
            var configuration = Configuration()
            configuration.label = "tally.readmodels.rebuild"
            configuration.prepareDatabase { db in
                try db.execute(sql: "\(incrementalVacuum); PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA cache_size = -32768")
            }
            let queue = try DatabaseQueue(path: building, configuration: configuration)
            do {
                try engineMigrator.migrate(queue)
                let deferredIndexes = try queue.write { db in try resetForRebuild(projectors, db) }
                // The idempotency keys are held and packed at the end (``KeyBacklog``).
                let keys = KeyBacklog()
                try EventBatches.read(from: reader, first: 1, batchSize: batchSize) { batch, hash, afterLostEvents in
                    guard let last = batch.last?.sequence else { return }
                    try queue.write { db in
                        let checkpoints = afterLostEvents ? try checkpoints(pastLostEventsBefore: batch.first, projectors: projectors, db) : nil
                        try fold(batch[...], db, projectors: projectors, snapshots: snapshots,
                                 checkpoints: checkpoints.map { inOrder($0, projectors: projectors) }, keys: keys)
                        try setCheckpoints(last, hash: hash, projectors: projectors, db)
                    }
                    progress?(last)
                }
                try queue.write { db in
                    // The keys' last merge runs on the sorter's queue while the indexes are made.
                    keys.finishSorting()
                    for sql in deferredIndexes { try db.execute(sql: sql) }
                    try keys.write(db)
                }
                try queue.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA incremental_vacuum; PRAGMA journal_mode = WAL")
                }
                try queue.close()
            } catch {
                try? queue.close()
                throw error
            }
        } catch {
            try? removeDatabaseFiles(building)
            throw error
        }
    }

    /// Removes a database file and its companions, when present.
    static func removeDatabaseFiles(_ path: String) throws {
        for suffix in databaseSuffixes { try removeIfPresent(path + suffix) }
    }

    /// A SQLite database's file and its companions, as suffixes of its path.
    static let databaseSuffixes = ["", "-wal", "-shm", "-journal"]

    /// Every file the read models at a path may occupy, as suffixes of that path: the
    /// database, its companions, and a rebuild's new file with its companions (left behind
    /// by a rebuild that was killed). Whatever deletes the read models deletes all of them:
    /// each holds text derived from the log.
    static let fileSuffixes = databaseSuffixes + databaseSuffixes.map { ".rebuilding" + $0 } + databaseSuffixes.map { ".verifying" + $0 }

    private static func removeIfPresent(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw StoreError(.io, "could not remove \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Whether every table of the database belongs to the engine or to a registered projector
    /// (and no other projector has a checkpoint), so that a rebuild may empty it whole.
    private func holdsOnlyRegisteredTables(_ db: Database) throws -> Bool {
        try Self.holdsOnlyTables(of: projectors, db)
    }

    /// Whether the file holds nothing but the engine's and the registered projectors' tables
    /// (a rebuild may then replace it whole).
    func holdsOnlyRegisteredTables() throws -> Bool {
        try database.read { db in try holdsOnlyRegisteredTables(db) }
    }

    /// ``holdsOnlyRegisteredTables(_:)`` for these projectors.
    private static func holdsOnlyTables(of projectors: [any Projector], _ db: Database) throws -> Bool {
        let projectorNames = Set(projectors.map(\.name))
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        var owned = Set(engineTables + projectors.flatMap(\.tables))
        if try db.tableExists("projection_tables") {
            for row in try Row.fetchAll(db, sql: "SELECT projector, name FROM projection_tables") {
                guard projectorNames.contains(row[CheckpointColumns.projector] as String) else { return false }
                owned.insert(row[CheckpointColumns.name])
            }
        }
        if try db.tableExists("projection_checkpoints"),
           try String.fetchAll(db, sql: "SELECT projector FROM projection_checkpoints").contains(where: { !projectorNames.contains($0) }) {
            return false
        }
        return tables.allSatisfy { owned.contains($0) }
    }

    /// Stops syncing commits to disk: for throw-away read models (a replay's), which a
    /// crash may lose whole.
    func skipSyncing() throws {
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
    }

    /// Every row of every projector table, as text, sorted: two stores that folded the same
    /// log must dump the same (tests compare incremental folding with a rebuild).
    package func dump() throws -> [String: [String]] {
        try database.read { db in
            var result: [String: [String]] = [:]
            for projector in projectors {
                if let batchDependent = projector as? any BatchDependentProjector {
                    result[batchDependent.batchDependentTables.joined(separator: "+")] = try batchDependent.comparableRows(db, schema: "main")
                }
                for table in projector.rowComparedTables {
                    let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)")
                    result[table] = rows.map { row in
                        row.columnNames.map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: "|")
                    }.sorted()
                }
            }
            return result
        }
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum CheckpointColumns {
    static let hash = Column("hash")
    static let name = Column("name")
    static let projector = Column("projector")
    static let sequence = Column("sequence")
    static let version = Column("version")
}
