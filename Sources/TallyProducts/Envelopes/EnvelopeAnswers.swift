public import TallyEngine
/// An envelope in the interval containing a date: what was budgeted, spent and is left.
///
/// `available = budgeted + funded + carriedIn`; `remaining = available - spent`; the
/// envelope is over budget when `remaining` is below zero.
public struct EnvelopeStatus: Hashable, Sendable {
    /// The envelope's id.
    public let envelopeId: String
    /// The envelope's display name.
    public let name: String
    /// The interval in force on the date.
    public let interval: EnvelopeInterval
    /// The rollover policy in force on the date.
    public let policy: RolloverPolicy
    /// The interval containing the date.
    public let period: EnvelopePeriod
    /// The budgeted amount for the interval: the one in force on its last day (or on the
    /// date asked about, for the interval still running).
    public let budgeted: Money
    /// `envelope_funded` amounts in the interval.
    public let funded: Money
    /// What the previous interval's remainder brought in, by its rollover policy.
    public let carriedIn: Money
    /// The previous interval's overspending that what is left to assign covered.
    public let takenFromToAssign: Money
    /// `budgeted + funded + carriedIn`: what the interval may spend.
    public let available: Money
    /// Expenses less refunds (income) and transfers out, in the envelope's currency.
    public let spent: Money
    /// `available - spent`; negative when over budget.
    public let remaining: Money
    /// Whether more was spent than was available.
    public var isOverBudget: Bool { remaining.isNegative }
    /// Transactions in the interval in a currency with no known rate: left out, not dropped silently.
    public let unconvertedCount: Int
}

/// What went through one envelope in a period.
public struct EnvelopeSpending: Hashable, Sendable {
    /// The envelope's id.
    public let envelopeId: String
    /// The envelope's display name.
    public let name: String
    /// Expenses less refunds and transfers out, in the envelope's currency.
    public let spent: Money
    /// How many transactions and transfers went through it in the period.
    public let transactionCount: Int
    /// How many of them had no known rate and are left out of `spent`.
    public let unconvertedCount: Int
}

/// The total balance across the user's accounts in the base currency.
public struct EnvelopeAccountsTotal: Hashable, Sendable {
    /// One account's balance in one currency and its value in the base currency.
    public struct Line: Hashable, Sendable {
        /// The account's name.
        public let account: String
        /// Asset or liability, as the account was opened (`Liabilities:…` is a liability).
        public let kind: AccountKind
        /// Its balance in one currency, signed as the ledger keeps it: what a liability
        /// owes is negative, and so lowers the total.
        public let amount: Money
        /// Nil when no rate between the two currencies is known at the date.
        public let inBase: Money?
        /// For a liability, what is owed (positive; negative when it is in credit); nil for an asset.
        ///
        /// - Throws: ``MoneyError`` when the balance has no negation (the lowest minor-unit count).
        public var owed: Money? {
            get throws { kind == .liability ? try amount.negated() : nil }
        }
    }

    /// The sum of the converted lines, in the base currency: assets less what liabilities owe.
    public let total: Money
    /// Every account's non-zero balance per currency, by account.
    public let lines: [Line]
    /// Lines left out of the total for want of a rate: listed, never dropped silently.
    public var unconverted: [Line] { lines.filter { $0.inBase == nil } }
    /// Whether every line was converted: false when ``unconverted`` lists any.
    public var isComplete: Bool { unconverted.isEmpty }
}

extension EnvelopeBook {
    /// The status of an envelope in the interval containing `date`; the book holds the
    /// events effective through that date.
    ///
    /// - Returns: nil when the envelope does not exist (or was deleted) in the book, or
    ///   `date` is before its start date.
    /// - Throws: ``MoneyError`` on overflow.
    public func status(of envelopeId: String, on date: LocalDate, calendar: LedgerCalendar) throws -> EnvelopeStatus? {
        guard let envelope = envelopes[envelopeId], envelope.deletedAt == nil else { return nil }
        return try fold(of: envelope, through: date, resuming: nil, calendar: calendar)?.status
    }

    /// Every envelope that exists on `date`, by name.
    public func statuses(on date: LocalDate, calendar: LedgerCalendar) throws -> [EnvelopeStatus] {
        try statuses(on: date, resuming: nil, calendar: calendar)
    }

    /// Every envelope that exists on `date`, by name, each folded on from its progress in
    /// `snapshot` when given (the book then holds only money effective after the snapshot's
    /// day).
    ///
    /// - Throws: ``EnvelopeSnapshotMismatch`` when the snapshot does not fit the book.
    func statuses(on date: LocalDate, resuming snapshot: EnvelopeSnapshot?, calendar: LedgerCalendar) throws -> [EnvelopeStatus] {
        let rates = RateBook(quotes: quotes)
        return try envelopes.keys.sorted().compactMap { id in
            guard let envelope = envelopes[id], envelope.deletedAt == nil else { return nil }
            return try fold(of: envelope, through: date, resuming: try snapshot?.progress(of: envelope), calendar: calendar, rates: rates)?.status
        }
        .sorted { ($0.name, $0.envelopeId) < ($1.name, $1.envelopeId) }
    }

    /// Folds an envelope's intervals through the end of `date`: from its start date, or on
    /// from `resume`, its progress at the end of an earlier day (then only money effective
    /// after that day is counted). Gives the status on `date` and the progress then.
    ///
    /// Each interval's budget is the one in force on its last day (or on `date`, for the one
    /// still running); its remainder moves into the next by the policy in force on its last
    /// day (``EnvelopeRollover``). With `trail`, every change to what the envelope has left
    /// is reported as it is folded, in effective order (``Ledger/envelopeAudit(_:from:through:knownAt:)``);
    /// resumed, the running balance starts at what the envelope had left at `resume`, and an
    /// error thrown by `trail` stops the fold (a page of the audit is full).
    ///
    /// - Returns: nil when `date` is before the envelope's start date.
    /// - Throws: ``MoneyError`` on overflow; ``EnvelopeSnapshotMismatch`` when `resume`
    ///   does not fit the envelope's intervals.
    func fold(of envelope: EnvelopeRecord, through date: LocalDate, resuming resume: EnvelopeProgress?, calendar: LedgerCalendar,
              rates: RateBook? = nil, trail: ((AuditEntry) throws -> Void)? = nil) throws -> (status: EnvelopeStatus, progress: EnvelopeProgress)? {
        guard date >= envelope.startDate else { return nil }
        let terms = EnvelopeTerms(envelope, calendar: calendar)
        let movements = try self.movements(of: envelope, after: resume?.through, calendar: calendar, rates: rates ?? RateBook(quotes: quotes))
        var (period, progress) = try startingInterval(of: envelope, schedule: terms.schedule, resuming: resume, through: date)
        let money = { (minorUnits: Int64) in Money(minorUnits: minorUnits, commodity: envelope.commodity) }
        var next = 0
        var balance: Int64 = 0
        if resume != nil, trail != nil {
            // Resumed: the trail goes on from what the envelope had left then.
            let (spentNegated, overflow) = Int64(0).subtractingReportingOverflow(progress.spent)
            guard !overflow else { throw MoneyError.overflowing("an envelope's interval") }
            balance = try add(try add(try add(terms.setting(on: min(period.last ?? date, date)).budgeted.minorUnits, progress.funded), progress.carriedIn), spentNegated)
        }
        /// Reports a change of what the envelope has left.
        func report(_ amount: Int64, _ sequence: UInt64, _ type: String, _ effectiveAt: Instant, _ recordedAt: Instant) throws {
            guard let trail, amount != 0 else { return }
            balance = try add(balance, amount)
            try trail(AuditEntry(sequence: sequence, recordedAt: recordedAt, effectiveAt: effectiveAt, effectiveDate: calendar.date(of: effectiveAt),
                             eventType: type, cause: nil, amount: money(amount), balance: money(balance)))
        }
        while true {
            let lastDay = min(period.last ?? date, date)
            let budget = terms.setting(on: lastDay)
            if progress.through < period.first {
                // The interval opens: its budget arrives (the one in force on its last day).
                let type = budget.sequence == terms.creation.sequence ? EnvelopeCreated.eventType.name : EnvelopeBudgetChanged.eventType.name
                try report(budget.budgeted.minorUnits, budget.sequence, type, calendar.startOfDay(period.first), budget.recordedAt)
            }
            while next < movements.count && movements[next].date <= lastDay {
                let movement = movements[next]
                next += 1
                guard period.contains(movement.date) else { continue }
                if let funded = movement.funded {
                    progress.funded = try add(progress.funded, funded)
                    try report(funded, movement.sequence, movement.eventType, movement.effectiveAt, movement.recordedAt)
                } else if let amount = movement.amount {
                    progress.spent = try add(progress.spent, -amount)
                    try report(amount, movement.sequence, movement.eventType, movement.effectiveAt, movement.recordedAt)
                } else {
                    progress.unconverted += movement.sign
                }
            }
            progress.through = lastDay
            let available = try budget.budgeted.adding(money(progress.funded)).adding(money(progress.carriedIn))
            let remaining = try available.subtracting(money(progress.spent))
            guard let last = period.last, last < date else {
                let status = EnvelopeStatus(
                    envelopeId: envelope.envelopeId, name: envelope.name, interval: terms.setting(on: date).interval,
                    policy: terms.policy(on: date)?.value ?? .default, period: period, budgeted: budget.budgeted, funded: money(progress.funded),
                    carriedIn: money(progress.carriedIn), takenFromToAssign: money(progress.takenFromToAssign),
                    available: available, spent: money(progress.spent), remaining: remaining, unconvertedCount: progress.unconverted
                )
                return (status, progress)
            }
            let rule = terms.policy(on: last)
            let carry = try EnvelopeRollover.carry(remaining: remaining, policy: rule?.value ?? .default)
            try report(try carry.carried.subtracting(remaining).minorUnits, rule?.sequence ?? terms.creation.sequence,
                       rule == nil ? EnvelopeCreated.eventType.name : EnvelopeRolloverSet.eventType.name,
                       calendar.endOfDay(last), rule?.recordedAt ?? terms.creation.recordedAt)
            period = terms.schedule.period(containing: last.adding(days: 1))!
            progress = EnvelopeProgress(envelopeId: envelope.envelopeId, creation: progress.creation, through: last, periodFirst: period.first,
                                        carriedIn: carry.carried.minorUnits, takenFromToAssign: carry.takenFromToAssign.minorUnits)
        }
    }

    /// An envelope's fundings and transactions in its currency, in date order, then log
    /// order; with `after`, only those on later days.
    private func movements(of envelope: EnvelopeRecord, after: LocalDate?, calendar: LedgerCalendar, rates: RateBook) throws -> [EnvelopeMovement] {
        var movements: [EnvelopeMovement] = envelope.fundings.compactMap { funding in
            let day = calendar.date(of: funding.effectiveAt)
            guard funding.value.commodity == envelope.commodity, after.map({ day > $0 }) ?? true else { return nil }
            return EnvelopeMovement(date: day, sequence: funding.sequence, effectiveAt: funding.effectiveAt, recordedAt: funding.recordedAt,
                                    eventType: EnvelopeFunded.eventType.name, funded: funding.value.minorUnits, amount: nil, sign: 1)
        }
        for entry in try convertedActivity(of: envelope, calendar: calendar, rates: rates)
        where after.map({ entry.date > $0 }) ?? true {
            movements.append(EnvelopeMovement(date: entry.date, sequence: entry.activity.sequence, effectiveAt: entry.activity.effectiveAt,
                                              recordedAt: entry.activity.recordedAt, eventType: entry.activity.eventType,
                                              funded: nil, amount: entry.amount?.minorUnits, sign: entry.sign))
        }
        // An amendment's reversal and new version share a sequence number: keep their order.
        return movements.enumerated().sorted { ($0.element.date, $0.element.sequence, $0.offset) < ($1.element.date, $1.element.sequence, $1.offset) }
            .map(\.element)
    }

    /// The interval a fold starts in and the progress it starts from: the first interval,
    /// empty, or the one `resume` ended in, as it was then.
    ///
    /// - Throws: ``EnvelopeSnapshotMismatch`` when `resume` does not fit the envelope's intervals.
    private func startingInterval(of envelope: EnvelopeRecord, schedule: EnvelopeSchedule, resuming resume: EnvelopeProgress?,
                                  through date: LocalDate) throws -> (EnvelopePeriod, EnvelopeProgress) {
        guard let resume else {
            let period = schedule.period(containing: envelope.startDate)!
            return (period, EnvelopeProgress(envelopeId: envelope.envelopeId, creation: envelope.settings[0].sequence,
                                             through: envelope.startDate.adding(days: -1), periodFirst: period.first))
        }
        guard resume.creation == envelope.settings[0].sequence, let running = schedule.period(containing: resume.through),
              running.first == resume.periodFirst, resume.through <= date else {
            throw EnvelopeSnapshotMismatch(envelopeId: envelope.envelopeId, day: resume.through)
        }
        return (running, resume)
    }

    private func add(_ lhs: Int64, _ rhs: Int64) throws -> Int64 {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        guard !overflow else { throw MoneyError.overflowing("an envelope's interval") }
        return sum
    }

    /// What went through each envelope from `first` through `last` (both days included),
    /// deleted envelopes too, by name; envelopes with nothing in the period are left out.
    public func spending(from first: LocalDate, through last: LocalDate, calendar: LedgerCalendar) throws -> [EnvelopeSpending] {
        let period = EnvelopePeriod(first: first, last: last)
        var result: [EnvelopeSpending] = []
        let rates = RateBook(quotes: quotes)
        for envelope in envelopes.values {
            var spent = Money.zero(envelope.commodity)
            var count = 0
            var unconverted = 0
            for entry in try convertedActivity(of: envelope, calendar: calendar, rates: rates) where period.contains(entry.date) {
                count += entry.sign
                if let amount = entry.amount { spent = try spent.subtracting(amount) } else { unconverted += entry.sign }
            }
            if count > 0 {
                result.append(EnvelopeSpending(envelopeId: envelope.envelopeId, name: envelope.name, spent: spent,
                                               transactionCount: count, unconvertedCount: unconverted))
            }
        }
        return result.sorted { ($0.name, $0.envelopeId) < ($1.name, $1.envelopeId) }
    }

    /// The total of `balances` in `currency` (by default the base currency in force at
    /// `instant`), each converted at the rate in force then (``RateBook``).
    public func total(balances: [(account: String, amount: Money)], at instant: Instant, in currency: Commodity? = nil) throws -> EnvelopeAccountsTotal {
        let base = currency ?? baseCurrency(at: instant)
        let rates = RateBook(quotes: quotes)
        var total = Money.zero(base)
        var lines: [EnvelopeAccountsTotal.Line] = []
        for (account, amount) in balances.sorted(by: { ($0.account, $0.amount.commodity.code) < ($1.account, $1.amount.commodity.code) }) {
            let inBase = try rates.convert(amount, to: base, at: instant)
            if let inBase { total = try total.adding(inBase) }
            let kind = accounts[account]?.kind ?? LedgerAccounts.kind(of: account) ?? .asset
            lines.append(.init(account: account, kind: kind, amount: amount, inBase: inBase))
        }
        return EnvelopeAccountsTotal(total: total, lines: lines)
    }

    /// The balances ``apply(_:)`` kept, non-zero ones, for ``total(balances:at:)``.
    public var foldedBalances: [(account: String, amount: Money)] {
        balances.flatMap { account, amounts in
            amounts.filter { $0.value != 0 }.map { (account: account, amount: Money(minorUnits: $0.value, commodity: $0.key)) }
        }
    }

    /// An envelope's activity on its days, in the envelope's currency (nil amount: no
    /// rate known). A transaction converts at its own rate when that rate is to the
    /// envelope's currency; a transfer by what the target received in it; otherwise at
    /// the rate in force then (``RateBook``).
    /// A reversal counts -1 in the counts: an amended transaction is one transaction, a
    /// deleted one none.
    private func convertedActivity(of envelope: EnvelopeRecord, calendar: LedgerCalendar, rates: RateBook) throws
        -> [(date: LocalDate, amount: Money?, sign: Int, activity: EnvelopeActivity)] {
        let target = envelope.commodity
        return try activity.filter { $0.envelopeId == envelope.envelopeId }.map { entry in
            let date = calendar.date(of: entry.effectiveAt)
            let sign = entry.isReversal ? -1 : 1
            if entry.amount.commodity == target { return (date, entry.amount, sign, entry) }
            if let received = entry.received, received.commodity == target { return (date, received, sign, entry) }
            if let rate = entry.rateToBase, entry.base == target { return (date, try entry.amount.converted(to: target, rate: rate), sign, entry) }
            return (date, try rates.convert(entry.amount, to: target, at: entry.effectiveAt), sign, entry)
        }
    }
}

/// A funding or a transaction in an envelope's fold, in the envelope's currency.
struct EnvelopeMovement {
    let date: LocalDate
    let sequence: UInt64
    let effectiveAt: Instant
    let recordedAt: Instant
    let eventType: String
    /// An `envelope_funded` amount.
    let funded: Int64?
    /// A transaction's converted amount (signed: an expense is negative); nil with no rate.
    let amount: Int64?
    /// -1 for a reversal, which takes a transaction out of the counts.
    let sign: Int
}

/// An envelope's budgets and rollover policies in effective order, and the schedule of
/// intervals they make: what is in force on a day.
private struct EnvelopeTerms {
    /// The creation's budget first, then the changes in its currency (commands refuse a
    /// change in another one, and the fold ignores it).
    let settings: [EnvelopeRecord.Setting]
    let policies: [EnvelopeRecord.Dated<RolloverPolicy>]
    let schedule: EnvelopeSchedule
    let calendar: LedgerCalendar

    init(_ envelope: EnvelopeRecord, calendar: LedgerCalendar) {
        settings = [envelope.settings[0]] + envelope.settings.dropFirst().filter { $0.budgeted.commodity == envelope.commodity }
            .sorted { ($0.effectiveAt, $0.sequence) < ($1.effectiveAt, $1.sequence) }
        policies = envelope.policies.sorted { ($0.effectiveAt, $0.sequence) < ($1.effectiveAt, $1.sequence) }
        var schedule = EnvelopeSchedule(start: envelope.startDate, interval: settings[0].interval)
        for setting in settings.dropFirst() { schedule.change(to: setting.interval, from: calendar.date(of: setting.effectiveAt)) }
        self.schedule = schedule
        self.calendar = calendar
    }

    /// The envelope's creation.
    var creation: EnvelopeRecord.Setting { settings[0] }

    /// The budget in force on `day`: the creation applies from the start; a change from its day on.
    func setting(on day: LocalDate) -> EnvelopeRecord.Setting {
        settings.dropFirst().last { calendar.date(of: $0.effectiveAt) <= day } ?? settings[0]
    }

    /// The rollover policy in force on `day`, if one was set.
    func policy(on day: LocalDate) -> EnvelopeRecord.Dated<RolloverPolicy>? {
        policies.last { calendar.date(of: $0.effectiveAt) <= day }
    }
}
