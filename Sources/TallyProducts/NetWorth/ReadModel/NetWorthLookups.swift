import TallyEngine
import GRDB

/// An asset or liability as the net worth read model keeps it.
struct NetWorthItem: Hashable, Sendable {
    let kind: ItemKind
    let itemId: String
    let name: String
    let category: String
    /// The asset's type (X-ray), nil for a liability or an asset added without one.
    let type: AssetType?
    let currency: String
}

/// Latest-value-at lookups over the net worth read model at a point in time: one indexed
/// query each, never a replay. Every statement the net worth answers read lives here.
struct NetWorthLookups {
    let db: Database
    let point: PointInTime

    /// One valuation row.
    struct Valuation {
        let value: Money
        let effectiveAt: Int64
        let sequence: Int64
    }

    /// One quoted price of a symbol.
    struct Price {
        /// Exact, with the decimals it was quoted with (80.123).
        let unitPrice: ExactDecimal
        let currency: Commodity
        let source: PriceSource
        let effectiveAt: Int64
    }

    private var bounds: StatementArguments { [point.effectiveBound, point.recordedBound] }

    /// Assets and liabilities held at the point: added by then, not removed by then, by kind then id.
    func items() throws -> [NetWorthItem] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT kind, item_id, name, category, type, currency FROM nw_items
            WHERE added_at <= ? AND added_recorded_at <= ?
              AND NOT (removed_at IS NOT NULL AND removed_at <= ? AND removed_recorded_at <= ?)
            ORDER BY kind, item_id
            """), arguments: [point.effectiveBound, point.recordedBound, point.effectiveBound, point.recordedBound]).map { row in
            let kindName: String = row[NetWorthColumns.kind]
            guard let kind = ItemKind(rawValue: kindName) else {
                throw LedgerError(.inconsistentLog, "net worth item '\(row[NetWorthColumns.itemId] as String)' has the kind '\(kindName)', which is no item kind")
            }
            let typeName: String? = row[NetWorthColumns.type]
            let type = try typeName.map { name in
                guard let type = AssetType(rawValue: name) else {
                    throw LedgerError(.inconsistentLog, "net worth item '\(row[NetWorthColumns.itemId] as String)' has the type '\(name)', which is no asset type")
                }
                return type
            }
            return NetWorthItem(kind: kind, itemId: row[NetWorthColumns.itemId], name: row[NetWorthColumns.name], category: row[NetWorthColumns.category],
                                type: type, currency: row[NetWorthColumns.currency])
        }
    }

    /// The asset's tags in force.
    func tags(of assetId: String) throws -> (country: String?, sector: String?, symbol: String?) {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT country, sector, symbol FROM nw_item_tags WHERE asset_id = ? AND effective_at <= ? AND recorded_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [assetId] + bounds) else { return (nil, nil, nil) }
        return (row[NetWorthColumns.country], row[NetWorthColumns.sector], row[NetWorthColumns.symbol])
    }

    /// The latest valuation of an item from one source.
    func latestValuation(kind: ItemKind, id: String, source: ValuationSource) throws -> Valuation? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT commodity, amount, effective_at, sequence FROM nw_valuations
            WHERE kind = ? AND item_id = ? AND source = ? AND effective_at <= ? AND recorded_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [kind.rawValue, id, source.rawValue] + bounds) else { return nil }
        return Valuation(value: try row.money(NetWorthColumns.amount, NetWorthColumns.commodity),
                         effectiveAt: row[NetWorthColumns.effectiveAt], sequence: row[NetWorthColumns.sequence])
    }

    /// How many times the asset's override was cleared effective from `since` to the point.
    func overrideClears(of assetId: String, since: Int64) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM nw_override_clears WHERE asset_id = ? AND effective_at >= ? AND effective_at <= ? AND recorded_at <= ?
            """), arguments: [assetId, since] + bounds) ?? 0
    }

    /// The asset's position in force: the symbol and the quantity in its minor units.
    func position(of assetId: String) throws -> (symbol: Commodity, quantityMinorUnits: Int64)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT symbol, quantity FROM nw_positions WHERE asset_id = ? AND effective_at <= ? AND recorded_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [assetId] + bounds) else { return nil }
        return (try Commodity.named(row[NetWorthColumns.symbol]), row[NetWorthColumns.quantity])
    }

    /// The cost basis of the asset's position in force: what the whole position cost; nil
    /// when no position is in force or it was set without one.
    func costBasis(of assetId: String) throws -> Money? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT cost_commodity, cost_amount FROM nw_positions WHERE asset_id = ? AND effective_at <= ? AND recorded_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [assetId] + bounds), let commodity = row[NetWorthColumns.costCommodity] as String? else { return nil }
        return Money(minorUnits: row[NetWorthColumns.costAmount], commodity: try Commodity.named(commodity))
    }

    /// The latest price of a symbol in force.
    func latestPrice(of symbol: Commodity) throws -> Price? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT commodity, significand, scale, source, effective_at FROM nw_prices WHERE symbol = ? AND effective_at <= ? AND recorded_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [symbol.code] + bounds) else { return nil }
        let sourceName: String = row[NetWorthColumns.source]
        guard let source = PriceSource(rawValue: sourceName) else {
            throw LedgerError(.inconsistentLog, "a price of \(symbol.code) has the source '\(sourceName)', which is no price source")
        }
        return Price(unitPrice: try ExactDecimal(significand: row[NetWorthColumns.significand], scale: row[NetWorthColumns.scale]),
                     currency: try Commodity.named(row[NetWorthColumns.commodity]), source: source, effectiveAt: row[NetWorthColumns.effectiveAt])
    }
}
