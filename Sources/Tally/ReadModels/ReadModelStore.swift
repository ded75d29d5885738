internal import Foundation
public import GRDB
import TallyLog

/// The SQLite database of a store's read models (`readmodels.sqlite`, WAL), kept in step
/// with the log by its projectors. It can always be thrown away and rebuilt from the log.
public final class ReadModelStore: Sendable {
    /// The database; read it freely, write it only through ``apply(_:)``.
    public let database: DatabasePool
    let projectors: [any Projector]

    /// Opens (or creates) the database and makes every projector's tables current: a
    /// projector whose version changed, or that is new, starts again from sequence 0.
    public init(path: String, projectors: [any Projector]) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "tally.readmodels"
        database = try DatabasePool(path: path, configuration: configuration)
        self.projectors = projectors
        try database.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS projection_checkpoints (
                    projector TEXT PRIMARY KEY NOT NULL,
                    version INTEGER NOT NULL,
                    sequence INTEGER NOT NULL
                ) STRICT
                """)
            for projector in projectors {
                let row = try Row.fetchOne(db, sql: "SELECT version FROM projection_checkpoints WHERE projector = ?", arguments: [projector.name])
                if row?["version"] as Int? != projector.version {
                    try Self.reset(projector, db)
                }
            }
        }
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

    /// Folds events (in log order, contiguous) into every projector that has not seen them,
    /// in one transaction with the checkpoints.
    public func apply(_ events: [Event]) throws {
        guard !events.isEmpty else { return }
        try database.write { db in
            let checkpoints = try Self.checkpoints(db)
            for projector in projectors {
                let checkpoint = checkpoints[projector.name] ?? 0
                var last = checkpoint
                for event in events where event.sequence > checkpoint {
                    precondition(event.sequence == last + 1, "projector \(projector.name) at \(last) was handed event \(event.sequence)")
                    try projector.apply(event, db)
                    last = event.sequence
                }
                if last != checkpoint {
                    try db.execute(
                        sql: "UPDATE projection_checkpoints SET sequence = ? WHERE projector = ?",
                        arguments: [Int64(last), projector.name]
                    )
                }
            }
        }
    }

    /// Folds every event after the lowest checkpoint, in batches of `batchSize` events per
    /// transaction; `progress` gets the last sequence folded.
    public func catchUp(from reader: EventStoreReader, batchSize: Int = 10_000, progress: ((UInt64) -> Void)? = nil) throws {
        let start = try checkpoint()
        guard reader.head.sequence > start else { return }
        var batch: [Event] = []
        batch.reserveCapacity(batchSize)
        try reader.forEach(from: start + 1) { event in
            batch.append(event)
            if batch.count == batchSize {
                try apply(batch)
                progress?(event.sequence)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if let last = batch.last?.sequence {
            try apply(batch)
            progress?(last)
        }
    }

    /// Drops every read model and folds the whole log again.
    public func rebuild(from reader: EventStoreReader, batchSize: Int = 50_000, progress: ((UInt64) -> Void)? = nil) throws {
        try database.write { db in
            for projector in projectors { try Self.reset(projector, db) }
        }
        try catchUp(from: reader, batchSize: batchSize, progress: progress)
    }
}

extension ReadModelStore {
    /// Every row of every projector table, as text, sorted: two stores that folded the same
    /// log must dump the same (tests compare incremental folding with a rebuild).
    func dump() throws -> [String: [String]] {
        try database.read { db in
            var result: [String: [String]] = [:]
            for projector in projectors {
                for table in projector.tables {
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
