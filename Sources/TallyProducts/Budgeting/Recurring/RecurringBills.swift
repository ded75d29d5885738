public import TallyEngine
import Foundation
import GRDB

/// One entry of the recurring bills list (docs/domain.md §2): a vendor paid (or paying)
/// again and again, from a defined recurring item or from the transactions flagged recurring
/// (`tx add --recurring`), one entry per vendor.
public struct RecurringBill: Hashable, Sendable {
    /// Where the entry comes from.
    public enum Source: String, Hashable, Sendable {
        /// A defined recurring item (`recurring define`): its schedule decides.
        case defined
        /// Transactions flagged recurring: monthly, on the day of the latest one.
        case flagged
    }

    /// The vendor as last written (the payee).
    public let vendor: String
    /// The category of its latest transaction, or of its definition.
    public let category: BudgetCategory
    /// Signed, as it is paid: negative a bill, positive income; the latest flagged amount, or the defined one.
    public let amount: Money
    /// The due date that decides the state: the earliest unpaid occurrence (the one overdue,
    /// due soon or upcoming), or for a paid one the next occurrence after it.
    public let nextDue: LocalDate
    /// Paid, due soon, upcoming or overdue on the day asked about (the rule of ``BillDue``).
    public let state: RecurringState
    /// The latest payment: the latest flagged transaction's day, or the due date of the latest paid occurrence.
    public let lastPaid: LocalDate?
    /// The defined item's id, for a defined entry.
    public let recurringId: String?
    /// Defined or flagged.
    public let source: Source
}

/// Which recurring bills to list, and in which order.
///
/// ```swift
/// var query = RecurringBillQuery()
/// query.search = "net"            // Netflix, Internet …
/// query.sort = .amountHighest
/// let bills = try ledger.recurringBills(query)
/// ```
public struct RecurringBillQuery: Hashable, Sendable {
    /// The six orders of the budget app's recurring screen.
    public enum Sort: String, Hashable, Sendable, CaseIterable {
        /// Vendor A to Z (ignoring case).
        case nameAscending = "name-az"
        /// Vendor Z to A.
        case nameDescending = "name-za"
        /// Largest amount first (by size: a bill of 80.00 before one of 12.00).
        case amountHighest = "amount-high"
        /// Smallest amount first.
        case amountLowest = "amount-low"
        /// Next due date soonest first (the default).
        case dueSoonest = "due-soonest"
        /// Next due date latest first.
        case dueLatest = "due-latest"
    }

    /// Only vendors whose name contains this text, ignoring case; nil for all.
    public var search: String?
    /// The order; next due soonest unless told.
    public var sort: Sort = .dueSoonest

    /// Every entry, next due soonest first.
    public init(search: String? = nil, sort: Sort = .dueSoonest) {
        self.search = search
        self.sort = sort
    }
}

extension Ledger {
    /// The recurring bills list as of `today`: one entry per vendor, from the defined
    /// recurring items and from the transactions flagged recurring, each paid, due soon,
    /// upcoming or overdue by the one rule (``BillDue``, the due-soon window in force that day).
    ///
    /// A defined item is overdue when an occurrence in the twelve months before this one, or
    /// this month's before today, has no matching payment; else this month's occurrence
    /// decides (paid when its day has come and a payment matches), else the next one. A
    /// flagged vendor is paid when its latest flagged transaction is in today's month; else
    /// due a month after that transaction, on its day (so a bill last paid in February is
    /// overdue in late April). A vendor with a defined item is listed once, as defined.
    ///
    /// ```swift
    /// let overdue = try ledger.recurringBills(today: try LocalDate(parsing: "2026-04-27")).filter { $0.state == .overdue }
    /// ```
    ///
    /// - Parameters:
    ///   - query: a search and an order.
    ///   - today: the day the states are judged from (default: today in the ledger's time zone).
    ///   - knownAt: as the ledger knew it then; nil for everything recorded.
    public func recurringBills(_ query: RecurringBillQuery = RecurringBillQuery(), today: LocalDate? = nil, knownAt: Instant? = nil) throws -> [RecurringBill] {
        let today = today ?? calendar.date(of: now)
        let endOfToday = calendar.endOfDay(today)
        let calendar = self.calendar
        return try read { db in
            let window = try LedgerSettings.read(db, point: PointInTime(asOf: endOfToday, knownAt: knownAt)).dueSoonDays
            var byVendor: [String: RecurringBill] = [:]
            for item in try RecurringItem.all(db, asOf: endOfToday, knownAt: knownAt) {
                guard let bill = try RecurringBills.defined(item, today: today, window: window, knownAt: knownAt, calendar, db) else { continue }
                let key = item.payee.lowercased()
                if let earlier = byVendor[key], (earlier.nextDue, earlier.recurringId ?? "") <= (bill.nextDue, item.id) { continue }
                byVendor[key] = bill
            }
            for latest in try RecurringRules.latestFlagged(through: endOfToday, knownAt: knownAt, calendar: calendar, db) where byVendor[latest.payeeKey] == nil {
                byVendor[latest.payeeKey] = RecurringBills.flagged(latest, today: today, window: window)
            }
            return RecurringBills.ordered(Array(byVendor.values), query)
        }
    }
}

/// The steps of ``Ledger/recurringBills(_:today:knownAt:)``.
enum RecurringBills {
    /// How far back a defined item's unpaid occurrences make it overdue.
    static let lookbackMonths = 12

    /// A defined item's entry: its earliest unpaid occurrence in the lookback, else this
    /// month's, else its next; nil when it has none left (ended and paid).
    static func defined(
        _ item: RecurringItem, today: LocalDate, window: Int64, knownAt: Instant?, _ calendar: LedgerCalendar, _ db: Database
    ) throws -> RecurringBill? {
        var lastPaid: LocalDate?
        var month = max(item.startMonth, today.month.adding(months: -lookbackMonths))
        // Far enough ahead for a yearly item's next occurrence.
        let horizon = today.month.adding(months: 12)
        while month <= min(horizon, item.endMonth ?? horizon) {
            defer { month = month.adding(months: 1) }
            guard item.isDue(in: month) else { continue }
            let due = item.dueDate(in: month)
            let paid = due <= today
                ? try RecurringRules.matchingTransaction(for: item, month: month, range: BudgetQueries.range(of: month, calendar), knownAt: knownAt, db)
                : nil
            let matched = paid != nil
            if matched {
                lastPaid = due
                // This month's paid occurrence is what the list shows: paid, next due after it.
                guard month == today.month else { continue }
                let next = nextOccurrence(of: item, after: month, until: horizon)
                return entry(item, nextDue: next ?? due, state: .paid, lastPaid: lastPaid)
            }
            return entry(item, nextDue: due, state: BillDue.state(due: due, isPaid: false, today: today, window: window), lastPaid: lastPaid)
        }
        return nil
    }

    /// The first month after `month` the item falls due in, up to `horizon`, as its due date.
    private static func nextOccurrence(of item: RecurringItem, after month: Month, until horizon: Month) -> LocalDate? {
        var next = month.adding(months: 1)
        while next <= min(horizon, item.endMonth ?? horizon) {
            if item.isDue(in: next) { return item.dueDate(in: next) }
            next = next.adding(months: 1)
        }
        return nil
    }

    private static func entry(_ item: RecurringItem, nextDue: LocalDate, state: RecurringState, lastPaid: LocalDate?) -> RecurringBill {
        RecurringBill(vendor: item.payee, category: item.category, amount: item.amount, nextDue: nextDue, state: state,
                      lastPaid: lastPaid, recurringId: item.id, source: .defined)
    }

    /// A flagged vendor's entry: paid in its latest transaction's month when that is today's;
    /// else due a month after it, on its day (the month's last day when shorter).
    static func flagged(_ latest: RecurringRules.FlaggedPayment, today: LocalDate, window: Int64) -> RecurringBill {
        func due(in month: Month) -> LocalDate { month.firstDay.adding(days: min(latest.date.day, month.dayCount) - 1) }
        let following = due(in: latest.date.month.adding(months: 1))
        let state = latest.date.month == today.month ? RecurringState.paid : BillDue.state(due: following, isPaid: false, today: today, window: window)
        return RecurringBill(vendor: latest.payee, category: latest.category, amount: latest.amount, nextDue: following, state: state,
                             lastPaid: latest.date, recurringId: nil, source: .flagged)
    }

    /// The entries the query searches for, in its order (ties by vendor, then next due).
    static func ordered(_ bills: [RecurringBill], _ query: RecurringBillQuery) -> [RecurringBill] {
        query.apply(to: bills, name: \.vendor, amount: \.amount, due: { $0.nextDue })
    }
}

extension RecurringBillQuery {
    /// The one rule of the recurring screen's search and six orders, for the bills list, the
    /// status of a month and the list of items alike: the entries whose name contains
    /// ``search`` (trimmed, ignoring case), in ``sort``'s order; ties by name, then due date.
    /// An amount is compared by its size (a bill of 80.00 is higher than one of 12.00); an
    /// entry with no due date left (an ended item) comes last in either due order.
    ///
    /// - Parameters:
    ///   - entries: what to search and sort.
    ///   - name: the vendor or payee searched and sorted by.
    ///   - amount: the signed amount.
    ///   - due: the due date that orders by due; nil for none left.
    func apply<Entry>(to entries: [Entry], name: (Entry) -> String, amount: (Entry) -> Money, due: (Entry) -> LocalDate?) -> [Entry] {
        let needle = search?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() ?? ""
        let keyed = entries.compactMap { entry -> (entry: Entry, name: String, size: UInt64, due: LocalDate?)? in
            let key = name(entry).lowercased()
            guard needle.isEmpty || key.contains(needle) else { return nil }
            return (entry, key, amount(entry).minorUnits.magnitude, due(entry))
        }
        // A missing due date sorts after every date: (true, any) > (false, date).
        func dueKey(_ date: LocalDate?) -> (Bool, LocalDate) { (date == nil, date ?? LocalDate(daysSinceEpoch: 0)) }
        func before(_ left: (Bool, LocalDate), _ right: (Bool, LocalDate)) -> Bool { left.0 != right.0 ? !left.0 : left.1 < right.1 }
        return keyed.sorted { left, right in
            switch sort {
            case .nameAscending:
                return left.name != right.name ? left.name < right.name : before(dueKey(left.due), dueKey(right.due))
            case .nameDescending:
                return left.name != right.name ? left.name > right.name : before(dueKey(left.due), dueKey(right.due))
            case .amountHighest:
                return left.size != right.size ? left.size > right.size : left.name < right.name
            case .amountLowest:
                return left.size != right.size ? left.size < right.size : left.name < right.name
            case .dueSoonest:
                let (l, r) = (dueKey(left.due), dueKey(right.due))
                return l != r ? before(l, r) : left.name < right.name
            case .dueLatest:
                let (l, r) = (dueKey(left.due), dueKey(right.due))
                if l.0 != r.0 { return !l.0 }
                return l.1 != r.1 ? l.1 > r.1 : left.name < right.name
            }
        }.map(\.entry)
    }
}
