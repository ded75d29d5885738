internal import Foundation
public import GRDB
import TallyLog

/// How often a read model snapshots state that is not a sum, in effective time: at the end
/// of every boundary day. Snapshots are derived data: changing the interval changes where
/// new ones are taken, never an answer.
///
/// ```swift
/// var options = Ledger.Options()
/// options.snapshotInterval = .days(7)     // weekly snapshots instead of monthly
/// ```
public enum SnapshotInterval: Hashable, Sendable, CustomStringConvertible {
    /// The end of every `n`th day (days since 1970-01-01 congruent to n − 1 modulo n).
    case days(Int)
    /// The end of the last day of every `n`th month (month ordinals congruent to n − 1 modulo n).
    case months(Int)
    /// Never: every answer folds from the beginning (the reference behaviour).
    case never

    /// Monthly, the default.
    public static let `default` = SnapshotInterval.months(1)

    /// The boundary days after `first` (exclusive; nil: from the beginning of `from`) up to
    /// and including `last`, oldest first, at most `limit` of them (the latest ones).
    package func boundaries(after first: LocalDate?, from start: LocalDate, through last: LocalDate, limit: Int = 10_000) -> [LocalDate] {
        let lower = first.map { $0.adding(days: 1) } ?? start
        guard lower <= last else { return [] }
        var result: [LocalDate] = []
        switch self {
        case .never:
            return []
        case .days(let count):
            precondition(count > 0, "a snapshot interval of \(count) days")
            var day = last.daysSinceEpoch - Self.modulo(last.daysSinceEpoch + 1, count)
            while day >= lower.daysSinceEpoch && result.count < limit {
                result.append(LocalDate(daysSinceEpoch: day))
                day -= count
            }
        case .months(let count):
            precondition(count > 0, "a snapshot interval of \(count) months")
            var month = last.month
            if month.lastDay > last { month = month.adding(months: -1) }
            month = month.adding(months: -Self.modulo(month.ordinal + 1, count))
            while month.lastDay >= lower && result.count < limit {
                result.append(month.lastDay)
                month = month.adding(months: -count)
            }
        }
        return result.reversed()
    }

    private static func modulo(_ value: Int, _ divisor: Int) -> Int {
        let remainder = value % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }

    /// `monthly`, `every 3 months`, `every 7 days`, `never`.
    public var description: String {
        switch self {
        case .days(let count): count == 1 ? "daily" : "every \(count) days"
        case .months(let count): count == 1 ? "monthly" : "every \(count) months"
        case .never: "never"
        }
    }
}

/// What a ledger gives the projectors that take snapshots: its calendar and the interval.
public struct SnapshotSettings: Sendable {
    /// The ledger's calendar: boundaries are local days.
    public let calendar: LedgerCalendar
    /// Where snapshots are taken.
    public let interval: SnapshotInterval

    /// Settings for a ledger's calendar and ``Ledger/Options/snapshotInterval``.
    public init(calendar: LedgerCalendar, interval: SnapshotInterval) {
        self.calendar = calendar
        self.interval = interval
    }
}

/// A projector that keeps snapshots of state that is not a sum (`SnapshotTable`): after
/// each run of events, in the same transaction as its rows and checkpoint, it takes the
/// snapshots that are missing up to the latest boundary.
public protocol SnapshotTaking: Projector {
    /// Takes the snapshots missing through the latest boundary day not after the day of
    /// `last` (the last event folded), from the latest one still current.
    func takeSnapshots(_ db: Database, settings: SnapshotSettings, last: Event) throws
}

/// One snapshot: folded state at the end of a boundary day, compressed.
package struct Snapshot: Sendable {
    /// The boundary day.
    package let day: LocalDate
    /// The end of that day: the state counts every event effective through it.
    package let effectiveThrough: Instant
    /// The last event folded when it was taken.
    package let sequence: UInt64
    /// The latest recorded time of the events it counts: the state was known from then on.
    package let knownSince: Instant
    /// The state's bytes (uncompressed).
    package let state: [UInt8]

    package init(day: LocalDate, effectiveThrough: Instant, sequence: UInt64, knownSince: Instant, state: [UInt8]) {
        self.day = day
        self.effectiveThrough = effectiveThrough
        self.sequence = sequence
        self.knownSince = knownSince
        self.state = state
    }
}

/// The dated rows a read model's snapshots are folded from: for each, its table and the
/// columns holding its effective and recorded times.
package struct SnapshotSources: Sendable {
    package let columns: [(table: String, effective: String, recorded: String)]

    /// Tables whose rows carry `effective_at` and `recorded_at`.
    package init(tables: [String]) {
        columns = tables.map { (table: $0, effective: "effective_at", recorded: "recorded_at") }
    }

    package init(columns: [(table: String, effective: String, recorded: String)]) {
        self.columns = columns
    }

    /// The latest effective time of any row (nil: no rows).
    package func latestEffective(_ db: Database) throws -> Instant? {
        var latest: Int64?
        for (table, effective, _) in columns {
            if let value = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(\(effective)) FROM \(table)")) { latest = max(latest ?? value, value) }
        }
        return latest.map(Instant.init(microsecondsSinceEpoch:))
    }

    /// The latest recorded time of the rows effective after `after` through `bound`: with
    /// the previous snapshot's known-since, when the state at `bound` was known.
    package func latestRecorded(_ db: Database, after: Instant?, through bound: Instant) throws -> Instant? {
        let arguments: StatementArguments = [after?.microsecondsSinceEpoch ?? Int64.min, bound.microsecondsSinceEpoch]
        var latest: Int64?
        for (table, effective, recorded) in columns {
            let sql = "SELECT MAX(\(recorded)) FROM \(table) WHERE \(effective) > ? AND \(effective) <= ?"
            if let value = try Int64.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) { latest = max(latest ?? value, value) }
        }
        return latest.map(Instant.init(microsecondsSinceEpoch:))
    }
}

/// A read model's table of snapshots of folded state, valid bitemporally.
///
/// A snapshot of day B taken at sequence S holds the fold of every event effective through
/// the end of B (`effective_through`). It answers "as known at K" when `knownSince <= K` (every event it counts was
/// recorded by K) and `K < supersededAt` (the first later event effective through B, which it
/// does not count, was recorded after K). A projector calls ``supersede(effectiveAt:recordedAt:_:)``
/// for every row it writes, with the row's effective time, so a backdated event retires the
/// snapshots it changes; the superseded ones stay and keep answering for earlier K, and a
/// new one is taken. Recorded times never decrease along the log, which makes the rule exact.
///
/// The state is stored LZ4-compressed (``BlockCompression``) when that is smaller.
package struct SnapshotTable: Sendable {
    /// The table's name, owned by the projector (listed in its tables and ``Projector/cacheTables``).
    package let name: String

    package init(name: String) { self.name = name }

    package func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE \(name) (
                effective_through INTEGER NOT NULL,
                sequence INTEGER NOT NULL,
                day INTEGER NOT NULL,
                known_since INTEGER NOT NULL,
                superseded_at INTEGER,
                compressed INTEGER NOT NULL,
                state_bytes INTEGER NOT NULL,
                state BLOB NOT NULL,
                PRIMARY KEY (effective_through, sequence)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX \(name)_current ON \(name) (effective_through) WHERE superseded_at IS NULL;
            """)
    }

    /// Retires every current snapshot that counts events effective at `effectiveAt`: an
    /// event recorded at `recordedAt` changed what they hold.
    package func supersede(effectiveAt: Instant, recordedAt: Instant, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE \(name) SET superseded_at = ? WHERE superseded_at IS NULL AND effective_through >= ?")
            .execute(arguments: [recordedAt.microsecondsSinceEpoch, effectiveAt.microsecondsSinceEpoch])
    }

    /// Deletes the retired snapshots no instant can read: retired by an event recorded no
    /// later than the latest event they count (a bulk load retires what its previous
    /// batch took at the same instant).
    package func pruneUnreadable(_ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM \(name) WHERE superseded_at IS NOT NULL AND superseded_at <= known_since").execute()
    }

    /// Retires every current snapshot.
    package func supersedeAll(recordedAt: Instant, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE \(name) SET superseded_at = ? WHERE superseded_at IS NULL")
            .execute(arguments: [recordedAt.microsecondsSinceEpoch])
    }

    /// The latest current snapshot.
    package func latestCurrent(_ db: Database) throws -> Snapshot? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM \(name) WHERE superseded_at IS NULL ORDER BY effective_through DESC LIMIT 1")).map(snapshot)
    }

    /// The latest snapshot effective through `bound` or earlier that holds the state as
    /// known at `knownAt` (nil: as known now).
    package func latest(through bound: Instant, knownAt: Instant?, _ db: Database) throws -> Snapshot? {
        guard let knownAt else {
            return try Row.fetchOne(db.cachedStatement(sql: """
                SELECT * FROM \(name) WHERE superseded_at IS NULL AND effective_through <= ? ORDER BY effective_through DESC LIMIT 1
                """), arguments: [bound.microsecondsSinceEpoch]).map(snapshot)
        }
        let known = knownAt.microsecondsSinceEpoch
        return try Row.fetchOne(db.cachedStatement(sql: """
            SELECT * FROM \(name) WHERE effective_through <= ? AND known_since <= ? AND (superseded_at IS NULL OR superseded_at > ?)
            ORDER BY effective_through DESC, sequence DESC LIMIT 1
            """), arguments: [bound.microsecondsSinceEpoch, known, known]).map(snapshot)
    }

    /// Every snapshot effective through `lower` to `upper` (inclusive) that holds the state
    /// as known at `knownAt` (nil: as known now), by its `effective_through`: one query for
    /// a range of days (where several qualify for one day, the latest taken).
    package func all(from lower: Instant, through upper: Instant, knownAt: Instant?, _ db: Database) throws -> [Instant: Snapshot] {
        let rows: [Row]
        if let knownAt {
            let known = knownAt.microsecondsSinceEpoch
            rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT * FROM \(name) WHERE effective_through >= ? AND effective_through <= ? AND known_since <= ?
                  AND (superseded_at IS NULL OR superseded_at > ?) ORDER BY effective_through, sequence
                """), arguments: [lower.microsecondsSinceEpoch, upper.microsecondsSinceEpoch, known, known])
        } else {
            rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT * FROM \(name) WHERE superseded_at IS NULL AND effective_through >= ? AND effective_through <= ? ORDER BY effective_through, sequence
                """), arguments: [lower.microsecondsSinceEpoch, upper.microsecondsSinceEpoch])
        }
        var result: [Instant: Snapshot] = [:]
        for row in rows {
            let snapshot = try snapshot(row)
            result[snapshot.effectiveThrough] = snapshot
        }
        return result
    }

    /// Stores a snapshot.
    package func write(_ snapshot: Snapshot, _ db: Database) throws {
        let packed = BlockCompression.compress(snapshot.state)
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO \(name) (effective_through, sequence, day, known_since, superseded_at, compressed, state_bytes, state)
            VALUES (?, ?, ?, ?, NULL, ?, ?, ?)
            """).execute(arguments: [
                snapshot.effectiveThrough.microsecondsSinceEpoch, Int64(snapshot.sequence), snapshot.day.daysSinceEpoch, snapshot.knownSince.microsecondsSinceEpoch,
                packed == nil ? 0 : 1, snapshot.state.count, Data(packed ?? snapshot.state),
            ])
    }

    /// How many snapshots there are, current ones, and their stored and uncompressed bytes.
    package func statistics(_ db: Database) throws -> SnapshotStatistics {
        let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) AS count, COUNT(*) FILTER (WHERE superseded_at IS NULL) AS current,
                   COALESCE(SUM(LENGTH(state)), 0) AS stored, COALESCE(SUM(state_bytes), 0) AS raw
            FROM \(name)
            """))!
        return SnapshotStatistics(count: row[SnapshotColumns.count], current: row[SnapshotColumns.current], storedBytes: row[SnapshotColumns.stored], stateBytes: row[SnapshotColumns.raw])
    }

    private func snapshot(_ row: Row) throws -> Snapshot {
        let stored: [UInt8] = [UInt8](row[SnapshotColumns.state] as Data)
        let count: Int = row[SnapshotColumns.stateBytes]
        let state = (row[SnapshotColumns.compressed] as Int) != 0 ? try BlockCompression.decompress(stored, count: count) : stored
        return Snapshot(day: LocalDate(daysSinceEpoch: row[SnapshotColumns.day]), effectiveThrough: row.instant(SnapshotColumns.effectiveThrough), sequence: row.sequence(SnapshotColumns.sequence),
                        knownSince: row.instant(SnapshotColumns.knownSince), state: state)
    }
}

/// The size of a read model's snapshots.
public struct SnapshotStatistics: Hashable, Sendable {
    /// Snapshots stored, superseded ones included.
    public let count: Int
    /// Those still current.
    public let current: Int
    /// Bytes stored (compressed where that was smaller).
    public let storedBytes: Int
    /// Bytes of the states before compression.
    public let stateBytes: Int
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum SnapshotColumns {
    static let compressed = Column("compressed")
    static let count = Column("count")
    static let current = Column("current")
    static let day = Column("day")
    static let effectiveThrough = Column("effective_through")
    static let knownSince = Column("known_since")
    static let raw = Column("raw")
    static let sequence = Column("sequence")
    static let state = Column("state")
    static let stateBytes = Column("state_bytes")
    static let stored = Column("stored")
}
