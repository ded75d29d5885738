import Foundation
import GRDB
import Synchronization
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Throwing the read models away and folding the log again reproduces them exactly.
@Suite struct RebuildTests {
    private func mixedLedger(at root: String, clock: ManualClock, seed: UInt64) throws -> Ledger {
        try fill(Ledger.forTesting(at: root, clock: clock), clock: clock, seed: seed)
    }

    private func mixedLedger(at store: TestStore, clock: ManualClock, seed: UInt64) throws -> Ledger {
        try fill(Ledger.forTesting(at: store, clock: clock), clock: clock, seed: seed)
    }

    private func fill(_ ledger: Ledger, clock: ManualClock, seed: UInt64) throws -> Ledger {
        var random = SplitMix64(seed: seed)
        var events: [NewEvent] = []
        let accounts = ["Assets:Cash", "Assets:Bank", "Expenses:Food", "Income:Pay", "Liabilities:Card"]
        for index in 0..<3_000 {
            clock.advance(seconds: 60)
            let cents = Int64(random.next() % 100_000) + 1
            switch index % 4 {
            case 0:
                events.append(NewEvent(effectiveAt: clock.now, idempotencyKey: "k-\(index)", body: EventBody(
                    DepositReceived(account: "main", amount: Money(minorUnits: cents, commodity: .usd), source: .bankTransfer))))
            case 1:
                let target = accounts[Int(random.next() % 5)]
                let source = target == accounts[0] ? accounts[1] : accounts[0]
                events.append(NewEvent(effectiveAt: clock.now, body: EventBody(JournalEntryPosted(
                    account: target, counterAccount: source, amount: Money(minorUnits: cents - 50_000, commodity: .usd)))))
            case 2:
                events.append(NewEvent(effectiveAt: clock.now, body: EventBody(TransactionRecorded(
                    transactionId: "t-\(index)", payee: "Shop", category: .groceries,
                    amount: Money(minorUnits: -cents, commodity: .usd), source: .manual))))
            default:
                events.append(NewEvent(effectiveAt: clock.now, body: EventBody(TransactionAmended(
                    transactionId: "t-\(index - 1)", payee: "Shop", category: .diningOut,
                    amount: Money(minorUnits: -cents / 2, commodity: .usd), recurring: false))))
            }
            if events.count == 700 {
                try ledger.appendEvents(events)
                events.removeAll()
            }
        }
        try ledger.appendEvents(events)
        return ledger
    }

    @Test(arguments: LogBackend.allCases) func aRebuildReproducesEveryReadModelExactly(on backend: LogBackend) throws {
        let seed: UInt64 = 99
        try withTemporaryStore(on: backend) { store in
            let ledger = try mixedLedger(at: store, clock: ManualClock("2026-01-01T00:00:00Z"), seed: seed)
            let before = try ledger.readModels.dump()
            #expect(before["posting_days"]?.isEmpty == false, "seed \(seed)")
            #expect(before["recorded_times"]?.isEmpty == false, "seed \(seed)")
            var folded: [UInt64] = []
            try ledger.rebuild { folded.append($0) }
            #expect(folded.last == ledger.head.sequence)
            #expect(try ledger.readModels.dump() == before, "seed \(seed)")
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    /// Balances summed in memory during a batch are written before a posting rule reads them:
    /// a reference balance reset folded in the same batch as the moves before it sees them.
    @Test func rulesThatReadBalancesSeeEarlierEventsOfTheSameBatch() throws {
        try withTemporaryStore { root in
            let clock = ManualClock("2026-03-01T00:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            // The pot exists before money moves into it (appended events are checked for that).
            var events = [NewEvent(effectiveAt: clock.now, body: EventBody(PotCreated(potId: "trip", name: "Trip", target: usd("500.00"))))]
            for index in 0..<30 {
                let body: EventBody = switch index % 3 {
                case 0: EventBody(ReferenceBalanceSet(amount: Money(minorUnits: Int64(1_000 * (index + 1)), commodity: .usd)))
                case 1: EventBody(PotFunded(potId: "trip", amount: usd("1.00")))
                default: EventBody(TransactionRecorded(
                    transactionId: "t-\(index)", payee: "Shop", category: .general, amount: usd("-2.50"), source: .manual))
                }
                events.append(NewEvent(effectiveAt: clock.now, body: body))
            }
            // One event per commit: each fold sees only its own event.
            for event in events { try ledger.appendEvents([event]) }
            let incremental = try ledger.readModels.dump()
            // The rebuild folds all of them in one batch.
            try ledger.rebuild()
            #expect(try ledger.readModels.dump() == incremental)
            let current = try ledger.balances().first { $0.account == LedgerAccounts.current }?.amount
            #expect(current == usd("267.50"), "reference 280.00 less 9.00 in the pot, then 1.00 more to the pot and a 2.50 expense")
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    /// A rebuild drops the index of recorded times by time while it folds; if the process stops before the
    /// index is back, the next open folds that projector again, index included.
    @Test func aRebuildStoppedBeforeItsIndexesCameBackIsRedoneOnOpen() throws {
        try withTemporaryStore { root in
            let ledger = try mixedLedger(at: root, clock: ManualClock("2026-01-01T00:00:00Z"), seed: 11)
            let before = try ledger.readModels.dump()
            try ledger.readModels.database.write { db in try db.execute(sql: "DROP INDEX recorded_times_by_time") }
            try ledger.close()
            let reopened = try Ledger.open(at: root, options: .standard)
            let index = try reopened.read { db in
                try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'recorded_times_by_time'")
            }
            #expect(index == "recorded_times_by_time")
            #expect(try reopened.readModels.dump() == before)
            try reopened.expectConsistent()
            try reopened.close()
        }
    }

    /// The balances fold keys its sums by (account, commodity) pair and keeps one open
    /// roll-up cell per pair: postings that jump back and forth across days, recorded
    /// blocks and commodities, folded one event per commit, must give the rows a rebuild
    /// gives folding them all in one batch.
    @Test func postingsJumpingAcrossDaysBlocksAndCommoditiesRebuildExactly() throws {
        let seed = TestSeed.value(default: 0x0B5E_2026)
        try withTemporaryStore { root in
            let clock = ManualClock("2026-01-01T00:00:00Z")
            let ledger = try Ledger.forTesting(at: root, clock: clock)
            var random = SplitMix64(seed: seed)
            let accounts = ["Assets:Cash", "Assets:Bank", "Expenses:Food", "Income:Pay"]
            let commodities: [Commodity] = [.usd, .eur, .jpy]
            for _ in 0..<400 {
                // Recorded times cross a 32-day recorded block now and then.
                clock.advance(seconds: Int64(random.next() % 3) * 86_400 * 5)
                let daysBack = Int64(random.next() % 90)
                let effective = Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - daysBack * 86_400_000_000)
                let target = accounts[Int(random.next() % 4)]
                let source = accounts[(accounts.firstIndex(of: target)! + 1 + Int(random.next() % 3)) % 4]
                let amount = Money(minorUnits: Int64(random.next() % 20_000) - 10_000, commodity: commodities[Int(random.next() % 3)])
                try ledger.appendEvents([NewEvent(effectiveAt: effective, body: EventBody(
                    JournalEntryPosted(account: target, counterAccount: source, amount: amount)))])
            }
            let incremental = try ledger.readModels.dump()
            #expect(incremental["balance_rollup_days"]?.isEmpty == false, "seed \(seed) (TALLY_TEST_SEED=\(seed))")
            try ledger.rebuild()
            let rebuilt = try ledger.readModels.dump()
            for table in Set(incremental.keys).union(rebuilt.keys).sorted() {
                #expect(incremental[table] == rebuilt[table], "table \(table), seed \(seed) (TALLY_TEST_SEED=\(seed))")
            }
            try ledger.expectConsistent()
            try ledger.close()
        }
    }

    /// A rebuild drops and folds the projectors' tables only: a table no projector made
    /// (an embedder's own) stays with its rows, and the connection's settings for bulk
    /// folding (no sync, a larger cache) are back to what they were afterwards.
    @Test func aRebuildKeepsTablesNoProjectorMadeAndRestoresTheConnectionSettings() throws {
        try withTemporaryStore { root in
            let ledger = try mixedLedger(at: root, clock: ManualClock("2026-01-01T00:00:00Z"), seed: 3)
            let before = try ledger.readModels.dump()
            try ledger.readModels.database.write { db in try db.execute(sql: "CREATE TABLE stray (x INTEGER); INSERT INTO stray VALUES (7)") }
            let settings = "SELECT (SELECT synchronous FROM pragma_synchronous) || ',' || (SELECT cache_size FROM pragma_cache_size) || ',' || (SELECT threads FROM pragma_threads)"
            let settingsBefore = try ledger.readModels.database.writeWithoutTransaction { db in try String.fetchOne(db, sql: settings) }
            try ledger.rebuild()
            let stray = try ledger.read { db in try Int.fetchAll(db, sql: "SELECT x FROM stray") }
            #expect(stray == [7])
            let settingsAfter = try ledger.readModels.database.writeWithoutTransaction { db in try String.fetchOne(db, sql: settings) }
            #expect(settingsAfter == settingsBefore)
            #expect(try ledger.readModels.dump() == before)
            try ledger.close()
            let reopened = try Ledger.open(at: root, options: .standard)
            #expect(try reopened.readModels.dump() == before)
            try reopened.close()
        }
    }

    /// Folds nothing until told to, then refuses the event it is told to refuse: a rebuild
    /// that stops half-way.
    private final class RefusalSwitch: Sendable {
        let sequence = Mutex<UInt64?>(nil)
    }

    private struct RefusingProjector: Projector {
        let refuseAt = RefusalSwitch()
        let name = "refusing"
        let version = 1
        let tables = ["refusing_seen"]
        func createTables(_ db: Database) throws {
            try db.execute(sql: "CREATE TABLE refusing_seen (sequence INTEGER PRIMARY KEY) STRICT")
        }
        func apply(_ event: Event, _ db: Database) throws {
            if let refused = refuseAt.sequence.withLock({ $0 }), event.sequence == refused {
                throw LedgerError(.invalidArgument, "refused event \(event.sequence) on purpose")
            }
            try db.execute(sql: "INSERT INTO refusing_seen (sequence) VALUES (?)", arguments: [Int64(event.sequence)])
        }
    }

    /// `tally rebuild` folds into a new file and renames it over the old one: the new file is
    /// a WAL database private to its owner, equal to the incremental fold, made to hand back the
    /// pages it frees, and nothing of the build (a `.rebuilding` file) or
    /// of the old file's WAL is left beside it.
    @Test func aRebuildOfAClosedStoreReplacesTheFileWhole() throws {
        try withTemporaryStore { root in
            let ledger = try mixedLedger(at: root, clock: ManualClock("2026-01-01T00:00:00Z"), seed: 21)
            let before = try ledger.readModels.dump()
            let balances = try ledger.balances()
            try ledger.close()
            let path = root + "/readmodels.sqlite"
            // A stray file of a rebuild killed earlier is not in the way.
            try Data("not a database".utf8).write(to: URL(fileURLWithPath: path + ".rebuilding"))
            let oldInode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
            let head = try Ledger.rebuild(at: root, options: .standard)
            let newInode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
            #expect(newInode != oldInode, "a new file took the old one's place")
            for leftover in [".rebuilding", ".rebuilding-journal", ".rebuilding-wal", "-journal"] {
                #expect(!FileManager.default.fileExists(atPath: path + leftover), "\(leftover) is left")
            }
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "the new file is private: \(String(mode, radix: 8))")
            let reopened = try Ledger.open(at: root, options: .standard)
            #expect(reopened.head == head)
            #expect(try reopened.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
            #expect(try reopened.read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") } == 2)
            #expect(try reopened.readModels.dump() == before)
            #expect(try reopened.balances() == balances)
            try reopened.expectConsistent()
            try reopened.close()
        }
    }

    /// A file holding a table no projector made is rebuilt in place, so the table stays.
    @Test func aRebuildOfAClosedStoreKeepsTablesNoProjectorMade() throws {
        try withTemporaryStore { root in
            let ledger = try mixedLedger(at: root, clock: ManualClock("2026-01-01T00:00:00Z"), seed: 4)
            let before = try ledger.readModels.dump()
            try ledger.readModels.database.write { db in try db.execute(sql: "CREATE TABLE stray (x INTEGER); INSERT INTO stray VALUES (9)") }
            try ledger.close()
            try Ledger.rebuild(at: root, options: .standard)
            let reopened = try Ledger.open(at: root, options: .standard)
            #expect(try reopened.read { db in try Int.fetchAll(db, sql: "SELECT x FROM stray") } == [9])
            #expect(try reopened.readModels.dump() == before)
            try reopened.close()
        }
    }

    /// A rebuild that fails half-way (here a projector refuses an event) leaves the read
    /// models it was replacing in place with every row as it was, and no new file behind.
    @Test func aRebuildThatFailsHalfWayLeavesTheOldReadModelsAsTheyWere() throws {
        try withTemporaryStore { root in
            let refusing = RefusingProjector()
            let clock = ManualClock("2026-01-01T00:00:00Z")
            var options = Ledger.Options.standard
            options.projectors = [refusing]
            let created = try mixedLedger(at: root, clock: clock, seed: 8)
            try created.close()
            let ledger = try Ledger.open(at: root, options: options)
            let before = try ledger.readModels.dump()
            let head = ledger.head.sequence
            try ledger.close()
            let path = root + "/readmodels.sqlite"
            let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
            refusing.refuseAt.sequence.withLock { $0 = head / 2 }
            #expect(throws: (any Error).self) { try Ledger.rebuild(at: root, options: options) }
            #expect(!FileManager.default.fileExists(atPath: path + ".rebuilding"))
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode, "the old file is still in place")
            refusing.refuseAt.sequence.withLock { $0 = nil }
            let reopened = try Ledger.open(at: root, options: options)
            #expect(try reopened.readModels.dump() == before)
            try reopened.expectConsistent()
            try reopened.close()
        }
    }

    @Test func deletedReadModelsAreRebuiltWhenTheLedgerOpens() throws {
        try withTemporaryStore { root in
            let ledger = try mixedLedger(at: root, clock: ManualClock("2026-01-01T00:00:00Z"), seed: 5)
            let before = try ledger.readModels.dump()
            let balances = try ledger.balances()
            try ledger.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: root + "/readmodels.sqlite" + suffix) }
            let reopened = try Ledger.open(at: root, options: .standard)
            #expect(try reopened.readModels.dump() == before)
            #expect(try reopened.balances() == balances)
            try reopened.expectConsistent()
            try reopened.close()
        }
    }
}
