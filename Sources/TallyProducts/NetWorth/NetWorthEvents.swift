public import TallyEngine
// Events of the net worth tracker and the portfolio X-ray (DOMAIN.md §4 and §5): assets,
// liabilities, valuations, positions, prices, FX rates and reminders.

/// The net worth tracker's asset categories.
public enum AssetCategory: String, EventEnumeration {
    case cash, property, investments, other
}

/// The X-ray's asset types.
public enum AssetType: String, EventEnumeration {
    case cash
    case stockOrETF = "stock_etf"
    case fund, gold
    case fixedIncome = "fixed_income"
    case realEstate = "real_estate"
    case custom
}

/// The net worth tracker's liability categories.
public enum LiabilityCategory: String, EventEnumeration {
    case mortgage, loan
    case creditCard = "credit_card"
    case other
}

/// Whether a valuation is of an asset or a liability.
public enum ItemKind: String, EventEnumeration {
    case asset, liability
}

/// Where a valuation came from. The X-ray's active value is the latest override, else the
/// latest live value, else the latest manual value.
public enum ValuationSource: String, EventEnumeration {
    case manual
    case bankRefresh = "bank_refresh"
    case live
    case override
}

/// An asset was added.
public struct AssetAdded: EventPayload {
    public static let eventType = EventType("asset_added", code: 80)
    public var assetId: String
    public var name: String
    public var category: AssetCategory
    public var type: AssetType
    public var currency: Commodity
    /// ISO 3166-1 alpha-2 country of exposure, e.g. `US`.
    public var country: String?
    public var sector: String?
    public var symbol: String?

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
    public func encode(to writer: inout BinaryWriter) {
        writer.write(assetId); writer.write(name); writer.write(category); writer.write(type)
        writer.write(currency); writer.write(country); writer.write(sector); writer.write(symbol)
    }
    public init(from reader: inout BinaryReader) throws {
        assetId = try reader.read(); name = try reader.read(); category = try reader.read()
        type = try reader.read(); currency = try reader.read(); country = try reader.read()
        sector = try reader.read(); symbol = try reader.read()
    }
}

/// An asset's tags were replaced (absent means unknown).
public struct AssetTagged: EventPayload {
    public static let eventType = EventType("asset_tagged", code: 81)
    public var assetId: String
    public var country: String?
    public var sector: String?
    public var symbol: String?

    public init(assetId: String, country: String? = nil, sector: String? = nil, symbol: String? = nil) {
        self.assetId = assetId
        self.country = country
        self.sector = sector
        self.symbol = symbol
    }

    public var entity: String { "asset:\(assetId)" }
    public func encode(to writer: inout BinaryWriter) {
        writer.write(assetId); writer.write(country); writer.write(sector); writer.write(symbol)
    }
    public init(from reader: inout BinaryReader) throws {
        assetId = try reader.read(); country = try reader.read(); sector = try reader.read(); symbol = try reader.read()
    }
}

/// An asset was removed from the effective date on; its history stays.
public struct AssetRemoved: EventPayload {
    public static let eventType = EventType("asset_removed", code: 82)
    public var assetId: String

    public init(assetId: String) { self.assetId = assetId }

    public var entity: String { "asset:\(assetId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(assetId) }
    public init(from reader: inout BinaryReader) throws { assetId = try reader.read() }
}

/// A liability was added, optionally linked to the asset it finances.
public struct LiabilityAdded: EventPayload {
    public static let eventType = EventType("liability_added", code: 83)
    public var liabilityId: String
    public var name: String
    public var category: LiabilityCategory
    public var currency: Commodity
    public var linkedAssetId: String?

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
    public func encode(to writer: inout BinaryWriter) {
        writer.write(liabilityId); writer.write(name); writer.write(category); writer.write(currency)
        writer.write(linkedAssetId)
    }
    public init(from reader: inout BinaryReader) throws {
        liabilityId = try reader.read(); name = try reader.read(); category = try reader.read()
        currency = try reader.read(); linkedAssetId = try reader.read()
    }
}

/// A liability was removed from the effective date on (paid off or closed).
public struct LiabilityRemoved: EventPayload {
    public static let eventType = EventType("liability_removed", code: 84)
    public var liabilityId: String

    public init(liabilityId: String) { self.liabilityId = liabilityId }

    public var entity: String { "liability:\(liabilityId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(liabilityId) }
    public init(from reader: inout BinaryReader) throws { liabilityId = try reader.read() }
}

/// An asset's value or a liability's amount was recorded, positive, in its own currency.
public struct ValuationRecorded: EventPayload {
    public static let eventType = EventType("valuation_recorded", code: 85)
    public var itemKind: ItemKind
    public var itemId: String
    public var value: Money
    public var source: ValuationSource

    public init(itemKind: ItemKind, itemId: String, value: Money, source: ValuationSource) {
        self.itemKind = itemKind
        self.itemId = itemId
        self.value = value
        self.source = source
    }

    public var entity: String { "\(itemKind.rawValue):\(itemId)" }
    public func encode(to writer: inout BinaryWriter) {
        writer.write(itemKind); writer.write(itemId); writer.write(value); writer.write(source)
    }
    public init(from reader: inout BinaryReader) throws {
        itemKind = try reader.read(); itemId = try reader.read(); value = try reader.read(); source = try reader.read()
    }
}

/// An asset's manual override was cleared; its live or manual value applies again.
public struct ValuationOverrideCleared: EventPayload {
    public static let eventType = EventType("valuation_override_cleared", code: 86)
    public var assetId: String

    public init(assetId: String) { self.assetId = assetId }

    public var entity: String { "asset:\(assetId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(assetId) }
    public init(from reader: inout BinaryReader) throws { assetId = try reader.read() }
}

/// An asset's position was set: a quantity of a symbol (fractional allowed), valued at the
/// symbol's quoted price; optional cost basis.
public struct PositionSet: EventPayload {
    public static let eventType = EventType("position_set", code: 87)
    public var assetId: String
    /// The quantity, in the symbol as a commodity (scale 8 for tickers), e.g. 12.5 VEA.
    public var quantity: Money
    public var costBasis: Money?

    public init(assetId: String, quantity: Money, costBasis: Money? = nil) {
        self.assetId = assetId
        self.quantity = quantity
        self.costBasis = costBasis
    }

    public var entity: String { "asset:\(assetId)" }
    public func encode(to writer: inout BinaryWriter) {
        writer.write(assetId); writer.write(quantity); writer.write(costBasis)
    }
    public init(from reader: inout BinaryReader) throws {
        assetId = try reader.read(); quantity = try reader.read(); costBasis = try reader.read()
    }
}

/// A reminder to update an asset's value was set for a due date.
public struct ReminderSet: EventPayload {
    public static let eventType = EventType("reminder_set", code: 90)
    public var reminderId: String
    public var assetId: String
    public var dueDate: LocalDate
    /// Free text: the one kind of field that may hold tabs and line feeds, so a note can
    /// span lines; no other control character (``EventText``).
    public var note: String?

    public init(reminderId: String, assetId: String, dueDate: LocalDate, note: String? = nil) {
        self.reminderId = reminderId
        self.assetId = assetId
        self.dueDate = dueDate
        self.note = note
    }

    public var entity: String { "reminder:\(reminderId)" }
    public func encode(to writer: inout BinaryWriter) {
        writer.write(reminderId); writer.write(assetId); writer.write(dueDate); writer.write(note)
    }
    public init(from reader: inout BinaryReader) throws {
        reminderId = try reader.read(); assetId = try reader.read(); dueDate = try reader.read(); note = try reader.read()
    }
}

/// A reminder was done.
public struct ReminderCompleted: EventPayload {
    public static let eventType = EventType("reminder_completed", code: 91)
    public var reminderId: String

    public init(reminderId: String) { self.reminderId = reminderId }

    public var entity: String { "reminder:\(reminderId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(reminderId) }
    public init(from reader: inout BinaryReader) throws { reminderId = try reader.read() }
}
