/// A recorded quote between two commodities, as the conversion rule reads it:
/// 1 ``base`` = ``rate`` ``quote``, in force from ``effectiveAt``.
///
/// A price (1 VEA = 50.10 USD) and an FX rate (1 EUR = 1.08 USD) are both quotes; each
/// product's store of them conforms (net worth's prices and rates, the envelopes' rates).
public protocol ConversionQuote: Sendable {
    /// The commodity one unit of which the quote prices.
    var base: Commodity { get }
    /// The commodity the quote is in.
    var quote: Commodity { get }
    /// How many ``quote`` units one ``base`` unit is worth; positive.
    var rate: ExactDecimal { get }
    /// When the quote took effect.
    var effectiveAt: Instant { get }
    /// The event that recorded it: of two taking effect at one instant, the later event wins.
    var sequence: UInt64 { get }
}

extension ConversionQuote {
    /// Whether this quote took effect after `other` (the later event on a tie).
    public func isLater(than other: some ConversionQuote) -> Bool {
        (effectiveAt.microsecondsSinceEpoch, sequence) > (other.effectiveAt.microsecondsSinceEpoch, other.sequence)
    }
}

/// The one conversion rule every product converts by (docs/domain.md, "One conversion
/// rule"): `balances --value`, net worth, the X-ray, the budget, envelopes and what-if.
///
/// An amount converts from its commodity into a target at a point in time:
/// 1. the same commodity: unchanged;
/// 2. else a direct quote between the two, either way round (a quote the other way is
///    divided): the one that took effect last, the later event on a tie;
/// 3. else one hop through a third commodity that has a direct quote (as in 2) with both:
///    of several, the one whose first step took effect last, then the one whose second
///    step did, then the first by code;
/// 4. else it is not converted: the caller names it (never a silent zero in a total).
///
/// The exact product of the steps is rounded once, half-even, to the target's scale
/// (``Money/converted(to:through:rounding:)``): no intermediate amount is rounded.
///
/// ```swift
/// let route = try ConversionRule.route(from: .jpy, to: .eur, neighbours: [.usd]) { a, b in quotes.latest(a, b) }
/// let euros = try route.map { try ConversionRule.convert(yen, to: .eur, along: $0) }   // nil: not converted
/// ```
public enum ConversionRule {
    /// The quotes an amount in `source` converts into `target` along: empty for the same
    /// commodity, one for a direct quote, two through a third commodity; nil when none.
    ///
    /// - Parameters:
    ///   - neighbours: the commodities that have any quote with `source` (a superset does no
    ///     harm: a candidate without both steps is skipped).
    ///   - latest: the latest quote in force between two commodities, either way round, or
    ///     nil; asked at most once per candidate pair.
    public static func route<Quote: ConversionQuote>(
        from source: Commodity, to target: Commodity, neighbours: some Sequence<Commodity>,
        latest: (Commodity, Commodity) throws -> Quote?
    ) rethrows -> [Quote]? {
        if source == target { return [] }
        if let direct = try latest(source, target) { return [direct] }
        var best: (first: Quote, second: Quote)?
        for middle in Set(neighbours).sorted(by: { $0.code.utf8.lexicographicallyPrecedes($1.code.utf8) })
        where middle != source && middle != target {
            guard let first = try latest(source, middle), let second = try latest(middle, target) else { continue }
            if let current = best {
                let better = first.isLater(than: current.first)
                    || (!current.first.isLater(than: first) && second.isLater(than: current.second))
                if !better { continue }
            }
            best = (first, second)
        }
        return best.map { [$0.first, $0.second] }
    }

    /// `money` converted into `target` along `route` (from ``route(from:to:neighbours:latest:)``),
    /// the exact product rounded once, half-even.
    ///
    /// - Throws: ``MoneyError`` on overflow or a quote that is not positive.
    public static func convert(_ money: Money, to target: Commodity, along route: [some ConversionQuote]) throws -> Money {
        try convert(money, to: target, through: [], from: money.commodity, along: route)
    }

    /// `money` converted into `target` through `first` (the factors that take it to the
    /// commodity `from`, a position's unit price) and on along `route` from there: one exact
    /// product, rounded once, half-even. A position valued in another currency than its
    /// price's is rounded once, not at its price's currency and again at the target's.
    ///
    /// - Throws: ``MoneyError`` on overflow or a quote that is not positive.
    public static func convert(
        _ money: Money, to target: Commodity, through first: [ConversionFactor], from: Commodity, along route: [some ConversionQuote]
    ) throws -> Money {
        var from = from
        var factors = first
        for quote in route {
            let inverted = quote.base != from
            factors.append(ConversionFactor(rate: quote.rate, isInverted: inverted))
            from = inverted ? quote.base : quote.quote
        }
        return try money.converted(to: target, through: factors)
    }
}
