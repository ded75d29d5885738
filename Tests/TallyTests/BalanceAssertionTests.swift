import Foundation
import GRDB
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

@Suite struct BalanceAssertionTests {
    private func ledgerWithSalary(_ root: String, clock: ManualClock) throws -> Ledger {
        let ledger = try Ledger.forTesting(at: root, clock: clock, baseCurrency: .gbp, timeZone: "Europe/London")
        try ledger.appendEvents([NewEvent(effectiveAt: try Instant(parsing: "2026-03-01T09:00:00Z"), body: EventBody(
            JournalEntryPosted(account: "Assets:Bank", counterAccount: "Income:Salary", amount: gbp("2500.00"))))])
        return ledger
    }

    @Test func aHoldingAssertionPassesVerify() throws {
        try withTemporaryStore { root in
            let ledger = try ledgerWithSalary(root, clock: ManualClock("2026-04-01T09:00:00Z"))
            try ledger.assertBalance(account: "Assets:Bank", amount: gbp("2500.00"), on: day("2026-03-31"))
            try ledger.close()
            let verification = try StoreVerifier.verify(at: root, options: .standard)
            #expect(verification.isIntact, "\(verification.readModels?.problems ?? [])")
            #expect(verification.readModels?.assertionsChecked == 1)
        }
    }

    @Test func aBackdatedEntryThatBreaksAnAssertionIsReportedWithBothAmounts() throws {
        try withTemporaryStore { root in
            let ledger = try ledgerWithSalary(root, clock: ManualClock("2026-04-01T09:00:00Z"))
            try ledger.assertBalance(account: "Assets:Bank", amount: gbp("2500.00"), on: day("2026-03-31"))
            // Recorded later, dated 31 March 23:30 in London (BST): inside the asserted day.
            try ledger.appendEvents([NewEvent(effectiveAt: try Instant(parsing: "2026-03-31T22:30:00Z"), body: EventBody(
                JournalEntryPosted(account: "Expenses:Food", counterAccount: "Assets:Bank", amount: gbp("12.00"))))])
            try ledger.close()
            let verification = try StoreVerifier.verify(at: root, options: .standard)
            #expect(!verification.isIntact)
            let failure = try #require(verification.readModels?.failedAssertions.first)
            #expect(failure.account == "Assets:Bank")
            #expect(failure.expected == gbp("2500.00"))
            #expect(failure.actual == gbp("2488.00"))
            #expect(verification.readModels?.problems.first?.contains("2488.00 GBP, expected 2500.00 GBP") == true)
        }
    }

    /// Read models behind the log are normal (a crash between append and commit, a concurrent
    /// import): a note saying how far, not a failure.
    @Test func readModelsBehindTheLogAreANoteNotAFailure() throws {
        try withTemporaryStore { root in
            try ledgerWithSalary(root, clock: ManualClock("2026-04-01T09:00:00Z")).close()
            let store = try EventStore.open(at: root, catalog: .standard)
            try store.append([NewEvent(effectiveAt: try Instant(parsing: "2026-03-02T09:00:00Z"), body: EventBody(
                JournalEntryPosted(account: "Expenses:Food", counterAccount: "Assets:Bank", amount: gbp("1.00"))))])
            try store.close()
            let verification = try StoreVerifier.verify(at: root, options: .standard)
            #expect(verification.isIntact, "\(verification.problems)")
            #expect(verification.readModels?.laggingProjectors.isEmpty == false)
            #expect(verification.notes.contains { $0.contains("1 event behind") }, "\(verification.notes)")
            // Opening the ledger catches up; then verify is clean.
            try Ledger.open(at: root, options: .standard).close()
            #expect(try StoreVerifier.verify(at: root, options: .standard).isIntact)
        }
    }

    /// A process killed while it first created the read models can leave a hot rollback
    /// journal, which a read-only connection cannot roll back: verify notes it instead
    /// of failing with SQLite's "attempt to write a readonly database", and the next
    /// ledger to open recovers.
    @Test func readModelsLeftMidWriteAreReportedAndRecoveredByTheNextOpen() throws {
        try withTemporaryStore { root in
            try ledgerWithSalary(root, clock: ManualClock("2026-04-01T09:00:00Z")).close()
            let layout = StoreLayout(root: root)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: layout.readModelPath + suffix) }
            // A transaction caught mid-way: the database and its hot journal as they are on disk.
            let scratch = root + "-scratch.sqlite"
            let queue = try DatabaseQueue(path: scratch)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA cache_size = 1; CREATE TABLE filler (text TEXT NOT NULL)")
                try db.execute(sql: "BEGIN IMMEDIATE")
                for _ in 0..<2_000 { try db.execute(sql: "INSERT INTO filler VALUES (?)", arguments: [String(repeating: "x", count: 200)]) }
                try FileManager.default.copyItem(atPath: scratch, toPath: layout.readModelPath)
                try FileManager.default.copyItem(atPath: scratch + "-journal", toPath: layout.readModelPath + "-journal")
                try db.execute(sql: "ROLLBACK")
            }
            try queue.close()
            let verification = try StoreVerifier.verify(at: root, options: .standard)
            #expect(verification.readModels?.needsRecovery == true)
            #expect(verification.notes.contains { $0.contains("left mid-write") }, "\(verification.notes)")
            // Normal after a crash: the log is intact, and the next open recovers the read models.
            #expect(verification.isIntact)
            try Ledger.open(at: root, options: .standard).close()
            #expect(try StoreVerifier.verify(at: root, options: .standard).isIntact)
        }
    }
}
