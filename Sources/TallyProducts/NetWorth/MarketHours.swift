public import TallyEngine

/// Where a price trades, for when it can go stale.
///
/// The market of a price (or of a live valuation) is decided by the currency it is quoted
/// in, the least surprising of what the ledger holds: a ticker quoted in USD trades in New
/// York, one quoted in GBP (or GBX, pence) in London, whatever its country tag says (that
/// tag is the X-ray's *exposure*, e.g. a London-listed world fund, not where it is listed).
/// A symbol on the built-in crypto list (BTC, ETH, USDC …) and a price in any other
/// currency trade around the clock: only the wall-clock age counts. No holidays are kept: a
/// market holiday counts as an open weekday.
public enum Market: String, Hashable, Sendable, CaseIterable {
    /// New York: Monday to Friday, 09:30 to 16:00 America/New_York.
    case us
    /// London: Monday to Friday, 08:00 to 16:30 Europe/London.
    case uk
    /// No closing hours: crypto, and prices in other currencies.
    case aroundTheClock = "around_the_clock"

    /// The market of a price of `symbol` (nil for a live valuation) quoted in `currency`.
    public static func of(symbol: String?, currency: Commodity) -> Market {
        if let symbol, CurrencyRule.builtInCodes.contains(symbol) { return .aroundTheClock }
        switch currency.code {
        case "USD": return .us
        case "GBP", "GBX": return .uk
        default: return .aroundTheClock
        }
    }

    /// The trading session: time zone, open and close as seconds into the local day.
    private var session: (calendar: LedgerCalendar, open: Int64, close: Int64)? {
        switch self {
        case .us: (Self.newYork, 9 * 3_600 + 30 * 60, 16 * 3_600)
        case .uk: (Self.london, 8 * 3_600, 16 * 3_600 + 30 * 60)
        case .aroundTheClock: nil
        }
    }

    // swiftlint:disable force_try
    private static let newYork = try! LedgerCalendar(timeZoneIdentifier: "America/New_York")  // in every tz database
    private static let london = try! LedgerCalendar(timeZoneIdentifier: "Europe/London")
    // swiftlint:enable force_try

    /// Whether the market trades at `instant`.
    public func isOpen(at instant: Instant) -> Bool {
        guard let (calendar, open, close) = session else { return true }
        let day = calendar.date(of: instant)
        guard Self.isWeekday(day) else { return false }
        return calendar.instant(of: day, secondsIntoDay: open) <= instant && instant < calendar.instant(of: day, secondsIntoDay: close)
    }

    /// Microseconds the market traded from `start` to `end`, counted back from `end` and
    /// stopped once past `limit` (so a years-old price costs a few days' walk, not years').
    public func openMicroseconds(from start: Instant, to end: Instant, limit: Int64) -> Int64 {
        let (first, last) = (start.microsecondsSinceEpoch, end.microsecondsSinceEpoch)
        guard last > first else { return 0 }
        guard let (calendar, open, close) = session else { return last - first }
        var total: Int64 = 0
        var day = calendar.date(of: end)
        let firstDay = calendar.date(of: start)
        while day >= firstDay && total <= limit {
            if Self.isWeekday(day) {
                let from = max(first, calendar.instant(of: day, secondsIntoDay: open).microsecondsSinceEpoch)
                let to = min(last, calendar.instant(of: day, secondsIntoDay: close).microsecondsSinceEpoch)
                if to > from { total += to - from }
            }
            day = day.adding(days: -1)
        }
        return total
    }

    /// Monday to Friday (1970-01-01 was a Thursday).
    private static func isWeekday(_ day: LocalDate) -> Bool {
        let weekday = ((day.daysSinceEpoch + 4) % 7 + 7) % 7   // 0 Sunday … 6 Saturday
        return (1...5).contains(weekday)
    }
}

/// Whether a value from a price (or a live valuation) can still be trusted at the moment asked about.
public enum PriceFreshness: String, Hashable, Sendable {
    /// Not from a price or live feed (manual, bank refresh, override), or recent enough.
    case fresh
    /// Its market has traded longer than the staleness threshold since the value: still
    /// used, and flagged.
    case stale
    /// Its market is closed and it has not traded past the threshold since: the last close
    /// is what there is, not stale.
    case marketClosed = "market_closed"

    /// The rule of docs/domain.md §4 at `asOf` with `thresholdSeconds` (the setting in force
    /// then): a value from a price (a position at a quoted price) or a live valuation is
    /// stale once its market (``Market/of(symbol:currency:)``) has been open longer than the
    /// threshold since it took effect; otherwise, while its market is closed, it is
    /// `market closed`. Manual values and overrides are never flagged.
    public static func of(_ value: ActiveValue, asOf: Instant, thresholdSeconds: Int64) -> PriceFreshness {
        guard value.pricedSymbol != nil || value.source == .live else { return .fresh }
        let market = Market.of(symbol: value.pricedSymbol, currency: value.value.commodity)
        let limit = thresholdSeconds.multipliedReportingOverflow(by: 1_000_000)
        let threshold = limit.overflow ? Int64.max : limit.partialValue
        if market.openMicroseconds(from: value.valuedAt, to: asOf, limit: threshold) > threshold { return .stale }
        return market.isOpen(at: asOf) ? .fresh : .marketClosed
    }
}
