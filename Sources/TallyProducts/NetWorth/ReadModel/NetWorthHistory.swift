import TallyEngine
import GRDB

/// The history of one asset or liability in the net worth read model, for its audit.
enum NetWorthHistory {
    /// An item's currency and, once removed, when.
    struct Item {
        let currency: Commodity
        let removed: (effectiveAt: Int64, recordedAt: Int64, sequence: Int64)?
    }

    /// A moment the item's value may have changed, with the type of the event that changed it.
    struct Change {
        let effective: Int64
        let recorded: Int64
        let sequence: Int64
        let type: String
    }

    /// Every asset and liability ever added, removed ones included, by kind then id.
    static func items(_ db: Database) throws -> [(kind: ItemKind, id: String, name: String)] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT kind, item_id, name FROM nw_items ORDER BY kind, item_id")).map { row in
            let kindName: String = row[NetWorthColumns.kind]
            guard let kind = ItemKind(rawValue: kindName) else {
                throw LedgerError(.inconsistentLog, "net worth item '\(row[NetWorthColumns.itemId] as String)' has the kind '\(kindName)', which is no item kind")
            }
            return (kind, row[NetWorthColumns.itemId], row[NetWorthColumns.name])
        }
    }

    /// The item as added (nil when it never was).
    static func item(kind: ItemKind, id: String, _ db: Database) throws -> Item? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT currency, removed_at, removed_recorded_at, removed_sequence FROM nw_items WHERE kind = ? AND item_id = ?"),
                                         arguments: [kind.rawValue, id]) else { return nil }
        var removed: (Int64, Int64, Int64)?
        if let at = row[NetWorthColumns.removedAt] as Int64?, let recorded = row[NetWorthColumns.removedRecordedAt] as Int64? {
            removed = (at, recorded, row[NetWorthColumns.removedSequence] ?? 0)
        }
        return Item(currency: try Commodity.named(row[NetWorthColumns.currency]), removed: removed)
    }

    /// Every valuation, override clearing, position and price of a held symbol recorded by
    /// `recordedBound`, unordered.
    static func valueChanges(kind: ItemKind, id: String, recordedBound known: Int64, _ db: Database) throws -> [Change] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT effective_at, recorded_at, sequence, 'valuation_recorded' AS type FROM nw_valuations WHERE kind = ? AND item_id = ? AND recorded_at <= ?
            UNION ALL SELECT effective_at, recorded_at, sequence, 'valuation_override_cleared' FROM nw_override_clears WHERE asset_id = ? AND recorded_at <= ?
            UNION ALL SELECT effective_at, recorded_at, sequence, 'position_set' FROM nw_positions WHERE asset_id = ? AND recorded_at <= ?
            UNION ALL SELECT p.effective_at, p.recorded_at, p.sequence, 'price_quoted' FROM nw_prices p
                WHERE p.symbol IN (SELECT DISTINCT symbol FROM nw_positions WHERE asset_id = ?) AND p.recorded_at <= ?
            """), arguments: [kind.rawValue, id, known, id, known, id, known, id, known]
        ).map { Change(effective: $0[NetWorthColumns.effectiveAt], recorded: $0[NetWorthColumns.recordedAt], sequence: $0[NetWorthColumns.sequence], type: $0[NetWorthColumns.type]) }
    }
}
