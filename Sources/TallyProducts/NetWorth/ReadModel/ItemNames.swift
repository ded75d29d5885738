import TallyEngine
import GRDB

/// The names and categories an asset was given after it was added (`asset_renamed`), each
/// with its effective and recorded time, so that an answer about a date uses the name and
/// category in force then, as known at the instant asked about.
enum ItemNames {
    static func createTable(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE nw_item_names (
                asset_id TEXT NOT NULL, effective_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL, sequence INTEGER NOT NULL,
                name TEXT NOT NULL, category TEXT NOT NULL,
                PRIMARY KEY (asset_id, sequence)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX nw_item_names_at ON nw_item_names (asset_id, effective_at);
            """)
    }

    static func record(_ renamed: AssetRenamed, effective: Int64, recorded: Int64, sequence: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO nw_item_names VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [renamed.assetId, effective, recorded, sequence, renamed.name, renamed.category.rawValue])
    }

    /// The latest rename of the asset effective by the point and known at it, since the asset
    /// was last added (a rename of an earlier holding of the same id does not apply); nil
    /// when none is.
    static func inForce(assetId: String, point: PointInTime, _ db: Database) throws -> (name: String, category: AssetCategory)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT n.name, n.category FROM nw_item_names n JOIN nw_items i ON i.kind = 'asset' AND i.item_id = n.asset_id
            WHERE n.asset_id = ? AND n.effective_at >= i.added_at AND n.effective_at <= ? AND n.recorded_at <= ?
            ORDER BY n.effective_at DESC, n.sequence DESC LIMIT 1
            """), arguments: [assetId, point.effectiveBound, point.recordedBound]) else { return nil }
        return (row[NetWorthColumns.name], try row.kind(NetWorthColumns.category))
    }
}
