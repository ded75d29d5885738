public import TallyEngine
import GRDB

/// Where a recurring item stands in a month (DOMAIN.md §2).
public enum RecurringState: String, Hashable, Sendable {
    /// Its day has come and a matching transaction exists.
    case paid
    /// Not paid, and due within the due-soon window of today, or already past due.
    case dueSoon = "due_soon"
    /// Not paid and due later than the window.
    case upcoming
}

/// One recurring item's state in a month.
public struct RecurringItemStatus: Hashable, Sendable {
    /// The recurring item.
    public let item: RecurringItem
    /// The day it falls due in the month.
    public let dueDate: LocalDate
    /// Paid, due soon or upcoming.
    public let state: RecurringState
    /// The transaction that paid it, when one matches: the generated occurrence, or a
    /// transaction of that month with the same payee (ignoring case) and amount.
    public let matchingTransactionId: String?
}

/// Every recurring item due in a month, with totals per state.
public struct RecurringStatusReport: Hashable, Sendable {
    /// The month reported on.
    public let month: Month
    /// The day the states are judged from.
    public let today: LocalDate
    /// Every item due in the month, by due date then id.
    public let items: [RecurringItemStatus]
    /// Signed sums of the items' amounts per state (bills negative, income positive).
    public let paid: Money
    /// The sum of the due-soon items.
    public let dueSoon: Money
    /// The sum of the upcoming items.
    public let upcoming: Money
}

extension Ledger {
    /// Each recurring item due in `month`: `paid` when its day has come (due date on or
    /// before today) and a matching transaction exists; otherwise `dueSoon` when it falls
    /// due within `dueSoonDays` of today or is already past due; otherwise `upcoming`.
    ///
    /// ```swift
    /// let report = try ledger.recurringStatus(month: try Month(parsing: "2026-05"), today: try LocalDate(parsing: "2026-05-25"))
    /// print(report.paid, report.dueSoon, report.upcoming)
    /// ```
    ///
    /// - Parameters:
    ///   - dueSoonDays: the window, ``BudgetSettings/dueSoonDaysDefault`` (5) unless given.
    ///   - knownAt: judge from the items and transactions the ledger knew at this instant;
    ///     nil for everything recorded.
    /// - Throws: ``LedgerError`` `invalidArgument` for a negative window.
    public func recurringStatus(
        month: Month, today: LocalDate, dueSoonDays: Int = BudgetSettings.dueSoonDaysDefault, knownAt: Instant? = nil
    ) throws -> RecurringStatusReport {
        guard dueSoonDays >= 0 else { throw LedgerError(.invalidArgument, "the due-soon window must be 0 days or more") }
        return try read { db in
            let currency = try BudgetSettings.currency(db)
            let range = BudgetQueries.range(of: month, calendar)
            var totals: [RecurringState: Int64] = [:]
            let items = try RecurringItem.all(db, knownAt: knownAt).filter { $0.isDue(in: month) }.map { item in
                let dueDate = item.dueDate(in: month)
                let match = try RecurringRules.matchingTransaction(for: item, month: month, range: range, knownAt: knownAt, db)
                let state: RecurringState
                if match != nil && dueDate <= today {
                    state = .paid
                } else if dueDate.daysSinceEpoch - today.daysSinceEpoch <= dueSoonDays {
                    state = .dueSoon
                } else {
                    state = .upcoming
                }
                if item.amount.commodity == currency {
                    let (sum, overflow) = totals[state, default: 0].addingReportingOverflow(item.amount.minorUnits)
                    guard !overflow else { throw MoneyError.overflowing("the recurring total") }
                    totals[state] = sum
                }
                return RecurringItemStatus(item: item, dueDate: dueDate, state: state, matchingTransactionId: match)
            }.sorted { ($0.dueDate, $0.item.id) < ($1.dueDate, $1.item.id) }
            func total(_ state: RecurringState) -> Money { Money(minorUnits: totals[state] ?? 0, commodity: currency) }
            return RecurringStatusReport(
                month: month, today: today, items: items,
                paid: total(.paid), dueSoon: total(.dueSoon), upcoming: total(.upcoming)
            )
        }
    }
}
