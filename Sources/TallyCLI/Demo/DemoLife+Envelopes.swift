import Tally
// The household's envelopes: a paycheck share into checking and cash for the month on the
// 1st, spending from envelopes on about every other day, a EUR news subscription every
// month, the summer trip paid in EUR from the euro account, and a 52-week challenge saved
// every Monday (then the reverse challenge, then 10.00 a week).

extension DemoLife {
    static let envelopeSpending: [(envelope: String, account: String, payee: String, category: BudgetCategory, range: ClosedRange<Int64>)] = [
        ("groceries", checking, "Fresh Foods", .groceries, 20_00...95_00),
        ("groceries", checking, "Corner Shop", .groceries, 5_00...30_00),
        ("dining", checking, "Noodle Bar", .diningOut, 12_00...70_00),
        ("fun", cash, "Arcade", .entertainment, 5_00...30_00),
    ]
    static let tripPayees = ["Café Lisboa", "Museu do Azulejo", "Tram 28", "Pastelaria Belém", "Fado night"]

    func planEnvelopes(_ date: LocalDate) {
        let ledger = self.ledger
        let month = date.month
        let usd = Self.usd

        if date.day == 1 {
            plan(7) {
                try self.run { try ledger.recordEnvelopeTransaction("pay-\(month)", account: Self.checking, amount: usd(700_00), payee: "Paycheck share", effectiveAt: ledger.calendar.startOfDay(date)) }
                try self.run { try ledger.transferBetweenAccounts("cash-\(month)", from: Self.checking, to: Self.cash, amount: usd(80_00), effectiveAt: ledger.calendar.startOfDay(date)) }
            }
        }
        if date.day == 3 {
            let rate = eurInUSD
            plan(9, 30) {
                try self.run {
                    try ledger.recordEnvelopeTransaction(
                        "news-\(month)", account: Self.euroAccount, amount: Money(minorUnits: -9_99, commodity: .eur),
                        rateToBase: try ExactDecimal(significand: rate, scale: 4), envelope: "fun", payee: "Nordic News",
                        category: .entertainment, effectiveAt: ledger.calendar.startOfDay(date))
                }
            }
        }

        // The 52-week challenge: started on the first Monday of the second month, a step every Monday.
        if Self.weekday(date) == 1 && date >= household.firstMonth.adding(months: 1).firstDay {
            plan(7, 30) { try self.saveChallengeStep(date) }
        }

        // The summer trip, every year, paid in EUR at the rate of the day.
        if month.month == household.storyMonth(18).month {
            let rate = eurInUSD
            if date.day == 4 {
                let received = Money(minorUnits: 600_00 * 10_000 / rate, commodity: .eur)
                plan(10) { try self.run { try ledger.transferBetweenAccounts("trip-\(month)", from: Self.checking, to: Self.euroAccount, amount: usd(600_00), received: received, effectiveAt: ledger.calendar.startOfDay(date)) } }
            }
            if (5...12).contains(date.day) {
                envelopeTransactionNumber += 1
                let id = "env-\(envelopeTransactionNumber)"
                let payee = Self.tripPayees[Int(random.next() % UInt64(Self.tripPayees.count))]
                let amount = Money(minorUnits: -draw(8_00...95_00), commodity: .eur)
                plan(13) {
                    try self.run {
                        try ledger.recordEnvelopeTransaction(id, account: Self.euroAccount, amount: amount, rateToBase: try ExactDecimal(significand: rate, scale: 4),
                                                             envelope: "travel", payee: payee, category: .lifestyle, effectiveAt: ledger.calendar.startOfDay(date))
                    }
                }
            }
        }

        if random.next() % 2 == 0 {
            let spending = Self.envelopeSpending[Int(random.next() % UInt64(Self.envelopeSpending.count))]
            envelopeTransactionNumber += 1
            let id = "env-\(envelopeTransactionNumber)"
            let amount = usd(-draw(spending.range))
            plan(18, 30) {
                try self.run {
                    try ledger.recordEnvelopeTransaction(id, account: spending.account, amount: amount, envelope: spending.envelope,
                                                         payee: spending.payee, category: spending.category, effectiveAt: ledger.calendar.startOfDay(date))
                }
            }
        }
    }

    /// Saves this Monday's step, starting a challenge when none runs (the 52-week one first,
    /// then the reverse one, then the same 10.00 every week).
    private func saveChallengeStep(_ date: LocalDate) throws {
        let ledger = self.ledger
        if challenge == nil || challenge!.stepsDone >= 52 {
            let templates = [("52-week", "52_week", Int64(1_00)), ("reverse-52-week", "reverse_52_week", 1_00), ("weekly-10", "fixed_weekly", 10_00)]
            guard challengesStarted < templates.count else { return }
            let (id, template, unit) = templates[challengesStarted]
            challengesStarted += 1
            try run { try ledger.startChallenge(id, template: template, unit: Self.usd(unit), account: Self.savings, effectiveAt: ledger.calendar.startOfDay(date)) }
            challenge = (id, 0)
        }
        guard let current = challenge else { return }
        if try run(refusable: true, { try ledger.completeChallengeStep(current.id, from: Self.checking, effectiveAt: ledger.calendar.startOfDay(date)) }) != nil {
            challenge = (current.id, current.stepsDone + 1)
        }
    }
}
