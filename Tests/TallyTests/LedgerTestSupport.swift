import Foundation
import Synchronization
import Testing
import PostgresTestSupport
import TallyTestSupport
@testable import Tally
@testable import TallyEngine
@testable import TallyProducts
import TallyLog

extension Ledger {
    /// A new ledger in `root` on a manual clock (USD, New York unless told otherwise).
    static func forTesting(
        at root: String, clock: ManualClock, baseCurrency: Commodity = .usd, timeZone: String = "America/New_York",
        snapshotInterval: SnapshotInterval = .default
    ) throws -> Ledger {
        try Ledger.create(at: root, name: "Test household", baseCurrency: baseCurrency, timeZone: timeZone,
                          options: Options(clock: clock.function, syncMode: .none, snapshotInterval: snapshotInterval, features: standardFeatures))
    }

    /// The same, in `store` on its backend.
    static func forTesting(
        at store: TestStore, clock: ManualClock, baseCurrency: Commodity = .usd, timeZone: String = "America/New_York",
        snapshotInterval: SnapshotInterval = .default
    ) throws -> Ledger {
        try Ledger.create(at: store.root, name: "Test household", baseCurrency: baseCurrency, timeZone: timeZone,
                          options: store.options(Options(clock: clock.function, syncMode: .none, snapshotInterval: snapshotInterval, features: standardFeatures)))
    }
}

/// The random ledgers of a randomized test, each set up the same way: its seed (from the
/// suite's default `master`, or `TALLY_TEST_SEED` to replay a failure), a generator seeded
/// with it, and a fresh ledger in a temporary store on `backend` whose clock starts at
/// `start`. `body` names `seed` in every failure it reports.
func withRandomLedgers(
    _ count: Int, master defaultMaster: UInt64, on backend: LogBackend = .files, clockAt start: String = "2026-01-01T12:00:00Z",
    _ body: (_ ledger: Ledger, _ clock: ManualClock, _ random: inout SplitMix64, _ seed: UInt64) throws -> Void
) throws {
    let master = TestSeed.value(default: defaultMaster)
    for index in 0..<count {
        let seed = TestSeed.ledger(index, of: master)
        var random = SplitMix64(seed: seed)
        try withTemporaryStore(on: backend) { store in
            let clock = ManualClock(start)
            try body(try Ledger.forTesting(at: store, clock: clock), clock, &random, seed)
        }
    }
}

/// Two nodes of one ledger on the test cluster: node A writes it (created here with a deposit
/// of 100.00 into `main`), node B is a second machine's directory attached to it.
func withTwoNodes<T>(_ name: String, _ body: (_ writer: Ledger, _ nodeB: String) throws -> T) throws -> T {
    let cluster = try PostgresTestCluster.shared()
    return try withTemporaryStore { root in
        let directory = URL(fileURLWithPath: root).deletingLastPathComponent().path
        let location = try PostgresLogLocation(cluster.ledgerLocation(name))
        var options = Ledger.Options.standard
        options.postgres = location
        let writer = try Ledger.create(at: directory + "/node-a", name: "Home", baseCurrency: .usd, timeZone: "UTC", options: options)
        defer { try? writer.close() }
        _ = try writer.deposit(account: "main", amount: usd("100.00"))
        try PostgresStore.attach(location, at: directory + "/node-b")
        return try body(writer, directory + "/node-b")
    }
}

