import Foundation
import Testing
@testable import Tally
import TallyTestSupport

/// The products' commands as values (`depositCommand`, `purchaseCommand`, …): what an
/// embedder batches into one commit or runs through the async API, with the same rules,
/// refusals and idempotency as the methods that run them at once.
@Suite struct CommandValueTests {
    static let start = "2026-05-20T16:00:00Z"

    private func frames(_ root: String) throws -> UInt64 {
        try EventStoreReader.open(at: root, catalog: .standard).statistics().frames
    }

    @Test func aHouseholdsDayOfDepositsAndPurchasesIsOneCommit() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock(Self.start))
            defer { try? ledger.close() }
            let before = try frames(root)
            var commands = try (1...200).map { index in
                try ledger.depositCommand(account: "main", amount: usd("10.00"), externalId: "tx-\(index)", idempotencyKey: "bank:tx-\(index)")
            }
            commands.append(try ledger.purchaseCommand(account: "main", amount: usd("3.40"), merchant: "Coffee"))
            // Spend holds 1,400.00 after the deposits: this one is refused, alone.
            commands.append(try ledger.purchaseCommand(account: "main", amount: usd("5000.00"), merchant: "Too much"))

            let results = try ledger.run(batch: commands)
            #expect(try frames(root) == before + 1, "one commit for the whole batch")
            #expect(results.prefix(201).allSatisfy { (try? $0.get()) != nil })
            let refused = try #require(results.last.map { result -> LedgerError? in
                if case .failure(let error) = result { return error as? LedgerError }
                return nil
            } ?? nil)
            #expect(refused.code == .insufficientFunds)
            let balance = try #require(try ledger.wealthSummary(account: "main").balances.first)
            // 200 × 10.00 split 70/30, less the purchase (and its round-up, when round-ups are on).
            #expect(try balance.spend.adding(balance.invest) == usd("1996.60"))
            #expect(balance.invest.minorUnits >= 600_00)
            try ledger.expectConsistent()
        }
    }

    @Test func aCommandValueRepeatedWithItsKeyIsAlreadyApplied() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock(Self.start))
            defer { try? ledger.close() }
            let first = try ledger.run(try ledger.depositCommand(account: "main", amount: usd("25.00"), idempotencyKey: "k"))
            let again = try ledger.run(try ledger.depositCommand(account: "main", amount: usd("25.00"), idempotencyKey: "k"))
            #expect(again.wasAlreadyApplied && again.events == first.events)
            let other = #expect(throws: LedgerError.self) {
                try ledger.run(try ledger.depositCommand(account: "main", amount: usd("26.00"), idempotencyKey: "k"))
            }
            #expect(other?.code == .idempotencyConflict)
        }
    }

    @Test func badInputIsRefusedWhenTheValueIsBuilt() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock(Self.start))
            defer { try? ledger.close() }
            let error = #expect(throws: LedgerError.self) { try ledger.depositCommand(account: "main", amount: usd("-1.00")) }
            #expect(error?.code == .invalidArgument)
            #expect(ledger.head.sequence == 1)
        }
    }

    @Test func commandValuesFromConcurrentTasksAllLand() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tally-\(UUID().uuidString)").path + "/store"
        defer { try? FileManager.default.removeItem(atPath: (root as NSString).deletingLastPathComponent) }
        let ledger = try Ledger.forTesting(at: root, clock: ManualClock(Self.start))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                let command = try ledger.depositCommand(account: "main", amount: usd("1.00"), idempotencyKey: "task-\(index)")
                group.addTask { _ = try await ledger.run(command) }
            }
            try await group.waitForAll()
        }
        let balance = try #require(try ledger.wealthSummary(account: "main").balances.first)
        #expect(balance.spend == usd("11.20") && balance.invest == usd("4.80"), "16 deposits of 1.00, each split 70/30")
        try ledger.close()
    }
}
