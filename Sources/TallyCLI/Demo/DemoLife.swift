import Tally
import TallyLog
// The demo household's days. Every act is a `Ledger` command at a simulated moment: the
// household decides what it does (amounts, payees, prices drawn from the seed); the ledger
// decides what that means (splits, round-ups, refusals), as it would for a real user.

/// One household living its tour, day by day. Each product plans the day's acts at local
/// times; the acts then run in time order with the clock moved to each one's moment.
final class DemoLife {
    let household: DemoHousehold
    let ledger: Ledger
    let clock: DemoClock
    let calendar: LedgerCalendar
    var activity = DemoActivity()
    var random: SplitMix64

    /// One act of the day: its local time in minutes and the order it was planned in.
    private struct Planned {
        let minuteOfDay: Int
        let order: Int
        let body: () throws -> Void
    }
    private var agenda: [Planned] = []

    // Budget state (what the household remembers, not what the ledger computes).
    var bankTransactionNumber = 0
    var manualTransactionNumber = 0
    var budgetMaxima: [(category: BudgetCategory, maximum: Int64)] = [
        (.groceries, 550_00), (.diningOut, 260_00), (.transportation, 200_00), (.entertainment, 120_00), (.shopping, 150_00),
    ]
    var latestStyleHubTransaction: String?

    // Wealth state.
    var depositNumber = 0
    var purchaseNumber = 0

    // Envelope state.
    var envelopeTransactionNumber = 0
    var challenge: (id: String, stepsDone: Int)?
    var challengesStarted = 0

    // Net worth state: market prices and rates follow seeded random walks.
    var vtiPrice: Int64 = 235_00
    var vwrlPrice: Int64 = 98_00
    var goldPrice: Int64 = 2_050_00
    var vtiShares: Int64 = 40_0000_0000
    var vtiCostBasis: Int64 = 8_600_00
    var gbpInUSD: Int64 = 1_2650  // scale 4
    var eurInUSD: Int64 = 1_0900  // scale 4
    var jpyInUSD: Int64 = 6_700  // scale 6
    var homeValue: Int64 = 420_000_00
    var mortgage: Int64 = 310_000_00
    var ukSavings: Int64 = 8_000_00
    var reminderNumber = 1

    static let bankId = "first-national"
    static let checking = "Assets:Checking"
    static let cash = "Assets:Cash"
    static let euroAccount = "Assets:Euro account"
    static let savings = "Assets:Savings"

    init(household: DemoHousehold, ledger: Ledger, clock: DemoClock) {
        self.household = household
        self.ledger = ledger
        self.clock = clock
        self.calendar = ledger.calendar
        self.random = SplitMix64(seed: household.seed)
    }

    func live() throws {
        let first = household.firstMonth.firstDay
        try setUp(first)
        var date = first
        while date <= household.lastDay {
            planWealth(date)
            planBudget(date)
            planEnvelopes(date)
            planNetWorth(date)
            let acts = agenda.sorted { $0.minuteOfDay != $1.minuteOfDay ? $0.minuteOfDay < $1.minuteOfDay : $0.order < $1.order }
            agenda.removeAll(keepingCapacity: true)
            for act in acts {
                clock.move(to: DemoHousehold.at(date, act.minuteOfDay / 60, act.minuteOfDay % 60, calendar))
                try act.body()
            }
            date = date.adding(days: 1)
        }
        clock.move(to: DemoHousehold.at(household.lastDay, 21, 45, calendar))
    }

    // MARK: Running commands

    /// Plans an act at a local time of the day being planned.
    func plan(_ hour: Int, _ minute: Int = 0, _ body: @escaping () throws -> Void) {
        agenda.append(Planned(minuteOfDay: hour * 60 + minute, order: agenda.count, body: body))
    }

    /// Runs one command and counts what it did; a refusal is counted (and returns nil) only
    /// when the household knows the ledger may refuse it.
    @discardableResult
    func run(refusable: Bool = false, _ command: () throws -> Ledger.CommandResult) throws -> Ledger.CommandResult? {
        activity.commands += 1
        do {
            let result = try command()
            if result.wasAlreadyApplied {
                activity.repeatsIgnored += 1
            } else if result.events.isEmpty {
                activity.nothingToDo += 1
            } else {
                for event in result.events { activity.eventsByType[event.type.name, default: 0] += 1 }
            }
            return result
        } catch let error as LedgerError where refusable && error.underlying == nil {
            activity.refusals[error.code.description, default: 0] += 1
            return nil
        }
    }

    /// A random amount in minor units, both bounds included.
    func draw(_ range: ClosedRange<Int64>) -> Int64 {
        range.lowerBound + Int64(random.next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// Whether a day is Monday to Friday.
    static func isWeekday(_ date: LocalDate) -> Bool { (1...5).contains(weekday(date)) }
    /// 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
    static func weekday(_ date: LocalDate) -> Int { ((date.daysSinceEpoch + 4) % 7 + 7) % 7 }

    static func usd(_ minorUnits: Int64) -> Money { Money(minorUnits: minorUnits, commodity: .usd) }

    // MARK: Day one

    private func setUp(_ day: LocalDate) throws {
        clock.move(to: DemoHousehold.at(day, 8, 0, calendar))
        try setUpWealth(day)
        try setUpBudget(day)
        try setUpEnvelopes(day)
        try setUpNetWorth(day)
    }

    /// Wealth: the default 70/30 rule is in force; round-ups switched on.
    private func setUpWealth(_ day: LocalDate) throws {
        let ledger = self.ledger
        let wealth = DemoHousehold.wealthAccount
        try run { try ledger.setSplitRule(account: wealth, spendWeight: 70, investWeight: 30) }
        try run { try ledger.setRoundUps(account: wealth, enabled: true) }
    }

    /// Budget: the bank, the balance it shows, pots and what recurs every month.
    private func setUpBudget(_ day: LocalDate) throws {
        let ledger = self.ledger
        let usd = Self.usd
        try run { try ledger.connectBank(id: Self.bankId, name: "First National") }
        try run { try ledger.setReferenceBalance(amount: usd(2_500_00)) }
        try run { try ledger.createPot(id: "holiday", name: "Summer holiday", target: usd(1_500_00)) }
        try run { try ledger.createPot(id: "emergency", name: "Emergency fund", target: usd(6_000_00)) }
        let start = household.firstMonth
        for (id, payee, category, amount, day) in [
            ("rent", "Maple Street Rentals", BudgetCategory.bills, Int64(-1_450_00), 1),
            ("streaming", "StreamFlix", .entertainment, -15_49, 12),
            ("phone", "Lightwave Mobile", .bills, -45_00, 18),
            ("salary", "Acme Corp", .general, 3_800_00, 25),
            ("insurance", "Harbor Insurance", .bills, -89_00, 28),
        ] {
            try run { try ledger.defineRecurring(id: id, payee: payee, category: category, amount: usd(amount), dayOfMonth: day, startMonth: start) }
        }
    }

    /// Envelopes: accounts in USD and EUR, four envelopes, travel money carried forward.
    private func setUpEnvelopes(_ day: LocalDate) throws {
        let ledger = self.ledger
        let usd = Self.usd
        try run { try ledger.openEnvelopeAccount(Self.checking, commodity: .usd, openingBalance: usd(1_800_00), effectiveAt: ledger.calendar.startOfDay(day)) }
        try run { try ledger.openEnvelopeAccount(Self.cash, commodity: .usd, openingBalance: usd(150_00), effectiveAt: ledger.calendar.startOfDay(day)) }
        try run { try ledger.openEnvelopeAccount(Self.euroAccount, commodity: .eur, openingBalance: Money(minorUnits: 600_00, commodity: .eur), effectiveAt: ledger.calendar.startOfDay(day)) }
        try run { try ledger.openEnvelopeAccount(Self.savings, commodity: .usd, effectiveAt: ledger.calendar.startOfDay(day)) }
        for (id, name, interval, budgeted) in [
            ("groceries", "Groceries", EnvelopeInterval.monthly, Int64(300_00)),
            ("dining", "Dining out", .monthly, 150_00),
            ("fun", "Fun money", .weekly, 20_00),
            ("travel", "Travel", .monthly, 50_00),
        ] {
            try run { try ledger.createEnvelope(id, name: name, interval: interval, budgeted: usd(budgeted), startDate: day) }
        }
        // What is left of dining and fun money does not carry over; groceries and travel carry forward.
        try run { try ledger.setEnvelopeRollover("dining", policy: .reset, effectiveAt: ledger.calendar.startOfDay(day)) }
        try run { try ledger.setEnvelopeRollover("fun", policy: .reset, effectiveAt: ledger.calendar.startOfDay(day)) }
    }

    /// Net worth and portfolio: what the household owns and owes, with end-of-day prices
    /// (so a price is stale after four days, not fifteen minutes), values and reminders.
    private func setUpNetWorth(_ day: LocalDate) throws {
        let ledger = self.ledger
        let usd = Self.usd
        try run { try ledger.setPriceStaleness(seconds: 4 * 86_400) }
        let vti = try Commodity.named("VTI"), vwrl = try Commodity.named("VWRL"), gold = try Commodity.named("XAU")
        for asset in [
            AssetAdded(assetId: "home", name: "Home", category: .property, type: .realEstate, currency: .usd, country: "US", sector: "Residential"),
            AssetAdded(assetId: "vti", name: "Vanguard Total Stock Market", category: .investments, type: .stockOrETF, currency: .usd,
                       country: "US", sector: "Diversified", symbol: "VTI"),
            AssetAdded(assetId: "vwrl", name: "Vanguard FTSE All-World", category: .investments, type: .stockOrETF, currency: .gbp,
                       sector: "Diversified", symbol: "VWRL"),
            AssetAdded(assetId: "gold", name: "Gold coins", category: .investments, type: .gold, currency: .usd, sector: "Commodities", symbol: "XAU"),
            AssetAdded(assetId: "checking", name: "Checking account", category: .cash, type: .cash, currency: .usd, country: "US", sector: "Cash"),
            AssetAdded(assetId: "uk-savings", name: "UK savings", category: .cash, type: .cash, currency: .gbp, country: "GB", sector: "Cash"),
            AssetAdded(assetId: "jp-fund", name: "Japan growth fund", category: .investments, type: .fund, currency: .jpy, country: "JP", sector: "Technology"),
            AssetAdded(assetId: "art", name: "Painting", category: .other, type: .custom, currency: .usd),
        ] {
            try run {
                try ledger.addAsset(assetId: asset.assetId, name: asset.name, category: asset.category, type: asset.type,
                                    currency: asset.currency, country: asset.country, sector: asset.sector, symbol: asset.symbol)
            }
        }
        try run { try ledger.addLiability(liabilityId: "mortgage", name: "Mortgage", category: .mortgage, currency: .usd, linkedAssetId: "home") }
        try run { try ledger.addLiability(liabilityId: "card", name: "Credit card", category: .creditCard, currency: .usd) }
        try run { try ledger.setPosition(assetId: "vti", quantity: Money(minorUnits: vtiShares, commodity: vti), costBasis: usd(vtiCostBasis)) }
        try run { try ledger.setPosition(assetId: "vwrl", quantity: Money(minorUnits: 120_0000_0000, commodity: vwrl),
                                                     costBasis: Money(minorUnits: 10_900_00, commodity: .gbp)) }
        try run { try ledger.setPosition(assetId: "gold", quantity: Money(minorUnits: 2_5000_0000, commodity: gold), costBasis: usd(4_700_00)) }
        try quoteRates(includingYen: false)
        try run { try ledger.quotePrice(symbol: vti, price: usd(vtiPrice), source: .live) }
        try run { try ledger.quotePrice(symbol: vwrl, price: Money(minorUnits: vwrlPrice, commodity: .gbp), source: .live) }
        try run { try ledger.quotePrice(symbol: gold, price: usd(goldPrice), source: .manual) }
        for valuation in [
            ValuationRecorded(itemKind: .asset, itemId: "home", value: usd(homeValue), source: .manual),
            ValuationRecorded(itemKind: .asset, itemId: "checking", value: usd(6_200_00), source: .bankRefresh),
            ValuationRecorded(itemKind: .asset, itemId: "uk-savings", value: Money(minorUnits: ukSavings, commodity: .gbp), source: .bankRefresh),
            ValuationRecorded(itemKind: .asset, itemId: "jp-fund", value: Money(minorUnits: 1_500_000, commodity: .jpy), source: .manual),
            ValuationRecorded(itemKind: .asset, itemId: "art", value: usd(3_500_00), source: .manual),
            ValuationRecorded(itemKind: .liability, itemId: "mortgage", value: usd(mortgage), source: .bankRefresh),
            ValuationRecorded(itemKind: .liability, itemId: "card", value: usd(1_240_00), source: .bankRefresh),
        ] {
            try run { try ledger.recordValuation(itemKind: valuation.itemKind, itemId: valuation.itemId, value: valuation.value, source: valuation.source) }
        }
        try run { try ledger.setReminder(reminderId: "home-value-1", assetId: "home", dueDate: day.adding(days: 90), note: "Check comparable sales") }
        try run { try ledger.setReminder(reminderId: "art-value", assetId: "art", dueDate: day.adding(days: 365), note: "Have the painting appraised") }
    }
}
