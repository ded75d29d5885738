import Foundation
import PostgresTestSupport
import Testing
@testable import Tally
import TallyLog
import TallyProductTestSupport
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// The same household on both backends: a ledger whose log is on PostgreSQL (a real,
/// throwaway server) records the same events, reaches the same head digest and gives every
/// product's answer at random points exactly as the ledger on files; a second node builds its
/// read models from the database and answers the same; a full replay and a rebuild agree.
@Suite("A ledger on PostgreSQL")
struct PostgresBackendTests {
    static let ledgers = 2
    static let pointsPerLedger = 20

    @Test func aRandomHouseholdOnPostgreSQLAnswersAsOnFilesOnEveryNode() throws {
        let cluster = try PostgresTestCluster.shared()
        let seed = TestSeed.value(default: 0x29_0501)
        for index in 0..<Self.ledgers {
            let ledgerSeed = TestSeed.ledger(index, of: seed)
            let context = "seed \(seed) (TALLY_TEST_SEED=\(seed)), ledger seed \(ledgerSeed)"
            try withTemporaryStore { root in
                let directory = URL(fileURLWithPath: root).deletingLastPathComponent().path
                let location = try PostgresLogLocation(cluster.ledgerLocation("household"))
                // The same story on files and in the database, with the same clock and choices.
                // Subject keys from one seed on both, so that sealed personal text (and so every
                // chain hash) is the same bytes.
                let fileClock = ManualClock("2025-01-06T14:00:00Z")
                var fileOptions = Ledger.Options(clock: fileClock.function, syncMode: .none, features: standardFeatures)
                fileOptions.subjectKeySeed = ledgerSeed
                let onFiles = try Ledger.create(
                    at: directory + "/files", name: "Test household", baseCurrency: .usd, timeZone: "Europe/London", options: fileOptions)
                defer { try? onFiles.close() }
                var fileRandom = SplitMix64(seed: ledgerSeed)
                var story = try RandomStory.play(on: onFiles, clock: fileClock, steps: 70, random: &fileRandom)
                _ = try EnvelopeStory.play(on: onFiles, clock: fileClock, steps: 30, random: &fileRandom)

                let remoteClock = ManualClock("2025-01-06T14:00:00Z")
                var options = Ledger.Options(clock: remoteClock.function, syncMode: .none, features: standardFeatures)
                options.postgres = location
                options.subjectKeySeed = ledgerSeed
                let onDatabase = try Ledger.create(
                    at: directory + "/node-a", name: "Test household", baseCurrency: .usd, timeZone: "Europe/London", options: options)
                defer { try? onDatabase.close() }
                var remoteRandom = SplitMix64(seed: ledgerSeed)
                let remoteStory = try RandomStory.play(on: onDatabase, clock: remoteClock, steps: 70, random: &remoteRandom)
                let envelopes = try EnvelopeStory.play(on: onDatabase, clock: remoteClock, steps: 30, random: &remoteRandom)
                story.recorded += envelopes.recorded
                story.effective += envelopes.effective
                #expect(remoteStory.recorded.count > 40, "\(context): most commands should append")

                // One log: the same events, the same head digest.
                #expect(onDatabase.head == onFiles.head, "head digests differ, \(context)")
                var fileEvents: [Event] = []
                try EventStoreReader.open(at: directory + "/files", options: .standard).forEach { fileEvents.append($0) }
                var databaseEvents: [Event] = []
                try EventStoreReader.open(at: directory + "/node-a", options: .standard).forEach { databaseEvents.append($0) }
                #expect(databaseEvents == fileEvents, "events differ, \(context)")

                // A second node: its own directory, read models folded from the database.
                try PostgresStore.attach(location, at: directory + "/node-b")
                let nodeB = try Ledger.openForReading(at: directory + "/node-b", options: .standard)
                defer { try? nodeB.close() }
                #expect(nodeB.head == onFiles.head, "\(context)")
                #expect(try nodeB.readModels.dump() == onFiles.readModels.dump(), "node B's read models differ from the file ledger's, \(context)")

                let (accounts, wealthAccounts) = try ProductAnswers.subjects(of: onFiles)
                var random = SplitMix64(seed: ledgerSeed ^ 0xA5A5)
                let knownAts = TestSeed.knownAts(Self.pointsPerLedger, recorded: story.recorded, random: &random)
                for (position, knownAt) in knownAts.enumerated() {
                    let asOf = Instant(microsecondsSinceEpoch: story.effective.randomElement(using: &random)!.microsecondsSinceEpoch + [-1, 0, 1].randomElement(using: &random)!)
                    let audited = (0..<3).map { accounts[(position * 3 + $0) % accounts.count] }
                    let expected = ProductAnswers(onFiles, asOf: asOf, knownAt: knownAt, accounts: audited, wealthAccounts: wealthAccounts)
                    for (node, ledger) in [("node A (writer)", onDatabase), ("node B (follower)", nodeB)] {
                        let answers = ProductAnswers(ledger, asOf: asOf, knownAt: knownAt, accounts: audited, wealthAccounts: wealthAccounts)
                        #expect(answers.differences(from: expected).isEmpty, "\(node): \(answers.differences(from: expected)) as of \(asOf) known at \(knownAt.map { "\($0)" } ?? "now"), \(context)")
                    }
                    // The full replay of the log read from the database is the reference answer.
                    if position % 5 == 0 {
                        let replayed = try Replay.run(at: directory + "/node-b", untilEach: [asOf], knownAt: knownAt)
                        #expect(try replayed.first?.balances == onFiles.balances(asOf: asOf, knownAt: knownAt), "replay, \(context)")
                    }
                }
                let verification = try StoreVerifier.verify(at: directory + "/node-b", options: .standard)
                #expect(verification.outcome == .intact, "\(verification.log.problems), \(context)")
            }
        }
    }

    @Test func aFollowerCatchesUpWithoutTheLeaseAndTakesTheLedgerOnceGivenUp() throws {
        try withTwoNodes("nodes") { writer, nodeBRoot in
            // Node B may read while node A holds the ledger: its read models fold the database's log.
            let reader = try Ledger.openForReading(at: nodeBRoot, options: .standard)
            #expect(reader.head == writer.head)
            #expect(try reader.balances() == writer.balances())
            #expect(try reader.balances().count == 3)
            try reader.close()
            // Given up, the ledger passes to node B, which writes after node A's events.
            try writer.close()
            let nodeB = try Ledger.open(at: nodeBRoot, options: .standard)
            defer { try? nodeB.close() }
            let result = try nodeB.deposit(account: "main", amount: usd("10.00"))
            #expect(result.events.first?.sequence == 4)
            // Node A, now a follower, folds node B's events from the database.
            let nodeA = try Ledger.openForReading(at: writer.layout.root, options: .standard)
            defer { try? nodeA.close() }
            #expect(nodeA.head == nodeB.head)
            #expect(try nodeA.balances() == nodeB.balances())
        }
    }

    @Test func anErasureOnOneNodeIsAnErasureOnEveryNode() throws {
        let cluster = try PostgresTestCluster.shared()
        try withTemporaryStore { root in
            let directory = URL(fileURLWithPath: root).deletingLastPathComponent().path
            let location = try PostgresLogLocation(cluster.ledgerLocation("erasure"))
            let clock = ManualClock("2025-01-06T14:00:00Z")
            var options = Ledger.Options(clock: clock.function, syncMode: .none, features: standardFeatures)
            options.postgres = location
            let ledger = try Ledger.create(at: directory + "/node-a", name: "Home", baseCurrency: .usd, timeZone: "UTC", options: options)
            var random = SplitMix64(seed: 0x29_E4A5)
            _ = try RandomStory.play(on: ledger, clock: clock, steps: 40, random: &random)
            try ledger.close()
            try PostgresStore.attach(location, at: directory + "/node-b")
            var query = TransactionQuery()
            query.pageSize = BudgetSettings.pageSizeLimit
            let shown = try Ledger.openForReading(at: directory + "/node-b", options: .standard)
            let payeeText = try #require(try shown.transactions(query).transactions.first { $0.source == .manual }?.payee)
            try shown.close()
            let payee = "payee:" + payeeText
            let before = try SubjectErasure.subjects(at: directory + "/node-b", options: .standard).map(\.name)
            #expect(before.contains(payee), "\(before)")
            _ = try SubjectErasure.erase(payee, at: directory + "/node-a", options: .standard)
            // Node B's copy of the keys is the database's: the subject is gone there too, and
            // its text reads as erased in node B's answers, which node B folds again.
            let nodeB = try Ledger.openForReading(at: directory + "/node-b", options: .standard)
            defer { try? nodeB.close() }
            let after = try SubjectErasure.subjects(at: directory + "/node-b", options: .standard).map(\.name)
            #expect(!after.contains(payee) && after.count == before.count - 1, "\(after)")
            let listed = try nodeB.transactions(query).transactions.map(\.payee)
            #expect(!listed.contains(payeeText) && listed.contains { $0.hasPrefix("[erased") }, "\(listed)")
            #expect(try StoreVerifier.verify(at: directory + "/node-b", options: .standard).outcome == .intact)
        }
    }
}
