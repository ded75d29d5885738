import Foundation
import Synchronization
import Testing
import PostgresTestSupport
import TallyTestSupport
@testable import Tally
@testable import TallyEngine
@testable import TallyProducts

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

