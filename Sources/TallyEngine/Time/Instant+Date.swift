public import Foundation

extension Instant {
    /// Microseconds from the Unix epoch to `Date`'s reference date, 2001-01-01T00:00:00Z.
    private static let referenceDateMicroseconds: Int64 = 978_307_200_000_000

    /// The instant of a `Date`, to the microsecond.
    ///
    /// A `Date` holds a `Double` of seconds since 2001-01-01; an instant, whole microseconds
    /// since 1970-01-01. The date is rounded to the nearest microsecond (half a microsecond
    /// rounds away from 2001), so a `Date` made from an instant (``date``) gives that instant
    /// back exactly for every instant within about 136 years of 2001, where a `Double` still
    /// resolves a microsecond; further out, `Date` itself is coarser than a microsecond.
    /// A date outside years 1–9999 (or not finite) is clamped to ``earliest`` or ``latest``.
    ///
    /// ```swift
    /// let at = Instant(Date())                        // now, to the microsecond
    /// let march = try ledger.balances(asOf: Instant(order.placedAt))
    /// ```
    public init(_ date: Date) {
        let seconds = date.timeIntervalSinceReferenceDate
        let lower = Double(Self.earliest.microsecondsSinceEpoch - Self.referenceDateMicroseconds) / 1_000_000
        let upper = Double(Self.latest.microsecondsSinceEpoch - Self.referenceDateMicroseconds) / 1_000_000
        guard seconds.isFinite, seconds > lower else {
            self = seconds.isNaN || seconds <= lower ? .earliest : .latest
            return
        }
        guard seconds < upper else {
            self = .latest
            return
        }
        // Whole seconds and the fraction apart: each is exact in a Double, so the only rounding
        // is the fraction's, to the nearest microsecond.
        let whole = seconds.rounded(.towardZero)
        let fraction = ((seconds - whole) * 1_000_000).rounded(.toNearestOrAwayFromZero)
        let microseconds = Int64(whole) * 1_000_000 + Int64(fraction) + Self.referenceDateMicroseconds
        self.init(microsecondsSinceEpoch: min(max(microseconds, Self.earliest.microsecondsSinceEpoch), Self.latest.microsecondsSinceEpoch))
    }

    /// The instant as a `Date`: the nearest `Double` of seconds since 2001-01-01, which
    /// ``init(_:)`` turns back into this instant exactly (within about 136 years of 2001).
    ///
    /// ```swift
    /// let placedAt: Date = event.effectiveAt.date
    /// ```
    public var date: Date {
        let since = microsecondsSinceEpoch - Self.referenceDateMicroseconds
        let (whole, fraction) = since.quotientAndRemainder(dividingBy: 1_000_000)
        return Date(timeIntervalSinceReferenceDate: Double(whole) + Double(fraction) / 1_000_000)
    }
}
