import Foundation
import Synchronization
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine

/// Callers that pipeline (issue 31, item 5): an async caller keeps several commands in
/// flight with `Ledger.submit`, its commands run in its order, each planned against state
/// that includes every earlier one that succeeded, a refused one fails alone, and commands
/// in flight together share commits.
@Suite struct PipelinedCallersTests {
    /// Which command of which caller was planned, in the order the pipeline planned them.
    final class PlanOrder: Sendable {
        let entries = Mutex<[(caller: Int, index: Int)]>([])
    }

    private func entry(_ ledger: Ledger, _ amount: String, id: String) -> NewEvent {
        NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(
            account: "Assets:Cash", counterAccount: "Income:Salary", amount: usd(amount), externalId: id)))
    }

    /// A command that moves `amount` out of Assets:Cash only when its balance covers it.
    private func spend(_ ledger: Ledger, _ amount: String) -> LedgerCommand {
        let event = NewEvent(effectiveAt: ledger.now, body: EventBody(JournalEntryPosted(
            account: "Expenses:Food", counterAccount: "Assets:Cash", amount: usd(amount))))
        return LedgerCommand { db in
            let cash = try BalanceQueries.balances(db).first { $0.account == "Assets:Cash" }?.amount ?? usd("0.00")
            guard try !cash.isLess(than: usd(amount)) else {
                throw LedgerError(.insufficientFunds, "Assets:Cash (\(cash.decimalString)) cannot cover \(amount)")
            }
            return [event]
        }
    }

    private func cash(_ ledger: Ledger) throws -> Money? {
        try ledger.balances().first { $0.account == "Assets:Cash" }?.amount
    }

    /// Sixteen tasks, each with a seeded number of commands and up to a seeded number of them
    /// (1 to 8) in flight: every task's commands are planned and appended in its order,
    /// every result is its own command's, commits are shared, and every event is delivered
    /// once, in order.
    @Test(arguments: LogBackend.allCases) func sixteenCallersWithUpToEightInFlightKeepTheirOrderAndShareCommits(on backend: LogBackend) async throws {
        let seed = TestSeed.value(default: 0x31_5)
        var random = SplitMix64(seed: seed)
        let plans = (0..<16).map { _ in (commands: Int.random(in: 10...40, using: &random), window: Int.random(in: 1...8, using: &random)) }
        let total = plans.reduce(0) { $0 + $1.commands }
        try await withTemporaryStore(on: backend) { store in
            let ledger = try Ledger.create(at: store.root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: store.options(.standard))
            let stream = ledger.committedEvents(after: 1)
            let consumer = Task {
                var seen: [UInt64] = []
                for try await event in stream { seen.append(event.sequence) }
                return seen
            }
            let planned = PlanOrder()
            let appended = try await withThrowingTaskGroup(of: (Int, [UInt64]).self) { group in
                for (caller, plan) in plans.enumerated() {
                    group.addTask {
                        var sequences: [UInt64] = []
                        var inFlight: [(index: Int, submitted: Ledger.SubmittedCommand)] = []
                        func take() async throws {
                            let (index, submitted) = inFlight.removeFirst()
                            let result = try await submitted.result
                            #expect(result.events.map(\.idempotencyKey) == ["c\(caller)-\(index)"], "the result of command \(index) of caller \(caller) is its own (seed \(seed))")
                            sequences.append(contentsOf: result.events.map(\.sequence))
                        }
                        for index in 0..<plan.commands {
                            if inFlight.count == plan.window { try await take() }
                            let event = entry(ledger, "1.00", id: "c\(caller)-\(index)")
                            inFlight.append((index, ledger.submit(LedgerCommand(idempotencyKey: "c\(caller)-\(index)") { _ in
                                planned.entries.withLock { $0.append((caller, index)) }
                                return [event]
                            })))
                        }
                        while !inFlight.isEmpty { try await take() }
                        return (caller, sequences)
                    }
                }
                return try await group.reduce(into: [Int: [UInt64]]()) { $0[$1.0] = $1.1 }
            }
            let frames = try EventStoreReader.open(at: store.root, catalog: .standard).statistics().frames
            #expect(try cash(ledger) == usd("\(total).00"))
            try ledger.close()
            for (caller, plan) in plans.enumerated() {
                let order = planned.entries.withLock { $0 }.filter { $0.caller == caller }.map(\.index)
                #expect(order == Array(0..<plan.commands), "caller \(caller)'s commands planned in its order (seed \(seed))")
                let sequences = appended[caller] ?? []
                #expect(sequences.count == plan.commands && sequences == sequences.sorted(), "caller \(caller)'s events appended in its order (seed \(seed))")
            }
            #expect(try await consumer.value == Array(2...UInt64(1 + total)), "every event delivered once, in order")
            #expect(frames < UInt64(1 + total), "commands in flight together shared commits (\(frames) frames for \(total) commands, seed \(seed))")
        }
    }

    /// A caller submits everything before awaiting anything: each command sees the earlier
    /// ones that succeeded and none that were refused.
    @Test(arguments: LogBackend.allCases) func aRefusedCommandFailsAloneAndTheNextSeesOnlyWhatSucceeded(on backend: LogBackend) async throws {
        try await withTemporaryStore(on: backend) { store in
            let ledger = try Ledger.create(at: store.root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: store.options(.standard))
            defer { try? ledger.close() }
            let deposit = entry(ledger, "3.00", id: "pay")
            let submitted = [
                ledger.submit(LedgerCommand { _ in [deposit] }),
                ledger.submit(spend(ledger, "5.00")),   // 3.00 does not cover it
                ledger.submit(spend(ledger, "2.00")),   // 3.00 covers it
                ledger.submit(spend(ledger, "2.00")),   // 1.00 left does not
                ledger.submit(spend(ledger, "1.00")),   // 1.00 does
            ]
            var outcomes: [String] = []
            for command in submitted {
                do {
                    _ = try await command.result
                    outcomes.append("ok")
                } catch let error as LedgerError {
                    outcomes.append(error.code.name)
                }
            }
            #expect(outcomes == ["ok", "insufficient_funds", "ok", "insufficient_funds", "ok"])
            #expect(try cash(ledger) ?? usd("0.00") == usd("0.00"), "3.00 in, 2.00 and 1.00 out")
            #expect(ledger.head.sequence == 4, "the refused commands appended nothing")
        }
    }

    /// A result may be awaited after its commit, out of order, and more than once.
    @Test func aResultAwaitedLateOutOfOrderOrTwiceIsTheSame() async throws {
        try await withTemporaryStore(on: .files) { store in
            let ledger = try Ledger.create(at: store.root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: store.options(.standard))
            defer { try? ledger.close() }
            let first = ledger.submit(LedgerCommand(idempotencyKey: "a") { [event = entry(ledger, "1.00", id: "a")] _ in [event] })
            let second = ledger.submit(LedgerCommand(idempotencyKey: "b") { [event = entry(ledger, "2.00", id: "b")] _ in [event] })
            let later = try await second.result
            let earlier = try await first.result
            #expect(earlier.events.map(\.sequence) == [2])
            #expect(later.events.map(\.sequence) == [3])
            #expect(try await first.result.events.map(\.sequence) == [2], "awaited again: the same outcome")
            #expect(try await second.result.events.map(\.sequence) == [3])
        }
    }

    /// Submitted commands nobody awaited are in the log once the ledger closes.
    @Test(arguments: LogBackend.allCases) func closeWaitsForSubmittedCommandsNobodyAwaited(on backend: LogBackend) throws {
        try withTemporaryStore(on: backend) { store in
            let ledger = try Ledger.create(at: store.root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: store.options(.standard))
            for index in 0..<10 {
                let event = entry(ledger, "1.00", id: "n\(index)")
                _ = ledger.submit(LedgerCommand(idempotencyKey: "n\(index)") { _ in [event] })
            }
            try ledger.close()
            let reopened = try Ledger.openForReading(at: store.root, options: store.options(.standard))
            defer { try? reopened.close() }
            #expect(reopened.head.sequence == 11)
            #expect(try cash(reopened) == usd("10.00"))
        }
    }

    /// A command submitted to a closed ledger, or to one opened for reading, fails when
    /// awaited and appends nothing.
    @Test func aSubmissionToAClosedOrReadingLedgerFailsWithTheStoresError() async throws {
        try await withTemporaryStore(on: .files) { store in
            let ledger = try Ledger.create(at: store.root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: store.options(.standard))
            let event = entry(ledger, "1.00", id: "late")
            try ledger.close()
            let closed = await #expect(throws: LedgerError.self) { try await ledger.submit(LedgerCommand { _ in [event] }).result }
            #expect((closed?.underlying as? StoreError)?.code == .readOnly)

            let reader = try Ledger.openForReading(at: store.root, options: store.options(.standard))
            defer { try? reader.close() }
            let reading = await #expect(throws: LedgerError.self) { try await reader.submit(LedgerCommand { _ in [event] }).result }
            #expect((reading?.underlying as? StoreError)?.code == .readOnly)
            #expect(reader.head.sequence == 1)
        }
    }
}
