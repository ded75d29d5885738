public import TallyEngine
import GRDB

/// A reminder to update an asset's value that is open (set, and not done) at a point in time.
public struct OpenReminder: Hashable, Sendable {
    /// The reminder's id, as `reminder set` gave it.
    public let reminderId: String
    /// The asset whose value to update.
    public let assetId: String
    /// The day it falls due, in the version in force at the point asked about.
    public let dueDate: LocalDate
    /// The note it was set with, if any.
    public let note: String?
    /// True when its due date is on or before the day asked about.
    public let isDue: Bool
}

extension Ledger {
    /// The reminders open at the end of `asOf` (now when absent), as known at `knownAt`: set
    /// by then and not done by then, by due date. A reminder set again under the same id
    /// answers with the version in force at that moment.
    ///
    /// ```swift
    /// let due = try ledger.reminders().filter(\.isDue)
    /// let then = try ledger.reminders(asOf: ledger.calendar.endOfDay(march31), knownAt: fifthOfApril)
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the moment asked about; a reminder is due when its date is on or before
    ///     that moment's day in the ledger's time zone.
    ///   - knownAt: count only what the ledger had recorded by this instant (default: all).
    public func reminders(asOf: Instant? = nil, knownAt: Instant? = nil) throws -> [OpenReminder] {
        let point = PointInTime(asOf: asOf ?? now, knownAt: knownAt)
        let calendar = self.calendar
        return try read { db in try ReminderQueries.open(db, point: point, calendar: calendar) }
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
