import TallyEngine
import GRDB

/// The lookups behind ``Ledger/marketQuoteList(kind:asOf:knownAt:history:)``: every price
/// and FX rate effective by a point and recorded by it, newest first within each pair.
enum QuoteLists {
    /// The columns these lookups read, beside ``NetWorthColumns``.
    private enum Columns {
        static let significand = Column("significand")
        static let scale = Column("scale")
    }

    /// Prices effective by the point and known at it, by symbol, currency, then newest first.
    static func prices(_ db: Database, point: PointInTime) throws -> [MarketQuoteListing] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT symbol, commodity, significand, scale, source, effective_at, recorded_at, sequence FROM nw_prices
            WHERE effective_at <= ? AND recorded_at <= ?
            ORDER BY symbol, commodity, effective_at DESC, sequence DESC
            """), arguments: [point.effectiveBound, point.recordedBound]).map { row in
            MarketQuoteListing(
                quote: MarketQuote(kind: .price, base: try Commodity.named(row[NetWorthColumns.symbol]), quote: try Commodity.named(row[NetWorthColumns.commodity]),
                                   value: try ExactDecimal(significand: row[Columns.significand], scale: row[Columns.scale]),
                                   effectiveAt: row.instant(NetWorthColumns.effectiveAt), recordedAt: row.instant(NetWorthColumns.recordedAt),
                                   sequence: row.sequence(NetWorthColumns.sequence)),
                source: try row.kind(NetWorthColumns.source))
        }
    }

    /// FX rates effective by the point and known at it, by base, quote, then newest first.
    static func rates(_ db: Database, point: PointInTime) throws -> [MarketQuoteListing] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT base, quote, significand, scale, effective_at, recorded_at, sequence FROM nw_fx_rates
            WHERE effective_at <= ? AND recorded_at <= ?
            ORDER BY base, quote, effective_at DESC, sequence DESC
            """), arguments: [point.effectiveBound, point.recordedBound]).map { row in
            MarketQuoteListing(
                quote: MarketQuote(kind: .rate, base: try Commodity.named(row[NetWorthColumns.base]), quote: try Commodity.named(row[NetWorthColumns.quote]),
                                   value: try ExactDecimal(significand: row[Columns.significand], scale: row[Columns.scale]),
                                   effectiveAt: row.instant(NetWorthColumns.effectiveAt), recordedAt: row.instant(NetWorthColumns.recordedAt),
                                   sequence: row.sequence(NetWorthColumns.sequence)),
                source: .manual)
        }
    }
}
