public import TallyEngine
import GRDB

/// A recurring income or expense: what it is, when it falls due, and over which months.
public struct RecurringItem: Hashable, Sendable {
    /// The item's id, chosen when defined.
    public let id: String
    /// Who is paid, or who pays.
    public let payee: String
    /// The category its occurrences are recorded in.
    public let category: BudgetCategory
    /// Signed: positive income, negative expense.
    public let amount: Money
    /// Monthly, quarterly or yearly, counted from the start month (an item recorded as weekly
    /// reads as monthly: ``RecurringFrequency/schedule``).
    public let frequency: RecurringFrequency
    /// 1 to 31; in shorter months the last day.
    public let dayOfMonth: Int
    /// The first month it falls due in.
    public let startMonth: Month
    /// The last month it falls due in; nil for no end.
    public let endMonth: Month?

    /// Whether it falls due in `month`: within its months, and for quarterly and yearly
    /// items, every third or twelfth month from the start.
    public func isDue(in month: Month) -> Bool {
        guard month >= startMonth, endMonth.map({ month <= $0 }) ?? true else { return false }
        let elapsed = month.ordinal - startMonth.ordinal
        switch frequency {
        case .monthly, .weekly: return true  // weekly: see RecurringFrequency.schedule
        case .quarterly: return elapsed % 3 == 0
        case .yearly: return elapsed % 12 == 0
        }
    }

    /// The day it falls due in `month`: its day of month, or the month's last day when the
    /// month is shorter.
    public func dueDate(in month: Month) -> LocalDate {
        month.firstDay.adding(days: min(dayOfMonth, month.dayCount) - 1)
    }

    /// The first day it falls due on or after `day`; nil when it has ended before then.
    ///
    /// ```swift
    /// rent.nextDueDate(onOrAfter: try LocalDate(parsing: "2026-05-02"))   // 2026-06-01 for rent due on the 1st
    /// ```
    public func nextDueDate(onOrAfter day: LocalDate) -> LocalDate? {
        var month = max(startMonth, day.month)
        // A yearly item falls due within twelve months of any month from its start.
        let last = min(month.adding(months: 12), endMonth ?? month.adding(months: 12))
        while month <= last {
            if isDue(in: month), dueDate(in: month) >= day { return dueDate(in: month) }
            month = month.adding(months: 1)
        }
        return nil
    }
}


extension Ledger {
    /// Every recurring item defined and not removed, by id: now, or as of an effective
    /// instant as the ledger knew it at a recorded one.
    ///
    /// ```swift
    /// for item in try ledger.recurringItems() { print(item.payee, item.amount, item.dayOfMonth) }
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the items defined and not removed by this instant.
    ///   - knownAt: as the ledger knew them at this instant; nil for everything recorded.
    public func recurringItems(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [RecurringItem] {
        try read { db in try RecurringItem.all(db, asOf: asOf, knownAt: knownAt) }
    }

    /// The recurring items found by `query` in its order (``RecurringBillQuery``: search by
    /// payee, the six orders of the recurring screen), next due judged from `today`.
    ///
    /// ```swift
    /// let items = try ledger.recurringItems(RecurringBillQuery(search: "flix", sort: .amountHighest))
    /// ```
    ///
    /// - Parameters:
    ///   - query: the search and the order.
    ///   - today: the day the next due dates count from (default: today in the ledger's time zone).
    ///   - asOf: the items defined and not removed by this instant.
    ///   - knownAt: as the ledger knew them at this instant; nil for everything recorded.
    public func recurringItems(_ query: RecurringBillQuery, today: LocalDate? = nil, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [RecurringItem] {
        let today = today ?? calendar.date(of: asOf ?? now)
        return query.apply(to: try recurringItems(asOf: asOf, knownAt: knownAt), name: \.payee, amount: \.amount,
                           due: { $0.nextDueDate(onOrAfter: today) })
    }
}
