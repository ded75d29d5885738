internal import TallyLog

/// A deterministic synthetic household: a few months of realistic activity across the
/// products, as batches of events with the instant the ledger learned each batch.
///
/// The same seed yields the same events, recorded times and so the same log digest.
/// Until the `Ledger` commands exist, the wealth rules (70/30 split, round-ups) are
/// applied here with the money primitives.
public struct DemoHousehold: Sendable {
    /// One commit: the events of one user action and when it was recorded.
    public struct Batch: Sendable {
        public let recordedAt: Instant
        public let events: [NewEvent]
    }

    public let seed: UInt64
    public let firstMonth: Month
    public let monthCount: Int

    public init(seed: UInt64 = 42, firstMonth: Month, monthCount: Int) {
        self.seed = seed
        self.firstMonth = firstMonth
        self.monthCount = monthCount
    }

    /// The ledger's opening event.
    public var ledger: LedgerCreated {
        LedgerCreated(name: "Demo household", baseCurrency: .usd, timeZone: "America/New_York")
    }

    /// When the ledger was created: the first day of the first month, 09:00 UTC.
    public var createdAt: Instant { at(firstMonth.firstDay, hour: 9) }

    private func at(_ date: LocalDate, hour: Int, minute: Int = 0) -> Instant {
        Instant(microsecondsSinceEpoch: Instant(utcDate: date).microsecondsSinceEpoch
            + Int64(hour * 3600 + minute * 60) * 1_000_000)
    }

    private static func money(_ minorUnits: Int64, _ commodity: Commodity = .usd) -> Money {
        Money(minorUnits: minorUnits, commodity: commodity)
    }

    /// Every batch after the ledger's creation, in recorded order.
    public func batches() throws -> [Batch] {
        var random = SplitMix64(seed: seed)
        var batches: [Batch] = []
        func add(_ date: LocalDate, hour: Int, minute: Int = 0, _ events: [NewEvent]) {
            batches.append(Batch(recordedAt: at(date, hour: hour, minute: minute), events: events))
        }
        func event(_ date: LocalDate, hour: Int, key: String? = nil, cause: CauseReference? = nil, _ body: EventBody) -> NewEvent {
            NewEvent(effectiveAt: at(date, hour: hour), cause: cause, idempotencyKey: key, body: body)
        }
        let start = firstMonth.firstDay
        let vea = try Commodity.named("VEA")
        add(start, hour: 9, minute: 5, [
            event(start, hour: 9, .accountOpened(AccountOpened(account: "Assets:Bank:Checking", kind: .asset, commodity: .usd, openingBalance: Self.money(2_500_00)))),
            event(start, hour: 9, .accountOpened(AccountOpened(account: "Liabilities:CreditCard", kind: .liability, commodity: .usd))),
            event(start, hour: 9, .splitRuleSet(SplitRuleSet(account: "main", spendWeight: 70, investWeight: 30))),
            event(start, hour: 9, .roundUpsSwitched(RoundUpsSwitched(account: "main", enabled: true))),
            event(start, hour: 9, .bankConnected(BankConnected(bankId: "first-national", name: "First National"))),
            event(start, hour: 9, .referenceBalanceSet(ReferenceBalanceSet(amount: Self.money(2_500_00)))),
            event(start, hour: 9, .potCreated(PotCreated(potId: "holiday", name: "Summer holiday", target: Self.money(1_500_00)))),
            event(start, hour: 9, .potCreated(PotCreated(potId: "emergency", name: "Emergency fund", target: Self.money(5_000_00)))),
            event(start, hour: 9, .recurringDefined(RecurringDefined(recurringId: "rent", payee: "Maple Street Rentals", category: .bills, amount: Self.money(-1_450_00), dayOfMonth: 1, startMonth: firstMonth))),
            event(start, hour: 9, .recurringDefined(RecurringDefined(recurringId: "salary", payee: "Acme Corp", category: .general, amount: Self.money(3_200_00), dayOfMonth: 25, startMonth: firstMonth))),
            event(start, hour: 9, .recurringDefined(RecurringDefined(recurringId: "streaming", payee: "StreamFlix", category: .entertainment, amount: Self.money(-15_49), dayOfMonth: 12, startMonth: firstMonth))),
            event(start, hour: 9, .envelopeCreated(EnvelopeCreated(envelopeId: "groceries", name: "Groceries", interval: .monthly, budgeted: Self.money(600_00), startDate: start))),
            event(start, hour: 9, .assetAdded(AssetAdded(assetId: "home", name: "Home", category: .property, type: .realEstate, currency: .usd, country: "US"))),
            event(start, hour: 9, .assetAdded(AssetAdded(assetId: "vea", name: "Vanguard FTSE Developed Markets", category: .investments, type: .stockOrETF, currency: .usd, country: "XD", sector: "Diversified", symbol: "VEA"))),
            event(start, hour: 9, .assetAdded(AssetAdded(assetId: "uk-savings", name: "UK savings", category: .cash, type: .cash, currency: .gbp, country: "GB"))),
            event(start, hour: 9, .liabilityAdded(LiabilityAdded(liabilityId: "mortgage", name: "Mortgage", category: .mortgage, currency: .usd, linkedAssetId: "home"))),
            event(start, hour: 9, .positionSet(PositionSet(assetId: "vea", quantity: Money(minorUnits: 42_5000_0000, commodity: vea), costBasis: Self.money(1_980_00)))),
            event(start, hour: 9, .valuationRecorded(ValuationRecorded(itemKind: .asset, itemId: "home", value: Self.money(420_000_00), source: .manual))),
            event(start, hour: 9, .valuationRecorded(ValuationRecorded(itemKind: .asset, itemId: "uk-savings", value: Self.money(8_000_00, .gbp), source: .bankRefresh))),
            event(start, hour: 9, .reminderSet(ReminderSet(reminderId: "home-value", assetId: "home", dueDate: start.adding(days: 90), note: "Check comparable sales"))),
        ])

        let payees: [(String, BudgetCategory, ClosedRange<Int64>)] = [
            ("Green Grocer", .groceries, 25_00...140_00), ("City Market", .groceries, 15_00...90_00),
            ("Luigi's Trattoria", .diningOut, 30_00...95_00), ("Bean There Cafe", .diningOut, 4_00...14_00),
            ("Metro Transit", .transportation, 2_75...40_00), ("QuickFuel", .transportation, 30_00...70_00),
            ("Bookworm", .education, 12_00...60_00), ("Style Hub", .shopping, 20_00...160_00),
            ("Cinema 8", .entertainment, 12_00...38_00), ("Pharma Plus", .personalCare, 6_00...45_00),
        ]
        var mortgage: Int64 = 310_000_00
        var veaPrice: Int64 = 48_20
        var gbpRate: Int64 = 1_2650  // USD per GBP, scale 4
        var transactionNumber = 0
        var purchaseNumber = 0
        var depositNumber = 0

        for offset in 0..<monthCount {
            let month = firstMonth.adding(months: offset)
            let first = month.firstDay
            // Budgets for the month.
            add(first, hour: 8, [
                event(first, hour: 8, .budgetSet(BudgetSet(category: .groceries, month: month, maximum: Self.money(550_00)))),
                event(first, hour: 8, .budgetSet(BudgetSet(category: .diningOut, month: month, maximum: Self.money(250_00)))),
                event(first, hour: 8, .budgetSet(BudgetSet(category: .transportation, month: month, maximum: Self.money(180_00)))),
            ])
            // Recurring occurrences.
            for (id, payee, category, amount, day) in [
                ("rent", "Maple Street Rentals", BudgetCategory.bills, Int64(-1_450_00), 1),
                ("streaming", "StreamFlix", .entertainment, -15_49, 12),
                ("salary", "Acme Corp", .general, 3_200_00, 25),
            ] {
                let date = first.adding(days: day - 1)
                add(date, hour: 7, [event(date, hour: 7, key: "recurring:\(id):\(month)", .recurringOccurrenceGenerated(RecurringOccurrenceGenerated(
                    recurringId: id, month: month, transactionId: "rec-\(id)-\(month)", payee: payee, category: category, amount: Self.money(amount))))])
            }
            for day in 0..<month.dayCount {
                let date = first.adding(days: day)
                // Bank card spending: 0 to 2 transactions a day.
                for _ in 0..<Int(random.next() % 3) {
                    let (payee, category, range) = payees[Int(random.next() % UInt64(payees.count))]
                    let amount = range.lowerBound + Int64(random.next() % UInt64(range.upperBound - range.lowerBound + 1))
                    transactionNumber += 1
                    let external = "fn-\(String(transactionNumber + 100_000))"
                    add(date, hour: 20, minute: transactionNumber % 60, [event(date, hour: 18, key: "bank:\(external)", .transactionRecorded(TransactionRecorded(
                        transactionId: "t\(transactionNumber)", payee: payee, category: category, amount: Self.money(-amount),
                        source: .bank, externalId: external, bankId: "first-national", account: "Assets:Bank:Checking",
                        envelope: category == .groceries ? "groceries" : nil)))])
                }
                // Wealth account: deposits on the 1st and 15th, split 70/30.
                if day == 0 || day == 14 {
                    depositNumber += 1
                    let usdc = depositNumber % 3 == 0
                    let amount = usdc ? Money(minorUnits: 150_000000, commodity: .usdc) : Self.money(500_00)
                    let parts = try amount.allocated(byRatios: [70, 30])
                    add(date, hour: 10, [
                        event(date, hour: 10, key: "deposit:d\(depositNumber)", .depositReceived(DepositReceived(
                            account: "main", amount: amount, source: usdc ? .chain : .bankTransfer, externalId: "d\(depositNumber)"))),
                        event(date, hour: 10, cause: .earlierInBatch(0), .depositSplit(DepositSplit(
                            account: "main", spend: parts[0], invest: parts[1], spendWeight: 70, investWeight: 30))),
                    ])
                }
                // Card purchases from Spend with round-ups, about every third day.
                if random.next() % 3 == 0 {
                    purchaseNumber += 1
                    let amount = Self.money(1_00 + Int64(random.next() % 4_000))
                    let roundUp = try amount.remainderToNextWholeUnit()
                    var events = [event(date, hour: 13, .purchaseMade(PurchaseMade(account: "main", amount: amount, merchant: ["Corner Deli", "Bike Shop", "Bakery", "Hardware Co"][purchaseNumber % 4], externalId: "card-\(purchaseNumber)")))]
                    if roundUp.isPositive {
                        events.append(event(date, hour: 13, cause: .earlierInBatch(0), .roundUpApplied(RoundUpApplied(account: "main", amount: roundUp))))
                    }
                    add(date, hour: 13, minute: 1, events)
                }
                // Prices on weekdays, FX weekly.
                let weekday = (date.daysSinceEpoch + 4) % 7  // 0 = Sunday
                if weekday >= 1 && weekday <= 5 {
                    veaPrice = max(30_00, veaPrice + Int64(random.next() % 101) - 49)
                    add(date, hour: 21, [event(date, hour: 21, .priceQuoted(PriceQuoted(symbol: vea, price: Self.money(veaPrice), source: .live)))])
                }
                if weekday == 1 {
                    gbpRate = gbpRate + Int64(random.next() % 41) - 20
                    add(date, hour: 21, minute: 5, [event(date, hour: 21, .fxRateSet(FXRateSet(base: .gbp, quote: .usd, rate: try ExactDecimal(significand: gbpRate, scale: 4))))])
                }
            }
            // Month end: pot savings, mortgage statement, a balance assertion.
            let last = month.lastDay
            mortgage -= 780_00
            add(last, hour: 19, [
                event(last, hour: 19, .potFunded(PotFunded(potId: "holiday", amount: Self.money(150_00)))),
                event(last, hour: 19, .potFunded(PotFunded(potId: "emergency", amount: Self.money(250_00)))),
                event(last, hour: 19, .valuationRecorded(ValuationRecorded(itemKind: .liability, itemId: "mortgage", value: Self.money(mortgage), source: .bankRefresh))),
            ])
        }
        return batches
    }
}
