internal import Foundation
internal import Synchronization
public import TallyLog

/// Records a ``DemoHousehold`` into a store, as the `tally demo` command does.
///
/// Recorded times come from a simulated clock (each batch is recorded when the household
/// would have entered it), so the same seed gives the same log and the same head digest.
public enum DemoRunner {
    /// What a demo run did.
    public struct Summary: Sendable {
        public let events: UInt64
        public let commits: Int
        public let firstMonth: Month
        public let lastMonth: Month
        public let countsByType: [(type: String, count: Int)]
        public let verification: StoreVerification
        public let statistics: LogStatistics
    }

    /// Whether the store at `root` was made by the demo (so `--replace` may remove it).
    public static func isDemoStore(_ root: String) -> Bool {
        FileManager.default.fileExists(atPath: StoreLayout(root: root).demoMarkerPath)
    }

    /// Removes a store that the demo made; refuses any other.
    ///
    /// - Throws: ``StoreError`` (`alreadyExists`) when `root` holds anything the demo did not make.
    public static func removeDemoStore(at root: String) throws {
        let manager = FileManager.default
        guard manager.fileExists(atPath: root) else { return }
        guard isDemoStore(root) else {
            throw StoreError(.alreadyExists, "'\(root)' holds data the demo did not create; the demo will not replace it (choose another --store)")
        }
        try manager.removeItem(atPath: root)
    }

    /// Creates the store, records every batch, syncs, verifies.
    public static func run(at root: String, household: DemoHousehold) throws -> Summary {
        let batches = try household.batches()
        let clock = SimulatedClock(household.createdAt.microsecondsSinceEpoch)
        var options = LogOptions()
        options.clock = { clock.now }
        options.syncMode = .none
        let store = try EventStore.create(at: root, ledger: household.ledger, effectiveAt: household.createdAt, options: options)
        guard FileManager.default.createFile(atPath: store.layout.demoMarkerPath, contents: Data("made by tally demo\n".utf8)) else {
            try? store.close()
            throw StoreError(.notAStore, "cannot write '\(store.layout.demoMarkerPath)'")
        }
        var counts: [String: Int] = ["ledger_created": 1]
        do {
            for batch in batches {
                clock.now = batch.recordedAt.microsecondsSinceEpoch
                try store.append(batch.events)
                for event in batch.events { counts[event.type.name, default: 0] += 1 }
            }
            try store.writer.sync()
            try store.close()
        } catch {
            try? store.close()
            throw error
        }
        let verification = try StoreVerifier.verify(at: root)
        let reader = try EventStoreReader.open(at: root)
        return Summary(
            events: reader.head.sequence, commits: batches.count + 1,
            firstMonth: household.firstMonth, lastMonth: household.firstMonth.adding(months: household.monthCount - 1),
            countsByType: counts.map { ($0.key, $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.type < $1.type },
            verification: verification, statistics: try reader.statistics()
        )
    }
}

/// A clock the demo advances by hand.
private final class SimulatedClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    var now: Int64 {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
