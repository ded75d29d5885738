import Tally
internal import Foundation
import TallyLog

/// Runs the demo tour, as the `tally demo` command does: creates a ledger on a simulated
/// clock, lets a ``DemoHousehold`` live in it through the ``Ledger``'s commands, reads the
/// dashboards, then verifies the store and measures its log.
///
/// ```swift
/// let summary = try DemoRunner.run(at: ".tally", household: DemoHousehold(firstMonth: try Month(parsing: "2024-01"), monthCount: 34))
/// print(summary.verification.log.head)
/// ```
///
/// Recorded times come from the simulated clock, so the same household gives the same log,
/// the same head digest and the same answers on every machine.
enum DemoRunner {
    /// What a demo run did and found.
    struct Summary: Sendable {
        /// The household that lived the tour.
        let household: DemoHousehold
        /// The commands it ran and what they appended or refused.
        let activity: DemoActivity
        /// What each product shows at the end, and the point-in-time and audit answers.
        let dashboard: DemoDashboard
        /// The verification of the closed store: log, read models, trial balance, assertions.
        let verification: StoreVerification
        /// The log's size on disk and its compression.
        let statistics: LogStatistics
        /// The size of the same events as NDJSON (one JSON object a line).
        let ndjsonBytes: Int64

        /// Event types by count, the ledger's creation included, largest first.
        var countsByType: [(type: String, count: Int)] {
            var counts = activity.eventsByType
            counts[LedgerCreated.eventType.name, default: 0] += 1
            return counts.map { (type: $0.key, count: $0.value) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.type < $1.type }
        }
    }

    /// Whether the store at `root` was made by the demo (so `--replace` may remove it).
    static func isDemoStore(_ root: String) -> Bool {
        FileManager.default.fileExists(atPath: StoreLayout(root: root).demoMarkerPath)
    }

    /// Removes a store that the demo made; refuses any other.
    ///
    /// - Throws: ``StoreError`` (`alreadyExists`) when `root` holds anything the demo did not make.
    static func removeDemoStore(at root: String) throws {
        let manager = FileManager.default
        guard manager.fileExists(atPath: root) else { return }
        guard isDemoStore(root) else {
            throw StoreError(.alreadyExists, "'\(root)' holds data the demo did not create; the demo will not replace it (choose another --store)")
        }
        try manager.removeItem(atPath: root)
    }

    /// Creates the store at `root`, lives the household's tour in it, reads the dashboards,
    /// syncs, closes, verifies and measures the log.
    ///
    /// Commits are synced once at the end (a bulk load), not one by one.
    ///
    /// - Throws: ``StoreError`` when `root` holds a store already; whatever a command or a
    ///   query throws that the household did not expect.
    static func run(at root: String, household: DemoHousehold) throws -> Summary {
        let calendar = try LedgerCalendar(timeZoneIdentifier: DemoHousehold.timeZone)
        let clock = DemoClock(household.createdAt(calendar))
        var options = Ledger.Options(clock: clock.function, syncMode: .none, features: standardFeatures)
        // The household's subject keys come from its seed, so that the same seed gives the same
        // log and head digest on every run (a real store's keys are random).
        options.subjectKeySeed = household.seed
        let ledger = try Ledger.create(
            at: root, name: DemoHousehold.ledgerName, baseCurrency: DemoHousehold.baseCurrency, timeZone: DemoHousehold.timeZone,
            options: options
        )
        let activity: DemoActivity
        let dashboard: DemoDashboard
        do {
            guard FileManager.default.createFile(atPath: ledger.layout.demoMarkerPath, contents: Data("made by tally demo\n".utf8)) else {
                throw StoreError(.notAStore, "cannot write '\(ledger.layout.demoMarkerPath)'")
            }
            activity = try household.live(in: ledger, clock: clock)
            try ledger.sync()
            dashboard = try DemoDashboard(ledger: ledger, household: household, activity: activity)
            try ledger.close()
        } catch {
            try? ledger.close()
            throw error
        }
        let verification = try StoreVerifier.verify(at: root, options: .standard)
        let reader = try EventStoreReader.open(at: root, options: .standard)
        var ndjsonBytes: Int64 = 0
        try reader.forEach { event in ndjsonBytes += Int64(try EventJSON.encode(event).utf8.count + 1) }
        return Summary(
            household: household, activity: activity, dashboard: dashboard,
            verification: verification, statistics: try reader.statistics(), ndjsonBytes: ndjsonBytes
        )
    }
}
