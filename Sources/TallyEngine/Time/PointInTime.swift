/// A moment to answer for: what was true at `asOf` (effective time), as the ledger knew
/// it at `knownAt` (recorded time; now when absent).
public struct PointInTime: Hashable, Sendable {
    /// Count what is effective at or before this instant.
    public let asOf: Instant
    /// Count only what the ledger had recorded at this instant; nil for everything recorded.
    public let knownAt: Instant?

    /// A point in time: as of `asOf`, as known at `knownAt` (now when nil).
    ///
    /// ```swift
    /// let march = PointInTime(asOf: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-03-31")),
    ///                         knownAt: try Instant(parsing: "2026-04-05T09:00:00Z"))
    /// ```
    public init(asOf: Instant, knownAt: Instant? = nil) {
        self.asOf = asOf
        self.knownAt = knownAt
    }

    /// `asOf` in microseconds, for comparisons with stored effective times.
    public var effectiveBound: Int64 { asOf.microsecondsSinceEpoch }
    /// `knownAt` in microseconds, `Int64.max` for everything recorded.
    public var recordedBound: Int64 { knownAt?.microsecondsSinceEpoch ?? Int64.max }
}
