import Foundation
import GRDB
import Testing
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

/// Issue 10, finding 9: verify tells read models behind the log (a note) from read models ahead of
/// it or folded from another chain (a failure naming the ways out), and reports unreadable read
/// models as a finding rather than an SQLite error.
@Suite struct StoreVerifierTests {
    private func entry(_ amount: String) -> NewEvent {
        NewEvent(effectiveAt: try! Instant(parsing: "2026-03-01T09:00:00Z"), body: EventBody(
            JournalEntryPosted(account: "Expenses:Food", counterAccount: "Assets:Bank", amount: usd(amount))))
    }

    /// A ledger with `entries` journal entries after `ledger_created`, closed, read models at the head.
    private func ledger(at root: String, entries: Int) throws {
        let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-04-01T09:00:00Z"))
        for index in 0..<entries { try ledger.appendEvents([entry("\(index + 1).00")]) }
        try ledger.close()
    }

    /// Sets `column` of the checkpoint table (adding a `hash BLOB` column when the store has none yet).
    private func setCheckpoints(_ root: String, sequence: UInt64? = nil, hash: [UInt8]?, projector: String? = nil) throws {
        let database = try DatabaseQueue(path: StoreLayout(root: root).readModelPath)
        defer { try? database.close() }
        try database.write { db in
            if try !db.columns(in: "projection_checkpoints").contains(where: { $0.name == "hash" }) {
                try db.execute(sql: "ALTER TABLE projection_checkpoints ADD COLUMN hash BLOB")
            }
            let filter = projector.map { _ in " WHERE projector = ?" } ?? ""
            let arguments: StatementArguments = projector.map { [$0] } ?? []
            try db.execute(sql: "UPDATE projection_checkpoints SET hash = ?" + filter, arguments: [hash.map { Data($0) }] + arguments)
            if let sequence {
                try db.execute(sql: "UPDATE projection_checkpoints SET sequence = ?" + filter, arguments: [Int64(sequence)] + arguments)
            }
        }
    }

    /// Before: read models ahead of the log were "lagging", told to catch up by opening the ledger.
    @Test func readModelsAheadOfAnOlderLogAreAFailureNamingBothWaysOut() throws {
        try withTemporaryStore { root in
            try ledger(at: root, entries: 1)
            let layout = StoreLayout(root: root)
            try FileManager.default.copyItem(atPath: layout.logDirectory, toPath: root + "-older-log")
            defer { try? FileManager.default.removeItem(atPath: root + "-older-log") }
            let ledger = try Ledger.open(at: root, options: .standard)
            for amount in ["2.00", "3.00", "4.00"] { try ledger.appendEvents([entry(amount)]) }
            try ledger.close()
            try FileManager.default.removeItem(atPath: layout.logDirectory)
            try FileManager.default.copyItem(atPath: root + "-older-log", toPath: layout.logDirectory)

            let verification = try StoreVerifier.verify(at: root, options: .standard)
            #expect(verification.log.isValid && verification.log.head.sequence == 2)
            #expect(verification.outcome == .readModelsDisagree)
            let projectors = try #require(verification.readModels?.projectors)
            #expect(!projectors.isEmpty && projectors.allSatisfy { $0.position == .ahead(events: 3) })
            let problem = try #require(verification.problems.first)
            #expect(problem.contains("ahead of the log") && problem.contains("folded events up to 5") && problem.contains("ends at 2"), "\(problem)")
            #expect(problem.contains("restore the newer log") && problem.contains("`tally rebuild`"), "\(problem)")
        }
    }

    /// The checkpoint's chain hash (a column the pipeline adds) is compared with the log's, at the
    /// head and behind it; a store without the column, or a NULL hash, is compared by sequence only.
    @Test func aCheckpointHashFromAnotherChainIsAFailureAndTheLogsOwnIsNot() throws {
        try withTemporaryStore { root in
            try ledger(at: root, entries: 3)
            #expect(try StoreVerifier.verify(at: root, options: .standard).readModels?.projectors.allSatisfy { $0.hashMatches != false } == true)
            let reader = try LogReader.open(directory: StoreLayout(root: root).logDirectory)
            let headHash = try #require(try reader.hash(of: 4))

            try setCheckpoints(root, hash: headHash)
            let matching = try StoreVerifier.verify(at: root, options: .standard)
            #expect(matching.isIntact, "\(matching.problems)")
            #expect(matching.readModels?.projectors.allSatisfy { $0.position == .atHead && $0.hashMatches == true } == true)

            try setCheckpoints(root, sequence: 2, hash: try reader.hash(of: 2), projector: "balances")
            let behind = try StoreVerifier.verify(at: root, options: .standard)
            #expect(behind.isIntact, "\(behind.problems)")
            #expect(behind.readModels?.projectors.first { $0.projector == "balances" }?.position == .behind(events: 2))
            #expect(behind.notes.contains { $0.contains("balances at event 2 of 4 (2 events behind)") }, "\(behind.notes)")

            try setCheckpoints(root, hash: [UInt8](repeating: 0xAB, count: 32), projector: "balances")
            let other = try StoreVerifier.verify(at: root, options: .standard)
            #expect(other.outcome == .readModelsDisagree)
            #expect(other.readModels?.projectors.first { $0.projector == "balances" }?.position == .otherChain)
            #expect(other.problems.first?.contains("another history") == true && other.problems.first?.contains("`tally rebuild`") == true, "\(other.problems)")
        }
    }

    /// Before: an overwritten read-model file made verify throw SQLite's "file is not a database".
    @Test func unreadableReadModelsAreAFindingNamingRebuild() throws {
        let seed = TestSeed.value(default: 0xBAD_F11E)
        var random = SplitMix64(seed: seed)
        try withTemporaryStore { root in
            try ledger(at: root, entries: 2)
            let path = StoreLayout(root: root).readModelPath
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: URL(fileURLWithPath: path))
            let verification = try StoreVerifier.verify(at: root, options: .standard)
            #expect(verification.log.isValid, "seed \(seed)")
            #expect(verification.outcome == .readModelsDamaged, "seed \(seed): \(verification.problems)")
            let problem = try #require(verification.problems.first)
            #expect(problem.contains("read models unreadable") && problem.contains("`tally rebuild`"), "seed \(seed): \(problem)")
        }
    }

    @Test func aLogThatDoesNotBeginWithOneLedgerCreatedIsDamaged() throws {
        try withTemporaryStore { root in
            try ledger(at: root, entries: 1)
            // Written below the store, as a damaged or hand-made log would be.
            let writer = try LogWriter.open(directory: StoreLayout(root: root).logDirectory)
            _ = try writer.append([try EventCatalog.standard.record(for: NewEvent(effectiveAt: try Instant(parsing: "2026-03-02T09:00:00Z"),
                body: EventBody(LedgerCreated(name: "Again", baseCurrency: .usd, timeZone: "UTC"))))])
            try writer.close()
            let verification = try StoreVerifier.verify(at: root, options: .standard)
            #expect(verification.outcome == .logDamaged)
            #expect(verification.contentProblems == ["event 3 is a second ledger_created: a store has one, as its event 1"])
        }
    }
}
