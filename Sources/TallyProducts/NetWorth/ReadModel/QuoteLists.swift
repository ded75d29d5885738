import TallyEngine
import GRDB

/// The lookups behind ``Ledger/marketQuoteList(kind:asOf:knownAt:history:)``: every price
/// and FX rate effective by a point and recorded by it, newest first within each pair.
enum QuoteLists {
    /// Prices effective by the point and known at it, by symbol, currency, then newest first.
    static func prices(_ db: Database, point: PointInTime) throws -> [MarketQuoteListing] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT symbol, commodity, amount, source, effective_at, recorded_at, sequence FROM nw_prices
            WHERE effective_at <= ? AND recorded_at <= ?
            ORDER BY symbol, commodity, effective_at DESC, sequence DESC
            """), arguments: [point.effectiveBound, point.recordedBound]).map { row in
            let currency = try Commodity.named(row[1])
            let sourceName: String = row[3]
            guard let source = PriceSource(rawValue: sourceName) else {
                throw LedgerError(.inconsistentLog, "a price of '\(row[0] as String)' has the source '\(sourceName)', which no event writes")
            }
            let sequence: Int64 = row[6]
            return MarketQuoteListing(
                quote: MarketQuote(kind: .price, base: try Commodity.named(row[0]), quote: currency,
                                   value: try ExactDecimal(significand: row[2], scale: currency.scale),
                                   effectiveAt: Instant(microsecondsSinceEpoch: row[4]), recordedAt: Instant(microsecondsSinceEpoch: row[5]),
                                   sequence: UInt64(sequence)),
                source: source)
        }
    }

    /// FX rates effective by the point and known at it, by base, quote, then newest first.
    static func rates(_ db: Database, point: PointInTime) throws -> [MarketQuoteListing] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT base, quote, significand, scale, effective_at, recorded_at, sequence FROM nw_fx_rates
            WHERE effective_at <= ? AND recorded_at <= ?
            ORDER BY base, quote, effective_at DESC, sequence DESC
            """), arguments: [point.effectiveBound, point.recordedBound]).map { row in
            let sequence: Int64 = row[6]
            return MarketQuoteListing(
                quote: MarketQuote(kind: .rate, base: try Commodity.named(row[0]), quote: try Commodity.named(row[1]),
                                   value: try ExactDecimal(significand: row[2], scale: row[3]),
                                   effectiveAt: Instant(microsecondsSinceEpoch: row[4]), recordedAt: Instant(microsecondsSinceEpoch: row[5]),
                                   sequence: UInt64(sequence)),
                source: .manual)
        }
    }
}
