internal import Foundation
import GRDB
import TallyLog

/// What `verify --deep` found: the read models in use against the same log folded again into
/// a file of its own, table by table (every row of every table of every registered read
/// model: balances and their roll-ups by day and by block, postings, keys, every product's;
/// not the caches, ``Projector/cacheTables``, whose rows depend on when events were folded).
///
/// It costs what a rebuild costs (a fold of the whole log into a temporary file beside the read
/// models, then one pass over both), and changes nothing: the temporary file is deleted.
public struct DeepComparison: Sendable {
    /// A table whose rows differ from the fresh fold's.
    public struct Difference: Sendable, Hashable {
        /// The read model (projector) that owns the table.
        public let projector: String
        /// The table.
        public let table: String
        /// Rows the read models hold that the fresh fold does not.
        public let extraRows: Int
        /// Rows the fresh fold holds that the read models do not.
        public let missingRows: Int
    }

    /// The read models compared, by projector name.
    public let compared: [String]
    /// How many tables were compared.
    public let tables: Int
    /// The log head both describe.
    public let head: UInt64
    /// The tables that differ (empty when every one matches).
    public let differences: [Difference]
    /// Why nothing was compared (read models behind or ahead of the log), when nothing was.
    public let skipped: String?
    /// Wall time of the fold and the comparison, seconds.
    public let seconds: Double

    /// Each difference as a sentence, with the way out.
    public var problems: [String] {
        differences.map { difference in
            "read model \(difference.projector) differs from the log folded again: table \(difference.table) has "
                + "\(difference.extraRows) row\(difference.extraRows == 1 ? "" : "s") the fold does not make and lacks "
                + "\(difference.missingRows) it makes (answers from it are wrong); run `tally rebuild` to make the read models again from the log"
        }
    }
}

extension StoreVerifier {
    /// Folds the log at `layout` again into a temporary file and compares every table of every
    /// registered projector with the read models in use (``DeepComparison``). Compares only read
    /// models at the log's head (`check`); otherwise says why not.
    static func deepCompare(
        _ layout: StoreLayout, options: Ledger.Options, catalog: EventCatalog, check: ReadModelCheck
    ) throws -> DeepComparison {
        let started = ContinuousClock.now
        func seconds() -> Double {
            let elapsed = ContinuousClock.now - started
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        let projectors = try options.registeredProjectors()
        guard !check.needsRecovery, check.unreadable == nil,
              check.projectors.allSatisfy({ $0.position == .atHead }) else {
            return DeepComparison(compared: [], tables: 0, head: check.head, differences: [],
                                  skipped: "the read models are not all at the log's head (they catch up when the ledger is next opened)", seconds: seconds())
        }
        let reader = try EventStoreReader.open(at: layout.root, catalog: catalog, fileSystem: options.logFileSystem, keys: options.logKeys)
        guard reader.head.sequence == check.head else {
            return DeepComparison(compared: [], tables: 0, head: check.head, differences: [],
                                  skipped: "the log moved while it was verified (a writer is running)", seconds: seconds())
        }
        let snapshots = SnapshotSettings(calendar: try reader.ledgerCalendar(), interval: options.snapshotInterval)
        let fresh = layout.readModelPath + ".verifying"
        defer { try? ReadModelStore.removeDatabaseFiles(fresh) }
        try ReadModelStore.foldIntoNewFile(fresh, projectors: projectors, snapshots: snapshots, from: reader)
        let database = try openReadOnly(layout)
        defer { try? database.close() }
        var differences: [DeepComparison.Difference] = []
        var tables = 0
        try database.inDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS fresh", arguments: [fresh])
            defer { try? db.execute(sql: "DETACH DATABASE fresh") }
            for projector in projectors {
                // Caches (snapshots) depend on when events were folded, not only on the log.
                for table in projector.rowComparedTables {
                    tables += 1
                    let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                    let extra = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT * FROM main.\(quoted) EXCEPT SELECT * FROM fresh.\(quoted))") ?? 0
                    let missing = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT * FROM fresh.\(quoted) EXCEPT SELECT * FROM main.\(quoted))") ?? 0
                    if extra > 0 || missing > 0 {
                        differences.append(.init(projector: projector.name, table: table, extraRows: extra, missingRows: missing))
                    }
                }
                if let batchDependent = projector as? any BatchDependentProjector {
                    tables += 1
                    let live = try batchDependent.comparableRows(db, schema: "main")
                    let folded = try batchDependent.comparableRows(db, schema: "fresh")
                    if live != folded {
                        differences.append(.init(projector: projector.name, table: batchDependent.batchDependentTables.joined(separator: "+"),
                                                 extraRows: Set(live).subtracting(folded).count, missingRows: Set(folded).subtracting(live).count))
                    }
                }
            }
        }
        return DeepComparison(compared: projectors.map(\.name), tables: tables, head: check.head, differences: differences,
                              skipped: nil, seconds: seconds())
    }
}
