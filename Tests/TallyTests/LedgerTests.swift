import Foundation
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

@Suite struct LedgerTests {
    static let start = "2026-05-01T09:00:00Z"

    private func deposit(_ amount: Money, spend: Money, invest: Money, at clock: ManualClock) -> [NewEvent] {
        [
            NewEvent(effectiveAt: clock.now, body: EventBody(DepositReceived(account: "main", amount: amount, source: .bankTransfer))),
            NewEvent(effectiveAt: clock.now, cause: .earlierInBatch(0), body: EventBody(DepositSplit(
                account: "main", spend: spend, invest: invest, spendWeight: 70, investWeight: 30))),
        ]
    }

    @Test func appendedEventsBecomeBalancedPostings() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            let result = try ledger.appendEvents(deposit(usd("100.00"), spend: usd("70.00"), invest: usd("30.00"), at: clock))
            #expect(result.events.map(\.sequence) == [2, 3])
            #expect(result.events[1].cause == 2)
            let balances = Dictionary(uniqueKeysWithValues: try ledger.balances().map { ($0.account, $0.amount) })
            #expect(balances == [
                "External:Deposits": usd("-100.00"),
                "Wealth:main:Spend": usd("70.00"),
                "Wealth:main:Invest": usd("30.00"),
            ])
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    @Test func eventsReadBackTogetherAreThoseReadBackOneByOne() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            for tens in 1...40 {
                try ledger.appendEvents(deposit(usd("\(tens * 10).00"), spend: usd("\(tens * 7).00"), invest: usd("\(tens * 3).00"), at: clock))
            }
            let head = ledger.head.sequence
            let asked: [UInt64] = [head, 3, 17, 3, 2, 60, head + 1, head + 9]
            let together = try ledger.loggedEvents(at: asked)
            #expect(Set(together.keys) == Set(asked.filter { $0 <= head }))
            for sequence in asked where sequence <= head {
                #expect(together[sequence] == (try ledger.loggedEvent(at: sequence)), "sequence \(sequence)")
            }
            #expect(try ledger.loggedEvents(at: []).isEmpty)
            #expect(throws: LedgerError.self) { try ledger.loggedEvents(at: [0, 2]) }
            try ledger.close()
        }
    }

    @Test func reopeningCatchesUpWhatWasAppendedButNotProjected() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            try Ledger.forTesting(at: root, clock: clock).close()
            // The process stops right after the log append: the events are durable, the
            // read models never saw them.
            let store = try EventStore.open(at: root, catalog: .standard)
            try store.append(deposit(usd("10.00"), spend: usd("7.00"), invest: usd("3.00"), at: clock))
            try store.close()
            let reopened = try Ledger.open(at: root, options: .init(clock: clock.function, features: standardFeatures))
            let spend = try reopened.balances().first { $0.account == "Wealth:main:Spend" }
            #expect(spend?.amount == usd("7.00"))
            #expect(try reopened.readModels.checkpoint() == 3)
            try reopened.expectConsistent()
            try reopened.close()
        }
    }

    @Test func aSecondLedgerOnTheSameStoreIsRefused() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock(Self.start))
            #expect { try Ledger.open(at: root, options: .standard) } throws: { error in
                underlying(error, as: LogError.self)?.code == .locked
            }
            try ledger.close()
        }
    }

    @Test func observersSeeEveryCommittedEventInOrder() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tally-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let clock = ManualClock(Self.start)
        let ledger = try Ledger.forTesting(at: root + "/store", clock: clock)
        let stream = ledger.committedEvents()
        try ledger.appendEvents(deposit(usd("1.00"), spend: usd("0.70"), invest: usd("0.30"), at: clock))
        try ledger.appendEvents([NewEvent(effectiveAt: clock.now, body: EventBody(PotCreated(potId: "holiday", name: "Holiday", target: usd("100.00"))))])
        try ledger.close()
        var seen: [UInt64] = []
        for try await event in stream { seen.append(event.sequence) }
        #expect(seen == [2, 3, 4])
    }

    @Test func asOfAndKnownAtSelectPostings() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-04-05T12:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            // Recorded on 5 April: a deposit effective 31 March.
            let march31 = try Instant(parsing: "2026-03-31T15:00:00Z")
            try ledger.appendEvents([NewEvent(effectiveAt: march31, body: EventBody(DepositReceived(account: "main", amount: usd("50.00"), source: .bankTransfer)))])
            let endOfMarch = ledger.calendar.endOfDay(try LocalDate(parsing: "2026-03-31"))
            let wallet = { (balances: [AccountBalance]) in balances.first { $0.account == "Wealth:main:Wallet" }?.amount }
            #expect(wallet(try ledger.balances(asOf: endOfMarch)) == usd("50.00"))
            #expect(wallet(try ledger.balances(asOf: endOfMarch, knownAt: try Instant(parsing: "2026-04-01T00:00:00Z"))) == nil)
            #expect(wallet(try ledger.balances(asOf: try Instant(parsing: "2026-03-30T00:00:00Z"))) == nil)
            try ledger.close()
        }
    }
}
