// The engine's market data: prices, exchange rates and how old a price may be.

/// Where a price quote came from.
public enum PriceSource: String, EventEnumeration {
    case live, manual
}

/// A price for one whole unit of a symbol was quoted at the effective time.
public struct PriceQuoted: EventPayload {
    public static let eventType = EventType("price_quoted", code: 88)
    public var symbol: Commodity
    public var price: Money
    public var source: PriceSource

    public init(symbol: Commodity, price: Money, source: PriceSource) {
        self.symbol = symbol
        self.price = price
        self.source = source
    }

    public var entity: String { "price:\(symbol.code)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(symbol); writer.write(price); writer.write(source) }
    public init(from reader: inout BinaryReader) throws {
        symbol = try reader.read(); price = try reader.read(); source = try reader.read()
    }
}

/// An exchange rate in force from the effective time: 1 `base` = `rate` `quote`.
public struct FXRateSet: EventPayload {
    public static let eventType = EventType("fx_rate_set", code: 89)
    public var base: Commodity
    public var quote: Commodity
    public var rate: ExactDecimal

    public init(base: Commodity, quote: Commodity, rate: ExactDecimal) {
        self.base = base
        self.quote = quote
        self.rate = rate
    }

    public var entity: String { "fx:\(base.code)/\(quote.code)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(base); writer.write(quote); writer.write(rate) }
    public init(from reader: inout BinaryReader) throws {
        base = try reader.read(); quote = try reader.read(); rate = try reader.read()
    }
}

/// How old a price may be before answers flag it stale (15 minutes by default).
public struct PriceStalenessSet: EventPayload {
    public static let eventType = EventType("price_staleness_set", code: 92)
    public var thresholdSeconds: Int64

    public init(thresholdSeconds: Int64) { self.thresholdSeconds = thresholdSeconds }

    public var entity: String { "ledger" }
    public func encode(to writer: inout BinaryWriter) { writer.write(thresholdSeconds) }
    public init(from reader: inout BinaryReader) throws { thresholdSeconds = try reader.read() }
}
