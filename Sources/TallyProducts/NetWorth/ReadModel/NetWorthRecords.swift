import TallyEngine
import GRDB

/// What the net worth commands check against the read model: items held now, open reminders.
enum NetWorthRecords {
    /// The currency of an item added and not removed, nil when there is none.
    static func heldItemCurrency(kind: ItemKind, id: String, _ db: Database) throws -> Commodity? {
        try String.fetchOne(db, sql: "SELECT currency FROM nw_items WHERE kind = ? AND item_id = ? AND removed_at IS NULL",
                            arguments: [kind.rawValue, id]).map(Commodity.named)
    }

    /// Whether the reminder's latest version is not done.
    static func isReminderOpen(_ reminderId: String, _ db: Database) throws -> Bool {
        try Row.fetchOne(db, sql: """
            SELECT 1 FROM nw_reminders WHERE reminder_id = ? AND completed_at IS NULL
              AND sequence = (SELECT MAX(sequence) FROM nw_reminders WHERE reminder_id = ?)
            """, arguments: [reminderId, reminderId]) != nil
    }
}

enum ReminderQueries {
    /// The open reminders at `point`: of each reminder's versions set by then (effective and
    /// recorded), the latest by effective time then sequence, unless it was done by then.
    static func open(_ db: Database, point: PointInTime, calendar: LedgerCalendar) throws -> [OpenReminder] {
        let day = calendar.date(of: point.asOf)
        let effective = point.effectiveBound
        let recorded = point.recordedBound
        return try Row.fetchAll(db, sql: """
            SELECT r.reminder_id, r.asset_id, r.due_date, r.note FROM nw_reminders r
            WHERE r.set_at <= ? AND r.set_recorded_at <= ?
              AND NOT EXISTS (
                  SELECT 1 FROM nw_reminders later
                  WHERE later.reminder_id = r.reminder_id AND later.set_at <= ? AND later.set_recorded_at <= ?
                    AND (later.set_at > r.set_at OR (later.set_at = r.set_at AND later.sequence > r.sequence)))
              AND NOT (r.completed_at IS NOT NULL AND r.completed_at <= ? AND r.completed_recorded_at <= ?)
            ORDER BY r.due_date, r.reminder_id
            """, arguments: [effective, recorded, effective, recorded, effective, recorded]
        ).map { row in
            let due = LocalDate(daysSinceEpoch: row["due_date"])
            return OpenReminder(reminderId: row["reminder_id"], assetId: row["asset_id"], dueDate: due, note: row["note"], isDue: due <= day)
        }
    }
}
