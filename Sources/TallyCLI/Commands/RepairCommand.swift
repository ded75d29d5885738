import ArgumentParser
import Foundation
import Tally
import TallyLog

struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Set aside a damaged log's unreadable events, keeping every other one it can; cut what cannot be kept.",
        discussion: """
            Finds the damage in the log (as `tally verify` does). A frame whose body is damaged (a \
            flipped byte) while frames follow it has its events set aside as lost: its bytes are \
            copied into the log's quarantine/ directory and it is replaced by a frame that keeps its \
            place in the hash chain, so every frame after it is kept, and `tally verify` afterwards \
            names the lost events. At any other damage the log is cut: everything from the damaged \
            frame on is copied into quarantine/ and removed. --dry-run \
            says what would be cut and changes nothing; the cut itself needs --yes. A torn last \
            frame (a crash while writing) is not damage: the next command cuts it by itself. A log \
            that ends before events it had acknowledged (bytes cut off its end after the fact) is \
            damage: repair names the lost events, and --yes accepts the shorter log. After \
            a repair the read models are made again from the log (as `tally rebuild` does), and \
            the report ends with `tally verify`'s verdict on the store.

            Exit status:
              0  nothing to repair, the dry run was printed, or the repair was made and verify finds the store intact
              1  damage found but --yes not given: nothing was changed; or after the repair verify \
            finds the log damaged (its exit status)
              2  the log was repaired but the read models could not be made again from it
              3  repair could not run (no store, another process has it open, an I/O error)
             64  usage error
            """
    )

    /// Exit status when damage was found and --yes not given.
    static let confirmationNeeded: Int32 = 1
    /// Exit status when repair could not run.
    static let couldNotRun: Int32 = 3
    /// Exit status when the log was repaired but its read models could not be rebuilt from it.
    static let rebuildFailed: Int32 = 2

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .customLong("dry-run"), help: "Say what would be cut; change nothing.")
    var dryRun = false

    @Flag(help: "Cut the damaged tail (required to change anything).")
    var yes = false

    func validate() throws {
        if dryRun && yes { throw ValidationError("--dry-run and --yes contradict each other: give one") }
    }

    func run() throws {
        do {
            if yes {
                let report = try StoreRepair.repair(at: storeOptions.path, options: try storeOptions.ledgerOptions())
                RepairReport.printDone(report)
                // The repair ends with verify's verdict, and its exit status when the store is not intact.
                if let verification = report.verification {
                    print("verify:")
                    VerifyReport(result: verification, expected: nil).printText()
                    let status = VerifyCommand.exitStatus(verification.outcome)
                    if status != 0 { throw ExitCode(status) }
                }
                if report.rebuildFailure != nil { throw ExitCode(Self.rebuildFailed) }
                return
            }
            let plan = try StoreRepair.plan(at: storeOptions.path, options: try storeOptions.ledgerOptions())
            RepairReport.printPlan(plan)
            if plan.log.cut != nil && !dryRun {
                Output.error("not repaired: cutting removes events, so it needs --yes (`tally repair --yes`); run with --dry-run to only see the cut. Nothing was changed")
                throw ExitCode(Self.confirmationNeeded)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Output.error("cannot repair: \(error)")
            throw ExitCode(Self.couldNotRun)
        }
    }
}

/// What `repair` prints.
enum RepairReport {
    static func printPlan(_ plan: StoreRepair.Plan) {
        for lost in plan.log.setAside {
            print("damage: \(lost.problem)")
            print("would set aside \(events(lost)) of the damaged frame at byte \(lost.offset) of \(lost.path), moving its bytes to the log's quarantine/; every frame after it is kept")
        }
        guard let cut = plan.log.cut else {
            if plan.log.setAside.isEmpty {
                printNothing(plan.log)
            } else {
                print(kept(plan.log.kept, future: true))
                for step in plan.nextSteps { print("then: \(step)") }
                print("nothing was changed (dry run)")
            }
            return
        }
        print("damage: \(cut.problem)")
        if cut.problem.code == .truncated {
            print("would accept the log as it ends: \(missing(first: cut.firstRemovedSequence, last: cut.lastRemovedSequence, bytes: cut.bytesRemoved))")
        } else {
            print("would cut \(cut.path) at byte \(cut.offset)\(laterSegments(cut.laterSegments.count)): \(removed(first: cut.firstRemovedSequence, last: cut.lastRemovedSequence, bytes: cut.bytesRemoved))")
        }
        print(kept(plan.log.kept, future: true))
        for step in plan.nextSteps { print("then: \(step)") }
        print("nothing was changed (dry run)")
    }

    static func printDone(_ report: StoreRepair.Report) {
        let log = report.log
        for lost in log.setAside {
            print("damage: \(lost.problem)")
            print("set aside \(events(lost)) of the damaged frame at byte \(lost.offset) of \(lost.path); every frame after it is kept")
        }
        guard let problem = log.problem, let path = log.cutPath, let offset = log.cutOffset, let first = log.firstRemovedSequence else {
            if log.setAside.isEmpty {
                print("nothing to repair: the log is intact (head \(log.kept))")
            } else {
                for file in log.quarantined { print("quarantined \(file)") }
                print(kept(log.kept, future: false))
                for step in report.nextSteps { print("next: \(step)") }
                if let head = report.rebuiltThrough { print("rebuilt the read models from the log, through event \(head.sequence)") }
            }
            return
        }
        print("damage: \(problem)")
        if problem.code == .truncated {
            print("accepted the log as it ends: \(missing(first: first, last: log.lastRemovedSequence, bytes: log.bytesRemoved))")
        } else {
            print("cut \(path) at byte \(offset): \(removed(first: first, last: log.lastRemovedSequence, bytes: log.bytesRemoved))")
        }
        for file in log.quarantined { print("quarantined \(file)") }
        print(kept(log.kept, future: false))
        for step in report.nextSteps { print("next: \(step)") }
        if let head = report.rebuiltThrough { print("rebuilt the read models from the log, through event \(head.sequence)") }
    }

    private static func printNothing(_ plan: LogRepairPlan) {
        print("nothing to repair: the log is intact (head \(plan.kept))")
        if let torn = plan.tornTail {
            print("note: the last frame is incomplete (\(torn.message)); it was never part of the log, and the next command that writes cuts it")
        }
    }

    private static func laterSegments(_ count: Int) -> String {
        count == 0 ? "" : " and move \(count) later segment\(count == 1 ? "" : "s") out"
    }

    private static func removed(first: UInt64, last: UInt64?, bytes: Int64) -> String {
        let events: String
        if let last, last >= first {
            let count = last - first + 1
            events = "events \(first)…\(last) (\(count) event\(count == 1 ? "" : "s"))"
        } else if let last, last < first {
            events = "no event (the damage lies after event \(last))"
        } else {
            events = "events from \(first) on (the damage hides how many)"
        }
        return "\(events), \(bytes) bytes, moved to the log's quarantine/"
    }

    /// `events 5…7 (3 events)` of a frame set aside.
    private static func events(_ lost: LostFrame) -> String {
        "events \(lost.firstSequence)…\(lost.lastSequence) (\(lost.events) event\(lost.events == 1 ? "" : "s"))"
    }

    /// For a log cut short: the events it lost before the repair, and the torn bytes it moves out.
    private static func missing(first: UInt64, last: UInt64?, bytes: Int64) -> String {
        let last = last ?? first
        let count = last >= first ? last - first + 1 : 0
        let torn = bytes > 0 ? "; the \(bytes) torn bytes after the last whole frame are moved to the log's quarantine/" : ""
        return "events \(first)…\(last) (\(count) event\(count == 1 ? "" : "s")) were acknowledged and are no longer in the log "
            + "(if a backup holds them, restore it instead of repairing)\(torn)"
    }

    private static func kept(_ digest: LogDigest, future: Bool) -> String {
        digest.sequence == 0
            ? "\(future ? "would keep" : "kept") no event"
            : "\(future ? "would keep" : "kept") events 1…\(digest.sequence); the log's head \(future ? "would be" : "is now") \(digest)"
    }
}
