internal import Foundation
public import TallyLog

/// Deliberate repair of a store whose log is damaged (`tally repair`): damaged frames with frames
/// after them have their events set aside as lost (every later frame is kept), other damage is
/// cut back to the last event before it, and everything removed is kept in `log/quarantine/`.
///
/// Never automatic: opening a store refuses damage (a torn last frame aside, which is not damage).
/// A repair that changed the log rebuilds the read models from it (they had folded events it no
/// longer holds) and ends with ``StoreVerifier``'s verdict.
///
/// ```swift
/// let plan = try StoreRepair.plan(at: "books")
/// if let cut = plan.log.cut {
///     print("would remove events from \(cut.firstRemovedSequence) on")
///     let report = try StoreRepair.repair(at: "books")
///     report.nextSteps.forEach { print($0) }
/// }
/// ```
public enum StoreRepair {
    /// What a repair would do, found without changing anything.
    public struct Plan: Sendable {
        /// The log's cut, if any, and the last event kept.
        public let log: LogRepairPlan
        /// What the user should know about the store after this cut.
        public let nextSteps: [String]
    }

    /// What a repair did.
    public struct Report: Sendable {
        /// What was cut and where it went.
        public let log: LogRepairReport
        /// What the user should do next.
        public let nextSteps: [String]
        /// The read models made again from the repaired log (they had folded events it no longer
        /// holds): the head they were rebuilt to, or nil when nothing changed or no event is left.
        public var rebuiltThrough: LogDigest? = nil
        /// Why the read models could not be rebuilt from the repaired log (a later event that needs
        /// one that was lost, say), when they could not.
        public var rebuildFailure: String? = nil
        /// ``StoreVerifier``'s verdict on the store as the repair left it, when it changed anything.
        public var verification: StoreVerification? = nil
    }

    /// Says what ``repair(at:)`` would cut. Changes nothing (it holds the writer's lock while it looks).
    ///
    /// - Throws: ``StoreError`` when there is no store; `LogError` (`locked`) while a writer has the
    ///   store open, (`io`) when the log cannot be read.
    ///   An encrypted store needs its key in `options` (``Ledger/Options/key``); without it nothing is looked at.
    public static func plan(at root: String, options: Ledger.Options = Ledger.Options()) throws -> Plan {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        let keys = try options.unlocked(at: root).logKeys
        let plan = try LogRepair.plan(directory: layout.logDirectory, keys: keys)
        return Plan(log: plan, nextSteps: nextSteps(firstRemoved: plan.cut?.firstRemovedSequence, setAside: plan.setAside, layout: layout, done: false))
    }

    /// Repairs the log (``LogRepair/repair(directory:fileSystem:keys:)``: damaged frames set aside,
    /// other damage cut), then, when it changed anything, rebuilds the read models it made stale
    /// and verifies the store, so that the store works again and the report ends with the verdict.
    /// Nothing when the log is sound.
    ///
    /// ```swift
    /// let report = try StoreRepair.repair(at: "books", options: .standard)
    /// print(report.verification?.outcome ?? .intact)
    /// ```
    /// - Throws: ``StoreError`` when there is no store; `LogError` (`locked`) while a writer has the
    ///   store open, (`io`) for a failed copy, rename, truncation or sync. A rebuild that fails is
    ///   reported (``Report/rebuildFailure``), not thrown: the log's repair stands.
    ///   An encrypted store needs its key in `options` (``Ledger/Options/key``); without it nothing is cut.
    public static func repair(at root: String, options: Ledger.Options = Ledger.Options()) throws -> Report {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        let keys = try options.unlocked(at: root).logKeys
        let log = try LogRepair.repair(directory: layout.logDirectory, keys: keys)
        var report = Report(log: log, nextSteps: [])
        guard log.changed else { return report }
        guard log.kept.sequence > 0 else {
            report = Report(log: log, nextSteps: nextSteps(firstRemoved: log.firstRemovedSequence, setAside: log.setAside, layout: layout, done: true))
            return report
        }
        do {
            report.rebuiltThrough = try Ledger.rebuild(at: root, options: options)
        } catch {
            report.rebuildFailure = "\(error)"
            report = Report(
                log: log, nextSteps: ["the log is repaired, but its read models could not be made again from it (\(error)): "
                                      + "every command refuses until they can; restore the events from a backup, or `tally rebuild` once the cause is fixed"],
                rebuiltThrough: nil, rebuildFailure: "\(error)")
        }
        report.verification = try StoreVerifier.verify(at: root, options: options)
        return report
    }

    /// What follows the repair a plan describes (`done` false), or a repair that left no event.
    private static func nextSteps(firstRemoved: UInt64?, setAside: [LostFrame], layout: StoreLayout, done: Bool) -> [String] {
        if let firstRemoved, firstRemoved <= 1 {
            return ["every event \(done ? "was" : "would be") cut, ledger_created included, so the store cannot be opened afterwards: "
                    + "restore it from a backup, or move it away and run `tally init`"]
        }
        guard let first = [firstRemoved, setAside.first?.firstSequence].compactMap({ $0 }).min() else { return [] }
        return ["the read models are made again from the log as it will be (they folded events from \(first) on that it would no longer hold), "
                + "and the repair ends with `tally verify`'s verdict"]
    }
}
