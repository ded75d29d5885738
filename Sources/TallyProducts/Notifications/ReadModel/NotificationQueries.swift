import TallyEngine
import GRDB

/// A deposit as the notifications read model holds it at a point in time: its split only
/// when the split is in force then.
struct DepositRecord {
    let sequence: UInt64
    let account: String
    let amount: Money
    let source: String
    let effectiveAt: Instant
    let split: (sequence: UInt64, spend: Money, invest: Money, spendWeight: Int64, investWeight: Int64)?
}

/// One expense of a budget category, in its version in force.
struct CategoryExpense {
    let sequence: UInt64
    let payee: String
    let amount: Money
    let effectiveAt: Instant
}

/// A budget's version in force, with the event that set it.
struct BudgetVersion {
    let month: Month
    let category: BudgetCategory
    let sequence: UInt64
    let maximum: Money
}

/// A reminder's version in force at a point in time, done or not.
struct ReminderVersion {
    let reminderId: String
    let assetId: String
    let dueDate: LocalDate
    let note: String?
    let sequence: UInt64
    /// When it was done, as known at the point; nil while open.
    let completedAt: Instant?
}

/// A challenge's steps as completed by a point in time, each step once (its first completion).
struct ChallengeMilestoneSteps {
    let challengeId: String
    let name: String
    let stepCount: Int
    let sequence: UInt64
    /// In the order they were completed: effective time, then sequence.
    let steps: [(step: Int, amount: Money, effectiveAt: Instant, sequence: UInt64)]
}

/// The statements the notification rules read: the notifications read model's own table
/// and, read only, the products' read models (docs/notifications.md).
enum NotificationQueries {
    /// The deposits effective by `point.asOf` as known at `point.knownAt`, less those reversed by then.
    static func deposits(_ db: Database, point: PointInTime) throws -> [DepositRecord] {
        let effective = point.effectiveBound
        let recorded = point.recordedBound
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM notification_deposits
            WHERE effective_at <= ? AND recorded_at <= ?
              AND NOT (reversed_sequence IS NOT NULL AND reversed_effective_at <= ? AND reversed_recorded_at <= ?)
            ORDER BY effective_at, sequence
            """), arguments: [effective, recorded, effective, recorded]).map { row in
            let commodity = try Commodity.named(row[NotificationColumns.commodity])
            let money = { (units: Int64) in Money(minorUnits: units, commodity: commodity) }
            var split: DepositRecord.Split?
            if let sequence: Int64 = row[NotificationColumns.splitSequence],
               let at: Int64 = row[NotificationColumns.splitEffectiveAt], let known: Int64 = row[NotificationColumns.splitRecordedAt],
               at <= effective, known <= recorded {
                split = (UInt64(sequence), money(row[NotificationColumns.spend]), money(row[NotificationColumns.invest]),
                         row[NotificationColumns.spendWeight], row[NotificationColumns.investWeight])
            }
            return DepositRecord(
                sequence: UInt64(row[NotificationColumns.sequence] as Int64), account: row[NotificationColumns.account],
                amount: money(row[NotificationColumns.amount]), source: row[NotificationColumns.source],
                effectiveAt: Instant(microsecondsSinceEpoch: row[NotificationColumns.effectiveAt]), split: split
            )
        }
    }

    /// The round-ups applied (less those reversed) in an account and currency from `first`
    /// through `last`, as known at `knownAt`: the wealth read model's history rows.
    static func roundUps(_ db: Database, account: String, commodity: Commodity, from first: Instant, through last: Instant,
                         knownAt: Instant?) throws -> Money {
        let total = try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT COALESCE(SUM(CASE kind WHEN 'round_up' THEN amount ELSE -amount END), 0) FROM wealth_history
            WHERE account = ? AND commodity = ? AND effective_at BETWEEN ? AND ? AND recorded_at <= ?
              AND (kind = 'round_up' OR (kind = 'reversal' AND detail = 'round_up'))
            """), arguments: [account, commodity.code, first.microsecondsSinceEpoch, last.microsecondsSinceEpoch,
                              (knownAt ?? .latest).microsecondsSinceEpoch]) ?? 0
        return Money(minorUnits: total, commodity: commodity)
    }

    /// The budgets in force as known at `knownAt` for months through `last`, by month and category.
    static func budgets(_ db: Database, through last: Month, knownAt: Instant?) throws -> [BudgetVersion] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT month, category, set_sequence, commodity, maximum FROM budgets
            WHERE month <= ? AND \(BudgetTime.versionInForce) ORDER BY month, category
            """), arguments: [last.ordinal] + BudgetTime.versionArguments(knownAt: knownAt)).map { row in
            BudgetVersion(month: Month(ordinal: row[NotificationColumns.month]), category: try row.kind(BudgetColumns.category),
                          sequence: UInt64(row[NotificationColumns.setSequence] as Int64),
                          maximum: try row.money(BudgetColumns.maximum, BudgetColumns.commodity))
        }
    }

    /// A category's expenses in `commodity` effective from `first` through `last` (both
    /// microseconds, inclusive) in their versions in force as known at `knownAt`, in date
    /// then log order.
    static func expenses(_ db: Database, category: BudgetCategory, commodity: Commodity, from first: Int64, through last: Int64,
                         knownAt: Instant?) throws -> [CategoryExpense] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT sequence, payee, amount, effective_at FROM budget_transaction_versions
            WHERE category = ? AND effective_at >= ? AND effective_at <= ? AND amount < 0 AND commodity = ?
              AND \(BudgetTransaction.visible)
            ORDER BY effective_at, recorded_sequence
            """), arguments: [category.rawValue, first, last, commodity.code] + BudgetTime.versionArguments(knownAt: knownAt)).map { row in
            CategoryExpense(sequence: UInt64(row[NotificationColumns.sequence] as Int64), payee: row[NotificationColumns.payee],
                            amount: Money(minorUnits: row[NotificationColumns.amount], commodity: commodity),
                            effectiveAt: Instant(microsecondsSinceEpoch: row[NotificationColumns.effectiveAt]))
        }
    }

    /// The recurring items defined and not removed at `point`, with the event that defined each.
    /// A bank's connection, consent or disconnection (`notification_bank_changes`).
    struct BankChange {
        enum Change: String { case connected, consent, disconnected }
        let sequence: UInt64
        let bankId: String
        let change: Change
        let name: String?
        let expiresOn: LocalDate?
        let effectiveAt: Instant
    }

    /// Every bank change recorded by `point`'s recorded bound (any effective time: the rule
    /// judges them), by bank, in log order.
    static func bankChanges(_ db: Database, point: PointInTime) throws -> [BankChange] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT sequence, bank_id, change, name, expires_on, effective_at FROM notification_bank_changes
            WHERE recorded_at <= ? ORDER BY bank_id, sequence
            """), arguments: [point.recordedBound]).map { row in
            let change: String = row[NotificationColumns.change]
            guard let kind = BankChange.Change(rawValue: change) else {
                throw LedgerError(.inconsistentLog, "notification_bank_changes holds an unknown change '\(change)'")
            }
            return BankChange(
                sequence: UInt64(row[NotificationColumns.sequence] as Int64), bankId: row[NotificationColumns.bankId], change: kind, name: row[NotificationColumns.name],
                expiresOn: try (row[NotificationColumns.expiresOn] as String?).map { try LocalDate(parsing: $0) },
                effectiveAt: Instant(microsecondsSinceEpoch: row[NotificationColumns.effectiveAt]))
        }
    }

    static func recurringItems(_ db: Database, point: PointInTime) throws -> [(item: RecurringItem, sequence: UInt64)] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM recurring_items WHERE \(BudgetTime.lifecycleInForce) ORDER BY recurring_id"),
            arguments: BudgetTime.lifecycleArguments(asOf: point.asOf, knownAt: point.knownAt)
        ).map { row in (try RecurringItem.from(row), UInt64(row[NotificationColumns.definedSequence] as Int64)) }
    }

    /// The payment of a recurring item in a month effective by `through`, as known at
    /// `knownAt`: its generated occurrence, else the month's first transaction with the same
    /// payee (ignoring case) and amount (the rule of ``RecurringRules``), as its date and event.
    static func payment(of item: RecurringItem, month: Month, calendar: LedgerCalendar, through: Instant,
                        knownAt: Instant?, _ db: Database) throws -> (effectiveAt: Instant, sequence: UInt64)? {
        let range = BudgetQueries.range(of: month, calendar)
        let upper = min(range.upperBound, through.microsecondsSinceEpoch)
        let known = BudgetTime.versionArguments(knownAt: knownAt)
        let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT effective_at, sequence FROM budget_transaction_versions
            WHERE recurring_id = ? AND recurring_month = ? AND effective_at <= ? AND \(BudgetTransaction.visible)
            """), arguments: [item.id, month.ordinal, through.microsecondsSinceEpoch] + known)
            ?? Row.fetchOne(db.cachedStatement(sql: """
            SELECT effective_at, sequence FROM budget_transaction_versions
            WHERE effective_at >= ? AND effective_at <= ? AND payee_key = ? AND commodity = ? AND amount = ?
              AND \(BudgetTransaction.visible)
            ORDER BY effective_at, recorded_sequence LIMIT 1
            """), arguments: [range.lowerBound, upper, item.payee.lowercased(), item.amount.commodity.code, item.amount.minorUnits] + known)
        return row.map { (Instant(microsecondsSinceEpoch: $0[NotificationColumns.effectiveAt]), UInt64($0[NotificationColumns.sequence] as Int64)) }
    }

    /// Each reminder's version in force at `point` (the latest set by then, by effective
    /// time then sequence), with its completion when done by then.
    static func reminders(_ db: Database, point: PointInTime) throws -> [ReminderVersion] {
        let effective = point.effectiveBound
        let recorded = point.recordedBound
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT r.reminder_id, r.asset_id, r.due_date, r.note, r.sequence, r.completed_at, r.completed_recorded_at FROM nw_reminders r
            WHERE r.set_at <= ? AND r.set_recorded_at <= ?
              AND NOT EXISTS (
                  SELECT 1 FROM nw_reminders later
                  WHERE later.reminder_id = r.reminder_id AND later.set_at <= ? AND later.set_recorded_at <= ?
                    AND (later.set_at > r.set_at OR (later.set_at = r.set_at AND later.sequence > r.sequence)))
            ORDER BY r.due_date, r.reminder_id
            """), arguments: [effective, recorded, effective, recorded]).map { row in
            var completedAt: Instant?
            if let at: Int64 = row[NotificationColumns.completedAt], let known: Int64 = row[NotificationColumns.completedRecordedAt],
               at <= effective, known <= recorded {
                completedAt = Instant(microsecondsSinceEpoch: at)
            }
            return ReminderVersion(
                reminderId: row[NetWorthColumns.reminderId], assetId: row[NetWorthColumns.assetId],
                dueDate: LocalDate(daysSinceEpoch: row[NetWorthColumns.dueDate]), note: row[NetWorthColumns.note],
                sequence: UInt64(row[NotificationColumns.sequence] as Int64), completedAt: completedAt
            )
        }
    }

    /// Every challenge started by `point` with its steps completed by then, each step once.
    static func challenges(_ db: Database, point: PointInTime) throws -> [ChallengeMilestoneSteps] {
        let arguments: StatementArguments = [point.effectiveBound, point.recordedBound]
        let started = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT challenge_id, name, step_count, sequence FROM challenges WHERE effective_at <= ? AND recorded_at <= ? ORDER BY challenge_id
            """), arguments: arguments)
        return try started.map { row in
            let id: String = row[ChallengeColumns.challengeId]
            var seen = Set<Int>()
            let steps = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT sequence, step, commodity, amount, effective_at FROM challenge_steps
                WHERE challenge_id = ? AND effective_at <= ? AND recorded_at <= ? ORDER BY sequence
                """), arguments: [id] + arguments).compactMap { step -> (step: Int, amount: Money, effectiveAt: Instant, sequence: UInt64)? in
                // The first completion of a step counts, as in ``ChallengeBook``.
                guard seen.insert(step[ChallengeColumns.step]).inserted else { return nil }
                return (step[ChallengeColumns.step], try step.money(ChallengeColumns.amount, ChallengeColumns.commodity),
                        Instant(microsecondsSinceEpoch: step[NotificationColumns.effectiveAt]), UInt64(step[NotificationColumns.sequence] as Int64))
            }.sorted { ($0.effectiveAt, $0.sequence) < ($1.effectiveAt, $1.sequence) }
            return ChallengeMilestoneSteps(challengeId: id, name: row[ChallengeColumns.name], stepCount: row[ChallengeColumns.stepCount],
                                     sequence: UInt64(row[NotificationColumns.sequence] as Int64), steps: steps)
        }
    }

    /// The event that gave a value at `valuedAt`: the price of `symbol`, or the item's live
    /// valuation, recorded by `knownAt`.
    static func valueSequence(_ db: Database, kind: ItemKind, itemId: String, symbol: String?, valuedAt: Instant,
                              knownAt: Instant?) throws -> UInt64? {
        let known = (knownAt ?? .latest).microsecondsSinceEpoch
        let sequence: Int64? = if let symbol {
            try Int64.fetchOne(db.cachedStatement(sql: """
                SELECT MAX(sequence) FROM nw_prices WHERE symbol = ? AND effective_at = ? AND recorded_at <= ?
                """), arguments: [symbol, valuedAt.microsecondsSinceEpoch, known])
        } else {
            try Int64.fetchOne(db.cachedStatement(sql: """
                SELECT MAX(sequence) FROM nw_valuations WHERE kind = ? AND item_id = ? AND effective_at = ? AND recorded_at <= ?
                """), arguments: [kind.rawValue, itemId, valuedAt.microsecondsSinceEpoch, known])
        }
        return sequence.map(UInt64.init)
    }
}

extension DepositRecord {
    /// A split's sequence, parts and weights.
    typealias Split = (sequence: UInt64, spend: Money, invest: Money, spendWeight: Int64, investWeight: Int64)
}

/// The columns the notification statements read, by name.
enum NotificationColumns {
    static let account = Column("account")
    static let amount = Column("amount")
    static let bankId = Column("bank_id")
    static let change = Column("change")
    static let commodity = Column("commodity")
    static let completedAt = Column("completed_at")
    static let completedRecordedAt = Column("completed_recorded_at")
    static let definedSequence = Column("defined_sequence")
    static let effectiveAt = Column("effective_at")
    static let expiresOn = Column("expires_on")
    static let invest = Column("invest")
    static let investWeight = Column("invest_weight")
    static let month = Column("month")
    static let name = Column("name")
    static let payee = Column("payee")
    static let sequence = Column("sequence")
    static let setSequence = Column("set_sequence")
    static let source = Column("source")
    static let spend = Column("spend")
    static let spendWeight = Column("spend_weight")
    static let splitEffectiveAt = Column("split_effective_at")
    static let splitRecordedAt = Column("split_recorded_at")
    static let splitSequence = Column("split_sequence")
}
