import Tally
// The household's automated wealth account: deposits on the 1st and the 15th (every third
// one in USDC from a chain, some in GBP), card purchases about every third day with
// round-ups, a withdrawal to checking every month; a new split rule after a year, a pause during the
// summer trip, a lost card frozen for a few days, and a withdrawal Spend cannot cover.

extension DemoLife {
    func planWealth(_ date: LocalDate) {
        let ledger = self.ledger
        let account = DemoHousehold.wealthAccount
        let month = date.month
        let usd = Self.usd

        if date.day == 1 || date.day == 15 {
            depositNumber += 1
            let number = depositNumber
            let isChain = number % 3 == 0
            let amount = isChain ? Money(minorUnits: 150_000000, commodity: .usdc) : usd(600_00)
            plan(8) {
                try self.run {
                    try ledger.deposit(account: account, amount: amount, source: isChain ? .chain : .bankTransfer,
                                       externalId: "dep-\(number)", idempotencyKey: "wealth:dep-\(number)")
                }
            }
            if date.day == 15 && month.month % 6 == 0 {
                plan(8, 5) {
                    try self.run {
                        try ledger.deposit(account: account, amount: Money(minorUnits: 250_00, commodity: .gbp), source: .bankTransfer,
                                           externalId: "uk-\(month)", idempotencyKey: "wealth:uk-\(month)")
                    }
                }
            }
        }

        // A year in, the household invests more: 60/40 for every deposit from then on.
        if month == household.storyMonth(12) && date.day == 1 {
            plan(7, 30) { try self.run { try ledger.setSplitRule(account: account, spendWeight: 60, investWeight: 40) } }
        }
        // The summer trip: automation paused; the deposit of the 15th waits and is split on resume.
        if month == household.storyMonth(18) {
            if date.day == 3 { plan(8, 30) { try self.run { try ledger.pauseAutomation(account: account) } } }
            if date.day == 21 { plan(8, 30) { try self.run { try ledger.resumeAutomation(account: account) } } }
        }
        // The card is lost: frozen, a purchase is refused, then it is found again.
        if month == household.storyMonth(22) {
            if date.day == 2 { plan(18) { try self.run { try ledger.freezeCard(account: account) } } }
            if date.day == 3 {
                plan(12) { try self.run(refusable: true) { try ledger.purchase(account: account, amount: usd(23_40), merchant: "Corner Deli") } }
            }
            if date.day == 6 { plan(9) { try self.run { try ledger.unfreezeCard(account: account) } } }
        }
        // A withdrawal larger than Spend: refused, nothing recorded.
        if month == household.storyMonth(10) && date.day == 10 {
            plan(9, 55) { try self.run(refusable: true) { try ledger.withdraw(account: account, amount: usd(50_000_00), destination: "Checking") } }
        }
        if date.day == 10 {
            plan(10) { try self.run(refusable: true) { try ledger.withdraw(account: account, amount: usd(200_00), destination: "Checking") } }
        }
        if month.month % 6 == 3 && date.day == 11 {
            plan(10) {
                try self.run(refusable: true) {
                    try ledger.withdraw(account: account, amount: Money(minorUnits: 100_000000, commodity: .usdc), destination: "Hardware wallet")
                }
            }
        }

        if random.next() % 3 == 0 {
            purchaseNumber += 1
            let number = purchaseNumber
            let amount = usd(draw(1_00...40_99))
            let merchant = ["Corner Deli", "Bike Shop", "Bakery", "Hardware Co", "Bookshop", "Coffee Cart"][number % 6]
            plan(12, 30) {
                try self.run(refusable: true) {
                    try ledger.purchase(account: account, amount: amount, merchant: merchant, externalId: "card-\(number)")
                }
            }
        }
    }
}
