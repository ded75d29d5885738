import Tally
// The household's net worth and portfolio: FX rates every Monday (JPY only from a year and
// a half in, so the Japanese fund is excluded before), ETF prices every weekday, gold
// priced by hand each month, a monthly ETF purchase, bank refreshes and the mortgage
// statement at month end, a quarterly appraisal of the home with its reminder, a
// backdated appraisal, and quarterly balance assertions.

extension DemoLife {
    func planNetWorth(_ date: LocalDate) {
        planPrices(date)
        planHoldings(date)
        planLateAppraisal(date)
        planMonthEnd(date)
    }

    /// Prices: FX rates every Monday (JPY only from a year and a half in), ETF prices every
    /// weekday, gold priced by hand each month.
    private func planPrices(_ date: LocalDate) {
        let ledger = self.ledger
        let month = date.month
        let usd = Self.usd
        if Self.weekday(date) == 1 {
            gbpInUSD += draw(-40...40)
            eurInUSD += draw(-35...35)
            jpyInUSD = max(5_000, jpyInUSD + draw(-60...60))
            let withYen = month >= household.storyMonth(17)
            plan(9) { try self.quoteRates(includingYen: withYen) }
        }
        if Self.isWeekday(date) {
            vtiPrice += vtiPrice * draw(-120...130) / 10_000
            vwrlPrice += vwrlPrice * draw(-110...120) / 10_000
            let (vti, vwrl) = (vtiPrice, vwrlPrice)
            plan(16, 30) {
                try self.run { try ledger.quotePrice(symbol: try Commodity.named("VTI"), price: usd(vti), source: .live) }
                try self.run { try ledger.quotePrice(symbol: try Commodity.named("VWRL"), price: Money(minorUnits: vwrl, commodity: .gbp), source: .live) }
            }
        }
        if date.day == 1 {
            goldPrice += goldPrice * draw(-300...350) / 10_000
            let gold = goldPrice
            plan(6, 45) { try self.run { try ledger.quotePrice(symbol: try Commodity.named("XAU"), price: usd(gold), source: .manual) } }
        }
    }

    /// Holdings: the monthly ETF purchase and the quarterly appraisal of the home with its reminder.
    private func planHoldings(_ date: LocalDate) {
        let ledger = self.ledger
        let month = date.month
        let usd = Self.usd
        if date.day == 5 {
            vtiShares += 7_500_0000
            vtiCostBasis += vtiPrice * 3 / 4
            let (shares, basis) = (vtiShares, vtiCostBasis)
            plan(17) {
                try self.run { try ledger.setPosition(assetId: "vti", quantity: Money(minorUnits: shares, commodity: try Commodity.named("VTI")), costBasis: usd(basis)) }
            }
        }
        if month.month % 3 == 0 && date.day == 28 {
            homeValue += homeValue * draw(50...180) / 10_000
            homeValue -= homeValue % 100_00
            let value = homeValue
            let (done, next) = ("home-value-\(reminderNumber)", "home-value-\(reminderNumber + 1)")
            reminderNumber += 1
            plan(17) {
                try self.run { try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd(value), source: .manual) }
                try self.run(refusable: true) { try ledger.completeReminder(done) }
                try self.run { try ledger.setReminder(reminderId: next, assetId: "home", dueDate: date.adding(days: 90), note: "Check comparable sales") }
            }
        }
    }

    /// The appraisal ordered for the end of the corrected month arrives late: recorded on
    /// day 8 of the next month, effective on the last day it is about.
    private func planLateAppraisal(_ date: LocalDate) {
        let ledger = self.ledger
        let month = date.month
        let usd = Self.usd
        if month == household.correctedMonth.adding(months: 1) && date.day == 8 {
            let appraised = homeValue + 6_500_00
            let effective = DemoHousehold.at(household.correctedMonth.lastDay, 12, 0, calendar)
            plan(10, 1) {
                try self.run { try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd(appraised), source: .manual, effectiveAt: effective) }
            }
        }
    }

    /// Month end: bank refreshes and the mortgage statement; quarterly balance assertions.
    private func planMonthEnd(_ date: LocalDate) {
        let ledger = self.ledger
        let month = date.month
        let usd = Self.usd
        if date == month.lastDay {
            mortgage -= 780_00 + draw(0...40_00)
            ukSavings += 40_00
            let (owed, card, checking, savings) = (mortgage, draw(400_00...2_400_00), draw(5_000_00...9_000_00), ukSavings)
            plan(21, 30) {
                for valuation in [
                    ValuationRecorded(itemKind: .liability, itemId: "mortgage", value: usd(owed), source: .bankRefresh),
                    ValuationRecorded(itemKind: .liability, itemId: "card", value: usd(card), source: .bankRefresh),
                    ValuationRecorded(itemKind: .asset, itemId: "checking", value: usd(checking), source: .bankRefresh),
                    ValuationRecorded(itemKind: .asset, itemId: "uk-savings", value: Money(minorUnits: savings, commodity: .gbp), source: .bankRefresh),
                ] {
                    try self.run {
                        try ledger.recordValuation(itemKind: valuation.itemKind, itemId: valuation.itemId, value: valuation.value, source: valuation.source)
                    }
                }
            }
            if month.month % 3 == 0 {
                plan(22) { try self.assertQuarterEndBalances(date) }
            }
        }
    }

    /// This week's FX rates into USD.
    func quoteRates(includingYen: Bool) throws {
        let ledger = self.ledger
        let (gbp, eur, jpy) = (gbpInUSD, eurInUSD, jpyInUSD)
        try run { try ledger.setFXRate(base: .gbp, quote: .usd, rate: try ExactDecimal(significand: gbp, scale: 4)) }
        try run { try ledger.setFXRate(base: .eur, quote: .usd, rate: try ExactDecimal(significand: eur, scale: 4)) }
        if includingYen {
            try run { try ledger.setFXRate(base: .jpy, quote: .usd, rate: try ExactDecimal(significand: jpy, scale: 6)) }
        }
    }

    /// The household checks its cash and its emergency pot against the statements at the
    /// end of each quarter; `verify` checks every assertion again later.
    private func assertQuarterEndBalances(_ date: LocalDate) throws {
        let ledger = self.ledger
        let balances = try ledger.balances(asOf: calendar.endOfDay(date))
        for account in [Self.cash, LedgerAccounts.pot("emergency")] {
            guard let balance = balances.first(where: { $0.account == account && $0.amount.commodity == .usd }) else { continue }
            try run { try ledger.assertBalance(account: account, amount: balance.amount, on: date) }
        }
    }
}
