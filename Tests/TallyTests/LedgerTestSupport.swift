import Foundation
import Synchronization
import Testing
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
