import ArgumentParser
import Foundation
import Tally

/// Times typed on the command line, one rule for every command: a day `D` (YYYY-MM-DD) is a
/// day in the ledger's time zone. What a write command records with `--date D` takes effect
/// at the start of `D` there; what a read answers for `--as-of D` or `--known-at D` is the end
/// of `D` there (everything dated, or recorded, that day included). An RFC 3339 instant
/// (`2026-05-25T09:30:00Z`) typed instead of a day is that exact instant.
///
/// ```swift
/// // A New York ledger: fx … --date 2026-05-25 applies from 2026-05-25T00:00 America/New_York.
/// let from = try CLITime.start("2026-05-25", option: "--date", calendar: ledger.calendar)
/// ```
enum CLITime {
    /// A time as typed: a day, or an exact instant.
    enum Typed: Equatable {
        case day(LocalDate)
        case instant(Instant)
    }

    /// The help line of a write command's day option.
    static let writeHelp = "D means the start of that day in the ledger's time zone (YYYY-MM-DD), or an RFC 3339 instant"

    /// The help of a write command's `--date D`.
    static var writeOption: ArgumentHelp { writeOption("When it takes effect") }

    /// The help of a write command's day option, saying what the day is (`--from D`: "The
    /// first day it applies").
    static func writeOption(_ what: String) -> ArgumentHelp {
        ArgumentHelp("\(what): \(writeHelp); now when absent.", valueName: "D")
    }

    /// The help line of a read command's day option.
    static let readHelp = "D means the end of that day in the ledger's time zone (YYYY-MM-DD), or an RFC 3339 instant"

    /// Reads a day or an RFC 3339 instant.
    /// - Throws: `ValidationError` naming `option` when the text is neither.
    static func parse(_ text: String, option: String) throws -> Typed {
        if text.count == 10, let day = try? LocalDate(parsing: text) { return .day(day) }
        if let instant = try? Instant(parsing: text) { return .instant(instant) }
        throw ValidationError("\(option) '\(text)' is neither a day (YYYY-MM-DD) nor an RFC 3339 instant (2026-03-31T12:00:00Z)")
    }

    /// The instant a write command's day option means: the start of the day in the ledger's
    /// time zone, or the instant typed.
    static func start(_ text: String, option: String, calendar: LedgerCalendar) throws -> Instant {
        switch try parse(text, option: option) {
        case .day(let day): return calendar.startOfDay(day)
        case .instant(let instant): return instant
        }
    }

    /// The instant a read command's day option means: the last microsecond of the day in the
    /// ledger's time zone, or the instant typed.
    static func end(_ text: String, option: String, calendar: LedgerCalendar) throws -> Instant {
        switch try parse(text, option: option) {
        case .day(let day): return calendar.endOfDay(day)
        case .instant(let instant): return instant
        }
    }

    /// The effective time of a write command: `nil` (now) without the option, else
    /// ``start(_:option:calendar:)`` in the ledger's calendar.
    static func effective(_ text: String?, option: String = "--date", ledger: Ledger) throws -> Instant? {
        try text.map { try start($0, option: option, calendar: ledger.calendar) }
    }

    /// The value of a day option that has an older, hidden name (`--at` for `--date`): either
    /// one, not two different values.
    static func either(_ text: String?, _ option: String, or old: String?, _ oldOption: String) throws -> String? {
        if let text, let old, text != old {
            throw ValidationError("give \(option) (\(oldOption) is its old name), not both: \(option) '\(text)', \(oldOption) '\(old)'")
        }
        if old != nil {
            Output.note("note: \(oldOption) is the old name of \(option); it still works, \(option) is the one to write\n")
        }
        return text ?? old
    }
}
