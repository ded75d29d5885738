import TallyEngine
import GRDB

/// The statements of the recurring items read model (`recurring_items`).
extension RecurringItem {
    static func from(_ row: Row) throws -> RecurringItem {
        RecurringItem(
            id: row[RecurringColumns.recurringId], payee: row[RecurringColumns.payee], category: try category(row[RecurringColumns.category], of: row[RecurringColumns.recurringId]),
            amount: try row.money(RecurringColumns.amount, RecurringColumns.commodity),
            frequency: try frequency(row[RecurringColumns.frequency], of: row[RecurringColumns.recurringId]), dayOfMonth: row[RecurringColumns.dayOfMonth],
            startMonth: Month(ordinal: row[RecurringColumns.startMonth]), endMonth: (row[RecurringColumns.endMonth] as Int?).map(Month.init(ordinal:))
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

    private static func category(_ name: String, of id: String) throws -> BudgetCategory {
        guard let category = BudgetCategory(rawValue: name) else {
            throw LedgerError(.inconsistentLog, "recurring item '\(id)' has the category '\(name)', which is no budget category; run tally rebuild")
        }
        return category
    }

    private static func frequency(_ name: String, of id: String) throws -> RecurringFrequency {
        guard let frequency = RecurringFrequency(rawValue: name) else {
            throw LedgerError(.inconsistentLog, "recurring item '\(id)' has the frequency '\(name)', which is no frequency; run tally rebuild")
        }
        return frequency
    }
}

extension RecurringRules {
    /// The item's generated occurrence for the month if not deleted, else the first
    /// transaction of the month with the same payee (ignoring case) and amount; as known
    /// at `knownAt`.
    static func matchingTransaction(
        for item: RecurringItem, month: Month, range: ClosedRange<Int64>, knownAt: Instant?, _ db: Database
    ) throws -> String? {
        let known = BudgetTime.versionArguments(knownAt: knownAt)
        if let generated = try String.fetchOne(
            db.cachedStatement(sql: """
                SELECT transaction_id FROM budget_transaction_versions
                WHERE recurring_id = ? AND recurring_month = ? AND \(BudgetTransaction.visible)
                """),
            arguments: [item.id, month.ordinal] + known
        ) {
            return generated
        }
        return try String.fetchOne(
            db.cachedStatement(sql: """
                SELECT transaction_id FROM budget_transaction_versions
                WHERE effective_at >= ? AND effective_at <= ? AND payee_key = ? AND commodity = ? AND amount = ?
                  AND \(BudgetTransaction.visible)
                ORDER BY effective_at, recorded_sequence LIMIT 1
                """),
            arguments: [range.lowerBound, range.upperBound, item.payee.lowercased(), item.amount.commodity.code, item.amount.minorUnits] + known
        )
    }
}
