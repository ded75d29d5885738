import Foundation
import GRDB
import Testing
import TallyLog
import TallyTestSupport
@testable import TallyEngine

/// An embedder's read model registered through `Ledger.Options.projectors`, on the engine
/// alone: it lives in the
/// same database and the same transaction as the built-in ones, is checkpointed, caught up,
/// rebuilt and verified like them, and a rebuild erases no table it does not own.
@Suite struct EmbedderProjectorTests {
    static let start = "2026-05-01T09:00:00Z"

    /// Counts journal entries per account, as a merchant dashboard of an embedder might; a
    /// posting of exactly 13.13 makes its fold fail, as a bug or a full disk would.
    struct EntryCountProjector: Projector {
        var version = 1
        var table = "merchant_entry_counts"
        let name = "merchant_entry_counts"
        var tables: [String] { [table] }

        func createTables(_ db: Database) throws {
            try db.execute(sql: "CREATE TABLE \(table.quotedDatabaseIdentifier) (account TEXT PRIMARY KEY NOT NULL, entries INTEGER NOT NULL) STRICT")
        }

        func apply(_ event: Event, _ db: Database) throws {
            guard let entry = event.body.as(JournalEntryPosted.self) else { return }
            if entry.amount == usd("13.13") { throw LedgerError(.notAllowed, "the merchant read model refuses 13.13") }
            try db.execute(sql: """
                INSERT INTO \(table.quotedDatabaseIdentifier) (account, entries) VALUES (?, 1)
                ON CONFLICT (account) DO UPDATE SET entries = entries + 1
                """, arguments: [entry.account])
        }
    }

    private func options(_ clock: ManualClock, _ projectors: [any Projector]) -> Ledger.Options {
        Ledger.Options(clock: clock.function, syncMode: .none, projectors: projectors)
    }

    private func entry(_ amount: String, _ account: String = "Assets:Cash", at clock: ManualClock) -> NewEvent {
        NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(
            account: account, counterAccount: "Income:Salary", amount: usd(amount))))
    }

    private func counts(_ ledger: Ledger, table: String = "merchant_entry_counts") throws -> [String: Int] {
        try ledger.read { db in
            var result: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT account, entries FROM \(table.quotedDatabaseIdentifier)") {
                result[row["account"]] = row["entries"]
            }
            return result
        }
    }

    private func checkpoint(_ root: String, _ name: String) throws -> UInt64? {
        let database = try DatabaseQueue(path: StoreLayout(root: root).readModelPath)
        defer { try? database.close() }
        return try database.read { db in
            try Int64.fetchOne(db, sql: "SELECT sequence FROM projection_checkpoints WHERE projector = ?", arguments: [name]).map(UInt64.init)
        }
    }

    @Test func itIsFoldedWithEveryCommandAndCheckpointedAtTheHead() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock, [EntryCountProjector()]))
            defer { try? ledger.close() }
            try ledger.appendEvents([entry("1.00", at: clock), entry("2.00", "Assets:Bank", at: clock)])
            try ledger.appendEvents([entry("3.00", at: clock)])
            #expect(try counts(ledger) == ["Assets:Cash": 2, "Assets:Bank": 1])
            #expect(try checkpoint(root, "merchant_entry_counts") == ledger.head.sequence)
            try ledger.expectConsistent()
        }
    }

    @Test func aFoldItRefusesRefusesTheCommandAndNothingIsAppended() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock, [EntryCountProjector()]))
            defer { try? ledger.close() }
            try ledger.appendEvents([entry("1.00", at: clock)])
            let head = ledger.head
            #expect(throws: LedgerError.self) { try ledger.appendEvents([entry("13.13", at: clock)]) }
            #expect(ledger.head == head, "the log is untouched")
            #expect(try ledger.balances().first { $0.account == "Assets:Cash" }?.amount == usd("1.00"), "the built-in read models too")
            #expect(try counts(ledger) == ["Assets:Cash": 1])
        }
    }

    @Test func leftOutItsCheckpointStaysAndItCatchesUpWhenRegisteredAgain() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock, [EntryCountProjector()])).close()
            let without = try Ledger.open(at: root, options: options(clock, []))
            try without.appendEvents([entry("1.00", at: clock), entry("2.00", at: clock)])
            try without.close()
            #expect(try checkpoint(root, "merchant_entry_counts") == 1, "not folded, so not moved")
            let reader = try Ledger.openForReading(at: root, options: options(clock, []))
            #expect(reader.head.sequence == 3, "a reader without it answers from the built-in read models")
            try reader.close()

            let again = try Ledger.open(at: root, options: options(clock, [EntryCountProjector()]))
            defer { try? again.close() }
            #expect(try counts(again) == ["Assets:Cash": 2])
            #expect(try checkpoint(root, "merchant_entry_counts") == 3)
        }
    }

    @Test func aRebuildFoldsItAfreshAndKeepsTablesNoRegisteredProjectorMade() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock, [EntryCountProjector()]))
            try ledger.appendEvents([entry("1.00", at: clock), entry("2.00", "Assets:Bank", at: clock)])
            try ledger.read { _ in }
            try ledger.close()
            // A table the embedder made by hand, and damage to the registered one.
            let database = try DatabaseQueue(path: StoreLayout(root: root).readModelPath)
            try database.write { db in
                try db.execute(sql: "CREATE TABLE merchant_notes (note TEXT); INSERT INTO merchant_notes VALUES ('keep me')")
                try db.execute(sql: "DELETE FROM merchant_entry_counts")
            }
            try database.close()

            try Ledger.rebuild(at: root, options: options(clock, [EntryCountProjector()]))
            let reopened = try Ledger.open(at: root, options: options(clock, [EntryCountProjector()]))
            #expect(try counts(reopened) == ["Assets:Cash": 1, "Assets:Bank": 1])
            #expect(try reopened.read { db in try String.fetchAll(db, sql: "SELECT note FROM merchant_notes") } == ["keep me"])
            try reopened.close()

            // Rebuilt without it: its table and its checkpoint stay as they were.
            try Ledger.rebuild(at: root, options: options(clock, []))
            #expect(try checkpoint(root, "merchant_entry_counts") == 3)
            let last = try Ledger.open(at: root, options: options(clock, [EntryCountProjector()]))
            defer { try? last.close() }
            #expect(try counts(last) == ["Assets:Cash": 1, "Assets:Bank": 1])
        }
    }

    @Test func aTableAProjectorNoLongerListsIsDroppedWithItsOldVersion() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let first = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock, [EntryCountProjector()]))
            try first.appendEvents([entry("1.00", at: clock)])
            try first.close()
            let renamed = EntryCountProjector(version: 2, table: "merchant_entry_counts_v2")
            let second = try Ledger.open(at: root, options: options(clock, [renamed]))
            defer { try? second.close() }
            #expect(try counts(second, table: "merchant_entry_counts_v2") == ["Assets:Cash": 1])
            #expect(try second.read { db in try db.tableExists("merchant_entry_counts") } == false)
        }
    }

    @Test func clashingNamesAndTablesAreRefusedBeforeAnythingOpens() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            #expect(throws: LedgerError.self) {
                try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC",
                                  options: options(clock, [EntryCountProjector(), EntryCountProjector(table: "other")]))
            }
            #expect(throws: LedgerError.self) {
                try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC",
                                  options: options(clock, [EntryCountProjector(table: "projection_checkpoints")]))
            }
        }
    }

    @Test func verifyReportsItsCheckpointLikeTheBuiltInOnes() throws {
        try withTemporaryStore { root in
            let clock = ManualClock(Self.start)
            let ledger = try Ledger.create(at: root, name: "Shop", baseCurrency: .usd, timeZone: "UTC", options: options(clock, [EntryCountProjector()]))
            try ledger.appendEvents([entry("1.00", at: clock)])
            try ledger.close()
            let ours = try #require(try StoreVerifier.verify(at: root).readModels?.projectors.first { $0.projector == "merchant_entry_counts" })
            #expect(ours.position == .atHead)
            #expect(ours.hashMatches == true)
        }
    }
}
