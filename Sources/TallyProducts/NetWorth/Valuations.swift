public import TallyEngine
import GRDB

/// Where an item's value at a point in time came from.
public enum ValueSource: String, Hashable, Sendable {
    /// A manual override of the asset's value.
    case override
    /// A live valuation, or a position at a live price.
    case live
    /// A manual valuation or bank balance refresh, or a position at a manual price.
    case manual
}

/// An item's value at a point in time, in its own currency.
public struct ActiveValue: Hashable, Sendable {
    public let value: Money
    public let source: ValueSource
    /// When the value (or the price it was computed from) took effect.
    public let valuedAt: Instant
    /// The symbol priced, when the value is a position times a price.
    public let pricedSymbol: String?
}

/// An asset or liability held at a point in time, with its active value.
struct NetWorthHolding: Hashable, Sendable {
    let kind: ItemKind
    let itemId: String
    let name: String
    let category: String
    /// Nil when nothing values it yet.
    let value: ActiveValue?
}

/// An FX rate's absence: the item cannot be converted into the base currency.
public struct MissingRate: Error, Hashable, Sendable {
    public let from: String
    public let to: String
}

/// Latest-value-at lookups over the net worth read model: one indexed query each, never
/// a replay. The active-value rule of DOMAIN.md §5 lives here, and net worth uses it too.
struct Valuations {
    let db: Database
    let point: PointInTime

    private var bounds: StatementArguments { [point.effectiveBound, point.recordedBound] }

    /// The base currency chosen as of `knownAt` (answers convert into it at the rates of `asOf`).
    func baseCurrency() throws -> Commodity {
        let code = try String.fetchOne(db, sql: "SELECT currency FROM nw_base_currencies WHERE recorded_at <= ? ORDER BY sequence DESC LIMIT 1",
                                       arguments: [point.recordedBound])
        return try Commodity.named(code ?? "USD")
    }

    /// Assets and liabilities held at the point: added by then, not removed by then.
    func items() throws -> [Row] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM nw_items
            WHERE added_at <= ? AND added_recorded_at <= ?
              AND NOT (removed_at IS NOT NULL AND removed_at <= ? AND removed_recorded_at <= ?)
            ORDER BY kind, item_id
            """), arguments: [point.effectiveBound, point.recordedBound, point.effectiveBound, point.recordedBound])
    }

    /// Every item held at the point with its active value (nil: none yet), by kind then id.
    func holdings() throws -> [NetWorthHolding] {
        try items().map { row in
            let kind = ItemKind(rawValue: row["kind"]) ?? .asset
            let id: String = row["item_id"]
            return NetWorthHolding(kind: kind, itemId: id, name: row["name"], category: row["category"], value: try activeValue(kind: kind, id: id))
        }
    }

    /// The asset's tags in force.
    func tags(of assetId: String) throws -> (country: String?, sector: String?, symbol: String?) {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT country, sector, symbol FROM nw_item_tags WHERE asset_id = ? AND effective_at <= ? AND recorded_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [assetId] + bounds) else { return (nil, nil, nil) }
        return (row["country"], row["sector"], row["symbol"])
    }

    /// The latest valuation of an item from any of `sources`: one indexed lookup per source
    /// (an `IN` over sources would sort the item's whole history).
    private func latestValuation(kind: String, id: String, sources: [ValuationSource]) throws -> (Money, Int64)? {
        var latest: (money: Money, effectiveAt: Int64, sequence: Int64)?
        for source in sources {
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT commodity, amount, effective_at, sequence FROM nw_valuations
                WHERE kind = ? AND item_id = ? AND source = ? AND effective_at <= ? AND recorded_at <= ?
                ORDER BY effective_at DESC, sequence DESC LIMIT 1
                """), arguments: [kind, id, source.rawValue] + bounds) else { continue }
            let candidate = (money: Money(minorUnits: row["amount"], commodity: try Commodity.named(row["commodity"])),
                             effectiveAt: row["effective_at"] as Int64, sequence: row["sequence"] as Int64)
            if latest.map({ ($0.effectiveAt, $0.sequence) < (candidate.effectiveAt, candidate.sequence) }) ?? true { latest = candidate }
        }
        return latest.map { ($0.money, $0.effectiveAt) }
    }

    /// The active value: the latest manual override not cleared since, else the latest live
    /// value (a live valuation, or the position at a live price, whichever is newer), else
    /// the latest manual value (manual or bank refresh valuation, or the position at a
    /// manual price, whichever is newer). Liabilities: their latest amount of any source.
    func activeValue(kind: ItemKind, id: String) throws -> ActiveValue? {
        if kind == .liability {
            guard let (money, at) = try latestValuation(kind: "liability", id: id, sources: ValuationSource.allCases) else { return nil }
            return ActiveValue(value: money, source: .manual, valuedAt: Instant(microsecondsSinceEpoch: at), pricedSymbol: nil)
        }
        if let (money, at) = try latestValuation(kind: "asset", id: id, sources: [.override]) {
            let cleared = try Int64.fetchOne(db.cachedStatement(sql: """
                SELECT COUNT(*) FROM nw_override_clears WHERE asset_id = ? AND effective_at >= ? AND effective_at <= ? AND recorded_at <= ?
                """), arguments: [id, at] + bounds) ?? 0
            if cleared == 0 {
                return ActiveValue(value: money, source: .override, valuedAt: Instant(microsecondsSinceEpoch: at), pricedSymbol: nil)
            }
        }
        let position = try positionValue(of: id)
        var candidates: [ActiveValue] = []
        if let (money, at) = try latestValuation(kind: "asset", id: id, sources: [.live]) {
            candidates.append(ActiveValue(value: money, source: .live, valuedAt: Instant(microsecondsSinceEpoch: at), pricedSymbol: nil))
        }
        if let position, position.source == .live { candidates.append(position) }
        if let live = candidates.max(by: { $0.valuedAt < $1.valuedAt }) { return live }
        if let (money, at) = try latestValuation(kind: "asset", id: id, sources: [.manual, .bankRefresh]) {
            candidates.append(ActiveValue(value: money, source: .manual, valuedAt: Instant(microsecondsSinceEpoch: at), pricedSymbol: nil))
        }
        if let position, position.source == .manual { candidates.append(position) }
        return candidates.max(by: { $0.valuedAt < $1.valuedAt })
    }

    /// The asset's position at the latest price of its symbol.
    private func positionValue(of assetId: String) throws -> ActiveValue? {
        guard let position = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT symbol, quantity FROM nw_positions WHERE asset_id = ? AND effective_at <= ? AND recorded_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [assetId] + bounds) else { return nil }
        let symbol: String = position["symbol"]
        guard let price = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT commodity, amount, source, effective_at FROM nw_prices WHERE symbol = ? AND effective_at <= ? AND recorded_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [symbol] + bounds) else { return nil }
        let quantity = Money(minorUnits: position["quantity"], commodity: try Commodity.named(symbol))
        let unitPrice = Money(minorUnits: price["amount"], commodity: try Commodity.named(price["commodity"]))
        return ActiveValue(
            value: try Money.value(ofQuantity: quantity, atUnitPrice: unitPrice),
            source: price["source"] == PriceSource.live.rawValue ? .live : .manual,
            valuedAt: Instant(microsecondsSinceEpoch: price["effective_at"]), pricedSymbol: symbol
        )
    }

    /// `money` in `target` at the rate in force (``FXQuote/convert(_:to:direct:inverse:)``).
    ///
    /// - Throws: ``MissingRate`` when neither quote exists at the point.
    func convert(_ money: Money, to target: Commodity) throws -> Money {
        if money.commodity == target { return money }
        return try FXQuote.convert(money, to: target, direct: try latestQuote(base: money.commodity.code, quote: target.code),
                                   inverse: try latestQuote(base: target.code, quote: money.commodity.code))
    }

    /// The latest `base`/`quote` rate in force at the point.
    func latestQuote(base: String, quote: String) throws -> FXQuote? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT significand, scale, effective_at, sequence FROM nw_fx_rates
            WHERE base = ? AND quote = ? AND effective_at <= ? AND recorded_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [base, quote] + bounds) else { return nil }
        return FXQuote(base: base, quote: quote, rate: try ExactDecimal(significand: row["significand"], scale: row["scale"]),
                       effectiveAt: row["effective_at"], sequence: row["sequence"])
    }

    /// The stale-price threshold as known at `knownAt`: the latest `price_staleness_set`
    /// recorded by then (as a replay to that instant has it), else the default.
    func priceStalenessSeconds() throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT threshold_seconds FROM nw_price_staleness WHERE recorded_at <= ? ORDER BY sequence DESC LIMIT 1",
                           arguments: [point.recordedBound]) ?? SettingsProjector.defaultPriceStalenessSeconds
    }
}

/// One FX rate: 1 `base` = `rate` `quote`, in force from `effectiveAt`.
struct FXQuote: Hashable, Sendable {
    let base: String
    let quote: String
    let rate: ExactDecimal
    let effectiveAt: Int64
    /// The event that set it: of two rates taking effect at the same instant, the later one wins.
    let sequence: Int64

    /// `money` in `target` at the rate in force: the direct quote (1 source = r target) or
    /// the inverse of the opposite quote, whichever took effect last; no triangulation.
    ///
    /// - Throws: ``MissingRate`` when neither quote exists.
    static func convert(_ money: Money, to target: Commodity, direct: FXQuote?, inverse: FXQuote?) throws -> Money {
        if money.commodity == target { return money }
        let latest = [direct, inverse].compactMap { $0 }.max { ($0.effectiveAt, $0.sequence) < ($1.effectiveAt, $1.sequence) }
        guard let latest else { throw MissingRate(from: money.commodity.code, to: target.code) }
        if latest.base == money.commodity.code {
            return try money.converted(to: target, rate: latest.rate)
        }
        return try money.converted(to: target, inverseOf: latest.rate)
    }
}

// Net worth values what is held; its events move no money between accounts.
extension AssetAdded: MovesNoMoney {}
extension AssetTagged: MovesNoMoney {}
extension AssetRemoved: MovesNoMoney {}
extension LiabilityAdded: MovesNoMoney {}
extension LiabilityRemoved: MovesNoMoney {}
extension ValuationRecorded: MovesNoMoney {}
extension ValuationOverrideCleared: MovesNoMoney {}
extension PositionSet: MovesNoMoney {}
extension ReminderSet: MovesNoMoney {}
extension ReminderCompleted: MovesNoMoney {}
