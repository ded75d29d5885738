internal import Foundation
import GRDB

extension SnapshotStatistics {
    /// The snapshots each read model of the store at `root` keeps (for Tally's products,
    /// `envelope_snapshots` and `nw_snapshots`), by table name, for the projectors of `options`, read from its read-model database without opening the
    /// ledger: no lock is taken and nothing is folded, so the figures are those of the last
    /// fold. Empty when the read models were never built.
    ///
    /// ```swift
    /// for (table, statistics) in try SnapshotStatistics.read(storeAt: "/data/home.tally", options: .standard) {
    ///     print(table, statistics.count, statistics.storedBytes, statistics.stateBytes)
    /// }
    /// ```
    ///
    /// - Throws: an SQLite error when the database cannot be read.
    public static func read(
        storeAt root: String, options: Ledger.Options = Ledger.Options()
    ) throws -> [(table: String, statistics: SnapshotStatistics)] {
        let path = StoreLayout(root: root).readModelPath
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = ReadModelStore.busyMode
        let database = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? database.close() }
        let tables = try options.registeredProjectors().compactMap { $0 as? any SnapshotTaking }.flatMap(\.cacheTables)
        return try database.read { db in
            try tables.compactMap { name in
                guard try db.tableExists(name) else { return nil }
                return (name, try SnapshotTable(name: name).statistics(db))
            }
        }
    }
}
