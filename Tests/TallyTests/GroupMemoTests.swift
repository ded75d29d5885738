import Foundation
import GRDB
import Testing
@testable import Tally
@testable import TallyEngine
import TallyTestSupport

/// What a write group's plans read once and keep for the group (`GroupMemo`): the wealth
/// settings an account has had, the scale a commodity was declared with. A batch that changes
/// them in its middle plans every later command by the change, one refused and rolled back
/// leaves no trace in what later commands read, and the snapshots a group is due are taken
/// once, at its end.
@Suite struct GroupMemoTests {
    private static func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, commodity: .usd) }

    private static func split(_ result: Result<Ledger.CommandResult, any Error>) -> (spend: Int64, invest: Int64)? {
        guard let split = (try? result.get())?.events.last?.body.as(DepositSplit.self) else { return nil }
        return (split.spend.minorUnits, split.invest.minorUnits)
    }

    /// A bank feed as one batch, the household changing its split rule between two of the
    /// deposits, then pausing: the deposits before the change split 70/30, those after it
    /// 50/50, and those after the pause wait.
    @Test func aRuleChangedInTheMiddleOfABatchSplitsEveryLaterDepositByIt() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-03-02T09:00:00Z"))
            defer { try? ledger.close() }
            try ledger.deposit(account: "main", amount: Self.usd(1_000))
            let commands = [
                try ledger.depositCommand(account: "main", amount: Self.usd(10_000), idempotencyKey: "bank:1"),
                try ledger.depositCommand(account: "main", amount: Self.usd(10_000), idempotencyKey: "bank:2"),
                try ledger.setSplitRuleCommand(account: "main", spendWeight: 50, investWeight: 50),
                try ledger.depositCommand(account: "main", amount: Self.usd(10_000), idempotencyKey: "bank:3"),
                try ledger.pauseAutomationCommand(account: "main"),
                try ledger.depositCommand(account: "main", amount: Self.usd(10_000), idempotencyKey: "bank:4"),
            ]
            let results = try ledger.run(batch: commands)
            #expect(results.allSatisfy { (try? $0.get()) != nil })
            #expect(Self.split(results[0])! == (7_000, 3_000))
            #expect(Self.split(results[1])! == (7_000, 3_000))
            #expect(Self.split(results[3])! == (5_000, 5_000), "the rule set earlier in the batch")
            #expect(Self.split(results[5]) == nil, "paused earlier in the batch: the deposit waits")
            #expect(try ledger.wealthSummary(account: "main").splitRule == SplitRule(spendWeight: 50, investWeight: 50))
            try ledger.expectConsistent()
        }
    }

    /// A command refused after its fold recorded a rule change (events that arrive decided:
    /// the change, then a purchase Spend cannot pay) rolls back with the change: the deposit
    /// after it in the same batch splits by the rule in force before, as it would alone.
    @Test func aRuleChangeRolledBackWithItsCommandDoesNotSplitLaterDeposits() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-02T09:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            defer { try? ledger.close() }
            try ledger.deposit(account: "main", amount: Self.usd(1_000))
            let at = try Instant(parsing: "2026-03-02T09:00:00Z")
            let refused = Ledger.admitting([
                NewEvent(effectiveAt: at, body: EventBody(SplitRuleSet(account: "main", spendWeight: 10, investWeight: 90))),
                NewEvent(effectiveAt: at, body: EventBody(PurchaseMade(account: "main", amount: Self.usd(1_000_000), merchant: "Shop", externalId: nil))),
            ])
            let commands = [
                try ledger.depositCommand(account: "main", amount: Self.usd(10_000), idempotencyKey: "bank:1"),
                refused,
                try ledger.depositCommand(account: "main", amount: Self.usd(10_000), idempotencyKey: "bank:2"),
            ]
            let results = try ledger.run(batch: commands)
            #expect((try? results[1].get()) == nil, "Spend cannot pay the purchase")
            #expect(Self.split(results[0])! == (7_000, 3_000))
            #expect(Self.split(results[2])! == (7_000, 3_000), "the 10/90 rule rolled back with its command")
            #expect(try ledger.wealthSummary(account: "main").splitRule == SplitRule(spendWeight: 70, investWeight: 30))
            try ledger.expectConsistent()
        }
    }

    /// A commodity declared in the middle of a batch: a deposit in it before the declaration
    /// is refused as unknown, one after it is accepted at the declared scale, and one finer
    /// than that scale is refused.
    @Test func aCommodityDeclaredInTheMiddleOfABatchCountsForTheCommandsAfterIt() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-03-02T09:00:00Z"))
            defer { try? ledger.close() }
            let gbx = try Commodity.named("GBX")
            let commands = [
                try ledger.depositCommand(account: "main", amount: Money(minorUnits: 100_000_000, commodity: gbx)),
                try ledger.declareCommodityCommand(code: "GBX", scale: 0),
                try ledger.depositCommand(account: "main", amount: Money(minorUnits: 100_000_000, commodity: gbx)),
                try ledger.depositCommand(account: "main", amount: Money(minorUnits: 150_000_000, commodity: gbx)),
                try ledger.depositCommand(account: "main", amount: Money(minorUnits: 300_000_000, commodity: gbx)),
            ]
            let results = try ledger.run(batch: commands)
            #expect(results.map { (try? $0.get()) != nil } == [false, true, true, false, true])
            if case .failure(let error as LedgerError) = results[0] { #expect(error.message.contains("not a currency this ledger knows")) }
            if case .failure(let error as LedgerError) = results[3] { #expect(error.message.contains("0 decimal places")) }
            try ledger.expectConsistent()
        }
    }

    /// What a group kept stays while its commands' savepoints are released, goes when one
    /// rolls back (it may have been read inside it), is found only on the group's connection
    /// while the group runs, and is gone when the group ends.
    @Test func aSavepointRolledBackEmptiesTheMemo() throws {
        final class Kept {}
        let queue = try DatabaseQueue()
        let other = try DatabaseQueue()
        try queue.inDatabase { db in
            let held = HeldPostings(db)
            try HeldPostings.whileReadable(held) {
                let memo = try #require(GroupMemo.of(db))
                let first = memo.entry(Kept.self, make: Kept.init)
                try other.inDatabase { other in #expect(GroupMemo.of(other) == nil, "another connection finds nothing") }
                held.commandBegins()
                held.commandReleased()
                #expect(memo.entry(Kept.self, make: Kept.init) === first, "kept across a released savepoint")
                held.commandBegins()
                held.commandRolledBack()
                #expect(memo.entry(Kept.self, make: Kept.init) !== first, "emptied when a savepoint rolls back")
                let second = memo.entry(Kept.self, make: Kept.init)
                memo.forget(Kept.self)
                #expect(memo.entry(Kept.self, make: Kept.init) !== second, "forgotten where its rows change")
                held.end()
                #expect(memo.entry(Kept.self, make: Kept.init) !== second, "emptied when the group ends")
            }
            #expect(GroupMemo.of(db) == nil, "nothing outside the group's span")
        }
    }

    /// A batch of deposits asks for the account's settings and the currency's scale once, and
    /// looks for due snapshots once, at the group's end, where each command asked before.
    @Test func aBatchAsksForSettingsScalesAndSnapshotsOnce() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-03-02T09:00:00Z"))
            defer { try? ledger.close() }
            try ledger.deposit(account: "main", amount: Self.usd(1_000))
            let commands = try (0..<200).map { index in
                try ledger.depositCommand(account: "main", amount: Self.usd(1_000), idempotencyKey: "bank:\(index)")
            }
            var results: [Result<Ledger.CommandResult, any Error>] = []
            let trace = try StatementTrace.during(ledger) { results = try ledger.run(batch: commands) }
            #expect(results.allSatisfy { (try? $0.get()) != nil })
            #expect(trace.count { $0.table == "wealth_setting_changes" } == 1)
            #expect(trace.count { $0.table == "commodities" } == 1)
            #expect(trace.count { $0.table == "envelopes" } == 1, "envelopes look for due snapshots once")
            #expect(trace.count { $0.table == "nw_items" } <= 1, "net worth looks for due snapshots once")
        }
    }
}
