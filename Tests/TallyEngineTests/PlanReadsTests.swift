import Foundation
import Synchronization
import Testing
import TallyEngine
import TallyTestSupport
import TallyLog

/// `PlanReads`: an embedder's plan reads balances (now, at a date, as known at a time, the
/// lowest from a date on) with the same answers as the ledger's reads, and sees the commands
/// planned before it in its own group.
@Suite struct PlanReadsTests {
    private func entry(_ amount: String, _ account: String, at instant: Instant) -> NewEvent {
        NewEvent(effectiveAt: instant, body: EventBody(JournalEntryPosted(account: account, counterAccount: "Income:Sales", amount: usd(amount))))
    }

    /// A command's plan that records nothing and hands back what it read.
    private func planRead<T: Sendable>(_ ledger: Ledger, _ read: @escaping @Sendable (PlanReads) throws -> T) throws -> T {
        let answer = Mutex<T?>(nil)
        try ledger.run(LedgerCommand { db in
            let value = try read(PlanReads(db))
            answer.withLock { $0 = value }
            return []
        })
        return try #require(answer.withLock { $0 })
    }

    /// Random entries over three accounts and two currencies, recorded over days and often
    /// backdated: at random (as-of, known-at) pairs, each account's `PlanReads` balance equals
    /// the ledger's `balances(asOf:knownAt:)`, and the lowest balance from a date equals the
    /// minimum of the balances at that date and every later effective time.
    @Test func planReadsAnswerAsTheLedgersReads() throws {
        let seed = TestSeed.value(default: 5_281)
        var random = SplitMix64(seed: seed)
        try withTemporaryStore(on: .files) { store in
            let clock = ManualClock("2026-02-01T00:00:00Z")
            let ledger = try Ledger.create(at: store.root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: Ledger.Options(clock: clock.function))
            defer { try? ledger.close() }
            let accounts = ["Assets:Till", "Assets:Bank", "Expenses:Rent"]
            var recorded: [Instant] = []
            var effective: [Instant] = []
            for _ in 0..<60 {
                clock.advance(seconds: Int64(random.next() % 40_000) + 1)
                let back = random.next() % 2 == 0 ? Int64(random.next() % 10) * 86_400_000_000 : 0
                let at = Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - back)
                let cents = Int64(random.next() % 20_000) - 8_000
                let amount = Money(minorUnits: cents == 0 ? 1 : cents, commodity: random.next() % 4 == 0 ? .eur : .usd)
                try ledger.appendEvents([NewEvent(effectiveAt: at, body: EventBody(JournalEntryPosted(
                    account: accounts[Int(random.next() % 3)], counterAccount: "Income:Sales", amount: amount)))])
                recorded.append(clock.now)
                effective.append(at)
            }
            for round in 0..<30 {
                let asOf = Instant(microsecondsSinceEpoch: effective.randomElement(using: &random)!.microsecondsSinceEpoch + [-1, 0, 1].randomElement(using: &random)!)
                let knownAt = TestSeed.knownAts(3, recorded: recorded, random: &random)[Int(random.next() % 3)]
                let expected = try ledger.balances(asOf: asOf, knownAt: knownAt)
                for account in accounts + ["Income:Sales", "Assets:Nowhere"] {
                    for commodity in [Commodity.usd, .eur] {
                        let want = expected.first { $0.account == account && $0.amount.commodity == commodity }?.amount ?? Money(minorUnits: 0, commodity: commodity)
                        let got = try planRead(ledger) { try $0.balance(of: account, in: commodity, asOf: asOf, knownAt: knownAt) }
                        #expect(got == want, "seed \(seed), round \(round): \(account) \(commodity.code) as of \(asOf) known at \(String(describing: knownAt))")
                    }
                }
                // The lowest from a date: the minimum over that date and every later effective time.
                let account = accounts[Int(random.next() % 2)]
                let later = effective.filter { $0 > asOf }
                let candidates = try ([asOf] + later).map { instant in
                    try ledger.balances(asOf: instant).first { $0.account == account && $0.amount.commodity == .usd }?.amount.minorUnits ?? 0
                }
                let lowest = try planRead(ledger) { try $0.lowestBalance(of: account, in: .usd, from: asOf) }
                #expect(lowest.amount.minorUnits == candidates.min(), "seed \(seed), round \(round): lowest of \(account) from \(asOf)")
                #expect(try planRead(ledger) { try $0.balances(asOf: asOf, knownAt: knownAt) } == expected, "seed \(seed), round \(round)")
            }
        }
    }

    /// Two commands in one commit (`run(batch:)`): the second's plan sees the first's deposit.
    @Test func aPlanSeesTheCommandsBeforeItInItsGroup() throws {
        try withTemporaryStore(on: .files) { store in
            let clock = ManualClock("2026-02-01T09:00:00Z")
            let ledger = try Ledger.create(at: store.root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: Ledger.Options(clock: clock.function))
            defer { try? ledger.close() }
            let deposit = try ledger.wallet.depositCommand(usd("25.00"), into: "Assets:Till")
            let seen = Mutex<Money?>(nil)
            let reader = LedgerCommand { db in
                let reads = PlanReads(db)
                seen.withLock { $0 = try? reads.balance(of: "Assets:Till", in: .usd) }
                try reads.requireCovers(usd("25.00"), from: "Assets:Till", at: clock.now, calendar: ledger.calendar, what: "the payout")
                return [NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(account: "Assets:Till", counterAccount: "Expenses:Payouts", amount: usd("-25.00"))))]
            }
            let outcomes = try ledger.run(batch: [deposit, reader])
            #expect(outcomes.allSatisfy { (try? $0.get()) != nil })
            #expect(seen.withLock { $0 } == usd("25.00"))
            #expect(try ledger.wallet.balance(of: "Assets:Till", in: .usd) == usd("0.00"))
        }
    }
}
