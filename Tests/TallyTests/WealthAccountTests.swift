import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// The automated wealth account as its user meets it: deposits split 70/30, purchases and
/// withdrawals from Spend, round-ups, a frozen card, paused automation, rules that change.
@Suite struct WealthAccountTests {
    static let start = "2026-05-04T09:00:00Z"

    /// Runs a story on a fresh ledger and ends it with the consistency check.
    private func story(_ body: (Ledger, ManualClock) throws -> Void) throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try body(ledger, clock)
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    private func usdc(_ text: String) -> Money { try! Money(parsing: text, commodity: .usdc) }

    private func expectRefused(
        _ code: LedgerError.Code, by ledger: Ledger, sourceLocation: SourceLocation = #_sourceLocation, _ command: () throws -> Void
    ) {
        let head = ledger.head
        #expect(sourceLocation: sourceLocation) { try command() } throws: { error in
            (error as? LedgerError)?.code == code
        }
        #expect(ledger.head == head, "a refused command appended nothing", sourceLocation: sourceLocation)
    }

    @Test func aDepositOf100IsSplit70To30() throws {
        try story { ledger, _ in
            let result = try ledger.deposit(account: "main", amount: usd("100.00"), source: .bankTransfer, externalId: "tx-1")
            #expect(result.events.map(\.type.name) == ["deposit_received", "deposit_split"])
            #expect(result.events[1].cause == result.events[0].sequence, "the split names its deposit")
            #expect(Set(result.events.map(\.recordedAt)).count == 1, "one commit")
            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.balance(in: .usd).spend == usd("70.00"))
            #expect(summary.balance(in: .usd).invest == usd("30.00"))
            #expect(summary.balance(in: .usd).wallet == usd("0.00"))
            #expect(summary.balance(in: .usd).total == usd("100.00"))
            #expect(summary.status == .active)
            #expect(summary.splitRule == SplitRule(spendWeight: 70, investWeight: 30))
            #expect(!summary.roundUpsEnabled)
        }
    }

    @Test func aPurchaseOf3_40WithRoundUpsLeaves66In_SpendAnd30_60InInvest() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"))
            try ledger.setRoundUps(account: "main", enabled: true)
            let result = try ledger.purchase(account: "main", amount: usd("3.40"), merchant: "Blue Bottle")
            #expect(result.events.map(\.type.name) == ["purchase_made", "round_up_applied"])
            #expect(result.events[1].cause == result.events[0].sequence, "the round-up names its purchase")
            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.balance(in: .usd).spend == usd("66.00"))
            #expect(summary.balance(in: .usd).invest == usd("30.60"))
            #expect(summary.roundUpsEnabled)
        }
    }

    @Test func aWholeUnitPurchaseRoundsUpByZero() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"))
            try ledger.setRoundUps(account: "main", enabled: true)
            let result = try ledger.purchase(account: "main", amount: usd("5.00"), merchant: "Bakery")
            #expect(result.events.map(\.type.name) == ["purchase_made"])
            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.balance(in: .usd).spend == usd("65.00"))
            #expect(summary.balance(in: .usd).invest == usd("30.00"))
        }
    }

    @Test func aRoundUpSpendCannotCoverIsSkippedAndMovesNothing() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("10.00"))   // Spend 7.00
            try ledger.purchase(account: "main", amount: usd("0.50"), merchant: "Gum")   // round-ups off: Spend 6.50
            try ledger.setRoundUps(account: "main", enabled: true)
            let result = try ledger.purchase(account: "main", amount: usd("6.20"), merchant: "Cinema")   // leaves 0.30 < 0.80
            #expect(result.events.map(\.type.name) == ["purchase_made", "round_up_skipped"])
            #expect(result.events[1].cause == result.events[0].sequence)
            guard let skipped = result.events[1].body.as(RoundUpSkipped.self) else { Issue.record("no skip"); return }
            #expect(skipped.amount == usd("0.80"), "the skip records what the round-up would have been")
            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.balance(in: .usd).spend == usd("0.30"), "not half made: the 0.30 left stays in Spend")
            #expect(summary.balance(in: .usd).invest == usd("3.00"))
            #expect(try ledger.roundUpTotal(account: "main", month: try Month(parsing: "2026-05")).isEmpty)
            let skippedRow = try ledger.wealthHistory(account: "main").entries.first
            #expect(skippedRow?.kind == .roundUpSkipped)
            #expect(skippedRow?.spendChange.isZero == true && skippedRow?.investChange.isZero == true)
        }
    }

    @Test func aRoundUpThatExactlyEmptiesSpendIsApplied() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("10.00"))   // Spend 7.00
            try ledger.setRoundUps(account: "main", enabled: true)
            let result = try ledger.purchase(account: "main", amount: usd("6.50"), merchant: "Cinema")   // leaves 0.50 = round-up
            #expect(result.events.map(\.type.name) == ["purchase_made", "round_up_applied"])
            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.balance(in: .usd).spend == usd("0.00"), "Spend may reach zero, never below")
            #expect(summary.balance(in: .usd).invest == usd("3.50"))
        }
    }

    @Test func aTinyDepositOfOneCentSplitsTheSameWayEveryTime() throws {
        try story { ledger, _ in
            let first = try ledger.deposit(account: "main", amount: usd("0.01"))
            let second = try ledger.deposit(account: "main", amount: usd("0.01"))
            for result in [first, second] {
                guard let split = result.events[1].body.as(DepositSplit.self) else { Issue.record("no split"); return }
                #expect(split.spend == usd("0.01"))
                #expect(split.invest == usd("0.00"))
            }
            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.balance(in: .usd).spend == usd("0.02"))
            #expect(summary.balance(in: .usd).invest == usd("0.00"))
        }
    }

    @Test func withdrawingOrBuyingMoreThanSpendIsRefusedAndRecordsNothing() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"))   // Spend 70.00
            expectRefused(.insufficientFunds, by: ledger) { try ledger.withdraw(account: "main", amount: usd("70.01")) }
            expectRefused(.insufficientFunds, by: ledger) { try ledger.purchase(account: "main", amount: usd("70.01"), merchant: "TV") }
            expectRefused(.insufficientFunds, by: ledger) { try ledger.purchase(account: "main", amount: gbp("1.00"), merchant: "Tube") }
            try ledger.withdraw(account: "main", amount: usd("70.00"), destination: "checking")
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend == usd("0.00"))
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).invest == usd("30.00"), "Invest is never spent")
        }
    }

    @Test func theRefusalSaysWhatAndWhereWithoutAmounts() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("10.00"))
            do {
                try ledger.withdraw(account: "main", amount: usd("12.34"))
                Issue.record("the withdrawal was not refused")
            } catch let error as LedgerError {
                #expect(error.message.contains("Spend"))
                #expect(error.message.contains("'main'"))
                #expect(error.message.contains("USD"))
                #expect(!error.message.contains("12.34"))
            }
        }
    }

    @Test func zeroAndNegativeAmountsAreRefused() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("10.00"))
            expectRefused(.invalidArgument, by: ledger) { try ledger.deposit(account: "main", amount: usd("0.00")) }
            expectRefused(.invalidArgument, by: ledger) { try ledger.deposit(account: "main", amount: usd("-5.00")) }
            expectRefused(.invalidArgument, by: ledger) { try ledger.purchase(account: "main", amount: usd("0.00"), merchant: "X") }
            expectRefused(.invalidArgument, by: ledger) { try ledger.withdraw(account: "main", amount: usd("-1.00")) }
            expectRefused(.invalidArgument, by: ledger) { try ledger.purchase(account: "main", amount: usd("1.00"), merchant: "") }
            expectRefused(.invalidArgument, by: ledger) { try ledger.deposit(account: "my account", amount: usd("1.00")) }
            expectRefused(.invalidArgument, by: ledger) {
                try ledger.setSplitRule(account: "main", spendWeight: 0, investWeight: 0)
            }
            expectRefused(.invalidArgument, by: ledger) {
                try ledger.deposit(account: "main", amount: Money(minorUnits: Int64.max, commodity: .usd))
            }
        }
    }

    @Test func aFrozenCardRefusesPurchasesButNotWithdrawals() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"))
            try ledger.freezeCard(account: "main")
            #expect(try ledger.wealthSummary(account: "main").cardFrozen)
            expectRefused(.cardFrozen, by: ledger) { try ledger.purchase(account: "main", amount: usd("1.00"), merchant: "Kiosk") }
            try ledger.withdraw(account: "main", amount: usd("10.00"))
            try ledger.unfreezeCard(account: "main")
            try ledger.purchase(account: "main", amount: usd("1.00"), merchant: "Kiosk")
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend == usd("59.00"))
        }
    }

    @Test func whilePausedDepositsWaitUnsplitAndTheStatusIsPaused() throws {
        try story { ledger, _ in
            try ledger.pauseAutomation(account: "main")
            let result = try ledger.deposit(account: "main", amount: usd("100.00"))
            #expect(result.events.map(\.type.name) == ["deposit_received"])
            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.status == .paused)
            #expect(summary.unsplitDepositCount == 1)
            #expect(summary.balance(in: .usd).wallet == usd("100.00"))
            #expect(summary.balance(in: .usd).spend == usd("0.00"))
            #expect(summary.balance(in: .usd).total == usd("100.00"))
            expectRefused(.insufficientFunds, by: ledger) { try ledger.purchase(account: "main", amount: usd("1.00"), merchant: "Kiosk") }
        }
    }

    @Test func resumingSplitsEachWaitingDepositByTheRuleInForceWhenItArrived() throws {
        try story { ledger, clock in
            try ledger.pauseAutomation(account: "main")
            let first = try ledger.deposit(account: "main", amount: usd("100.00"))      // arrives under 70/30
            try ledger.setSplitRule(account: "main", spendWeight: 50, investWeight: 50)
            let second = try ledger.deposit(account: "main", amount: gbp("10.00"))      // arrives under 50/50
            try ledger.setSplitRule(account: "main", spendWeight: 0, investWeight: 1)   // in force at resume
            clock.advance(seconds: 3600)
            let resumed = try ledger.resumeAutomation(account: "main")
            #expect(resumed.events.map(\.type.name) == ["automation_resumed", "deposit_split", "deposit_split"])
            #expect(resumed.events[1].cause == first.events[0].sequence)
            #expect(resumed.events[2].cause == second.events[0].sequence)
            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.status == .active)
            #expect(summary.unsplitDepositCount == 0)
            #expect(summary.balance(in: .usd).spend == usd("70.00"))
            #expect(summary.balance(in: .usd).invest == usd("30.00"))
            #expect(summary.balance(in: .gbp).spend == gbp("5.00"))
            #expect(summary.balance(in: .gbp).invest == gbp("5.00"))
            #expect(summary.balance(in: .usd).wallet.isZero)
            // The next deposit uses the rule in force now.
            try ledger.deposit(account: "main", amount: usd("10.00"))
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).invest == usd("40.00"))
        }
    }

    @Test func aDepositReceivedButNotSplitShowsAllocating() throws {
        try story { ledger, clock in
            // An importer recorded the deposit alone (as a bank feed might, before the split).
            try ledger.appendEvents([NewEvent(effectiveAt: clock.now, body: EventBody(
                DepositReceived(account: "main", amount: usd("20.00"), source: .bankTransfer)))])
            #expect(try ledger.wealthSummary(account: "main").status == .allocating)
            let resumed = try ledger.resumeAutomation(account: "main")
            #expect(resumed.events.map(\.type.name) == ["deposit_split"], "not paused: only the split")
            #expect(try ledger.wealthSummary(account: "main").status == .active)
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend == usd("14.00"))
        }
    }

    @Test func aSplitRuleChangeAppliesOnlyToLaterDeposits() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("100.00"))
            try ledger.setSplitRule(account: "main", spendWeight: 60, investWeight: 40)
            try ledger.deposit(account: "main", amount: usd("100.00"))
            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.balance(in: .usd).spend == usd("130.00"))
            #expect(summary.balance(in: .usd).invest == usd("70.00"))
            #expect(summary.splitRule == SplitRule(spendWeight: 60, investWeight: 40))
            let splits = try ledger.wealthHistory(account: "main", filter: .invest).entries.map(\.detail)
            #expect(splits == ["60/40", "70/30"])
        }
    }

    @Test func USDCAndGBPDepositsKeepSeparateBalances() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usdc("100.000001"), source: .chain, externalId: "0xabc")
            try ledger.deposit(account: "main", amount: gbp("50.00"))
            try ledger.deposit(account: "main", amount: usd("10.00"))
            let summary = try ledger.wealthSummary(account: "main")
            #expect(summary.balances.map(\.commodity.code) == ["GBP", "USD", "USDC"])
            #expect(summary.balance(in: .usdc).spend == usdc("70.000001"))
            #expect(summary.balance(in: .usdc).invest == usdc("30.000000"))
            #expect(summary.balance(in: .gbp).spend == gbp("35.00"))
            #expect(summary.balance(in: .usd).spend == usd("7.00"))
            try ledger.setRoundUps(account: "main", enabled: true)
            // A token has no default round-up increment; the user sets one for USDC.
            try ledger.setRoundUpIncrement(currency: .usdc, increment: usdc("1"))
            let purchase = try ledger.purchase(account: "main", amount: usdc("3.4"), merchant: "Onchain Cafe")
            guard let roundUp = purchase.events.last?.body.as(RoundUpApplied.self) else { Issue.record("no round-up"); return }
            #expect(roundUp.amount == usdc("0.6"))
            expectRefused(.insufficientFunds, by: ledger) { try ledger.withdraw(account: "main", amount: gbp("35.01")) }
        }
    }

    @Test func aRepeatedIdempotencyKeyReturnsTheFirstResultAndAppendsNothing() throws {
        try story { ledger, _ in
            let first = try ledger.deposit(account: "main", amount: usd("100.00"), externalId: "tx-9", idempotencyKey: "bank:tx-9")
            let head = ledger.head
            let again = try ledger.deposit(account: "main", amount: usd("100.00"), externalId: "tx-9", idempotencyKey: "bank:tx-9")
            #expect(again.wasAlreadyApplied)
            #expect(again.events == first.events)
            #expect(ledger.head == head)
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).total == usd("100.00"))
            // A repeated purchase key is not refused even after Spend ran out: it already ran.
            try ledger.purchase(account: "main", amount: usd("70.00"), merchant: "Shop", idempotencyKey: "card:1")
            let repeated = try ledger.purchase(account: "main", amount: usd("70.00"), merchant: "Shop", idempotencyKey: "card:1")
            #expect(repeated.wasAlreadyApplied)
            #expect(repeated.events.map(\.type.name) == ["purchase_made"])
        }
    }

    @Test func switchingToWhatIsInForceRecordsNothing() throws {
        try story { ledger, _ in
            try ledger.deposit(account: "main", amount: usd("1.00"))
            let head = ledger.head
            #expect(try ledger.setRoundUps(account: "main", enabled: false).events.isEmpty)
            #expect(try ledger.unfreezeCard(account: "main").events.isEmpty)
            #expect(try ledger.resumeAutomation(account: "main").events.isEmpty)
            #expect(try ledger.setSplitRule(account: "main", spendWeight: 70, investWeight: 30).events.isEmpty)
            #expect(ledger.head == head)
            try ledger.pauseAutomation(account: "main")
            #expect(try ledger.pauseAutomation(account: "main").events.isEmpty)
            try ledger.freezeCard(account: "main")
            #expect(try ledger.freezeCard(account: "main").events.isEmpty)
        }
    }

    @Test func anAccountWithNoEventsIsNotFound() throws {
        try story { ledger, _ in
            #expect { try ledger.wealthSummary(account: "main") } throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect { try ledger.wealthHistory(account: "main") } throws: { ($0 as? LedgerError)?.code == .notFound }
            try ledger.deposit(account: "joint", amount: usd("1.00"))
            #expect { try ledger.wealthSummary(account: "main") } throws: { ($0 as? LedgerError)?.code == .notFound }
            #expect(try ledger.wealthSummary(account: "joint").balance(in: .usd).total == usd("1.00"))
        }
    }

    @Test func reopeningTheStoreKeepsEveryWealthSetting() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            try ledger.setSplitRule(account: "main", spendWeight: 80, investWeight: 20)
            try ledger.setRoundUps(account: "main", enabled: true)
            try ledger.pauseAutomation(account: "main")
            try ledger.deposit(account: "main", amount: usd("10.00"))
            try ledger.setSplitRule(account: "main", spendWeight: 10, investWeight: 90)
            try ledger.close()
            let reopened = try Ledger.open(at: root, options: .init(clock: clock.function, syncMode: .none, features: standardFeatures))
            try reopened.rebuild()
            try reopened.resumeAutomation(account: "main")
            let summary = try reopened.wealthSummary(account: "main")
            #expect(summary.balance(in: .usd).spend == usd("8.00"), "the rule in force at arrival survives a rebuild")
            #expect(summary.roundUpsEnabled)
            try reopened.expectConsistent()
            try reopened.close()
        }
    }
}
