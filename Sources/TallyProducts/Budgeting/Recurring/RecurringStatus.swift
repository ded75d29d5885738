public import TallyEngine
import GRDB

/// Where a recurring item stands in a month (docs/domain.md §2; the rule is ``BillDue``).
public enum RecurringState: String, Hashable, Sendable, CaseIterable {
    /// Its day has come and a matching transaction exists.
    case paid
    /// Not paid, and due within the due-soon window of today.
    case dueSoon = "due_soon"
    /// Not paid and due later than the window.
    case upcoming
    /// Not paid, and its due date has passed (a bill 57 days late is overdue, never due soon).
    case overdue
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

/// The recurring items of one state added up, income and bills apart: a salary of 3000.00
/// and a bill of 50.00 are income 3000.00 and bills 50.00, never 2950.00.
public struct RecurringTotals: Hashable, Sendable {
    /// The income items (positive amounts) added up: zero or more.
    public let income: Money
    /// The bills (negative amounts) added up, as a positive amount: what is to be paid.
    public let bills: Money
    /// How many income items were added up.
    public let incomeCount: Int
    /// How many bills were added up.
    public let billCount: Int
}

/// Every recurring item due in a month, with totals per state.
public struct RecurringStatusReport: Hashable, Sendable {
    /// The month reported on.
    public let month: Month
    /// The day the states are judged from.
    public let today: LocalDate
    /// Every item due in the month, by due date then id.
    public let items: [RecurringItemStatus]
    /// The paid items: income received and bills paid.
    public let paid: RecurringTotals
    /// The due-soon items: income and bills apart.
    public let dueSoon: RecurringTotals
    /// The upcoming items: income and bills apart.
    public let upcoming: RecurringTotals
    /// The overdue items (due date passed, not paid): income and bills apart.
    public let overdue: RecurringTotals

    /// The totals of one state.
    public func totals(_ state: RecurringState) -> RecurringTotals {
        switch state {
        case .paid: paid
        case .dueSoon: dueSoon
        case .upcoming: upcoming
        case .overdue: overdue
        }
    }
}

extension Ledger {
    /// Each recurring item due in `month`: `paid` when its day has come (due date on or
    /// before today) and a matching transaction exists; otherwise `overdue` when its due date
    /// has passed, `dueSoon` when it falls due within `dueSoonDays` of today, else `upcoming`
    /// (the one rule, ``BillDue``).
    ///
    /// ```swift
    /// let report = try ledger.recurringStatus(month: try Month(parsing: "2026-05"), today: try LocalDate(parsing: "2026-05-25"))
    /// print(report.upcoming.income, report.upcoming.bills)   // 3000.00 salary, 50.00 of bills: never netted
    /// ```
    ///
    /// Each state's totals keep income and bills apart (``RecurringTotals``); items in another
    /// currency than the budget's are listed but not added up.
    ///
    /// - Parameters:
    ///   - dueSoonDays: the window; nil (the default) for the ledger's due-soon setting in
    ///     force at the end of `today` as known at `knownAt` (``LedgerSettings/dueSoonDays``,
    ///     5 days unless set).
    ///   - knownAt: judge from the items and transactions the ledger knew at this instant;
    ///     nil for everything recorded.
    /// - Throws: ``LedgerError`` `invalidArgument` for a negative window.
    public func recurringStatus(
        month: Month, today: LocalDate, dueSoonDays: Int? = nil, knownAt: Instant? = nil
    ) throws -> RecurringStatusReport {
        if let dueSoonDays, dueSoonDays < 0 { throw LedgerError(.invalidArgument, "the due-soon window must be 0 days or more") }
        let endOfToday = calendar.endOfDay(today)
        return try read { db in
            let dueSoonDays = try dueSoonDays
                ?? Int(LedgerSettings.read(db, point: PointInTime(asOf: endOfToday, knownAt: knownAt)).dueSoonDays)
            let currency = try BudgetSettings.currency(db)
            let range = BudgetQueries.range(of: month, calendar)
            var income: [RecurringState: (minorUnits: Int64, count: Int)] = [:]
            var bills: [RecurringState: (minorUnits: Int64, count: Int)] = [:]
            let items = try RecurringItem.all(db, knownAt: knownAt).filter { $0.isDue(in: month) }.map { item in
                let dueDate = item.dueDate(in: month)
                let match = try RecurringRules.matchingTransaction(for: item, month: month, range: range, knownAt: knownAt, db)
                let state = BillDue.state(due: dueDate, isPaid: match != nil && dueDate <= today, today: today, window: Int64(dueSoonDays))
                if item.amount.commodity == currency {
                    // Income adds its amount, a bill its amount negated: both totals are positive.
                    let isIncome = item.amount.isPositive
                    let magnitude = isIncome ? item.amount : try item.amount.negated()
                    let earlier = (isIncome ? income : bills)[state, default: (0, 0)]
                    let (sum, overflow) = earlier.minorUnits.addingReportingOverflow(magnitude.minorUnits)
                    guard !overflow else { throw MoneyError.overflowing("the recurring total") }
                    if isIncome { income[state] = (sum, earlier.count + 1) } else { bills[state] = (sum, earlier.count + 1) }
                }
                return RecurringItemStatus(item: item, dueDate: dueDate, state: state, matchingTransactionId: match)
            }.sorted { ($0.dueDate, $0.item.id) < ($1.dueDate, $1.item.id) }
            func total(_ state: RecurringState) -> RecurringTotals {
                let (incomeSum, incomeCount) = income[state] ?? (0, 0)
                let (billSum, billCount) = bills[state] ?? (0, 0)
                return RecurringTotals(income: Money(minorUnits: incomeSum, commodity: currency), bills: Money(minorUnits: billSum, commodity: currency),
                                       incomeCount: incomeCount, billCount: billCount)
            }
            return RecurringStatusReport(
                month: month, today: today, items: items,
                paid: total(.paid), dueSoon: total(.dueSoon), upcoming: total(.upcoming), overdue: total(.overdue)
            )
        }
    }

    /// The month's recurring status with its items found by `query` in its order
    /// (``RecurringBillQuery``: search by payee, the six orders of the recurring screen; by
    /// due date the month's due day). The totals stay the month's, whatever the search.
    ///
    /// ```swift
    /// let may = try ledger.recurringStatus(RecurringBillQuery(sort: .amountHighest), month: try Month(parsing: "2026-05"), today: try LocalDate(parsing: "2026-05-20"))
    /// ```
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` for a negative window.
    public func recurringStatus(
        _ query: RecurringBillQuery, month: Month, today: LocalDate, dueSoonDays: Int? = nil, knownAt: Instant? = nil
    ) throws -> RecurringStatusReport {
        let report = try recurringStatus(month: month, today: today, dueSoonDays: dueSoonDays, knownAt: knownAt)
        return RecurringStatusReport(
            month: report.month, today: report.today,
            items: query.apply(to: report.items, name: \.item.payee, amount: \.item.amount, due: { $0.dueDate }),
            paid: report.paid, dueSoon: report.dueSoon, upcoming: report.upcoming, overdue: report.overdue
        )
    }
}
