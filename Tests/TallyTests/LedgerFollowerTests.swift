import Foundation
import PostgresTestSupport
import Testing
import TallyTestSupport
@testable import Tally
@testable import TallyEngine
@testable import TallyProducts

/// A follower keeps a second node's read models current while the first node writes: woken by
/// the writer's commit notices, never holding the ledger's lease.
@Suite struct LedgerFollowerTests {
    @Test func aSecondNodeFoldsEachCommitAsItsNoticeArrivesWithoutWaitingForItsPoll() throws {
        try withTwoNodes("follow") { writer, nodeB in
            // A poll of a minute: within the waits below only a notice can wake the follower.
            let follower = try LedgerFollower.start(at: nodeB, options: .standard, pollMilliseconds: 60_000)
            defer { follower.stop() }
            #expect(follower.progress.folded == writer.head.sequence, "the start folds what is there")
            for index in 1...12 {
                let result = try writer.deposit(account: "main", amount: usd("\(index).00"))
                let last = try #require(result.events.last?.sequence)
                #expect(follower.waitUntilFolded(through: last, timeoutMilliseconds: 10_000), "commit \(index) (seq \(last)) reached node B")
            }
            #expect(follower.progress.failure == nil)
            // Node B's readers answer from the followed read models, as node A does.
            let reader = try Ledger.openForReading(at: nodeB, options: .standard)
            defer { try? reader.close() }
            #expect(reader.head == writer.head)
            #expect(try reader.balances() == writer.balances())
        }
    }

    @Test func aFollowerOfAStoreOfFilesFoldsWhatItsWriterLeftAtItsPoll() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T09:00:00Z")
            var options = Ledger.Options(clock: clock.function, syncMode: .none, features: standardFeatures)
            options.faultAfterAppend = { throw CocoaError(.fileWriteOutOfSpace) }
            // A writer whose read models miss its commit (as a kill after the append leaves them).
            do {
                let writer = try Ledger.create(at: root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: options)
                _ = try writer.deposit(account: "main", amount: usd("10.00"))
                try writer.close()
            }
            let follower = try LedgerFollower.start(at: root, options: .standard, pollMilliseconds: 50)
            defer { follower.stop() }
            #expect(follower.waitUntilFolded(through: 3, timeoutMilliseconds: 5_000))
            let reader = try Ledger.openForReading(at: root, options: .standard)
            defer { try? reader.close() }
            let balances = try reader.balances().map { "\($0.account) \($0.amount)" }
            #expect(balances.contains("External:Deposits -10.00 USD"), "the deposit the writer's read models missed: \(balances)")
        }
    }

    @Test func aPollIntervalOutOfRangeIsRefusedByName() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.create(at: root, name: "Home", baseCurrency: .usd, timeZone: "UTC", options: .standard)
            try ledger.close()
            #expect { try LedgerFollower.start(at: root, options: .standard, pollMilliseconds: 0) } throws: { error in
                (error as? LedgerError)?.message.contains("poll interval of 0 ms is out of range") == true
            }
        }
    }
}
