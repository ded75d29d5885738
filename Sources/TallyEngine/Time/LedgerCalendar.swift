internal import Foundation

/// Days in the ledger's time zone: "as of 31 March" means through the last microsecond of
/// 31 March there, and a transaction's date is the day its instant falls on there.
public struct LedgerCalendar: Hashable, Sendable {
    /// The IANA identifier, e.g. `Europe/London`.
    public let timeZoneIdentifier: String
    private let timeZone: TimeZone

    /// - Throws: ``EventCodingError`` (`invalidValue`) for an unknown identifier.
    public init(timeZoneIdentifier: String) throws {
        guard let zone = TimeZone(identifier: timeZoneIdentifier) else {
            throw EventCodingError(.invalidValue, "'\(timeZoneIdentifier)' is not an IANA time zone (e.g. Europe/London, America/New_York, UTC)")
        }
        self.timeZoneIdentifier = timeZoneIdentifier
        self.timeZone = zone
    }

    /// The calendar of UTC days.
    public static let utc = try! LedgerCalendar(timeZoneIdentifier: "UTC")  // UTC always exists

    public static func == (lhs: LedgerCalendar, rhs: LedgerCalendar) -> Bool { lhs.timeZoneIdentifier == rhs.timeZoneIdentifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(timeZoneIdentifier) }

    /// Seconds east of UTC at an instant.
    private func offsetSeconds(at instant: Instant) -> Int64 {
        let seconds = instant.microsecondsSinceEpoch / 1_000_000
        return Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
    }

    /// The first instant of a day in the ledger's time zone.
    public func startOfDay(_ date: LocalDate) -> Instant {
        let localMidnight = Int64(date.daysSinceEpoch) * 86_400
        // Two passes settle days that start in a different offset than the one before.
        var guess = localMidnight - offsetSeconds(at: Instant(microsecondsSinceEpoch: localMidnight * 1_000_000))
        guess = localMidnight - offsetSeconds(at: Instant(microsecondsSinceEpoch: guess * 1_000_000))
        return Instant(microsecondsSinceEpoch: guess * 1_000_000)
    }

    /// The instant a wall-clock time of a day shows in the ledger's time zone, e.g. 09:30 of
    /// a day as `secondsIntoDay` 34 200. A time skipped by a clock change reads as the same
    /// wall time in the offset before it.
    public func instant(of date: LocalDate, secondsIntoDay seconds: Int64) -> Instant {
        let local = Int64(date.daysSinceEpoch) * 86_400 + seconds
        var guess = local - offsetSeconds(at: Instant(microsecondsSinceEpoch: local * 1_000_000))
        guess = local - offsetSeconds(at: Instant(microsecondsSinceEpoch: guess * 1_000_000))
        return Instant(microsecondsSinceEpoch: guess * 1_000_000)
    }

    /// The last microsecond of a day in the ledger's time zone (inclusive bound of "as of").
    public func endOfDay(_ date: LocalDate) -> Instant {
        Instant(microsecondsSinceEpoch: startOfDay(date.adding(days: 1)).microsecondsSinceEpoch - 1)
    }

    /// The day an instant falls on in the ledger's time zone.
    public func date(of instant: Instant) -> LocalDate {
        let local = instant.microsecondsSinceEpoch + offsetSeconds(at: instant) * 1_000_000
        return Instant(microsecondsSinceEpoch: local).utcDate
    }

    /// The month an instant falls in, in the ledger's time zone.
    public func month(of instant: Instant) -> Month { date(of: instant).month }
}
