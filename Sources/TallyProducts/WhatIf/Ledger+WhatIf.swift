public import TallyEngine
import GRDB

extension Ledger {
    /// How many full months before the start date the monthly saving from history averages.
    public static let whatIfHistoryMonths = 3

    /// Projects savings forward from the ledger's state at the end of `date`: the savings
    /// balance is `account`'s (or, without one, every user account's) in the base currency
    /// in force on `date` (``Ledger/baseCurrency(asOf:knownAt:)``), earlier months converted
    /// into it at their own rates;
    /// the monthly saving, unless given, is the average monthly change of that balance
    /// over the ``whatIfHistoryMonths`` full months before `date`'s month. Records nothing.
    /// A balance with no rate into the base currency on a day read is left out of that day's
    /// savings and listed in ``WhatIfProjection/notConverted``, never dropped silently.
    ///
    /// ```swift
    /// let answer = try ledger.whatIf(goal: usd("10000.00"), extraMonthly: usd("50.00"), oneTime: usd("500.00"))
    /// answer.reachedDate   // nil: not within the horizon
    /// answer.notConverted  // balances left out for want of a rate, with the day each was read
    /// ```
    ///
    /// - Throws: ``LedgerError`` `notFound` (an account the ledger does not have),
    ///   `invalidArgument`, `currencyMismatch` (amounts not in the base currency).
    public func whatIf(
        goal: Money, account: String? = nil, extraMonthly: Money? = nil, oneTime: Money? = nil, monthlySaving: Money? = nil,
        horizonMonths: Int = 120, on date: LocalDate? = nil, knownAt: Instant? = nil
    ) throws -> WhatIfProjection {
        let day = date ?? today
        var notConverted: [WhatIfProjection.NotConverted] = []
        let plan = try read { db in
            if let account, try !EnvelopeRecords.isEnvelopeAccount(account, db) {
                throw LedgerError(.notFound, "there is no account '\(account)'")
            }
            // One currency for the whole projection: the base currency in force on the start
            // day (the one rule); the months before it convert into it at their own rates.
            let base = try LedgerSettings.baseCurrency(at: PointInTime(asOf: calendar.endOfDay(day), knownAt: knownAt), db)
            for (name, amount) in [("goal", goal), ("extra monthly", extraMonthly), ("one-time", oneTime), ("monthly saving", monthlySaving)] {
                guard let amount, amount.commodity != base else { continue }
                throw LedgerError(.currencyMismatch, "the \(name) \(amount.decimalString) \(amount.commodity.code) is not in \(base.code), the base currency on \(day)")
            }
            /// The savings balance at the end of `end`; what could not be converted is listed.
            func savings(at end: LocalDate) throws -> Money {
                let bound = calendar.endOfDay(end)
                let book = try EnvelopeBook.load(db, effectiveThrough: bound, knownAt: knownAt)
                let total = try book.total(balances: try EnvelopeBook.accountBalances(db, effectiveThrough: bound, knownAt: knownAt), at: bound, in: base)
                for line in total.unconverted where account.map({ line.account == $0 }) ?? true {
                    notConverted.append(.init(account: line.account, balance: line.amount, date: end))
                }
                return try total.total(of: account)
            }
            let balance = try savings(at: day)
            let lastFullMonth = day.month.adding(months: -1)
            let monthly = try monthlySaving ?? WhatIf.monthlySaving(
                from: try savings(at: lastFullMonth.adding(months: -Self.whatIfHistoryMonths).lastDay),
                to: try savings(at: lastFullMonth.lastDay), months: Self.whatIfHistoryMonths
            )
            let zero = Money.zero(balance.commodity)
            return WhatIfPlan(startDate: day, startBalance: balance, monthlySaving: monthly, extraMonthly: extraMonthly ?? zero,
                              oneTime: oneTime ?? zero, goal: goal, horizonMonths: horizonMonths)
        }
        var projection = try WhatIf.project(plan)
        projection.notConverted = notConverted
        return projection
    }
}

extension EnvelopeAccountsTotal {
    /// The total of one account's lines in the base currency, or the whole total.
    ///
    /// - Throws: ``MoneyError`` on overflow.
    public func total(of account: String?) throws -> Money {
        guard let account else { return total }
        var sum = Money.zero(total.commodity)
        for line in lines where line.account == account { if let inBase = line.inBase { sum = try sum.adding(inBase) } }
        return sum
    }
}
