import Foundation
import GRDB
import Synchronization
import Testing
import TallyLog
@testable import Tally
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// A feature missing at open is refused (issue 34, item 5). A store whose log holds event types
/// of a feature the opening process does not register opened and took writes; a rebuild then
/// failed, and the same open ledger answered empty balances with no error. Now a writable open
/// names the types and opens nothing; a read-only open proceeds on the read models as they are;
/// and after a rebuild that failed part way every read throws instead of answering empty.
@Suite struct MissingFeatureTests {
    /// A store with the standard features and a few wealth deposits (types the engine alone lacks).
    private func storeWithWealthEvents(at root: String) throws {
        let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-05-01T09:00:00Z"))
        try ledger.deposit(account: "main", amount: usd("100.00"))
        try ledger.deposit(account: "main", amount: usd("20.00"))
        try ledger.close()
    }

    @Test func aWritableOpenWithoutTheFeatureIsRefusedNamingTheTypes() throws {
        try withTemporaryStore { root in
            try storeWithWealthEvents(at: root)
            let log = try FileManager.default.contentsOfDirectory(atPath: root + "/log").sorted()
            let segment = try Data(contentsOf: URL(fileURLWithPath: root + "/log/" + log.first { $0.hasSuffix(".tlog") }!))
            #expect { try Ledger.open(at: root, options: Ledger.Options(syncMode: .none)) } throws: { error in
                let text = "\(error)"
                return text.contains("this process does not register") && text.contains("deposit_received (code")
                    && text.contains("deposit_split (code") && text.contains("Ledger.Options.features")
            }
            // Nothing was written: the log is as it was.
            let after = try Data(contentsOf: URL(fileURLWithPath: root + "/log/" + log.first { $0.hasSuffix(".tlog") }!))
            #expect(after == segment)
            // With the feature the store opens and works.
            let ledger = try Ledger.open(at: root, options: Ledger.Options(syncMode: .none, features: standardFeatures))
            try ledger.deposit(account: "main", amount: usd("5.00"))
            try ledger.close()
        }
    }

    @Test func aReadOnlyOpenWithoutTheFeatureAnswersFromTheReadModelsAsTheyAre() throws {
        try withTemporaryStore { root in
            try storeWithWealthEvents(at: root)
            let reader = try Ledger.openForReading(at: root, options: Ledger.Options(syncMode: .none))
            defer { try? reader.close() }
            let balances = try reader.balances()
            #expect(!balances.isEmpty, "the engine's balances were folded by the process that had the feature")
            #expect(try reader.trialBalance().isEmpty)
        }
    }

    /// Folds nothing, then refuses every event past the first: a rebuild that fails part way.
    private struct FailingProjector: Projector {
        let name = "failing"
        let version = 1
        let tables = ["failing_seen"]
        let failure: Switch
        func createTables(_ db: Database) throws {
            try db.execute(sql: "CREATE TABLE failing_seen (sequence INTEGER PRIMARY KEY) STRICT")
        }
        func apply(_ event: Event, _ db: Database) throws {
            if failure.failing.withLock({ $0 }), event.sequence > 1 { throw LedgerError(.invalidArgument, "refused event \(event.sequence) on purpose") }
        }
    }

    private final class Switch: Sendable {
        let failing = Mutex(false)
    }

    @Test func afterARebuildThatFailedEveryReadThrowsInsteadOfAnsweringEmpty() throws {
        try withTemporaryStore { root in
            let failure = Switch()
            var options = Ledger.Options(clock: ManualClock("2026-05-01T09:00:00Z").function, syncMode: .none, features: standardFeatures)
            options.projectors = [FailingProjector(failure: failure)]
            let ledger = try Ledger.create(at: root, name: "Test household", baseCurrency: .usd, timeZone: "UTC", options: options)
            defer { try? ledger.close() }
            try ledger.deposit(account: "main", amount: usd("100.00"))
            #expect(!(try ledger.balances()).isEmpty)
            failure.failing.withLock { $0 = true }
            #expect(throws: (any Error).self) { try ledger.rebuild() }
            #expect { try ledger.balances() } throws: { "\($0)".contains("a rebuild failed part way") }
            #expect { try ledger.wealthSummary(account: "main") } throws: { "\($0)".contains("a rebuild failed part way") }
            failure.failing.withLock { $0 = false }
            try ledger.rebuild()
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend == usd("70.00"))
        }
    }
}
