public import TallyEngine
/// One interval of an envelope: the days its budgeted amount covers, both ends inclusive.
///
/// ```swift
/// let march = EnvelopePeriod(first: try LocalDate(parsing: "2026-03-01"), last: try LocalDate(parsing: "2026-03-31"))
/// march.contains(try LocalDate(parsing: "2026-03-15"))   // true
/// ```
public struct EnvelopePeriod: Hashable, Sendable, CustomStringConvertible {
    /// The first day of the interval.
    public let first: LocalDate
    /// The last day of the interval; nil for a one-time envelope, which runs forever.
    public let last: LocalDate?

    /// An interval from `first` through `last` (nil: forever).
    public init(first: LocalDate, last: LocalDate?) {
        self.first = first
        self.last = last
    }

    /// Whether a day falls in the interval.
    public func contains(_ date: LocalDate) -> Bool {
        date >= first && (last.map { date <= $0 } ?? true)
    }

    /// `2026-03-01..2026-03-31`, or `2026-03-01..` for one that runs forever.
    public var description: String { "\(first)..\(last.map(String.init(describing:)) ?? "")" }
}

/// The interval arithmetic of envelopes, in one place (docs/domain.md §3).
///
/// - weekly and bi-weekly intervals are 7 and 14 days anchored at the envelope's start
///   date (a Wednesday start gives Wednesday-to-Tuesday weeks);
/// - monthly intervals are calendar months of the ledger's time zone (dates are already
///   local days); the first one starts on the start date;
/// - a one-time envelope has one interval, from its start date on, forever.
///
/// A change of interval (`envelope_budget_changed` with another interval) re-anchors the
/// schedule on the day of the change: the interval running then ends the day before, and
/// the new intervals count from the change day.
///
/// ```swift
/// let schedule = EnvelopeSchedule(start: start, interval: .weekly)
/// let period = schedule.period(containing: today)   // the week today is in
/// ```
public struct EnvelopeSchedule: Hashable, Sendable {
    /// A stretch of days on one interval, from its anchor to the day before the next one.
    struct Segment: Hashable, Sendable {
        let anchor: LocalDate
        let interval: EnvelopeInterval
    }

    /// Segments in date order; the first anchor is the envelope's start date.
    private(set) var segments: [Segment]

    /// A schedule starting on `start` with one interval.
    public init(start: LocalDate, interval: EnvelopeInterval) {
        segments = [Segment(anchor: start, interval: interval)]
    }

    /// The envelope's first day.
    public var start: LocalDate { segments[0].anchor }

    /// Switches to `interval` from `date` on (a date before the start switches from the
    /// start). The same interval changes nothing.
    public mutating func change(to interval: EnvelopeInterval, from date: LocalDate) {
        let anchor = max(date, start)
        // Changes arrive in date order; a second change on the same day replaces the first.
        segments.removeAll { $0.anchor >= anchor }
        if let previous = segments.last, previous.interval == interval { return }
        segments.append(Segment(anchor: anchor, interval: interval))
    }

    /// The interval containing `date`, or nil before the start date.
    public func period(containing date: LocalDate) -> EnvelopePeriod? {
        guard date >= start else { return nil }
        let index = segments.lastIndex { $0.anchor <= date }!
        let segment = segments[index]
        let segmentLast = index + 1 < segments.count ? segments[index + 1].anchor.adding(days: -1) : nil
        func clipped(_ first: LocalDate, _ last: LocalDate?) -> EnvelopePeriod {
            guard let segmentLast else { return EnvelopePeriod(first: first, last: last) }
            return EnvelopePeriod(first: first, last: last.map { min($0, segmentLast) } ?? segmentLast)
        }
        switch segment.interval {
        case .weekly, .biweekly:
            let length = segment.interval == .weekly ? 7 : 14
            let first = segment.anchor.adding(days: (date.daysSinceEpoch - segment.anchor.daysSinceEpoch) / length * length)
            return clipped(first, first.adding(days: length - 1))
        case .monthly:
            let month = date.month
            return clipped(max(month.firstDay, segment.anchor), month.lastDay)
        case .oneTime:
            return clipped(segment.anchor, nil)
        }
    }

    /// Every interval from the start through the one containing `date`, in order.
    public func periods(through date: LocalDate) -> [EnvelopePeriod] {
        var result: [EnvelopePeriod] = []
        var next = period(containing: start)
        while let period = next, period.first <= date {
            result.append(period)
            guard let last = period.last else { break }
            next = self.period(containing: last.adding(days: 1))
        }
        return result
    }
}
