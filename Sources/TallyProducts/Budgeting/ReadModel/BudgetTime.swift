import TallyEngine
import GRDB

/// The two times every budget read honours (docs/architecture.md, time travel): "as of" an effective
/// instant and "as known at" a recorded instant, as bounds on indexed rows.
///
/// Versioned rows (transactions, budgets) carry `recorded_at` and `superseded_at`, the
/// recorded instants between which the ledger held them; lifecycle rows (pots, recurring
/// items) carry the effective and recorded instants of their creation and their end. A row
/// still in force ends at ``openEnd``.
enum BudgetTime {
    /// The end of a row still in force: later than any instant a query names.
    static let openEnd = Int64.max

    /// The recorded-time bound of "as known at `knownAt`": everything recorded when nil.
    /// Always below ``openEnd``, so rows in force pass `superseded_at > bound`.
    static func knownBound(_ knownAt: Instant?) -> Int64 {
        min(knownAt?.microsecondsSinceEpoch ?? openEnd - 1, openEnd - 1)
    }

    /// The effective-time bound of "as of `asOf`": everything when nil.
    static func effectiveBound(_ asOf: Instant?) -> Int64 {
        min(asOf?.microsecondsSinceEpoch ?? openEnd - 1, openEnd - 1)
    }

    /// The version in force as known at a bound: bind ``knownBound(_:)`` twice.
    static let versionInForce = "recorded_at <= ? AND superseded_at > ?"

    /// A lifecycle row that exists as of an effective bound, as known at a recorded bound:
    /// bind effective, known, effective, known.
    static let lifecycleInForce = """
        created_at <= ? AND created_recorded_at <= ? AND NOT (ended_at <= ? AND ended_recorded_at <= ?)
        """

    /// The arguments of ``lifecycleInForce``.
    static func lifecycleArguments(asOf: Instant?, knownAt: Instant?) -> StatementArguments {
        let effective = effectiveBound(asOf)
        let known = knownBound(knownAt)
        return [effective, known, effective, known]
    }

    /// The arguments of ``versionInForce``.
    static func versionArguments(knownAt: Instant?) -> StatementArguments {
        let known = knownBound(knownAt)
        return [known, known]
    }
}
