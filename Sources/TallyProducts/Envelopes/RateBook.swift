public import TallyEngine
/// An exchange rate known to the ledger from an instant on: 1 `base` = `rate` `quote`.
public struct ExchangeQuote: Hashable, Sendable {
    /// Where the rate came from; an `fx_rate_set` wins over a transaction's own rate.
    public enum Source: String, Hashable, Sendable {
        /// An `fx_rate_set` event.
        case fxRate = "fx_rate"
        /// The `rate_to_base` a transaction carried.
        case transaction
    }

    /// The currency one unit of which the rate prices.
    public let base: Commodity
    /// The currency the rate is in.
    public let quote: Commodity
    /// How many `quote` units one `base` unit is worth.
    public let rate: ExactDecimal
    /// When the rate came into force.
    public let effectiveAt: Instant
    /// The event's sequence number: the later of two rates at one instant wins.
    public let sequence: UInt64
    /// An `fx_rate_set` or a transaction's rate.
    public let source: Source

    /// A rate, as an event set it.
    public init(base: Commodity, quote: Commodity, rate: ExactDecimal, effectiveAt: Instant, sequence: UInt64, source: Source) {
        self.base = base
        self.quote = quote
        self.rate = rate
        self.effectiveAt = effectiveAt
        self.sequence = sequence
        self.source = source
    }
}

extension ExchangeQuote: ConversionQuote {}

/// The envelopes' quotes for the one conversion rule (``ConversionRule``): converting a
/// balance at an instant takes, for each pair of currencies, the latest `fx_rate_set` at or
/// before it (quoted either way round: 1 JPY = 0.0067 USD, or 1 USD = 150 JPY, which is
/// divided); when no `fx_rate_set` covers the pair then, the latest `rate_to_base` a
/// transaction in that currency carried; and, with no quote between the two currencies,
/// one hop through a third. A single transaction converts at its own `rate_to_base` (see
/// ``EnvelopeBook``). Every conversion rounds once, half-even.
///
/// ```swift
/// let book = RateBook(quotes: quotes)
/// let dollars = try book.convert(yen, to: .usd, at: instant)   // nil when no rate is known
/// ```
public struct RateBook: Sendable {
    /// A currency pair, either way round.
    private struct Pair: Hashable, Sendable {
        let lower: String
        let upper: String
        init(_ one: Commodity, _ other: Commodity) {
            (lower, upper) = one.code < other.code ? (one.code, other.code) : (other.code, one.code)
        }
    }

    /// Each pair's quotes by source, in (effective time, log) order.
    private let quotes: [Pair: (fxRates: [ExchangeQuote], transactions: [ExchangeQuote])]
    /// The currencies each currency has any quote with.
    private let neighbours: [Commodity: Set<Commodity>]

    /// - Parameter quotes: in any order.
    public init(quotes: [ExchangeQuote]) {
        var byPair: [Pair: (fxRates: [ExchangeQuote], transactions: [ExchangeQuote])] = [:]
        var neighbours: [Commodity: Set<Commodity>] = [:]
        for quote in quotes.sorted(by: { ($0.effectiveAt, $0.sequence) < ($1.effectiveAt, $1.sequence) }) {
            switch quote.source {
            case .fxRate: byPair[Pair(quote.base, quote.quote), default: ([], [])].fxRates.append(quote)
            case .transaction: byPair[Pair(quote.base, quote.quote), default: ([], [])].transactions.append(quote)
            }
            neighbours[quote.base, default: []].insert(quote.quote)
            neighbours[quote.quote, default: []].insert(quote.base)
        }
        self.quotes = byPair
        self.neighbours = neighbours
    }

    /// The last quote at or before `instant` (binary search).
    private static func latest(_ quotes: [ExchangeQuote], at instant: Instant) -> ExchangeQuote? {
        var low = 0
        var high = quotes.count
        while low < high {
            let middle = (low + high) / 2
            if quotes[middle].effectiveAt <= instant { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : quotes[low - 1]
    }

    /// The quote in force between two currencies at `instant`, either way round: the latest
    /// `fx_rate_set`, else the latest transaction rate.
    private func quote(between one: Commodity, and other: Commodity, at instant: Instant) -> ExchangeQuote? {
        guard let pair = quotes[Pair(one, other)] else { return nil }
        return Self.latest(pair.fxRates, at: instant) ?? Self.latest(pair.transactions, at: instant)
    }

    /// `amount` in `target` by the one rule at `instant`, or nil when the ledger knows no
    /// rate (direct, or through a third currency) between the two then.
    ///
    /// - Throws: ``MoneyError`` on overflow.
    public func convert(_ amount: Money, to target: Commodity, at instant: Instant) throws -> Money? {
        guard let route = ConversionRule.route(from: amount.commodity, to: target, neighbours: neighbours[amount.commodity] ?? [],
                                               latest: { quote(between: $0, and: $1, at: instant) }) else { return nil }
        return try ConversionRule.convert(amount, to: target, along: route)
    }
}
