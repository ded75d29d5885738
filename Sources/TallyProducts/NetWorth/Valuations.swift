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
    /// The balance of one of the ledger's accounts at the point (``NetWorthOrigin/wealthAccount``
    /// and ``NetWorthOrigin/account`` lines): never stale.
    case balance
}

/// An item's value at a point in time, in its own currency.
public struct ActiveValue: Hashable, Sendable {
    /// Positive: an asset's value or what a liability owes. A position's value is in the
    /// currency its symbol's price was quoted in.
    public let value: Money
    /// Which rule gave it: an override, a live value or a manual one (a liability's
    /// amount always reads `manual`, whatever its valuation's source).
    public let source: ValueSource
    /// When the value (or the price it was computed from) took effect.
    public let valuedAt: Instant
    /// The symbol priced, when the value is a position times a price.
    public let pricedSymbol: String?
    /// For a position's value: the quantity and unit price it was computed from, so that a
    /// conversion into another currency is one exact product rounded once.
    var pricing: PositionPricing? = nil
}

/// A position's quantity and the unit price of its value (``ActiveValue/pricing``).
struct PositionPricing: Hashable, Sendable {
    let quantity: Money
    let unitPrice: ExactDecimal
}

/// An asset or liability held at a point in time, with its active value.
struct NetWorthHolding: Hashable, Sendable {
    let kind: ItemKind
    let itemId: String
    let name: String
    let category: String
    /// Nil when nothing values it yet.
    let value: ActiveValue?
    /// An item added by hand, or one of the ledger's accounts (``HouseholdAccounts``).
    var origin: NetWorthOrigin = .item
}

/// An FX rate's absence: the item cannot be converted into the base currency.
public struct MissingRate: Error, Hashable, Sendable {
    /// The currency code of the amount that could not be converted, e.g. `GBP`.
    public let from: String
    /// The currency code it was to be converted into: the base currency.
    public let to: String
}

/// The active-value rule of docs/domain.md §5, over the latest-value-at lookups of the net
/// worth read model (``NetWorthLookups``: one indexed query each, never a replay); net
/// worth and the X-ray use it alike.
struct Valuations {
    let lookups: NetWorthLookups

    init(db: Database, point: PointInTime) {
        lookups = NetWorthLookups(db: db, point: point)
    }

    /// The base currency in force at `asOf` as known at `knownAt` (the one rule,
    /// ``LedgerSettings/baseCurrency(at:_:)``); answers convert into it at the rates of `asOf`.
    func baseCurrency() throws -> Commodity {
        try LedgerSettings.baseCurrency(at: lookups.point, lookups.db)
    }

    /// Assets and liabilities held at the point: added by then, not removed by then, each
    /// with the name and category in force then (``AssetRenamed``).
    func items() throws -> [NetWorthItem] {
        try lookups.items().map { item in
            guard item.kind == .asset, let renamed = try ItemNames.inForce(assetId: item.itemId, point: lookups.point, lookups.db) else { return item }
            return NetWorthItem(kind: item.kind, itemId: item.itemId, name: renamed.name, category: renamed.category.rawValue,
                                type: item.type, currency: item.currency)
        }
    }

    /// Every item held at the point with its active value (nil: none yet), by kind then id.
    func holdings() throws -> [NetWorthHolding] {
        try items().map { item in
            NetWorthHolding(kind: item.kind, itemId: item.itemId, name: item.name, category: item.category,
                            value: try activeValue(kind: item.kind, id: item.itemId))
        }
    }

    /// The asset's tags in force.
    func tags(of assetId: String) throws -> (country: String?, sector: String?, symbol: String?) {
        try lookups.tags(of: assetId)
    }

    /// The cost basis of the asset's position in force; nil when none was given.
    func costBasis(of assetId: String) throws -> Money? {
        try lookups.costBasis(of: assetId)
    }

    /// The latest valuation of an item from any of `sources`: one indexed lookup per source
    /// (an `IN` over sources would sort the item's whole history).
    private func latestValuation(kind: ItemKind, id: String, sources: [ValuationSource]) throws -> (Money, Int64)? {
        var latest: NetWorthLookups.Valuation?
        for source in sources {
            guard let candidate = try lookups.latestValuation(kind: kind, id: id, source: source) else { continue }
            if latest.map({ ($0.effectiveAt, $0.sequence) < (candidate.effectiveAt, candidate.sequence) }) ?? true { latest = candidate }
        }
        return latest.map { ($0.value, $0.effectiveAt) }
    }

    /// The active value: the latest manual override not cleared since, else the latest live
    /// value (a live valuation, or the position at a live price, whichever is newer), else
    /// the latest manual value (manual or bank refresh valuation, or the position at a
    /// manual price, whichever is newer). Liabilities: their latest amount of any source.
    func activeValue(kind: ItemKind, id: String) throws -> ActiveValue? {
        if kind == .liability {
            guard let (money, at) = try latestValuation(kind: .liability, id: id, sources: ValuationSource.allCases) else { return nil }
            return ActiveValue(value: money, source: .manual, valuedAt: Instant(microsecondsSinceEpoch: at), pricedSymbol: nil)
        }
        if let (money, at) = try latestValuation(kind: .asset, id: id, sources: [.override]),
           try lookups.overrideClears(of: id, since: at) == 0 {
            return ActiveValue(value: money, source: .override, valuedAt: Instant(microsecondsSinceEpoch: at), pricedSymbol: nil)
        }
        let position = try positionValue(of: id)
        var candidates: [ActiveValue] = []
        if let (money, at) = try latestValuation(kind: .asset, id: id, sources: [.live]) {
            candidates.append(ActiveValue(value: money, source: .live, valuedAt: Instant(microsecondsSinceEpoch: at), pricedSymbol: nil))
        }
        if let position, position.source == .live { candidates.append(position) }
        if let live = candidates.max(by: { $0.valuedAt < $1.valuedAt }) { return live }
        if let (money, at) = try latestValuation(kind: .asset, id: id, sources: [.manual, .bankRefresh]) {
            candidates.append(ActiveValue(value: money, source: .manual, valuedAt: Instant(microsecondsSinceEpoch: at), pricedSymbol: nil))
        }
        if let position, position.source == .manual { candidates.append(position) }
        return candidates.max(by: { $0.valuedAt < $1.valuedAt })
    }

    /// The asset's position at the latest price of its symbol.
    private func positionValue(of assetId: String) throws -> ActiveValue? {
        guard let position = try lookups.position(of: assetId), let price = try lookups.latestPrice(of: position.symbol) else { return nil }
        let quantity = Money(minorUnits: position.quantityMinorUnits, commodity: position.symbol)
        return ActiveValue(
            // Quantity × price, the exact product rounded once, half-even, to the currency's scale.
            value: try quantity.converted(to: price.currency, rate: price.unitPrice),
            source: price.source == .live ? .live : .manual,
            valuedAt: Instant(microsecondsSinceEpoch: price.effectiveAt), pricedSymbol: position.symbol.code,
            pricing: PositionPricing(quantity: quantity, unitPrice: price.unitPrice)
        )
    }

    /// The stale-price threshold in force at `asOf` as known at `knownAt` (the ledger's
    /// setting, ``LedgerSettings``), else the default.
    func priceStalenessSeconds() throws -> Int64 {
        try LedgerSettings.read(lookups.db, point: lookups.point).priceStalenessSeconds
    }
}

// Net worth values what is held; its events move no money between accounts.
extension AssetAdded: MovesNoMoney {}
extension AssetTagged: MovesNoMoney {}
extension AssetRenamed: MovesNoMoney {}
extension AssetRemoved: MovesNoMoney {}
extension LiabilityAdded: MovesNoMoney {}
extension LiabilityRemoved: MovesNoMoney {}
extension ValuationRecorded: MovesNoMoney {}
extension ValuationOverrideCleared: MovesNoMoney {}
extension PositionSet: MovesNoMoney {}
extension ReminderSet: MovesNoMoney {}
extension ReminderCompleted: MovesNoMoney {}
