/// A moment to answer for: what was true at `asOf` (effective time), as the ledger knew
/// it at `knownAt` (recorded time; now when absent).
public struct PointInTime: Hashable, Sendable {
    public let asOf: Instant
    public let knownAt: Instant?

    public init(asOf: Instant, knownAt: Instant? = nil) {
        self.asOf = asOf
        self.knownAt = knownAt
    }

    /// `asOf` in microseconds, for comparisons with stored effective times.
    public var effectiveBound: Int64 { asOf.microsecondsSinceEpoch }
    /// `knownAt` in microseconds, `Int64.max` for everything recorded.
    public var recordedBound: Int64 { knownAt?.microsecondsSinceEpoch ?? Int64.max }
}
