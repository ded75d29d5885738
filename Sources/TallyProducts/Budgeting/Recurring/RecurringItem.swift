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
    /// Monthly, quarterly or yearly, counted from the start month.
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
        case .monthly, .weekly: return true
        case .quarterly: return elapsed % 3 == 0
        case .yearly: return elapsed % 12 == 0
        }
    }

    /// The day it falls due in `month`: its day of month, or the month's last day when the
    /// month is shorter.
    public func dueDate(in month: Month) -> LocalDate {
        month.firstDay.adding(days: min(dayOfMonth, month.dayCount) - 1)
    }

    static func from(_ row: Row) throws -> RecurringItem {
        RecurringItem(
            id: row["recurring_id"], payee: row["payee"], category: BudgetCategory(rawValue: row["category"]) ?? .general,
            amount: Money(minorUnits: row["amount"], commodity: try Commodity.named(row["commodity"])),
            frequency: RecurringFrequency(rawValue: row["frequency"]) ?? .monthly, dayOfMonth: row["day_of_month"],
            startMonth: Month(ordinal: row["start_month"]), endMonth: (row["end_month"] as Int?).map(Month.init(ordinal:))
        )
    }

    /// Every item defined and not removed as of `asOf`, as known at `knownAt` (both nil:
    /// now), by id.
    static func all(_ db: Database, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [RecurringItem] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM recurring_items WHERE \(BudgetTime.lifecycleInForce) ORDER BY recurring_id"),
            arguments: BudgetTime.lifecycleArguments(asOf: asOf, knownAt: knownAt)
        ).map(from)
    }

    /// Whether an item with this id is defined now.
    static func exists(_ id: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM recurring_items WHERE recurring_id = ? AND ended_recorded_at = ?"),
            arguments: [id, BudgetTime.openEnd]
        ) ?? false
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
}
