import Foundation
import Testing
import TallyEngine
import TallyTestSupport
import TallyLog

/// The engine's plain wallet (`ledger.wallet`): deposits, purchases and transfers between
/// `Assets:…` accounts with no product configured, under one overdraft rule that holds at the
/// command's effective time and every later one.
@Suite struct WalletTests {
    private static let alice = "Assets:Customers:alice"
    private static let bob = "Assets:Customers:bob"

    private func newLedger(_ store: TestStore, _ clock: ManualClock) throws -> Ledger {
        try Ledger.create(at: store.root, name: "Shop", baseCurrency: .usd, timeZone: "UTC",
                          options: store.options(Ledger.Options(clock: clock.function)))
    }

    /// Alice is paid, buys groceries, sends Bob money; a purchase she cannot cover, a backdated
    /// one that would overdraw a purchase already recorded, a repeat and a conflicting repeat.
    @Test(arguments: LogBackend.allCases)
    func aCustomerIsPaidSpendsAndSendsMoney(backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let clock = ManualClock("2026-06-01T09:00:00Z")
            let ledger = try newLedger(store, clock)
            defer { try? ledger.close() }
            let wallet = ledger.wallet

            let paid = try wallet.deposit(usd("100.00"), into: Self.alice, payee: "Payroll", idempotencyKey: "dep-1")
            #expect(paid.events.map(\.type.name) == ["journal_entry_posted"])
            clock.set("2026-06-05T09:00:00Z")
            try wallet.purchase(usd("30.00"), from: Self.alice, merchant: "  Corner Grocer ", idempotencyKey: "pur-1")
            clock.set("2026-06-06T09:00:00Z")
            try wallet.deposit(usd("1.00"), into: Self.bob)
            try wallet.transfer(usd("50.00"), from: Self.alice, to: Self.bob, idempotencyKey: "tr-1")
            #expect(try wallet.balance(of: Self.alice, in: .usd) == usd("20.00"))
            #expect(try wallet.balance(of: Self.bob, in: .usd) == usd("51.00"))
            #expect(try wallet.balance(of: Self.alice, in: .usd, asOf: ledger.calendar.endOfDay(day("2026-06-05"))) == usd("70.00"))
            #expect(try wallet.balance(of: Self.alice, in: .usd, knownAt: try Instant(parsing: "2026-06-05T12:00:00Z")) == usd("70.00"))
            // The merchant is kept trimmed, as the payee of the journal entry.
            let purchase = try #require(try ledger.loggedEvent(at: 3)?.body.as(JournalEntryPosted.self))
            #expect(purchase.payee == "Corner Grocer" && purchase.counterAccount == LedgerAccounts.purchases && purchase.amount == usd("-30.00"))

            let head = ledger.head
            // More than she holds.
            #expect { try wallet.purchase(usd("20.01"), from: Self.alice, merchant: "Shoe Shop") } throws: { error in
                let refusal = error as? LedgerError
                return refusal?.code == .insufficientFunds && refusal?.message.contains("'Assets:Customers:alice'") == true
            }
            // Backdated to 06-02, when she held 100.00: it would take her below zero on 06-05 (the
            // groceries) and 06-06 (the transfer), where payments are already recorded.
            #expect {
                try wallet.purchase(usd("80.00"), from: Self.alice, merchant: "Shoe Shop", effectiveAt: try Instant(parsing: "2026-06-02T09:00:00Z"))
            } throws: { error in
                let refusal = error as? LedgerError
                return refusal?.code == .insufficientFunds && refusal?.message.contains("below zero on 2026-06-06") == true
            }
            // Nobody by that name; not an asset account; nothing to move; to herself.
            #expect { try wallet.purchase(usd("1.00"), from: "Assets:Customers:carol", merchant: "Shop") } throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect { try wallet.transfer(usd("1.00"), from: Self.alice, to: "Assets:Customers:carol") } throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect { try wallet.deposit(usd("1.00"), into: "Income:Sales") } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            #expect { try wallet.deposit(usd("0.00"), into: Self.alice) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            #expect { try wallet.purchase(usd("1.00"), from: Self.alice, merchant: "   ") } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            #expect { try wallet.transfer(usd("1.00"), from: Self.alice, to: Self.alice) } throws: { ($0 as? LedgerError)?.code == .invalidArgument }
            // A repeat returns the first result; other input under the same key is refused.
            clock.set("2026-06-07T09:00:00Z")
            let repeated = try wallet.purchase(usd("30.00"), from: Self.alice, merchant: "Corner Grocer", idempotencyKey: "pur-1")
            #expect(repeated.wasAlreadyApplied)
            let transferAgain = try wallet.transfer(usd("50.00"), from: Self.alice, to: Self.bob, idempotencyKey: "tr-1")
            #expect(transferAgain.wasAlreadyApplied)
            #expect { try wallet.purchase(usd("31.00"), from: Self.alice, merchant: "Corner Grocer", idempotencyKey: "pur-1") } throws: {
                ($0 as? LedgerError)?.code == .idempotencyConflict
            }
            #expect(ledger.head == head, "refusals and repeats appended nothing")
            #expect(try ledger.trialBalance().isEmpty)
        }
    }

    @Test func aClosedAccountTakesNoWalletMoney() throws {
        try withTemporaryStore(on: .files) { store in
            let clock = ManualClock("2026-06-01T09:00:00Z")
            let ledger = try newLedger(store, clock)
            defer { try? ledger.close() }
            try ledger.wallet.deposit(usd("10.00"), into: Self.alice)
            try ledger.appendEvents([NewEvent(effectiveAt: clock.now, body: EventBody(AccountClosed(account: Self.alice)))])
            #expect { try ledger.wallet.deposit(usd("1.00"), into: Self.alice) } throws: { ($0 as? LedgerError)?.code == .notAllowed }
            #expect { try ledger.wallet.purchase(usd("1.00"), from: Self.alice, merchant: "Shop") } throws: { ($0 as? LedgerError)?.code == .notAllowed }
        }
    }

    @Test func theAsyncFormsAnswerAsTheBlockingOnes() async throws {
        try await withTemporaryStore(on: .files) { store in
            let clock = ManualClock("2026-06-01T09:00:00Z")
            let ledger = try newLedger(store, clock)
            defer { try? ledger.close() }
            try await ledger.wallet.deposit(usd("10.00"), into: Self.alice, idempotencyKey: "a")
            try await ledger.wallet.purchase(usd("4.00"), from: Self.alice, merchant: "Shop", idempotencyKey: "b")
            try await ledger.wallet.deposit(usd("1.00"), into: Self.bob)
            try await ledger.wallet.transfer(usd("6.00"), from: Self.alice, to: Self.bob, idempotencyKey: "c")
            await #expect { try await ledger.wallet.purchase(usd("0.01"), from: Self.alice, merchant: "Shop") } throws: {
                ($0 as? LedgerError)?.code == .insufficientFunds
            }
            #expect(try await ledger.wallet.balance(of: Self.bob, in: .usd) == usd("7.00"))
            #expect(try await ledger.wallet.balance(of: Self.alice, in: .usd) == ledger.wallet.balance(of: Self.alice, in: .usd))
        }
    }

    /// Random customers deposit, buy and send money at random effective days, a third of them
    /// backdated. A model that keeps each account's dated changes decides which commands the
    /// overdraft rule allows; the wallet must accept exactly those, and no account is ever below
    /// zero on any day.
    @Test(arguments: LogBackend.allCases)
    func theOverdraftRuleHoldsAtEveryEffectiveDay(backend: LogBackend) throws {
        let seed = TestSeed.value(default: 20_261_128)
        var random = SplitMix64(seed: seed)
        try withTemporaryStore(on: backend) { store in
            let clock = ManualClock("2026-01-01T00:00:00Z")
            let ledger = try newLedger(store, clock)
            defer { try? ledger.close() }
            let accounts = (0..<4).map { "Assets:Customers:c\($0)" }
            // The model: each account's changes as (effective instant, minor units).
            var changes: [String: [(at: Int64, amount: Int64)]] = [:]
            func lowest(_ account: String, from at: Int64) -> Int64 {
                let moves = changes[account, default: []]
                var running = moves.filter { $0.at <= at }.reduce(0) { $0 + $1.amount }
                var low = running
                for move in moves.filter({ $0.at > at }).sorted(by: { $0.at < $1.at }) {
                    running += move.amount
                    low = min(low, running)
                }
                return low
            }
            let day: Int64 = 86_400_000_000
            for step in 0..<120 {
                clock.set("2026-01-01T00:00:00Z")
                clock.advance(seconds: Int64(step) * 3_600)
                let now = clock.now.microsecondsSinceEpoch
                let at = random.next() % 3 == 0 ? now - Int64(random.next() % 20) * day / 2 : now
                let effective = Instant(microsecondsSinceEpoch: at)
                let minor = Int64(random.next() % 5_000) + 1
                let amount = Money(minorUnits: minor, commodity: .usd)
                let account = accounts[Int(random.next() % UInt64(accounts.count))]
                let exists = changes[account] != nil
                switch random.next() % 3 {
                case 0:
                    try ledger.wallet.deposit(amount, into: account, effectiveAt: effective)
                    changes[account, default: []].append((at, minor))
                case 1:
                    let allowed = exists && lowest(account, from: at) >= minor
                    do {
                        try ledger.wallet.purchase(amount, from: account, merchant: "Shop", effectiveAt: effective)
                        #expect(allowed, "seed \(seed), step \(step): a purchase the rule refuses was recorded")
                        changes[account, default: []].append((at, -minor))
                    } catch let refusal as LedgerError {
                        #expect(!allowed && refusal.code == (exists ? .insufficientFunds : .notFound), "seed \(seed), step \(step): \(refusal)")
                    }
                default:
                    let target = accounts[Int(random.next() % UInt64(accounts.count))]
                    guard target != account else { continue }
                    let allowed = exists && changes[target] != nil && lowest(account, from: at) >= minor
                    do {
                        try ledger.wallet.transfer(amount, from: account, to: target, effectiveAt: effective)
                        #expect(allowed, "seed \(seed), step \(step): a transfer the rule refuses was recorded")
                        changes[account, default: []].append((at, -minor))
                        changes[target, default: []].append((at, minor))
                    } catch let refusal as LedgerError {
                        #expect(!allowed, "seed \(seed), step \(step): \(refusal)")
                    }
                }
            }
            // No account below zero at any instant its balance changes, and the engine's balance
            // at each of those instants is the model's.
            for account in accounts {
                for move in changes[account, default: []] {
                    let expected = changes[account, default: []].filter { $0.at <= move.at }.reduce(0) { $0 + $1.amount }
                    #expect(expected >= 0, "seed \(seed): \(account) below zero")
                    let engine = try ledger.wallet.balance(of: account, in: .usd, asOf: Instant(microsecondsSinceEpoch: move.at))
                    #expect(engine.minorUnits == expected, "seed \(seed): \(account) at \(move.at): \(engine) vs \(expected)")
                }
            }
        }
    }
}
