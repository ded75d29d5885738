import Tally

/// The service's one rule for times, the CLI's: a day `YYYY-MM-DD` is a day in the ledger's
/// time zone (a write takes effect at its start, a read answers for its end); an RFC 3339
/// instant is that instant.
enum TimeParameters {
    enum Typed {
        case day(LocalDate)
        case instant(Instant)
    }

    static func parse(_ text: String, field: String, inQuery: Bool) throws -> Typed {
        if text.utf8.count == 10, let day = try? LocalDate(parsing: text) { return .day(day) }
        if let instant = try? Instant(parsing: text) { return .instant(instant) }
        let detail = "'\(field)' is '\(text)': neither a day (YYYY-MM-DD) nor an RFC 3339 instant (2026-03-31T12:00:00Z)"
        throw inQuery ? Problem.invalidParameter(field, detail) : Problem.invalidField(field, detail)
    }

    /// `as_of`: the end of that day (or the instant); without it the end of today in the
    /// ledger's time zone, as the CLI answers (what is dated later shows only when asked for).
    static func asOf(_ text: String?, _ ledger: Ledger) throws -> Instant {
        guard let text else { return ledger.calendar.endOfDay(ledger.calendar.date(of: ledger.now)) }
        switch try parse(text, field: "as_of", inQuery: true) {
        case .day(let day): return ledger.calendar.endOfDay(day)
        case .instant(let instant): return instant
        }
    }

    /// `known_at`: what the ledger had recorded by the end of that day (or by the instant).
    static func knownAt(_ text: String?, _ ledger: Ledger) throws -> Instant? {
        guard let text else { return nil }
        switch try parse(text, field: "known_at", inQuery: true) {
        case .day(let day): return ledger.calendar.endOfDay(day)
        case .instant(let instant): return instant
        }
    }

    /// A day parameter (`from`, `through`).
    static func day(_ text: String?, field: String) throws -> LocalDate? {
        guard let text else { return nil }
        guard let day = try? LocalDate(parsing: text) else {
            throw Problem.invalidParameter(field, "'\(field)' is '\(text)', not a day (YYYY-MM-DD)")
        }
        return day
    }

    /// A command's `effective_at`: the start of the day, or the instant; a day after today in
    /// the ledger's time zone is refused (the ledger records what happened).
    static func effectiveAt(_ text: String?, _ ledger: Ledger) throws -> Instant? {
        guard let text else { return nil }
        let instant: Instant = switch try parse(text, field: "effective_at", inQuery: false) {
        case .day(let day): ledger.calendar.startOfDay(day)
        case .instant(let instant): instant
        }
        guard ledger.calendar.date(of: instant) <= ledger.calendar.date(of: ledger.now) else {
            throw Problem.invalidField("effective_at", "'effective_at' \(text) is in the future; the ledger records what happened")
        }
        return instant
    }
}
