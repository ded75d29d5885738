import TallyEngine
import GRDB

/// What the net worth commands check against the read model: items held now, open reminders.
enum NetWorthRecords {
    /// The currency of an item added and not removed, nil when there is none.
    static func heldItemCurrency(kind: ItemKind, id: String, _ db: Database) throws -> Commodity? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT currency FROM nw_items WHERE kind = ? AND item_id = ? AND removed_at IS NULL"),
                            arguments: [kind.rawValue, id]).map(Commodity.named)
    }

    /// When an item added and not removed was added (its effective time); nil when there is none.
    static func addedAt(kind: ItemKind, id: String, _ db: Database) throws -> Instant? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT added_at FROM nw_items WHERE kind = ? AND item_id = ? AND removed_at IS NULL"),
                           arguments: [kind.rawValue, id]).map(Instant.init(microsecondsSinceEpoch:))
    }

    /// A reminder's version set last (by log order), as done applies to it.
    struct ReminderVersion: Hashable {
        let assetId: String
        let dueDate: LocalDate
        let note: String?
        /// When it takes effect.
        let setAt: Instant
        /// Whether it was marked done.
        let isDone: Bool
    }

    /// The reminder's version set last; nil when the id was never set.
    static func latestReminder(_ reminderId: String, _ db: Database) throws -> ReminderVersion? {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT asset_id, due_date, note, set_at, completed_at FROM nw_reminders WHERE reminder_id = ? ORDER BY sequence DESC LIMIT 1
            """), arguments: [reminderId]).map { row in
            ReminderVersion(assetId: row[NetWorthColumns.assetId], dueDate: LocalDate(daysSinceEpoch: row[NetWorthColumns.dueDate]), note: row[NetWorthColumns.note],
                            setAt: row.instant(NetWorthColumns.setAt), isDone: (row[NetWorthColumns.completedAt] as Int64?) != nil)
        }
    }

    /// The asset's position in force at `instant` (effective time, everything recorded): its
    /// symbol, quantity and cost basis; nil when none was set by then.
    static func position(of assetId: String, inForceAt instant: Instant, _ db: Database) throws -> (quantity: Money, costBasis: Money?)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT symbol, quantity, cost_commodity, cost_amount FROM nw_positions WHERE asset_id = ? AND effective_at <= ?
            ORDER BY effective_at DESC, sequence DESC LIMIT 1
            """), arguments: [assetId, instant.microsecondsSinceEpoch]) else { return nil }
        let quantity = try row.money(NetWorthColumns.quantity, NetWorthColumns.symbol)
        let cost = try (row[NetWorthColumns.costCommodity] as String?).map { Money(minorUnits: row[NetWorthColumns.costAmount], commodity: try Commodity.named($0)) }
        return (quantity, cost)
    }

    /// Whether the reminder's latest version is not done.
    static func isReminderOpen(_ reminderId: String, _ db: Database) throws -> Bool {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT 1 FROM nw_reminders WHERE reminder_id = ? AND completed_at IS NULL
              AND sequence = (SELECT MAX(sequence) FROM nw_reminders WHERE reminder_id = ?)
            """), arguments: [reminderId, reminderId]) != nil
    }
}

enum ReminderQueries {
    /// The open reminders at `point`: of each reminder's versions set by then (effective and
    /// recorded), the latest by effective time then sequence, unless it was done by then.
    static func open(_ db: Database, point: PointInTime, calendar: LedgerCalendar) throws -> [OpenReminder] {
        let day = calendar.date(of: point.asOf)
        let effective = point.effectiveBound
        let recorded = point.recordedBound
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT r.reminder_id, r.asset_id, r.due_date, r.note FROM nw_reminders r
            WHERE r.set_at <= ? AND r.set_recorded_at <= ?
              AND NOT EXISTS (
                  SELECT 1 FROM nw_reminders later
                  WHERE later.reminder_id = r.reminder_id AND later.set_at <= ? AND later.set_recorded_at <= ?
                    AND (later.set_at > r.set_at OR (later.set_at = r.set_at AND later.sequence > r.sequence)))
              AND NOT (r.completed_at IS NOT NULL AND r.completed_at <= ? AND r.completed_recorded_at <= ?)
            ORDER BY r.due_date, r.reminder_id
            """), arguments: [effective, recorded, effective, recorded, effective, recorded]
        ).map { row in
            let due = LocalDate(daysSinceEpoch: row[NetWorthColumns.dueDate])
            return OpenReminder(reminderId: row[NetWorthColumns.reminderId], assetId: row[NetWorthColumns.assetId], dueDate: due, note: row[NetWorthColumns.note], isDue: due <= day)
        }
    }
}
