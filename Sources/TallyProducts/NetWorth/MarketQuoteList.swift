public import TallyEngine

/// A price or an FX rate as the "FX Rates" list shows it: the pair, the rate, when it took
/// effect, and where it came from.
public struct MarketQuoteListing: Hashable, Sendable {
    /// The quote: 1 ``MarketQuote/base`` = ``MarketQuote/value`` ``MarketQuote/quote``.
    public let quote: MarketQuote
    /// Where it came from: a price's `live` or `manual`; an FX rate is typed in
    /// (`tally fx`), so `manual`.
    public let source: PriceSource
}

extension Ledger {
    /// The prices and FX rates in force at the end of `asOf` (now when absent) as known at
    /// `knownAt`: the latest of each pair (symbol and currency, or base and quote), rates
    /// first, each kind by pair; with `history`, every one effective by then, newest first
    /// within each pair.
    ///
    /// ```swift
    /// for listing in try ledger.marketQuoteList(kind: .rate) {
    ///     print("\(listing.quote.base.code)/\(listing.quote.quote.code)", listing.quote.value)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - kind: only prices or only FX rates; nil for both.
    ///   - history: every quote effective by then instead of the latest of each pair.
    /// - Throws: ``LedgerError`` `inconsistentLog` for a source no event writes.
    public func marketQuoteList(kind: MarketQuote.Kind? = nil, asOf: Instant? = nil, knownAt: Instant? = nil, history: Bool = false) throws -> [MarketQuoteListing] {
        let point = PointInTime(asOf: asOf ?? now, knownAt: knownAt)
        let all = try read { db in
            (kind == nil || kind == .rate ? try QuoteLists.rates(db, point: point) : [])
                + (kind == nil || kind == .price ? try QuoteLists.prices(db, point: point) : [])
        }
        guard !history else { return all }
        var seen: Set<[String]> = []
        return all.filter { seen.insert([$0.quote.kind.rawValue, $0.quote.base.code, $0.quote.quote.code]).inserted }
    }
}
