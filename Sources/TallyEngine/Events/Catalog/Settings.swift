// Ledger settings the products read at the date they answer for, and the commodities a
// ledger declares beside ISO 4217 currencies.

/// How many days ahead something falling due counts as "due soon" (a recurring bill;
/// 5 days unless set), in force from the effective time.
public struct DueSoonWindowSet: EventPayload {
    public static let eventType = EventType("due_soon_window_set", code: 130)
    /// The window in days, 0 or more.
    public var days: Int64

    /// A new due-soon window, in force from the effective time.
    public init(days: Int64) { self.days = days }

    public var entity: String { "ledger" }
}

extension DueSoonWindowSet: ExampleProviding {
    public static var example: DueSoonWindowSet {
        DueSoonWindowSet(days: 7)
    }
}

/// How many rows a page of a list holds when the caller gives no page size (10 unless set),
/// in force from the effective time.
public struct PageSizeSet: EventPayload {
    public static let eventType = EventType("page_size_set", code: 131)
    /// Rows per page, 1 or more.
    public var rows: Int64

    /// A new page size, in force from the effective time.
    public init(rows: Int64) { self.rows = rows }

    public var entity: String { "ledger" }
}

extension PageSizeSet: ExampleProviding {
    public static var example: PageSizeSet {
        PageSizeSet(rows: 25)
    }
}

/// A commodity code that is neither an ISO 4217 currency nor on Tally's built-in list
/// (USDC, USDT, EURC, PYUSD, BTC, ETH) was declared, with the decimal places its amounts
/// may carry, so commands accept it as a currency (``Ledger/requireCurrency(_:)``).
public struct CommodityDeclared: EventPayload {
    public static let eventType = EventType("commodity_declared", code: 132)
    /// The code, e.g. `GBX`.
    public var code: String
    /// Decimal places an amount of it may carry, 0 to 8.
    public var scale: Int64

    /// A declaration of `code` with `scale` decimal places.
    public init(code: String, scale: Int64) {
        self.code = code
        self.scale = scale
    }

    public var entity: String { "commodity:\(code)" }
}

extension CommodityDeclared: ExampleProviding {
    public static var example: CommodityDeclared {
        CommodityDeclared(code: "GBX", scale: 2)
    }
}
