public import TallyEngine
import GRDB

/// A payment milestone a liability reached: a quarter, half, three quarters or all of what
/// it first owed paid off (docs/domain.md §4, "Payment milestones").
public struct LiabilityMilestone: Hashable, Sendable {
    /// 25, 50, 75 or 100: the share of the starting amount paid off.
    public let percent: Int
    /// When the amount owed first came to the milestone: the valuation that did it.
    public let reachedAt: Instant
    /// That valuation's event.
    public let sequence: UInt64
    /// What was owed once it was reached.
    public let owed: Money
}

/// How far a liability is paid off at a point in time, and its next milestone.
public struct LiabilityProgress: Hashable, Sendable {
    /// The liability's id.
    public let liabilityId: String
    /// What the user calls it.
    public let name: String
    /// The first amount recorded as owed: what the milestones are shares of.
    public let startingAmount: Money
    /// What it owes at the point asked about.
    public let owed: Money
    /// `(startingAmount − owed) ÷ startingAmount` in basis points, rounded down, within
    /// 0…10,000 (owing more than at the start is 0).
    public let paidBasisPoints: Int64
    /// The milestones reached by the point, in order.
    public let milestones: [LiabilityMilestone]
    /// The next milestone not reached yet; nil once paid off.
    public let next: NextLiabilityMilestone?
}

/// The next payment milestone of a liability and what it takes.
public struct NextLiabilityMilestone: Hashable, Sendable {
    /// 25, 50, 75 or 100.
    public let percent: Int
    /// The most that may be owed for it to be reached.
    public let owedAtMost: Money
    /// What is left to pay to get there.
    public let leftToPay: Money
}

/// The payment-milestone rule, in one place: the shares of the starting amount that count,
/// and when each is reached.
public enum LiabilityMilestoneRules {
    /// The milestones, in percent of the starting amount paid off.
    public static let percents = [25, 50, 75, 100]

    /// The most that may be owed for `percent` to be reached: `starting × (100 − percent) ÷
    /// 100`, rounded down to the currency's minor unit (a milestone is reached only once
    /// that share is truly paid).
    public static func owedAtMost(_ starting: Money, percent: Int) -> Money {
        let product = Int128(starting.minorUnits) * Int128(100 - percent)
        return Money(minorUnits: Int64(RationalRounding.rounded(product, dividedBy: 100, rule: .floor)), commodity: starting.commodity)
    }

    /// The progress of a liability from its value history (``ValueAudit``, in effective
    /// order, through the point): the first amount recorded is the start; each milestone is
    /// reached at the first later change that takes the amount owed to its threshold or
    /// below (a removal is not a payment); nil when nothing was recorded as owed.
    static func progress(liabilityId: String, name: String, history: [AuditEntry]) -> LiabilityProgress? {
        let payments = history.filter { !$0.eventType.hasSuffix("_removed") }
        guard let first = payments.first, first.balance.isPositive, let latest = payments.last else { return nil }
        let starting = first.balance
        var milestones: [LiabilityMilestone] = []
        for percent in percents {
            let threshold = owedAtMost(starting, percent: percent)
            guard let reached = payments.dropFirst().first(where: { !$0.balance.isPositive || $0.balance.minorUnits <= threshold.minorUnits }) else { break }
            // A lower threshold is crossed no earlier than a higher one: milestones come in order.
            milestones.append(LiabilityMilestone(percent: percent, reachedAt: reached.effectiveAt, sequence: reached.sequence, owed: reached.balance))
        }
        let owed = latest.balance
        let paid = Int128(starting.minorUnits - min(max(owed.minorUnits, 0), starting.minorUnits)) * 10_000 / Int128(starting.minorUnits)
        let next = percents.first { percent in !milestones.contains { $0.percent == percent } }.map { percent in
            let most = owedAtMost(starting, percent: percent)
            return NextLiabilityMilestone(percent: percent, owedAtMost: most,
                                          leftToPay: Money(minorUnits: max(0, owed.minorUnits - most.minorUnits), commodity: starting.commodity))
        }
        return LiabilityProgress(liabilityId: liabilityId, name: name, startingAmount: starting, owed: owed,
                                 paidBasisPoints: Int64(paid), milestones: milestones, next: next)
    }

    /// Every liability held at `point` with its progress, by id.
    static func progresses(_ db: Database, point: PointInTime, calendar: LedgerCalendar) throws -> [LiabilityProgress] {
        try Valuations(db: db, point: point).items().filter { $0.kind == .liability }.compactMap { item in
            let history = try ValueAudit.entries(db, kind: .liability, id: item.itemId, from: nil, through: calendar.date(of: point.asOf),
                                                 knownAt: point.knownAt, calendar: calendar).filter { $0.effectiveAt <= point.asOf }
            return progress(liabilityId: item.itemId, name: item.name, history: history)
        }
    }
}

extension Ledger {
    /// Each liability held at the end of `asOf` (now when absent), as known at `knownAt`,
    /// with how much of its starting amount is paid off and the payment milestones reached
    /// (``LiabilityMilestoneRules``).
    ///
    /// ```swift
    /// for progress in try ledger.liabilityMilestones() {
    ///     print(progress.name, progress.paidBasisPoints, progress.milestones.map(\.percent), progress.next?.leftToPay as Any)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the moment asked about (now by default).
    ///   - knownAt: as the ledger knew it at this instant (default: everything recorded).
    public func liabilityMilestones(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [LiabilityProgress] {
        let point = PointInTime(asOf: asOf ?? now, knownAt: knownAt)
        let calendar = self.calendar
        return try read { db in try LiabilityMilestoneRules.progresses(db, point: point, calendar: calendar) }
    }
}
