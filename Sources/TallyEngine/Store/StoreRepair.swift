internal import Foundation
public import TallyLog

/// Deliberate repair of a store whose log is damaged (`tally repair`): damaged frames with frames
/// after them have their events set aside as lost (every later frame is kept), other damage is
/// cut back to the last event before it, and everything removed is kept in `log/quarantine/`.
///
/// Never automatic: opening a store refuses damage (a torn last frame aside, which is not damage).
/// The read models are not touched; after a cut they may be ahead of the log, which the next open
/// detects, and `tally rebuild` makes them again from the log.
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

    /// Cuts the log at its first damage, keeping every event before it; nothing when the log is sound.
    ///
    /// - Throws: ``StoreError`` when there is no store; `LogError` (`locked`) while a writer has the
    ///   store open, (`io`) for a failed copy, rename, truncation or sync.
    ///   An encrypted store needs its key in `options` (``Ledger/Options/key``); without it nothing is cut.
    public static func repair(at root: String, options: Ledger.Options = Ledger.Options()) throws -> Report {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        let keys = try options.unlocked(at: root).logKeys
        let report = try LogRepair.repair(directory: layout.logDirectory, keys: keys)
        return Report(log: report, nextSteps: nextSteps(firstRemoved: report.firstRemovedSequence, setAside: report.setAside, layout: layout, done: true))
    }

    private static func nextSteps(firstRemoved: UInt64?, setAside: [LostFrame], layout: StoreLayout, done: Bool) -> [String] {
        guard let firstRemoved else {
            guard let first = setAside.first else { return [] }
            return ["the read models folded the events \(done ? "set" : "to be set") aside (from \(first.firstSequence) on) before they were lost: "
                    + "`tally rebuild` makes them again from the log as it is"]
        }
        if firstRemoved <= 1 {
            return ["every event \(done ? "was" : "would be") cut, ledger_created included, so the store cannot be opened afterwards: "
                    + "restore it from a backup, or move it away and run `tally init`"]
        }
        var steps: [String] = []
        if FileManager.default.fileExists(atPath: layout.readModelPath) {
            steps.append("the read models may have folded events the log \(done ? "no longer holds" : "would no longer hold") (from \(firstRemoved) on): "
                         + "they are checked when the store is next opened, and `tally rebuild` makes them again from the log as it is")
        } else {
            steps.append("the store has no read models yet: `tally rebuild` (or any command) makes them from the log")
        }
        return steps
    }
}
