public import TallyEngine
/// The inputs of a what-if projection: where savings stand and what is added.
public struct WhatIfPlan: Hashable, Sendable {
    /// The day the projection starts from (month 0).
    public var startDate: LocalDate
    /// The savings balance on the start date.
    public var startBalance: Money
    /// What is saved each month already (from history, or given).
    public var monthlySaving: Money
    /// The extra amount saved each month on top.
    public var extraMonthly: Money
    /// A one-time contribution on the start date.
    public var oneTime: Money
    /// The balance to reach.
    public var goal: Money
    /// How many months to look ahead (1 to ``WhatIf/horizonMonthsLimit``).
    public var horizonMonths: Int

    /// A plan; see the properties for each input.
    public init(startDate: LocalDate, startBalance: Money, monthlySaving: Money, extraMonthly: Money, oneTime: Money, goal: Money, horizonMonths: Int) {
        self.startDate = startDate
        self.startBalance = startBalance
        self.monthlySaving = monthlySaving
        self.extraMonthly = extraMonthly
        self.oneTime = oneTime
        self.goal = goal
        self.horizonMonths = horizonMonths
    }
}

/// A projected savings balance month by month and when it reaches the goal.
public struct WhatIfProjection: Hashable, Sendable {
    /// The balance at the end of month `month` (0 is the start date, after the one-time contribution).
    public struct Point: Hashable, Sendable {
        /// Months after the start date (0 is the start).
        public let month: Int
        /// The day the month ends on.
        public let date: LocalDate
        /// The balance then.
        public let balance: Money
    }

    /// A balance the savings balance leaves out for want of a rate into the base currency.
    public struct NotConverted: Hashable, Sendable {
        /// The account.
        public let account: String
        /// Its balance in its own currency on ``date``.
        public let balance: Money
        /// The day it was left out on: the start date, or the end of a month the monthly
        /// saving was averaged from.
        public let date: LocalDate
    }

    /// The plan projected.
    public let plan: WhatIfPlan
    /// Month 0 through the month the goal is reached, or through the horizon.
    public let series: [Point]
    /// The first month whose balance is at or above the goal; nil when not within the horizon.
    public let reachedMonth: Int?
    /// The date of ``reachedMonth``.
    public var reachedDate: LocalDate? { reachedMonth.map { series[$0].date } }
    /// Balances left out of the start balance (or of the months the monthly saving was
    /// averaged from) because no rate into the base currency was known then: listed, never
    /// dropped silently. Empty for a plan projected on its own (``WhatIf/project(_:)``).
    public internal(set) var notConverted: [NotConverted] = []
    /// Whether every balance read was converted: false when ``notConverted`` lists any.
    public var isComplete: Bool { notConverted.isEmpty }
}

/// The what-if projection: a pure function of a plan, in exact integer money. It records
/// nothing and reads nothing.
///
/// Month 0 is the start date with the one-time contribution added; month k (k ≥ 1) is
/// the same day k calendar months later (the month's last day when it is shorter) and
/// adds the monthly saving and the extra monthly amount. The goal is reached in the first
/// month whose balance is at or above it.
///
/// ```swift
/// let plan = WhatIfPlan(startDate: today, startBalance: usd("0.00"), monthlySaving: usd("100.00"),
///                       extraMonthly: usd("0.00"), oneTime: usd("0.00"), goal: usd("1400.00"), horizonMonths: 120)
/// try WhatIf.project(plan).reachedMonth   // 14
/// ```
public enum WhatIf {
    /// The longest horizon: 100 years.
    public static let horizonMonthsLimit = 1200

    /// Projects the plan month by month.
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` for a horizon outside 1...1200,
    ///   `currencyMismatch` when the amounts are not all in one currency; ``MoneyError``
    ///   on overflow.
    public static func project(_ plan: WhatIfPlan) throws -> WhatIfProjection {
        guard (1...horizonMonthsLimit).contains(plan.horizonMonths) else {
            throw LedgerError(.invalidArgument, "the horizon must be 1 to \(horizonMonthsLimit) months")
        }
        let commodity = plan.goal.commodity
        guard [plan.startBalance, plan.monthlySaving, plan.extraMonthly, plan.oneTime].allSatisfy({ $0.commodity == commodity }) else {
            throw LedgerError(.currencyMismatch, "a what-if needs every amount in one currency, \(commodity.code)")
        }
        let monthly = try plan.monthlySaving.adding(plan.extraMonthly)
        var balance = try plan.startBalance.adding(plan.oneTime)
        var series = [WhatIfProjection.Point(month: 0, date: plan.startDate, balance: balance)]
        var reached: Int? = try balance.isLess(than: plan.goal) ? nil : 0
        var month = 0
        while reached == nil && month < plan.horizonMonths {
            month += 1
            balance = try balance.adding(monthly)
            series.append(.init(month: month, date: date(plan.startDate, plusMonths: month), balance: balance))
            if try !balance.isLess(than: plan.goal) { reached = month }
        }
        return WhatIfProjection(plan: plan, series: series, reachedMonth: reached)
    }

    /// The same day `count` months later, or that month's last day when it is shorter.
    static func date(_ start: LocalDate, plusMonths count: Int) -> LocalDate {
        let month = start.month.adding(months: count)
        return month.firstDay.adding(days: min(start.day, month.dayCount) - 1)
    }

    /// The average monthly change from `earlier` to `later` over `months` months, rounded
    /// half-even: the monthly saving a history shows.
    ///
    /// - Throws: ``MoneyError`` on overflow or different currencies.
    public static func monthlySaving(from earlier: Money, to later: Money, months: Int) throws -> Money {
        precondition(months > 0, "WhatIf.monthlySaving: months must be positive")
        let change = try later.subtracting(earlier)
        let rounded = RationalRounding.rounded(Int128(change.minorUnits), dividedBy: Int128(months), rule: .halfEven)
        return Money(minorUnits: Int64(rounded), commodity: change.commodity)
    }
}
