import ArgumentParser
import Foundation
import Tally

extension StoreOptions {
    /// Opens the store's ledger for commands and queries (the writer lock is held until closed).
    func openLedger() throws -> Ledger { CommittedWrites.track(try Ledger.open(at: path, options: try ledgerOptions(.commandLine))) }

    /// Opens the store's ledger for reading: no writer lock (``Ledger/openForReading(at:options:)``).
    func openLedgerForReading() throws -> Ledger { try Ledger.openForReading(at: path, options: try ledgerOptions(.commandLine)) }

    /// Opens the store's ledger for reading (no writer lock: any number run beside a writer),
    /// runs `body`, closes it.
    func withReadingLedger<T>(_ body: (Ledger) throws -> T) throws -> T {
        let ledger = try openLedgerForReading()
        defer { try? ledger.close() }
        return try body(ledger)
    }

    /// Opens the store's ledger, runs `body`, closes it; a failure to close is an error too
    /// (a command's commit is durable already by then).
    func withLedger<T>(_ body: (Ledger) throws -> T) throws -> T {
        let ledger = try openLedger()
        let result: T
        do {
            result = try body(ledger)
        } catch {
            try? ledger.close()
            throw error
        }
        try ledger.close()
        return result
    }
}

/// The point in time a read command answers for: `--as-of D` (the end of that whole day in
/// the ledger's time zone, or an exact RFC 3339 instant; a read about days uses the
/// instant's day there) and `--known-at D` (what the ledger knew by the end of that day
/// there, or at an exact RFC 3339 instant). Without `--as-of`, every read answers as of
/// today (the end of today in the ledger's time zone): what is dated later appears only
/// when asked for, by a later `--as-of` or by `--include-future`.
struct TimeTravelOptions: ParsableArguments {
    @Option(name: .customLong("as-of"), help: ArgumentHelp("Answer as of this moment; \(CLITime.readHelp). Default: today.", valueName: "D"))
    var asOf: String?

    @Flag(name: .customLong("include-future"), help: "Without --as-of, count what is dated after today too (default: answer as of today).")
    var includeFuture = false

    @Option(name: .customLong("known-at"), help: ArgumentHelp("Answer as the ledger knew it then; \(CLITime.readHelp).", valueName: "D"))
    var knownAt: String?

    /// Checks both values before any store is opened, so a bad one names its option.
    func validate() throws {
        if includeFuture && asOf != nil { throw ValidationError("give --as-of D or --include-future, not both") }
        _ = try asOf.map { try CLITime.parse($0, option: "--as-of") }
        _ = try knownAt.map { try CLITime.parse($0, option: "--known-at") }
    }

    /// The `--as-of` day in `calendar` (the ledger's), when given: the day typed, or the day
    /// of the instant typed.
    func asOfDate(calendar: LedgerCalendar) throws -> LocalDate? {
        switch try asOf.map({ try CLITime.parse($0, option: "--as-of") }) {
        case .day(let day)?: day
        case .instant(let instant)?: calendar.date(of: instant)
        case nil: nil
        }
    }

    /// The end of the `--as-of` day in the ledger's time zone; without it the end of today
    /// there (one "now" for every read), or nil (everything, future-dated included) with
    /// `--include-future`.
    func asOfInstant(_ ledger: Ledger) throws -> Instant? {
        if let asOf { return try CLITime.end(asOf, option: "--as-of", calendar: ledger.calendar) }
        return includeFuture ? nil : ledger.calendar.endOfDay(ledger.calendar.date(of: ledger.now))
    }

    /// The `--as-of` day, else today in the ledger's time zone: for answers that are about
    /// "today" by nature (an envelope's current interval, reminders due).
    func asOfDateOrToday(_ ledger: Ledger) throws -> LocalDate {
        try asOfDate(calendar: ledger.calendar) ?? ledger.calendar.date(of: ledger.now)
    }

    /// The `--known-at` instant, when given: a day's end in the ledger's time zone, or the
    /// instant typed.
    func knownAtInstant(_ ledger: Ledger) throws -> Instant? {
        try knownAtInstant(calendar: ledger.calendar)
    }

    /// The `--known-at` instant in `calendar` (for commands that read the log without a `Ledger`).
    func knownAtInstant(calendar: LedgerCalendar) throws -> Instant? {
        try knownAt.map { try CLITime.end($0, option: "--known-at", calendar: calendar) }
    }

    /// The month a per-month read answers for: `--month`, else the month of `--as-of`, else
    /// today's month in the ledger's time zone (one "today" for every read); given both, the
    /// day must fall in the month.
    func month(_ text: String?, _ ledger: Ledger) throws -> Month {
        let day = try asOfDate(calendar: ledger.calendar)
        guard let text else {
            return (day ?? ledger.calendar.date(of: ledger.now)).month
        }
        let month = try CLIParse.month(text, option: "--month")
        if let day, day.month != month {
            throw ValidationError("--as-of \(day) is not in --month \(month); give a day of that month, or one of the two")
        }
        return month
    }

    /// The instant a per-month read of `month` answers for (issue 32, rule 4: one "today"):
    /// the end of the `--as-of` day; for a past month its end; for the month in progress
    /// the end of today, or its end with `--include-future`; a month after today's is
    /// refused unless `--include-future` (then its end: balances and flows of one moment,
    /// never today's balance beside that month's flows) or `refusesFuture` is false (then nil).
    func monthInstant(_ month: Month, _ ledger: Ledger, refusesFuture: Bool) throws -> Instant? {
        let calendar = ledger.calendar
        if let day = try asOfDate(calendar: calendar) {
            if refusesFuture, day.month > calendar.date(of: ledger.now).month {
                throw ValidationError("--as-of \(day) is in a month after today's (\(calendar.date(of: ledger.now))); give --month \(day.month) --include-future to see that month's scheduled flows")
            }
            return try asOfInstant(ledger)
        }
        let today = calendar.date(of: ledger.now)
        let end = calendar.endOfDay(month.lastDay)
        if month < today.month { return end }
        if month == today.month { return includeFuture ? end : calendar.endOfDay(today) }
        if includeFuture { return end }
        guard !refusesFuture else {
            throw ValidationError("\(month) is after today's month (today is \(today) in the ledger's time zone); give --include-future to see its scheduled flows")
        }
        return nil
    }

    /// The day of a command whose own day option (`--to`, `--until`, `--today`,
    /// `--through`) means what `--as-of` means: whichever of the two was given, else
    /// `fallback`; both at once is refused. An `--as-of` instant gives its day in `calendar`
    /// (the ledger's; a check before the store is open gives any calendar, for the refusals).
    func day(_ text: String?, option: String, calendar: LedgerCalendar, fallback: () -> LocalDate? = { nil }) throws -> LocalDate? {
        if text != nil && asOf != nil { throw ValidationError("give \(option) or --as-of, not both") }
        return try text.map { try CLIParse.date($0, option: option) } ?? asOfDate(calendar: calendar) ?? fallback()
    }
}

/// Parsing of amounts, currencies and dates typed on the command line.
enum CLIParse {
    static func commodity(_ code: String, option: String = "--currency") throws -> Commodity {
        do { return try Commodity.named(code) } catch { throw ValidationError("\(option): \(error)") }
    }

    /// A currency code by the ledger's one rule (``Ledger/currency(_:)``: ISO 4217, built in,
    /// or declared): every command refuses an unknown code with the same message.
    /// A malformed code is refused naming `option`.
    static func currency(_ code: String, _ ledger: Ledger, option: String = "--currency") throws -> Commodity {
        do { _ = try Commodity.named(code) } catch { throw ValidationError("\(option) '\(code)': \(error)") }
        return try ledger.currency(code)
    }

    /// A currency typed as a positional argument (`<quote>` of `tally fx`), by the one rule
    /// of ``currency(_:_:option:)``; a refusal names the argument, what it expected, and the
    /// command's `usage` when the text is a number (arguments out of order), the argument
    /// when it is no code at all.
    static func currencyArgument(_ code: String, _ ledger: Ledger, argument: String, usage: String) throws -> Commodity {
        if (try? ExactDecimal(parsing: code)) != nil {
            throw ValidationError("\(argument) '\(code)' is a number, but a currency code is expected there: \(usage)")
        }
        // A well-formed code the ledger does not know gets the one message every command gives
        // (``CurrencyRule/unknownMessage(_:)``), which names the code.
        return try currency(code, ledger, option: argument)
    }

    /// An exact decimal typed as a positional argument (`<rate>` of `tally fx`, `<amount>` of
    /// `tally price`); a refusal names the argument and `expected`, and a code typed there
    /// (arguments out of order) is said to be one.
    static func decimalArgument(_ text: String, argument: String, expected: String, usage: String) throws -> ExactDecimal {
        do { return try ExactDecimal(parsing: text) } catch {
            let isCode = (try? Commodity.named(text)) != nil
            throw ValidationError("\(argument) '\(text)' is \(isCode ? "a code" : "not a number"), but \(expected) is expected there: \(usage)")
        }
    }

    /// An amount in a currency by the ledger's one rule, within a declared commodity's scale.
    static func money(_ text: String, currency code: String, _ ledger: Ledger, option: String = "amount") throws -> Money {
        let commodity = try currency(code, ledger)
        let money: Money
        do { money = try Money(parsing: text, commodity: commodity) } catch { throw ValidationError("\(option) '\(text)': \(error)") }
        try ledger.requireCurrency(money, option)
        return money
    }

    /// Says on standard error when a name is cut to ``NameRule/characterLimit`` characters
    /// (the command records the cut name; a blank one is refused by the command itself).
    static func noteName(_ text: String?, _ what: String) {
        guard let text, let note = try? NameRule.checked(text, what).note else { return }
        Output.note("note: \(note)\n")
    }

    /// A ticker typed by the user, by the one rule (``TickerRule``: trimmed, upper-cased).
    static func symbol(_ text: String, option: String = "--symbol") throws -> Commodity {
        do { return try TickerRule.symbol(text, option) } catch let error as LedgerError { throw ValidationError(error.message) }
    }

    /// A quantity of a ticker (a position): the ticker by ``symbol(_:option:)``, the amount exact.
    static func quantity(_ text: String, symbol: String) throws -> Money {
        let commodity = try self.symbol(symbol)
        do { return try Money(parsing: text, commodity: commodity) } catch { throw ValidationError("quantity '\(text)': \(error)") }
    }

    /// An amount of a symbol (a ticker's quantity: not a currency, any well-formed code).
    static func money(_ text: String, currency: String, option: String = "amount") throws -> Money {
        let commodity = try commodity(currency)
        do { return try Money(parsing: text, commodity: commodity) } catch { throw ValidationError("\(option) '\(text)': \(error)") }
    }

    static func decimal(_ text: String, option: String) throws -> ExactDecimal {
        do { return try ExactDecimal(parsing: text) } catch { throw ValidationError("\(option) '\(text)': \(error)") }
    }

    static func date(_ text: String, option: String) throws -> LocalDate {
        do { return try LocalDate(parsing: text) } catch { throw ValidationError("\(option): \(error)") }
    }

    static func month(_ text: String, option: String) throws -> Month {
        do { return try Month(parsing: text) } catch { throw ValidationError("\(option): \(error)") }
    }
}
