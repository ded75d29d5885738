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
        /// Its balance in one currency.
        public let amount: Money
        /// Nil when no rate between the two currencies is known at the date.
        public let inBase: Money?
    }

    /// The sum of the converted lines, in the base currency.
    public let total: Money
    /// Every account's non-zero balance per currency, by account.
    public let lines: [Line]
    /// Lines left out of the total for want of a rate.
    public var unconverted: [Line] { lines.filter { $0.inBase == nil } }
}

extension EnvelopeBook {
    /// The status of an envelope in the interval containing `date`; the book holds the
    /// events effective through that date.
    ///
    /// - Returns: nil when the envelope does not exist (or was deleted) in the book, or
    ///   `date` is before its start date.
    /// - Throws: ``MoneyError`` on overflow.
    public func status(of envelopeId: String, on date: LocalDate, calendar: LedgerCalendar) throws -> EnvelopeStatus? {
        guard let envelope = envelopes[envelopeId], envelope.deletedAt == nil, date >= envelope.startDate else { return nil }
        let commodity = envelope.commodity
        let zero = Money.zero(commodity)
        // A change in another currency than the creation's is ignored (commands refuse it).
        let settings = [envelope.settings[0]] + envelope.settings.dropFirst().filter { $0.budgeted.commodity == commodity }
            .sorted { ($0.effectiveAt, $0.sequence) < ($1.effectiveAt, $1.sequence) }
        let policies = envelope.policies.sorted { ($0.effectiveAt, $0.sequence) < ($1.effectiveAt, $1.sequence) }
        var schedule = EnvelopeSchedule(start: envelope.startDate, interval: settings[0].interval)
        for setting in settings.dropFirst() { schedule.change(to: setting.interval, from: calendar.date(of: setting.effectiveAt)) }
        /// The creation applies from the start; a change from its day on.
        func setting(on day: LocalDate) -> EnvelopeRecord.Setting {
            settings.dropFirst().last { calendar.date(of: $0.effectiveAt) <= day } ?? settings[0]
        }
        func policy(on day: LocalDate) -> RolloverPolicy {
            policies.last { calendar.date(of: $0.effectiveAt) <= day }?.value ?? .default
        }
        let entries = try convertedActivity(of: envelope, calendar: calendar)
        var carriedIn = zero
        var takenFromToAssign = zero
        let periods = schedule.periods(through: date)
        for (index, period) in periods.enumerated() {
            let lastDay = min(period.last ?? date, date)
            let budgeted = setting(on: lastDay).budgeted
            var funded = zero
            for funding in envelope.fundings where period.contains(calendar.date(of: funding.effectiveAt)) && funding.value.commodity == commodity {
                funded = try funded.adding(funding.value)
            }
            var spent = zero
            var unconverted = 0
            for entry in entries where period.contains(entry.date) {
                if let amount = entry.amount { spent = try spent.subtracting(amount) } else { unconverted += 1 }
            }
            let available = try budgeted.adding(funded).adding(carriedIn)
            let remaining = try available.subtracting(spent)
            if index == periods.count - 1 {
                return EnvelopeStatus(
                    envelopeId: envelope.envelopeId, name: envelope.name, interval: setting(on: date).interval,
                    policy: policy(on: date), period: period, budgeted: budgeted, funded: funded, carriedIn: carriedIn,
                    takenFromToAssign: takenFromToAssign, available: available, spent: spent, remaining: remaining,
                    unconvertedCount: unconverted
                )
            }
            let carry = try EnvelopeRollover.carry(remaining: remaining, policy: policy(on: lastDay))
            carriedIn = carry.carried
            takenFromToAssign = carry.takenFromToAssign
        }
        return nil
    }

    /// Every envelope that exists on `date`, by name.
    public func statuses(on date: LocalDate, calendar: LedgerCalendar) throws -> [EnvelopeStatus] {
        try envelopes.keys.sorted().compactMap { try status(of: $0, on: date, calendar: calendar) }
            .sorted { ($0.name, $0.envelopeId) < ($1.name, $1.envelopeId) }
    }

    /// What went through each envelope from `first` through `last` (both days included),
    /// deleted envelopes too, by name; envelopes with nothing in the period are left out.
    public func spending(from first: LocalDate, through last: LocalDate, calendar: LedgerCalendar) throws -> [EnvelopeSpending] {
        let period = EnvelopePeriod(first: first, last: last)
        var result: [EnvelopeSpending] = []
        for envelope in envelopes.values {
            var spent = Money.zero(envelope.commodity)
            var count = 0
            var unconverted = 0
            for entry in try convertedActivity(of: envelope, calendar: calendar) where period.contains(entry.date) {
                count += 1
                if let amount = entry.amount { spent = try spent.subtracting(amount) } else { unconverted += 1 }
            }
            if count > 0 {
                result.append(EnvelopeSpending(envelopeId: envelope.envelopeId, name: envelope.name, spent: spent,
                                               transactionCount: count, unconvertedCount: unconverted))
            }
        }
        return result.sorted { ($0.name, $0.envelopeId) < ($1.name, $1.envelopeId) }
    }

    /// The total of `balances` in the base currency in force at `instant`, each converted
    /// at the rate in force then (``RateBook``).
    public func total(balances: [(account: String, amount: Money)], at instant: Instant) throws -> EnvelopeAccountsTotal {
        let base = baseCurrency(at: instant)
        let rates = RateBook(quotes: quotes)
        var total = Money.zero(base)
        var lines: [EnvelopeAccountsTotal.Line] = []
        for (account, amount) in balances.sorted(by: { ($0.account, $0.amount.commodity.code) < ($1.account, $1.amount.commodity.code) }) {
            let inBase = try rates.convert(amount, to: base, at: instant)
            if let inBase { total = try total.adding(inBase) }
            lines.append(.init(account: account, amount: amount, inBase: inBase))
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
    private func convertedActivity(of envelope: EnvelopeRecord, calendar: LedgerCalendar) throws -> [(date: LocalDate, amount: Money?)] {
        let target = envelope.commodity
        let rates = RateBook(quotes: quotes)
        return try activity.filter { $0.envelopeId == envelope.envelopeId }.map { entry in
            let date = calendar.date(of: entry.effectiveAt)
            if entry.amount.commodity == target { return (date, entry.amount) }
            if let received = entry.received, received.commodity == target { return (date, received) }
            if let rate = entry.rateToBase, entry.base == target { return (date, try entry.amount.converted(to: target, rate: rate)) }
            return (date, try rates.convert(entry.amount, to: target, at: entry.effectiveAt))
        }
    }
}
