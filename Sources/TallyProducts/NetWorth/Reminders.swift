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
