public import TallyEngine
import GRDB

/// A savings pot (a goal): its target, what it holds, and how far along it is.
public struct Pot: Hashable, Sendable {
    /// The pot's id, chosen when created.
    public let id: String
    /// What the user calls it.
    public let name: String
    /// Positive.
    public let target: Money
    /// What the pot holds at the point asked about (now unless told).
    public let total: Money

    /// Progress as an exact fraction total ÷ target, reduced: 125/500 is `(1, 4)`.
    public var progress: (numerator: Int64, denominator: Int64) {
        func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
        let divisor = max(1, gcd(abs(total.minorUnits), target.minorUnits))
        return (total.minorUnits / divisor, target.minorUnits / divisor)
    }

    /// Progress in basis points (10,000 = the target reached), rounded down; integer math.
    ///
    /// ```swift
    /// pot.progressBasisPoints   // 2500 for 125.00 of 500.00
    /// ```
    public var progressBasisPoints: Int64 {
        guard target.minorUnits > 0 else { return 0 }
        let basisPoints = Int128(total.minorUnits) * 10_000 / Int128(target.minorUnits)
        return Int64(clamping: basisPoints)
    }
}

extension Ledger {
    /// Every pot that exists, by id: now, or as of an effective instant as the ledger knew
    /// it at a recorded one. Totals come from the balance roll-ups, never the log.
    ///
    /// ```swift
    /// for pot in try ledger.pots() { print(pot.name, pot.total, pot.progressBasisPoints) }
    /// let march = try ledger.pots(asOf: ledger.calendar.endOfDay(try LocalDate(parsing: "2026-03-31")))
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the pots created and not deleted by this instant, with their totals then.
    ///   - knownAt: as the ledger knew them at this instant; nil for everything recorded.
    public func pots(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [Pot] {
        try read { db in try PotRecords.pots(db, asOf: asOf, knownAt: knownAt) }
    }

    /// The pot with this id, or nil if there is none (or it was deleted), at the same
    /// point in time as ``pots(asOf:knownAt:)``.
    ///
    /// ```swift
    /// let holiday = try ledger.pot(id: "holiday")
    /// ```
    public func pot(id: String, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> Pot? {
        try read { db in try PotRecords.pots(db, id: id, asOf: asOf, knownAt: knownAt).first }
    }
}
