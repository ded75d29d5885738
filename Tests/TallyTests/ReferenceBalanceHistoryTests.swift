import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// The reference balance already holds what is dated before it (issue 15, finding 6):
/// history entered, imported, amended or deleted after the reference was set, but dated
/// before it, leaves the current balance from the reference on unchanged; only later
/// transactions move it. What the ledger said before that history arrived stays readable.
@Suite struct ReferenceBalanceHistoryTests {
    private func currentBalance(_ ledger: Ledger, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> Money {
        try ledger.balances(asOf: asOf ?? ledger.now, knownAt: knownAt).first { $0.account == LedgerAccounts.current }?.amount ?? usd("0.00")
    }

    @Test func enteringLastMonthsGroceriesAfterSettingTheReferenceChangesNothingToday() throws {
        try withBudgetLedger(at: "2026-05-20T16:00:00Z") { ledger, clock in
            try ledger.setReferenceBalance(amount: usd("2500.00"))    // what the bank says today
            let set = ledger.now
            clock.advance(seconds: 3600)
            let groceries = try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-120.00"), date: day("2026-04-12"))
            #expect(groceries.events.map(\.type.name) == ["transaction_recorded", "reference_balance_reconciled"])
            #expect(groceries.events[1].cause == groceries.events[0].sequence)
            #expect(try currentBalance(ledger) == usd("2500.00"), "the bank's 2,500.00 already held April's groceries")
            // April itself shows them, and the month's expenses count them.
            let april = try ledger.budgetOverview(month: month("2026-04"))
            #expect(april.expenses == usd("120.00"))
            #expect(try currentBalance(ledger, asOf: ledger.calendar.endOfDay(day("2026-04-12"))) == usd("-120.00"))
            // Known at the moment the reference was set, before the groceries: the same 2,500.00.
            #expect(try currentBalance(ledger, knownAt: set) == usd("2500.00"))
            // A purchase dated after the reference moves today's balance.
            try ledger.recordTransaction(payee: "Cafe", category: .diningOut, amount: usd("-4.50"), date: day("2026-05-20"))
            #expect(try currentBalance(ledger) == usd("2495.50"))
            try ledger.expectConsistent()
        }
    }

    @Test func importingBankHistoryBeforeTheReferenceChangesNothingToday() throws {
        try withBudgetLedger(at: "2026-05-20T16:00:00Z") { ledger, clock in
            try ledger.connectBank(id: "chase")
            try ledger.setReferenceBalance(amount: usd("1000.00"))
            clock.advance(seconds: 60)
            for (index, day) in ["2026-03-02", "2026-04-15", "2026-05-19"].enumerated() {
                try ledger.importBankTransaction(bankId: "chase", externalId: "T-\(index)", payee: "Shop", category: .shopping,
                                                 amount: usd("-50.00"), date: TallyTestSupport.day(day))
            }
            #expect(try currentBalance(ledger) == usd("1000.00"))
            // The same import again records nothing and still changes nothing.
            let repeated = try ledger.importBankTransaction(bankId: "chase", externalId: "T-0", payee: "Shop", category: .shopping,
                                                            amount: usd("-50.00"), date: day("2026-03-02"))
            #expect(repeated.wasAlreadyApplied)
            // Tomorrow's bank transaction does move it.
            clock.set("2026-05-21T16:00:00Z")
            try ledger.importBankTransaction(bankId: "chase", externalId: "T-9", payee: "Shop", category: .shopping,
                                             amount: usd("-50.00"), date: day("2026-05-21"))
            #expect(try currentBalance(ledger) == usd("950.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func amendingOrDeletingOlderHistoryChangesNothingTodayButMovingATransactionBeforeTheReferenceDoes() throws {
        try withBudgetLedger(at: "2026-05-20T16:00:00Z") { ledger, clock in
            let old = try ledger.recordTransaction(payee: "Gym", category: .personalCare, amount: usd("-30.00"), date: day("2026-05-02"))
            try ledger.setReferenceBalance(amount: usd("800.00"))
            clock.advance(seconds: 60)
            try ledger.amendTransaction(id: try #require(old.transactionId), amount: usd("-35.00"))
            #expect(try currentBalance(ledger) == usd("800.00"), "the bank's figure already held the true amount")
            try ledger.deleteTransaction(id: try #require(old.transactionId))
            #expect(try currentBalance(ledger) == usd("800.00"))
            // A transaction dated after the reference, moved to a date before it, is now inside the bank's figure.
            clock.set("2026-05-22T16:00:00Z")
            let late = try ledger.recordTransaction(payee: "Books", category: .education, amount: usd("-25.00"), date: day("2026-05-21"))
            #expect(try currentBalance(ledger) == usd("775.00"))
            try ledger.amendTransaction(id: try #require(late.transactionId), date: day("2026-05-10"))
            #expect(try currentBalance(ledger) == usd("800.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func aTransactionBetweenTwoReferencesReconcilesWithTheLaterOneOnly() throws {
        try withBudgetLedger(at: "2026-05-01T16:00:00Z") { ledger, clock in
            try ledger.setReferenceBalance(amount: usd("500.00"))
            clock.set("2026-05-15T16:00:00Z")
            let second = try ledger.setReferenceBalance(amount: usd("700.00"))
            clock.set("2026-05-20T16:00:00Z")
            let between = try ledger.recordTransaction(payee: "Market", category: .groceries, amount: usd("-40.00"), date: day("2026-05-08"))
            let reconciled = try #require(between.events.last)
            #expect(reconciled.effectiveAt == (try Instant(parsing: "2026-05-15T16:00:00Z")), "at the second reference")
            #expect(reconciled.body.as(ReferenceBalanceReconciled.self)?.adjustment == usd("40.00"))
            #expect(reconciled.body.as(ReferenceBalanceReconciled.self)?.reference == second.events.first.map { Int64($0.sequence) })
            // The first reference's span shows it; from the second on, nothing changed.
            #expect(try currentBalance(ledger, asOf: ledger.calendar.endOfDay(day("2026-05-10"))) == usd("460.00"))
            #expect(try currentBalance(ledger) == usd("700.00"))
            try ledger.expectConsistent()
        }
    }

    @Test func recurringItemsGeneratedForAMonthBeforeTheReferenceChangeNothingToday() throws {
        try withBudgetLedger(at: "2026-05-20T16:00:00Z") { ledger, _ in
            try ledger.defineRecurring(id: "rent", payee: "Landlord", category: .bills, amount: usd("-900.00"),
                                       dayOfMonth: 1, startMonth: month("2026-04"))
            try ledger.setReferenceBalance(amount: usd("3000.00"))
            let april = try ledger.generateRecurring(month: month("2026-04"))
            #expect(april.events.map(\.type.name) == ["recurring_occurrence_generated", "reference_balance_reconciled"])
            #expect(try currentBalance(ledger) == usd("3000.00"))
            try ledger.expectConsistent()
        }
    }

    /// Random backdated history around random references: at the end of random days from the
    /// first reference on, Current plus pots equals the reference in force plus every
    /// transaction (the version in force now) it does not hold (dated after its day, or on
    /// its day and recorded after it) up to that day, and the balances equal a full replay. `TALLY_TEST_SEED` replays a failure.
    @Test func randomHistoryAroundReferencesKeepsEachReferenceTrue() throws {
        let master = TestSeed.value(default: 0x5EF_BA1)
        for index in 0..<3 {
            let seed = TestSeed.ledger(index, of: master)
            try withBudgetLedger(at: "2026-03-01T16:00:00Z") { ledger, clock in
                try check(ledger, clock, seed: seed, context: "TALLY_TEST_SEED=\(master), ledger \(index) (seed \(seed))")
            }
        }
    }

    private func check(_ ledger: Ledger, _ clock: ManualClock, seed: UInt64, context: String) throws {
        var random = SplitMix64(seed: seed)
        var references: [(at: Instant, amount: Money, sequence: UInt64)] = []
        var live: [String] = []
        try ledger.createPot(id: "rainy", target: usd("1000.00"))
        for _ in 0..<120 {
            clock.advance(seconds: Int64.random(in: 3_600...60_000, using: &random))
            let today = ledger.calendar.date(of: clock.now)
            let date = LocalDate(daysSinceEpoch: today.daysSinceEpoch - Int.random(in: 0...45, using: &random))
            let amount = Money(minorUnits: Int64.random(in: -20_000...15_000, using: &random) | 1, commodity: .usd)
            switch Int.random(in: 0..<12, using: &random) {
            case 0:
                let reference = Money(minorUnits: Int64.random(in: 50_000...500_000, using: &random), commodity: .usd)
                let set = try ledger.setReferenceBalance(amount: reference)
                references.append((ledger.now, reference, try #require(set.events.first).sequence))
            case 1 where !live.isEmpty:
                try ledger.amendTransaction(id: live.randomElement(using: &random)!, amount: amount,
                                            date: Bool.random(using: &random) ? date : nil)
            case 2 where !live.isEmpty:
                let id = live.remove(at: Int.random(in: 0..<live.count, using: &random))
                try ledger.deleteTransaction(id: id)
            case 3:
                _ = try? ledger.addToPot(id: "rainy", amount: usd("10.00"))
            default:
                let result = try ledger.recordTransaction(payee: "P", category: .general, amount: amount, date: date)
                live.append(try #require(result.transactionId))
            }
        }
        guard let first = references.first else { return }
        let transactions = try ledger.budgetTransactionVersionsInForce()
        let firstDay = ledger.calendar.date(of: first.at).daysSinceEpoch
        let lastDay = ledger.calendar.date(of: clock.now).daysSinceEpoch
        let replayed = try Replay.run(at: ledger.layout.root, until: .latest)
        let indexed = try ledger.balances()
        #expect(indexed == replayed.balances, "\(context): the read models equal a full replay")
        for _ in 0..<15 {
            let asOf = ledger.calendar.endOfDay(LocalDate(daysSinceEpoch: Int.random(in: firstDay...lastDay, using: &random)))
            guard let reference = references.last(where: { $0.at <= asOf }) else { continue }
            // The reference holds versions dated before its day, and those of its day recorded before it.
            func isHeld(_ version: (at: Instant, amount: Money, sequence: UInt64)) -> Bool {
                let day = ledger.calendar.date(of: version.at), referenceDay = ledger.calendar.date(of: reference.at)
                return day < referenceDay || (day == referenceDay && version.sequence < reference.sequence)
            }
            var expected = reference.amount.minorUnits
            for transaction in transactions where !isHeld(transaction) && transaction.at <= asOf {
                expected += transaction.amount.minorUnits
            }
            let balances = try ledger.balances(asOf: asOf)
            let held = balances.filter { $0.account.hasPrefix("Budget:Pots:") }.reduce(0) { $0 + $1.amount.minorUnits }
            let current = balances.first { $0.account == LedgerAccounts.current }?.amount.minorUnits ?? 0
            #expect(current + held == expected, "\(context): Current plus pots as of \(asOf) against the reference of \(reference.at)")
        }
    }
}

private extension Ledger {
    /// Every budget transaction's version in force now: its date, amount and the event that recorded it.
    func budgetTransactionVersionsInForce() throws -> [(at: Instant, amount: Money, sequence: UInt64)] {
        var versions: [String: (at: Instant, amount: Money, sequence: UInt64)] = [:]
        for event in try loggedEvents() {
            switch event.body.payload {
            case let recorded as TransactionRecorded: versions[recorded.transactionId] = (event.effectiveAt, recorded.amount, event.sequence)
            case let amended as TransactionAmended: versions[amended.transactionId] = (event.effectiveAt, amended.amount, event.sequence)
            case let deleted as TransactionDeleted: versions[deleted.transactionId] = nil
            default: break
            }
        }
        return Array(versions.values)
    }
}
