import Tally
// The household's monthly budget: recurring items generated on the 1st (asked for twice,
// generated once), budgets per month (re-set each January from the suggestions), the
// day's card transactions imported from the bank in the evening (now and then sent twice),
// cash at the Saturday market entered by hand, pots funded at month end and the holiday pot
// spent in June; and the stories: an entry made twice and deleted, an anniversary dinner
// entered wrong and amended the next month, a purchase re-categorised, a reference reset.

extension DemoLife {
    static let payees: [(payee: String, category: BudgetCategory, range: ClosedRange<Int64>)] = [
        ("Green Grocer", .groceries, 25_00...140_00), ("City Market", .groceries, 15_00...90_00),
        ("Luigi's Trattoria", .diningOut, 30_00...95_00), ("Bean There Cafe", .diningOut, 4_00...14_00),
        ("Metro Transit", .transportation, 2_75...40_00), ("QuickFuel", .transportation, 30_00...70_00),
        ("Bookworm", .education, 12_00...60_00), ("Style Hub", .shopping, 20_00...160_00),
        ("Cinema 8", .entertainment, 12_00...38_00), ("Pharma Plus", .personalCare, 6_00...45_00),
    ]

    func planBudget(_ date: LocalDate) {
        planMonthStart(date)
        planReferenceReset(date)
        planMarketCash(date)
        planCorrections(date)
        planPots(date)
        planCardImports(date)
    }

    /// The month's first morning: recurring items generated (asked for twice, generated once) and
    /// the month's budgets set, re-set each January from the suggestions.
    private func planMonthStart(_ date: LocalDate) {
        let ledger = self.ledger
        let month = date.month
        let usd = Self.usd
        if date.day == 1 {
            plan(6) { try self.run { try ledger.generateRecurring(month: month) } }
            // Opened again the same morning: nothing is generated twice.
            plan(6, 5) { try self.run { try ledger.generateRecurring(month: month) } }
            plan(6, 30) {
                if month.month == 1 {
                    let suggestions = try ledger.suggestedBudgets(for: month)
                    for index in self.budgetMaxima.indices {
                        if let suggestion = suggestions.first(where: { $0.category == self.budgetMaxima[index].category }) {
                            self.budgetMaxima[index].maximum = suggestion.suggestedMaximum.minorUnits
                        }
                    }
                }
                for (category, maximum) in self.budgetMaxima {
                    try self.run { try ledger.setBudget(category: category, month: month, maximum: usd(maximum)) }
                }
            }
        }
    }

    /// Gift money arrived by an untracked route: the bank shows 500.00 more than tracked.
    private func planReferenceReset(_ date: LocalDate) {
        let ledger = self.ledger
        let month = date.month
        let usd = Self.usd
        // Gift money arrived by an untracked route: the bank shows 500.00 more than tracked.
        // (On the 28th, once every recurring item of the month has fallen due.)
        if month == household.storyMonth(16) && date.day == 28 {
            plan(10) {
                let overview = try ledger.budgetOverview(month: month)
                let reference = try overview.currentBalance.adding(overview.heldInPots).adding(usd(500_00))
                try self.run { try ledger.setReferenceBalance(amount: reference) }
            }
        }
    }

    /// Cash at the Saturday market, entered by hand.
    private func planMarketCash(_ date: LocalDate) {
        let ledger = self.ledger
        let usd = Self.usd
        // Cash at the Saturday market.
        if Self.weekday(date) == 6 {
            manualTransactionNumber += 1
            let id = "cash-\(manualTransactionNumber)"
            let amount = usd(-draw(15_00...45_00))
            plan(11) { try self.run { try ledger.recordTransaction(payee: "Farmers market", category: .groceries, amount: amount, date: date, id: id) } }
        }
    }

    /// The corrections: an entry made twice and deleted, an anniversary dinner entered wrong and
    /// amended the next month, a purchase re-categorised.
    private func planCorrections(_ date: LocalDate) {
        let ledger = self.ledger
        let month = date.month
        let usd = Self.usd
        let storyMonth = household.correctedMonth
        if month == storyMonth && date.day == 20 {
            // Entered twice by mistake; the copy is deleted.
            plan(11, 30) { try self.run { try ledger.recordTransaction(payee: "Corner bakery", category: .diningOut, amount: usd(-12_50), date: date, id: "bakery-\(month)") } }
            plan(11, 31) { try self.run { try ledger.recordTransaction(payee: "Corner bakery", category: .diningOut, amount: usd(-12_50), date: date, id: "bakery-\(month)-copy") } }
            plan(11, 35) { try self.run { try ledger.deleteTransaction(id: "bakery-\(month)-copy") } }
        }
        if month == storyMonth && date.day == 14 {
            let id = "dinner-\(month)"
            plan(21, 10) {
                let result = try self.run { try ledger.recordTransaction(payee: "Anniversary dinner", category: .diningOut, amount: usd(-184_00), date: date, id: id) }
                self.activity.amendedTransactionId = id
                self.activity.amendmentSequences += result?.events.map(\.sequence) ?? []
            }
        }
        if month == storyMonth.adding(months: 1) && date.day == 8 {
            // The receipt says 148.00: a backdated correction of last month's books.
            plan(10) {
                guard let id = self.activity.amendedTransactionId else { return }
                let result = try self.run { try ledger.amendTransaction(id: id, amount: usd(-148_00)) }
                self.activity.amendmentSequences += result?.events.map(\.sequence) ?? []
            }
            plan(10, 5) {
                guard let id = self.latestStyleHubTransaction else { return }
                try self.run { try ledger.recategorise(id: id, category: .lifestyle) }
            }
        }
    }

    /// Pots: the holiday pot pays for the June trip; the emergency fund pays a car repair;
    /// each pot gets its monthly saving at month end.
    private func planPots(_ date: LocalDate) {
        let ledger = self.ledger
        let month = date.month
        let usd = Self.usd
        // Pots: the holiday pot pays for the June trip; the emergency fund pays a car repair.
        if month.month == 6 && date.day == 28 {
            plan(10) {
                guard let pot = try ledger.pot(id: "holiday"), pot.total.isPositive else { return }
                let amount = try pot.total.isLess(than: usd(1_200_00)) ? pot.total : usd(1_200_00)
                try self.run(refusable: true) { try ledger.withdrawFromPot(id: "holiday", amount: amount) }
            }
        }
        if month == household.storyMonth(25) && date.day == 9 {
            plan(10) { try self.run(refusable: true) { try ledger.withdrawFromPot(id: "emergency", amount: usd(400_00)) } }
        }
        // Month end: each pot gets its monthly saving, up to what its target still needs.
        if date == month.lastDay {
            plan(21) {
                for (id, saving) in [("holiday", Int64(150_00)), ("emergency", 250_00)] {
                    guard let pot = try ledger.pot(id: id) else { continue }
                    let needed = try pot.target.subtracting(pot.total)
                    guard needed.isPositive else { continue }
                    let amount = try needed.isLess(than: usd(saving)) ? needed : usd(saving)
                    try self.run(refusable: true) { try ledger.addToPot(id: id, amount: amount) }
                }
            }
        }
    }

    /// The day's card transactions, imported from the bank in the evening (now and then sent twice).
    private func planCardImports(_ date: LocalDate) {
        let ledger = self.ledger
        let usd = Self.usd
        // The day's card transactions, imported from the bank in the evening.
        for _ in 0..<Int(random.next() % 3) {
            let (payee, category, range) = Self.payees[Int(random.next() % UInt64(Self.payees.count))]
            let amount = usd(-draw(range))
            bankTransactionNumber += 1
            let externalId = "fn-\(100_000 + bankTransactionNumber)"
            let sentTwice = bankTransactionNumber % 25 == 0
            plan(20) {
                let result = try self.run {
                    try ledger.importBankTransaction(bankId: Self.bankId, externalId: externalId, payee: payee, category: category, amount: amount, date: date)
                }
                if payee == "Style Hub" { self.latestStyleHubTransaction = result?.transactionId }
                if sentTwice {
                    try self.run {
                        try ledger.importBankTransaction(bankId: Self.bankId, externalId: externalId, payee: payee, category: category, amount: amount, date: date)
                    }
                }
            }
        }
    }
}
