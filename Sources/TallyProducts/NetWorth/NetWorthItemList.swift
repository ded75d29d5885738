public import TallyEngine

/// An asset or liability as a list shows it (``Ledger/netWorthItems(kind:asOf:knownAt:)``):
/// what it is, its active value with the rule that chose it, and that value in the base
/// currency when a rate exists.
public struct NetWorthItemListing: Hashable, Sendable {
    /// Asset or liability.
    public let kind: ItemKind
    /// The asset's or liability's id.
    public let itemId: String
    /// What the user calls it.
    public let name: String
    /// Its category (`property`, `mortgage`, …).
    public let category: String
    /// An asset's type (X-ray); nil for a liability or an asset added without one.
    public let type: AssetType?
    /// The currency it is valued in.
    public let currency: Commodity
    /// Its active value in its own currency and where that came from (an override, live or
    /// manual: docs/domain.md §5); nil when nothing values it yet. Positive: an asset's value, or
    /// what a liability owes.
    public let value: ActiveValue?
    /// ``value`` in the base currency at the rate in force; nil when there is no value or no
    /// rate (the item is then in ``NetWorthItemList/notConverted``).
    public let inBase: Money?
}

/// The assets and liabilities held at a point, with the items whose value could not be
/// converted into the base currency listed apart (never silently dropped).
public struct NetWorthItemList: Hashable, Sendable {
    /// The moment asked about.
    public let point: PointInTime
    /// The base currency as known at the point.
    public let baseCurrency: Commodity
    /// Every item held, assets then liabilities, each by id.
    public let items: [NetWorthItemListing]
    /// The items with a value but no rate into the base currency by then.
    public var notConverted: [NetWorthItemListing] { items.filter { $0.value != nil && $0.inBase == nil } }
}

extension Ledger {
    /// The assets and liabilities held at the end of `asOf` (now when absent) as known at
    /// `knownAt`, each with its active value, the rule that chose it and its value in the
    /// base currency.
    ///
    /// ```swift
    /// for item in try ledger.netWorthItems(kind: .asset).items {
    ///     print(item.itemId, item.value?.value as Any, item.value?.source as Any)
    /// }
    /// ```
    ///
    /// - Parameter kind: only assets or only liabilities; nil for both.
    /// - Throws: ``LedgerError`` `inconsistentLog` for a kind or type no event writes.
    public func netWorthItems(kind: ItemKind? = nil, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> NetWorthItemList {
        let point = PointInTime(asOf: asOf ?? now, knownAt: knownAt)
        return try read { db in
            let valuations = Valuations(db: db, point: point)
            let base = try valuations.baseCurrency()
            var market = try MarketValuation(db, point: point, currency: base)
            let items = try valuations.items().filter { kind == nil || $0.kind == kind }.map { item in
                let value = try valuations.activeValue(kind: item.kind, id: item.itemId)
                let inBase = try value.flatMap { try market.value(of: $0.value).value }
                return NetWorthItemListing(kind: item.kind, itemId: item.itemId, name: item.name, category: item.category, type: item.type,
                                           currency: try Commodity.named(item.currency), value: value, inBase: inBase)
            }
            return NetWorthItemList(point: point, baseCurrency: base, items: items)
        }
    }
}
