public import TallyEngine
import GRDB

/// A price or an exchange rate as the ledger recorded it: 1 ``base`` = ``value`` ``quote``.
///
/// A `price_quoted` of VEA at 50.10 USD is the quote VEA → USD 50.10 of kind ``Kind/price``;
/// an `fx_rate_set` of EUR/USD 1.08 is the quote EUR → USD 1.08 of kind ``Kind/rate``.
public struct MarketQuote: Hashable, Sendable {
    /// Which event set the quote.
    public enum Kind: String, Hashable, Sendable {
        /// A `price_quoted` event: the price of one unit of a symbol.
        case price
        /// An `fx_rate_set` event.
        case rate
    }

    /// Which event set the quote.
    public let kind: Kind
    /// The commodity one unit of which the quote prices.
    public let base: Commodity
    /// The commodity the quote is in.
    public let quote: Commodity
    /// How many ``quote`` units one ``base`` unit is worth.
    public let value: ExactDecimal
    /// When the quote took effect.
    public let effectiveAt: Instant
    /// When the ledger recorded it.
    public let recordedAt: Instant
    /// The event's sequence number: of two quotes taking effect at the same instant, the
    /// later event wins.
    public let sequence: UInt64

}

extension MarketQuote: ConversionQuote {
    /// ``value``: how many ``quote`` units one ``base`` unit is worth.
    public var rate: ExactDecimal { value }
}

/// The price and rate lookups of market values, over the net worth read model: which pairs
/// have quotes at all (``MarketQuoteGraph``), then the latest quote of one pair effective by
/// a point and known at it, one index seek each (`nw_prices_in`, `nw_fx_rates_at`).
struct MarketQuotes {
    let db: Database
    let point: PointInTime

    /// Every (symbol, currency) with a price and every (base, quote) with a rate, as
    /// recorded at any time: the graph conversions are looked for on. A pair listed here
    /// may still have no quote at the point (``latestPrice(of:in:)`` then answers nil).
    func graph() throws -> MarketQuoteGraph {
        var graph = MarketQuoteGraph()
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT symbol, commodity FROM nw_price_pairs")) {
            graph.add(.price, base: row[NetWorthColumns.symbol], quote: row[NetWorthColumns.commodity])
        }
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT base, quote FROM nw_fx_pairs")) {
            graph.add(.rate, base: row[NetWorthColumns.base], quote: row[NetWorthColumns.quote])
        }
        return graph
    }

    /// The latest price of one unit of `symbol` in `currency` effective at or before the
    /// point and recorded by it.
    func latestPrice(of symbol: Commodity, in currency: Commodity) throws -> MarketQuote? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT significand, scale, effective_at, recorded_at, sequence FROM nw_prices INDEXED BY nw_prices_in
            WHERE symbol = ? AND commodity = ? AND effective_at <= ? AND recorded_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [symbol.code, currency.code, point.effectiveBound, point.recordedBound]) else { return nil }
        return MarketQuote(
            kind: .price, base: symbol, quote: currency,
            value: try ExactDecimal(significand: row[NetWorthColumns.significand], scale: row[NetWorthColumns.scale]),
            effectiveAt: row.instant(NetWorthColumns.effectiveAt), recordedAt: row.instant(NetWorthColumns.recordedAt),
            sequence: row.sequence(NetWorthColumns.sequence))
    }

    /// The latest `base`/`quote` rate effective at or before the point and recorded by it.
    func latestRate(base: Commodity, quote: Commodity) throws -> MarketQuote? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT significand, scale, effective_at, recorded_at, sequence FROM nw_fx_rates
            WHERE base = ? AND quote = ? AND effective_at <= ? AND recorded_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [base.code, quote.code, point.effectiveBound, point.recordedBound]) else { return nil }
        return MarketQuote(
            kind: .rate, base: base, quote: quote, value: try ExactDecimal(significand: row[NetWorthColumns.significand], scale: row[NetWorthColumns.scale]),
            effectiveAt: row.instant(NetWorthColumns.effectiveAt), recordedAt: row.instant(NetWorthColumns.recordedAt),
            sequence: row.sequence(NetWorthColumns.sequence))
    }

    /// The prices of `symbol` recorded (by any time) as taking effect exactly at `instant`,
    /// each with its currency: what a prices CSV row for that day is compared with.
    static func prices(of symbol: Commodity, effectiveAt instant: Instant, _ db: Database) throws -> [(price: ExactDecimal, currency: Commodity)] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT commodity, significand, scale FROM nw_prices WHERE symbol = ? AND effective_at = ? ORDER BY sequence
            """), arguments: [symbol.code, instant.microsecondsSinceEpoch])
            .map { row in
                (try ExactDecimal(significand: row[NetWorthColumns.significand], scale: row[NetWorthColumns.scale]),
                 try Commodity.named(row[NetWorthColumns.commodity]))
            }
    }
}

/// Which pairs of commodities have a price or a rate, either way round.
struct MarketQuoteGraph {
    /// The kinds of quote recorded from `base` to `quote`.
    private(set) var kinds: [Link: Set<MarketQuote.Kind>] = [:]
    /// The commodities each commodity has a quote with, either way round.
    private(set) var neighbours: [String: Set<String>] = [:]

    struct Link: Hashable {
        let base: String
        let quote: String
    }

    mutating func add(_ kind: MarketQuote.Kind, base: String, quote: String) {
        kinds[Link(base: base, quote: quote), default: []].insert(kind)
        neighbours[base, default: []].insert(quote)
        neighbours[quote, default: []].insert(base)
    }

    func has(_ kind: MarketQuote.Kind, base: Commodity, quote: Commodity) -> Bool {
        kinds[Link(base: base.code, quote: quote.code)]?.contains(kind) ?? false
    }
}
