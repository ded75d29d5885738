import Tally
internal import Synchronization

/// A deterministic synthetic household that lives a few years through the ``Ledger``'s
/// commands: every rule (the split, round-ups, pots, recurring generation, envelope and
/// challenge checks …) runs where it lives, exactly as for a real user.
///
/// Every product takes part: an automated wealth account (deposits split 70/30 and later
/// 60/40, round-ups, a pause and a resume, a lost card frozen and unfrozen), a monthly budget
/// (bank imports, manual transactions, budgets, pots, recurring bills generated each month,
/// an amended, a deleted and a re-categorised transaction, a reference reset), envelopes
/// (USD and EUR accounts, a trip abroad, a 52-week challenge), and a net worth with a
/// portfolio (a home and its mortgage, ETFs and gold with quoted prices, GBP and JPY holdings
/// with weekly FX rates, quarterly appraisals with reminders, balance assertions).
///
/// ```swift
/// let household = DemoHousehold(seed: 42, firstMonth: try Month(parsing: "2024-01"), monthCount: 34)
/// let clock = DemoClock(household.createdAt(try LedgerCalendar(timeZoneIdentifier: DemoHousehold.timeZone)))
/// let ledger = try Ledger.create(at: path, name: DemoHousehold.ledgerName, baseCurrency: DemoHousehold.baseCurrency,
///                                timeZone: DemoHousehold.timeZone, options: .init(clock: clock.function, syncMode: .none))
/// let activity = try household.live(in: ledger, clock: clock)
/// ```
///
/// The same seed, first month and month count give the same commands at the same simulated
/// instants, so the same log, head digest and answers.
struct DemoHousehold: Sendable {
    /// The seed of every random choice (amounts, payees, prices, rates).
    let seed: UInt64
    /// The month the ledger is created in.
    let firstMonth: Month
    /// How many months the tour covers; the last one stops on ``lastDay``.
    let monthCount: Int

    /// The ledger's name.
    static let ledgerName = "Demo household"
    /// The ledger's time zone.
    static let timeZone = "America/New_York"
    /// The ledger's base currency.
    static let baseCurrency = Commodity.usd
    /// The wealth account the household uses.
    static let wealthAccount = "main"
    /// The day of the last month on which the tour stops (its "today").
    static let lastDayOfMonth = 20
    /// The fewest months a tour covers: a correction is recorded in the month after the
    /// month it corrects.
    static let monthCountMinimum = 2

    /// A household over `monthCount` months from `firstMonth`.
    ///
    /// - Precondition: `monthCount` is at least ``monthCountMinimum``.
    init(seed: UInt64 = 42, firstMonth: Month, monthCount: Int) {
        precondition(monthCount >= Self.monthCountMinimum, "a demo tour covers at least \(Self.monthCountMinimum) months")
        self.seed = seed
        self.firstMonth = firstMonth
        self.monthCount = monthCount
    }

    /// The last month of the tour.
    var lastMonth: Month { firstMonth.adding(months: monthCount - 1) }
    /// The tour's last day: the dashboard's "today".
    var lastDay: LocalDate { lastMonth.firstDay.adding(days: min(Self.lastDayOfMonth, lastMonth.dayCount) - 1) }

    /// The month whose end the point-in-time answer looks at; a backdated correction about
    /// it is recorded on day 8 of the next month.
    var correctedMonth: Month { storyMonth(14) }
    /// The instant the backdated correction was recorded (day 8 after the corrected month, 10:00).
    func correctionRecordedAt(_ calendar: LedgerCalendar) -> Instant {
        Self.at(correctedMonth.adding(months: 1).firstDay.adding(days: 7), 10, 0, calendar)
    }

    /// When the ledger is created: the first day, 08:00 in the ledger's time zone.
    func createdAt(_ calendar: LedgerCalendar) -> Instant { Self.at(firstMonth.firstDay, 8, 0, calendar) }

    /// The month at `twentieth`/33 of the tour (on the default 34-month tour, month `twentieth`
    /// after the first): where the stories happen on shorter or longer tours.
    func storyMonth(_ twentieth: Int) -> Month { firstMonth.adding(months: (monthCount - 1) * twentieth / 33) }

    /// An instant at a local time of a day.
    static func at(_ date: LocalDate, _ hour: Int, _ minute: Int, _ calendar: LedgerCalendar) -> Instant {
        Instant(microsecondsSinceEpoch: calendar.startOfDay(date).microsecondsSinceEpoch + Int64(hour * 3_600 + minute * 60) * 1_000_000)
    }

    /// Lives the whole tour in `ledger`, moving `clock` through the simulated days, and says
    /// what happened.
    ///
    /// - Parameters:
    ///   - ledger: a new ledger created by ``createdAt(_:)`` in USD and ``timeZone``, on `clock`.
    ///   - clock: the ledger's clock; only this method moves it, and only forward.
    /// - Throws: whatever a command throws that the household did not expect (an expected
    ///   refusal, such as a purchase on a frozen card, is counted in the activity instead).
    func live(in ledger: Ledger, clock: DemoClock) throws -> DemoActivity {
        let life = DemoLife(household: self, ledger: ledger, clock: clock)
        try life.live()
        return life.activity
    }
}

/// What a household's tour did: the commands it ran and what they appended or refused.
struct DemoActivity: Hashable, Sendable {
    /// Commands run (refused ones included).
    var commands = 0
    /// Events appended, by event type name.
    var eventsByType: [String: Int] = [:]
    /// Commands that appended nothing because their idempotency key had been used (a bank
    /// sending a transaction twice).
    var repeatsIgnored = 0
    /// Commands that found nothing to do (recurring items asked for twice in a month, a rule
    /// already in force).
    var nothingToDo = 0
    /// Commands the ledger refused, by what the refusal said (its error code), e.g.
    /// `card frozen`.
    var refusals: [String: Int] = [:]
    /// The amended transaction's id.
    var amendedTransactionId: String?
    /// The events of the amended transaction: its first version and its amendment.
    var amendmentSequences: [UInt64] = []

    /// Events appended in all.
    var eventCount: Int { eventsByType.values.reduce(0, +) }

    /// Event types by count, largest first (then by name): a stable order for printing.
    var countsByType: [(type: String, count: Int)] {
        eventsByType.map { (type: $0.key, count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.type < $1.type }
    }

    /// Refusals by reason, in a stable order.
    var refusalsByReason: [(reason: String, count: Int)] {
        refusals.map { (reason: $0.key, count: $0.value) }.sorted { $0.reason < $1.reason }
    }
}

/// A clock the demo moves by hand, so that recorded times are the household's simulated
/// moments and the same seed records the same log.
///
/// ```swift
/// let clock = DemoClock(start)
/// let options = Ledger.Options(clock: clock.function, syncMode: .none, features: standardFeatures)
/// clock.move(to: later)
/// ```
final class DemoClock: Sendable {
    private let value: Mutex<Instant>

    /// A clock showing `start`.
    init(_ start: Instant) { value = Mutex(start) }

    /// The instant it shows.
    var now: Instant { value.withLock { $0 } }

    /// The clock as the function ``Ledger/Options`` takes.
    var function: @Sendable () -> Instant { { self.now } }

    /// Moves the clock to `instant`, never backwards (recorded times do not decrease).
    func move(to instant: Instant) {
        value.withLock { $0 = max($0, instant) }
    }
}
