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

/// Conversion into the base currency for the envelope answers, in one place.
///
/// The rate for converting a balance at an instant is the latest `fx_rate_set` at or
/// before it (quoted either way round: 1 JPY = 0.0067 USD, or 1 USD = 150 JPY, which is
/// divided, half-even); when no `fx_rate_set` covers the pair, the latest `rate_to_base`
/// a transaction in that currency carried. A single transaction converts at its own
/// `rate_to_base` (see ``EnvelopeBook``). Every conversion rounds once, half-even.
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

    /// - Parameter quotes: in any order.
    public init(quotes: [ExchangeQuote]) {
        var byPair: [Pair: (fxRates: [ExchangeQuote], transactions: [ExchangeQuote])] = [:]
        for quote in quotes.sorted(by: { ($0.effectiveAt, $0.sequence) < ($1.effectiveAt, $1.sequence) }) {
            switch quote.source {
            case .fxRate: byPair[Pair(quote.base, quote.quote), default: ([], [])].fxRates.append(quote)
            case .transaction: byPair[Pair(quote.base, quote.quote), default: ([], [])].transactions.append(quote)
            }
        }
        self.quotes = byPair
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

    /// `amount` in `target` at the rate in force at `instant`, or nil when the ledger knows
    /// no rate between the two then.
    ///
    /// - Throws: ``MoneyError`` on overflow.
    public func convert(_ amount: Money, to target: Commodity, at instant: Instant) throws -> Money? {
        if amount.commodity == target { return amount }
        guard let pair = quotes[Pair(amount.commodity, target)] else { return nil }
        let chosen = Self.latest(pair.fxRates, at: instant)
        let fallback = Self.latest(pair.transactions, at: instant)
        guard let quote = chosen ?? fallback else { return nil }
        if quote.base == amount.commodity { return try amount.converted(to: target, rate: quote.rate) }
        return try Self.divide(amount, by: quote.rate, into: target)
    }

    /// `amount / rate` in `target`, rounded once half-even: converting with a rate quoted
    /// the other way round (1 target = `rate` amount units).
    static func divide(_ amount: Money, by rate: ExactDecimal, into target: Commodity) throws -> Money? {
        guard rate.significand > 0 else { return nil }
        // target minor = minor * 10^(target.scale - amount.scale + rate.scale) / significand
        let exponent = target.scale - amount.commodity.scale + rate.scale
        var numerator = Int128(amount.minorUnits)
        var denominator = Int128(rate.significand)
        if exponent >= 0 {
            let (scaled, overflow) = numerator.multipliedReportingOverflow(by: PowerOfTen.int128(min(exponent, PowerOfTen.int128ExponentMax)))
            guard !overflow, exponent <= PowerOfTen.int128ExponentMax else { throw Money.overflowError(commodity: target, operation: "a conversion to \(target.code)") }
            numerator = scaled
        } else {
            let (scaled, overflow) = denominator.multipliedReportingOverflow(by: PowerOfTen.int128(min(-exponent, PowerOfTen.int128ExponentMax)))
            guard !overflow, -exponent <= PowerOfTen.int128ExponentMax else { return Money.zero(target) }
            denominator = scaled
        }
        let rounded = RationalRounding.rounded(numerator, dividedBy: denominator, rule: .halfEven)
        return Money(minorUnits: try Money.checkedMinorUnits(rounded, commodity: target, operation: "a conversion to \(target.code)"), commodity: target)
    }
}
