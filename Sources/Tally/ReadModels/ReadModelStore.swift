internal import Foundation
public import GRDB
import TallyLog

/// The SQLite database of a store's read models (`readmodels.sqlite`, WAL), kept in step
/// with the log by its projectors. It can always be thrown away and rebuilt from the log.
public final class ReadModelStore: Sendable {
    /// The database; read it freely, write it only through ``apply(_:)``.
    public let database: DatabasePool
    let projectors: [any Projector]
    /// Where projectors that keep snapshots take them; nil: none are taken (answers fold
    /// from the beginning, as a replay does).
    let snapshots: SnapshotSettings?

    /// Opens (or creates) the database and makes every projector's tables current: a
    /// projector whose version changed, or that is new, starts again from sequence 0.
    public init(path: String, projectors: [any Projector], snapshots: SnapshotSettings? = nil) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "tally.readmodels"
        database = try DatabasePool(path: path, configuration: configuration)
        self.projectors = projectors
        self.snapshots = snapshots
        try database.write { db in
            try Self.createCheckpointTable(db)
            for projector in projectors {
                let row = try Row.fetchOne(db, sql: "SELECT version FROM projection_checkpoints WHERE projector = ?", arguments: [projector.name])
                // A rebuild that stopped before it created its deferred indexes again leaves
                // the projector to be folded afresh.
                if try row?["version"] as Int? != projector.version || !Self.hasIndexes(projector.indexesDeferredOnRebuild, db) {
                    try Self.reset(projector, db)
                }
            }
        }
    }

    private static func createCheckpointTable(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS projection_checkpoints (
                projector TEXT PRIMARY KEY NOT NULL,
                version INTEGER NOT NULL,
                sequence INTEGER NOT NULL
            ) STRICT
            """)
    }

    private static func reset(_ projector: any Projector, _ db: Database) throws {
        for table in projector.tables {
            try db.execute(sql: "DROP TABLE IF EXISTS \(table.quotedDatabaseIdentifier)")
        }
        try projector.createTables(db)
        try db.execute(
            sql: "INSERT OR REPLACE INTO projection_checkpoints (projector, version, sequence) VALUES (?, ?, 0)",
            arguments: [projector.name, projector.version]
        )
    }

    /// The last sequence number every projector has folded.
    public func checkpoint() throws -> UInt64 {
        try database.read { db in try Self.checkpoints(db).values.min() ?? 0 }
    }

    static func checkpoints(_ db: Database) throws -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT projector, sequence FROM projection_checkpoints") {
            result[row["projector"]] = UInt64(row["sequence"] as Int64)
        }
        return result
    }

    private static func hasIndexes(_ names: [String], _ db: Database) throws -> Bool {
        for name in names where try Int.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [name]) == nil {
            return false
        }
        return true
    }

    /// Folds events (in log order, contiguous) into every projector that has not seen them,
    /// in one transaction with the checkpoints.
    public func apply(_ events: [Event]) throws {
        guard let first = events.first?.sequence, let last = events.last?.sequence else { return }
        precondition(last - first == UInt64(events.count - 1), "events \(first)-\(last) handed over are not contiguous")
        try database.write { db in
            let checkpoints = try Self.checkpoints(db)
            let checkpointUpdate = try db.cachedStatement(sql: "UPDATE projection_checkpoints SET sequence = ? WHERE projector = ?")
            for projector in projectors {
                let checkpoint = checkpoints[projector.name] ?? 0
                guard last > checkpoint else { continue }
                precondition(checkpoint + 1 >= first, "projector \(projector.name) at \(checkpoint) was handed events from \(first)")
                try projector.apply(events[Int(checkpoint + 1 - first)...], db)
                if let snapshots, let taking = projector as? any SnapshotTaking {
                    try taking.takeSnapshots(db, settings: snapshots, last: events[events.count - 1])
                }
                try checkpointUpdate.execute(arguments: [Int64(last), projector.name])
            }
        }
    }

    /// Folds every event after the lowest checkpoint, in batches of `batchSize` events per
    /// transaction; `progress` gets the last sequence folded. The log is read and decoded on
    /// a second thread while the previous batch is folded.
    public func catchUp(from reader: EventStoreReader, batchSize: Int = 10_000, progress: ((UInt64) -> Void)? = nil) throws {
        let start = try checkpoint()
        guard reader.head.sequence > start else { return }
        try EventBatches.read(from: reader, first: start + 1, batchSize: batchSize) { batch in
            try apply(batch)
            if let last = batch.last?.sequence { progress?(last) }
        }
    }

    /// Drops every read model and folds the whole log again, in bulk mode: deferred indexes
    /// are created once at the end, and SQLite does not sync while it folds (the read models
    /// are derived data; the log is the truth). Afterwards the usual
    /// durability is restored and the WAL is checkpointed into the database.
    ///
    /// The database is emptied as a whole first, which costs nothing next to dropping its
    /// tables page by page: tables of projectors not in this store's list go too, with
    /// their checkpoints, so a store that has them folds them afresh when it opens.
    public func rebuild(from reader: EventStoreReader, batchSize: Int = 20_000, progress: ((UInt64) -> Void)? = nil) throws {
        try database.erase()
        var deferredIndexes: [String] = []
        try database.write { db in
            try Self.createCheckpointTable(db)
            for projector in projectors {
                try Self.reset(projector, db)
                for name in projector.indexesDeferredOnRebuild {
                    guard let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [name]) else { continue }
                    deferredIndexes.append(sql)
                    try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
                }
            }
        }
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
            try db.checkpoint(.truncate)
        }
        try folded.get()
    }
}

extension ReadModelStore {
    /// Every row of every projector table, as text, sorted: two stores that folded the same
    /// log must dump the same (tests compare incremental folding with a rebuild).
    func dump() throws -> [String: [String]] {
        try database.read { db in
            var result: [String: [String]] = [:]
            for projector in projectors {
                for table in projector.tables where !projector.cacheTables.contains(table) {
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
