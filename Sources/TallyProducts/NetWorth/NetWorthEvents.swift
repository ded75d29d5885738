public import TallyEngine
// Events of the net worth tracker and the portfolio X-ray (docs/domain.md §4 and §5): assets,
// liabilities, valuations, positions, prices, FX rates and reminders.

/// The net worth tracker's asset categories.
public enum AssetCategory: String, EventEnumeration {
    /// Cash, property, investments, or anything else (`cash`, `property`, `investments`,
    /// `other`): net worth's breakdown groups assets by it.
    case cash, property, investments, other
}

/// The X-ray's asset types.
public enum AssetType: String, EventEnumeration {
    /// Cash.
    case cash
    /// Stocks and ETFs (`stock_etf`).
    case stockOrETF = "stock_etf"
    /// Funds (`fund`) and gold (`gold`).
    case fund, gold
    /// Fixed income: bonds and the like (`fixed_income`).
    case fixedIncome = "fixed_income"
    /// Real estate (`real_estate`); counted as illiquid.
    case realEstate = "real_estate"
    /// Anything else; counted as illiquid.
    case custom
}

/// The net worth tracker's liability categories.
public enum LiabilityCategory: String, EventEnumeration {
    /// A mortgage or another loan (`mortgage`, `loan`).
    case mortgage, loan
    /// A credit card balance (`credit_card`).
    case creditCard = "credit_card"
    /// Any other liability.
    case other
}

/// Whether a valuation is of an asset or a liability.
public enum ItemKind: String, EventEnumeration {
    /// An asset (counted positive in net worth) or a liability (counted negative).
    case asset, liability
}

/// Where a valuation came from. The X-ray's active value is the latest override, else the
/// latest live value, else the latest manual value. A liability's amount is its latest
/// valuation of any source.
public enum ValuationSource: String, EventEnumeration {
    /// Typed by the user.
    case manual
    /// A balance refreshed from a bank connection; ranks with manual values.
    case bankRefresh = "bank_refresh"
    /// From a live feed; ranks above manual values.
    case live
    /// A manual override of an asset's value (assets only); ranks above everything until cleared.
    case override
}

/// An asset was added.
public struct AssetAdded: SealsPersonalText {
    public static let eventType = EventType("asset_added", code: 80, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<AssetAdded>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["name": .owner]
    /// The asset's id, 1 to 200 bytes without spaces; no asset or liability held has it.
    public var assetId: String
    /// What the user calls the asset.
    public var name: String
    /// The net worth category (cash, property, investments, other).
    public var category: AssetCategory
    /// The X-ray's asset type.
    public var type: AssetType
    /// The currency its values are recorded in.
    public var currency: Commodity
    /// ISO 3166-1 alpha-2 country of exposure, e.g. `US`.
    public var country: String?
    /// The sector of exposure, free text (e.g. `Technology`); nil when unknown.
    public var sector: String?
    /// The ticker the asset is known by, a tag; nil when it has none. A position is priced
    /// by the commodity of its quantity, not by this tag.
    public var symbol: String?

    /// A new asset, held from the event's effective time; adding the id of a removed asset
    /// again replaces the record of its earlier holding.
    ///
    /// - Parameters:
    ///   - assetId: the asset's id.
    ///   - name: what the user calls it.
    ///   - category: the net worth category.
    ///   - type: the X-ray's asset type.
    ///   - currency: the currency of its values.
    ///   - country: ISO 3166-1 alpha-2 country of exposure; nil when unknown.
    ///   - sector: the sector of exposure; nil when unknown.
    ///   - symbol: its ticker; nil for none.
    public init(
        assetId: String, name: String, category: AssetCategory, type: AssetType, currency: Commodity,
        country: String? = nil, sector: String? = nil, symbol: String? = nil
    ) {
        self.assetId = assetId
        self.name = name
        self.category = category
        self.type = type
        self.currency = currency
        self.country = country
        self.sector = sector
        self.symbol = symbol
    }

    public var entity: String { "asset:\(assetId)" }
}

extension AssetAdded: ExampleProviding {
    public static var example: AssetAdded {
        AssetAdded(
            assetId: "vea", name: "Vanguard FTSE Developed Markets ETF", category: .investments,
            type: .stockOrETF, currency: .usd, country: "US", sector: "Diversified equity", symbol: "VEA"
        )
    }
}

/// An asset's tags were replaced (absent means unknown).
public struct AssetTagged: EventPayload {
    public static let eventType = EventType("asset_tagged", code: 81)
    /// The asset tagged.
    public var assetId: String
    /// ISO 3166-1 alpha-2 country of exposure, e.g. `US`; nil: unknown.
    public var country: String?
    /// The sector of exposure, free text; nil: unknown.
    public var sector: String?
    /// The ticker the asset is known by; nil: none.
    public var symbol: String?

    /// The asset's whole set of tags from the event's effective time: a tag left nil is unknown, not kept.
    public init(assetId: String, country: String? = nil, sector: String? = nil, symbol: String? = nil) {
        self.assetId = assetId
        self.country = country
        self.sector = sector
        self.symbol = symbol
    }

    public var entity: String { "asset:\(assetId)" }
}

extension AssetTagged: ExampleProviding {
    public static var example: AssetTagged {
        AssetTagged(assetId: "vea", country: "IE", sector: "Equity", symbol: "VEA.L")
    }
}

/// An asset was removed from the effective date on; its history stays.
public struct AssetRemoved: EventPayload {
    public static let eventType = EventType("asset_removed", code: 82)
    /// The asset removed.
    public var assetId: String

    /// The removal of `assetId` from the event's effective time on.
    public init(assetId: String) { self.assetId = assetId }

    public var entity: String { "asset:\(assetId)" }
}

extension AssetRemoved: ExampleProviding {
    public static var example: AssetRemoved {
        AssetRemoved(assetId: "old_car")
    }
}

/// A liability was added, optionally linked to the asset it finances.
public struct LiabilityAdded: SealsPersonalText {
    public static let eventType = EventType("liability_added", code: 83, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<LiabilityAdded>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["name": .owner]
    /// The liability's id, 1 to 200 bytes without spaces; no asset or liability held has it.
    public var liabilityId: String
    /// What the user calls the liability.
    public var name: String
    /// The net worth category (mortgage, loan, credit card, other).
    public var category: LiabilityCategory
    /// The currency its amounts are recorded in.
    public var currency: Commodity
    /// The asset it finances (a mortgage's property), held when it was added; nil for none.
    public var linkedAssetId: String?

    /// A new liability, owed from the event's effective time.
    ///
    /// - Parameters:
    ///   - liabilityId: the liability's id.
    ///   - name: what the user calls it.
    ///   - category: the net worth category.
    ///   - currency: the currency of its amounts.
    ///   - linkedAssetId: the asset it finances; nil for none.
    public init(
        liabilityId: String, name: String, category: LiabilityCategory, currency: Commodity,
        linkedAssetId: String? = nil
    ) {
        self.liabilityId = liabilityId
        self.name = name
        self.category = category
        self.currency = currency
        self.linkedAssetId = linkedAssetId
    }

    public var entity: String { "liability:\(liabilityId)" }
}

extension LiabilityAdded: ExampleProviding {
    public static var example: LiabilityAdded {
        LiabilityAdded(
            liabilityId: "mortgage", name: "Nationwide mortgage", category: .mortgage, currency: .gbp,
            linkedAssetId: "flat_e8"
        )
    }
}

/// A liability was removed from the effective date on (paid off or closed).
public struct LiabilityRemoved: EventPayload {
    public static let eventType = EventType("liability_removed", code: 84)
    /// The liability removed.
    public var liabilityId: String

    /// The removal of `liabilityId` from the event's effective time on.
    public init(liabilityId: String) { self.liabilityId = liabilityId }

    public var entity: String { "liability:\(liabilityId)" }
}

extension LiabilityRemoved: ExampleProviding {
    public static var example: LiabilityRemoved {
        LiabilityRemoved(liabilityId: "car_loan")
    }
}

/// An asset's value or a liability's amount was recorded, positive, in its own currency.
public struct ValuationRecorded: EventPayload {
    public static let eventType = EventType("valuation_recorded", code: 85)
    /// Whether the item is an asset or a liability.
    public var itemKind: ItemKind
    /// The asset's or liability's id.
    public var itemId: String
    /// Positive, in the item's currency: an asset's value, or the amount a liability owes.
    public var value: Money
    /// Where the value came from; an override applies to assets only.
    public var source: ValuationSource

    /// A valuation of an item, in force from the event's effective time until a later one.
    public init(itemKind: ItemKind, itemId: String, value: Money, source: ValuationSource) {
        self.itemKind = itemKind
        self.itemId = itemId
        self.value = value
        self.source = source
    }

    public var entity: String { "\(itemKind.rawValue):\(itemId)" }
}

extension ValuationRecorded: ExampleProviding {
    public static var example: ValuationRecorded {
        get throws {
            try ValuationRecorded(
                itemKind: .asset, itemId: "flat_e8", value: Money(parsing: "485000.00", commodity: .gbp),
                source: .override
            )
        }
    }
}

/// An asset's manual override was cleared; its live or manual value applies again.
public struct ValuationOverrideCleared: EventPayload {
    public static let eventType = EventType("valuation_override_cleared", code: 86)
    /// The asset whose override was cleared.
    public var assetId: String

    /// The clearing of `assetId`'s override, from the event's effective time on.
    public init(assetId: String) { self.assetId = assetId }

    public var entity: String { "asset:\(assetId)" }
}

extension ValuationOverrideCleared: ExampleProviding {
    public static var example: ValuationOverrideCleared {
        ValuationOverrideCleared(assetId: "flat_e8")
    }
}

/// An asset's position was set: a quantity of a symbol (fractional allowed), valued at the
/// symbol's quoted price; optional cost basis.
public struct PositionSet: EventPayload {
    public static let eventType = EventType("position_set", code: 87)
    /// The asset the position values.
    public var assetId: String
    /// The quantity, in the symbol as a commodity (scale 8 for tickers), e.g. 12.5 VEA.
    public var quantity: Money
    /// What the whole position cost, in the currency paid; nil when unknown.
    public var costBasis: Money?

    /// The asset's position from the event's effective time, replacing any earlier one.
    ///
    /// - Parameters:
    ///   - assetId: the asset held.
    ///   - quantity: zero or more, in the symbol as a commodity; the symbol's quoted price values it.
    ///   - costBasis: what the whole position cost; nil when unknown.
    public init(assetId: String, quantity: Money, costBasis: Money? = nil) {
        self.assetId = assetId
        self.quantity = quantity
        self.costBasis = costBasis
    }

    public var entity: String { "asset:\(assetId)" }
}

extension PositionSet: ExampleProviding {
    public static var example: PositionSet {
        get throws {
            try PositionSet(
                assetId: "vea", quantity: Money(parsing: "12.5", commodity: Commodity.named("VEA")),
                costBasis: Money(parsing: "612.40", commodity: .usd)
            )
        }
    }
}

/// A reminder to update an asset's value was set for a due date.
public struct ReminderSet: SealsPersonalText {
    public static let eventType = EventType("reminder_set", code: 90, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<ReminderSet>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["note": .owner]
    /// The reminder's id, 1 to 200 bytes without spaces; setting it again makes a new version.
    public var reminderId: String
    /// The asset whose value to update.
    public var assetId: String
    /// The day it falls due; it is due from that day on, in the ledger's time zone.
    public var dueDate: LocalDate
    /// Free text: the one kind of field that may hold tabs and line feeds, so a note can
    /// span lines; no other control character (``EventText``).
    public var note: String?

    /// A reminder to update `assetId`'s value by `dueDate`, with an optional note.
    public init(reminderId: String, assetId: String, dueDate: LocalDate, note: String? = nil) {
        self.reminderId = reminderId
        self.assetId = assetId
        self.dueDate = dueDate
        self.note = note
    }

    public var entity: String { "reminder:\(reminderId)" }
}

extension ReminderSet: ExampleProviding {
    public static var example: ReminderSet {
        get throws {
            try ReminderSet(
                reminderId: "rem_flat_q2", assetId: "flat_e8", dueDate: LocalDate(parsing: "2026-06-30"),
                note: "Check the \"Zoopla\" estimate"
            )
        }
    }
}

/// A reminder was done.
public struct ReminderCompleted: EventPayload {
    public static let eventType = EventType("reminder_completed", code: 91)
    /// The reminder done: its latest version.
    public var reminderId: String

    /// `reminderId` done, from the event's effective time on.
    public init(reminderId: String) { self.reminderId = reminderId }

    public var entity: String { "reminder:\(reminderId)" }
}

extension ReminderCompleted: ExampleProviding {
    public static var example: ReminderCompleted {
        ReminderCompleted(reminderId: "rem_flat_q1")
    }
}

/// An asset's name and category were changed from the event's effective time on; answers
/// about earlier dates keep the ones in force then.
public struct AssetRenamed: SealsPersonalText {
    public static let eventType = EventType("asset_renamed", code: 93, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<AssetRenamed>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["name": .owner]
    /// The asset renamed.
    public var assetId: String
    /// What the user calls it from then on.
    public var name: String
    /// Its net worth category from then on.
    public var category: AssetCategory

    /// The asset's name and category from the event's effective time (both, as they stand
    /// after the change).
    public init(assetId: String, name: String, category: AssetCategory) {
        self.assetId = assetId
        self.name = name
        self.category = category
    }

    public var entity: String { "asset:\(assetId)" }
}

extension AssetRenamed: ExampleProviding {
    public static var example: AssetRenamed {
        get throws {
            AssetRenamed(assetId: "flat_e8", name: "Rented flat", category: .investments)
        }
    }
}
