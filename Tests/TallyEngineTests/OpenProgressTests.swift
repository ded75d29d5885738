import Foundation
import Synchronization
import Testing
import TallyLog
import TallyTestSupport
@testable import TallyEngine

/// An open that must fold the log into its read models says how far it has come
/// (`Ledger.Options.openProgress`, issue 12 target 6): after a deleted read-model file, the
/// bulk fold reports batch by batch up to the head; an open with nothing to fold says nothing.
@Suite struct OpenProgressTests {
    private final class Reports: Sendable {
        let seen = Mutex<[(folded: UInt64, head: UInt64)]>([])
    }

    @Test func reopeningAStoreWhoseReadModelsWereDeletedReportsEachBatchUpToTheHead() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-05-01T09:00:00Z")
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC",
                                           options: Ledger.Options(clock: clock.function, syncMode: .none))
            // 45,000 entries in commits of 1,000: three bulk batches of 20,000 events at most.
            for _ in 0..<45 {
                let entries = (0..<1_000).map { _ in
                    NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(
                        account: "Assets:Cash", counterAccount: "Income:Sales", amount: usd("1.00"))))
                }
                try ledger.appendEvents(entries)
                clock.advance(seconds: 60)
            }
            let head = ledger.head.sequence
            let balances = try ledger.balances()
            try ledger.close()

            let quiet = Reports()
            var options = Ledger.Options(clock: clock.function, syncMode: .none)
            options.openProgress = { folded, head in quiet.seen.withLock { $0.append((folded, head)) } }
            try Ledger.open(at: root, options: options).close()
            #expect(quiet.seen.withLock { $0.isEmpty }, "read models at the head: nothing to fold, nothing reported")

            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: StoreLayout(root: root).readModelPath + suffix)
            }
            let reports = Reports()
            options.openProgress = { folded, head in reports.seen.withLock { $0.append((folded, head)) } }
            let reopened = try Ledger.open(at: root, options: options)
            let seen = reports.seen.withLock { $0 }
            #expect(seen.count >= 3, "one report per batch: \(seen)")
            #expect(seen.allSatisfy { $0.head == head })
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.folded < $1.folded }, "folded only grows")
            #expect(seen.last?.folded == head)
            #expect(try reopened.balances() == balances, "the bulk fold rebuilt the same answers")
            try reopened.close()
        }
    }
}
