// The engine's market data: prices, exchange rates and how old a price may be.

/// Where a price quote came from.
public enum PriceSource: String, EventEnumeration {
    /// From a price feed (`live`) or typed in by the user (`manual`).
    case live, manual
}

/// A price for one whole unit of a symbol was quoted at the effective time.
///
/// Version 2 keeps the price as an exact decimal with its own scale (80.123 GBP: a price
/// may carry more decimals than its currency), beside its currency; version 1 held it as an
/// amount of the currency and reads as the same price.
public struct PriceQuoted: EventPayload {
    public static let eventType = EventType("price_quoted", code: 88, version: 2)
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PriceQuotedV1.self] }
    /// What is priced: a ticker such as `VEA`, a crypto asset, a commodity.
    public var symbol: Commodity
    /// The price of one whole unit, exact, with the decimals it was quoted with.
    public var price: ExactDecimal
    /// The currency the price is in.
    public var currency: Commodity
    /// Where the quote came from.
    public var source: PriceSource

    /// A quote of `price` `currency` for one unit of `symbol`.
    public init(symbol: Commodity, price: ExactDecimal, currency: Commodity, source: PriceSource) {
        self.symbol = symbol
        self.price = price
        self.currency = currency
        self.source = source
    }

    /// A quote of `price` (an amount of its currency, at that currency's scale) for one unit of `symbol`.
    public init(symbol: Commodity, price: Money, source: PriceSource) {
        self.init(symbol: symbol, price: price.exactDecimal, currency: price.commodity, source: source)
    }

    public var entity: String { "price:\(symbol.code)" }
}

extension PriceQuoted: ExampleProviding {
    public static var example: PriceQuoted {
        get throws {
            try PriceQuoted(
                symbol: Commodity.named("VEA"), price: ExactDecimal(parsing: "49.8725"), currency: .usd,
                source: .live
            )
        }
    }
}

/// `price_quoted` version 1: the price as an amount of its currency, at the currency's scale.
public struct PriceQuotedV1: LegacyEventPayload, Hashable {
    public static let version: UInt16 = 1
    /// What is priced.
    public var symbol: Commodity
    /// The price of one whole unit, in the currency it was quoted in.
    public var price: Money
    /// Where the quote came from.
    public var source: PriceSource

    /// A version 1 quote, as an old log holds it; ``upcastBody()`` reads it as version 2.
    public init(symbol: Commodity, price: Money, source: PriceSource) {
        self.symbol = symbol
        self.price = price
        self.source = source
    }

    /// The same price, as a decimal at the currency's scale.
    public func upcastBody() -> EventBody {
        EventBody(PriceQuoted(symbol: symbol, price: price, source: source))
    }
}

extension PriceQuotedV1: ExampleProviding {
    public static var example: PriceQuotedV1 {
        get throws {
            try PriceQuotedV1(
                symbol: Commodity.named("VEA"), price: Money(parsing: "49.87", commodity: .usd),
                source: .live
            )
        }
    }
}

/// An exchange rate in force from the effective time: 1 `base` = `rate` `quote`.
public struct FXRateSet: EventPayload {
    public static let eventType = EventType("fx_rate_set", code: 89)
    /// The currency one unit of which is priced.
    public var base: Commodity
    /// The currency the rate is given in.
    public var quote: Commodity
    /// How many units of `quote` one `base` is worth; positive, exact.
    public var rate: ExactDecimal

    /// A rate: 1 `base` = `rate` `quote`.
    public init(base: Commodity, quote: Commodity, rate: ExactDecimal) {
        self.base = base
        self.quote = quote
        self.rate = rate
    }

    public var entity: String { "fx:\(base.code)/\(quote.code)" }
}

extension FXRateSet: ExampleProviding {
    public static var example: FXRateSet {
        get throws {
            try FXRateSet(base: .gbp, quote: .usd, rate: ExactDecimal(parsing: "1.2703"))
        }
    }
}

/// How old a price may be before answers flag it stale (15 minutes by default).
public struct PriceStalenessSet: EventPayload {
    public static let eventType = EventType("price_staleness_set", code: 92)
    /// The age in seconds past which a price is stale.
    public var thresholdSeconds: Int64

    /// A new staleness threshold, in force from the effective time.
    public init(thresholdSeconds: Int64) { self.thresholdSeconds = thresholdSeconds }

    public var entity: String { "ledger" }
}

extension PriceStalenessSet: ExampleProviding {
    public static var example: PriceStalenessSet {
        PriceStalenessSet(thresholdSeconds: 900)
    }
}
