import ArgumentParser
import Foundation
import Tally
import TallyLog

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every checksum, the hash chain, every payload and the read models; print the head digest.",
        discussion: """
            Keep the printed digest (SEQ:HASH) somewhere else; later, `tally verify --expect \
            SEQ:HASH` proves that no event up to SEQ was altered since. Every digest printed is \
            recomputed from the events themselves, never read from the log: when the log is \
            damaged, the `head` line gives the recomputed digest (or `unknown` when events cannot \
            be read) and a `last good` line the digest of the last event before the damage.

            Read models behind the log's head (after a crash, or while another process writes) \
            are a note, not a failure: they catch up when the ledger is next opened. Events a \
            repair set aside as lost to damage are named on every run (a note, not a failure: \
            every other event checks, and a digest kept earlier still matches through them).

            The read models are compared with the log by their checkpoints (each one's sequence \
            number and chain hash), the books' trial balance and the balance assertions; the \
            report names the read models compared. --deep also folds the whole log again into a \
            temporary file beside them and compares every row of every table, roll-ups by day \
            and by block included: it takes as long as `tally rebuild` and changes nothing.

            Exit status:
              0  the log is intact; the read models are at its head or behind it
              1  the log is damaged or incomplete, does not match --expect, personal text's subject keys \
            are missing (a deleted or damaged SUBJECTS file; an erasure is recorded in the log) or \
            damaged, or the log has lost or changed events the \
            read models saw (they are ahead of it, or on another chain: restore the newer log, or \
            `tally rebuild` to accept it); or a balance assertion fails
              2  the log is intact but the read models are unreadable or inconsistent (with --deep: a \
            table differs from the log folded again): `tally rebuild`
              3  verify could not run (no store at the path, an unreadable directory)
             64  usage error (a malformed --expect)
            """
    )

    /// The exit status for each outcome (see the discussion above).
    static func exitStatus(_ outcome: StoreVerification.Outcome) -> Int32 {
        switch outcome {
        case .intact: 0
        case .readModelsDamaged: 2
        default: 1
        }
    }

    /// Exit status when verify could not run at all.
    static let couldNotRun: Int32 = 3

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("A digest kept earlier; fails unless the log still hashes to it.", valueName: "seq:hash"))
    var expect: String?

    @Flag(help: "Print the result as one JSON object.")
    var json = false

    @Flag(help: "Also fold the whole log again and compare every table of every read model (as long as a rebuild).")
    var deep = false

    func run() throws {
        let expected: LogDigest?
        do {
            expected = try expect.map { try LogDigest(parsing: $0) }
        } catch {
            throw ValidationError("--expect '\(expect ?? "")' is not a digest SEQ:HASH (64 hex digits): \(error)")
        }
        let result: StoreVerification
        do {
            result = try StoreVerifier.verify(at: storeOptions.path, options: try storeOptions.ledgerOptions(), expect: expected, deep: deep)
        } catch let error as StoreError where error.code == .keyFileDamaged {
            // Damaged key material is damage, found by verify, not a reason it could not run.
            Output.error(error.message)
            throw ExitCode(Self.exitStatus(.keysMissing))
        } catch let error as StoreError where error.code == .incomplete {
            // A half-made store is damage, not a reason verify could not run.
            Output.error(error.message)
            throw ExitCode(Self.exitStatus(.logDamaged))
        } catch {
            Output.error("cannot verify: \(error)")
            throw ExitCode(Self.couldNotRun)
        }
        let report = VerifyReport(result: result, expected: expected)
        if json { print(report.json) } else { report.printText() }
        let status = Self.exitStatus(result.outcome)
        if status != 0 { throw ExitCode(status) }
    }
}

/// What `verify` prints, from a ``StoreVerification``.
struct VerifyReport {
    let result: StoreVerification
    let expected: LogDigest?
    var log: LogVerification { result.log }

    /// Problems, with the comparison against `--expect` in the user's words.
    var problems: [String] {
        var problems = result.problems
        switch (log.expectation, expected) {
        case (.mismatched(let recomputed)?, let expected?):
            problems.append("event \(expected.sequence) does not hash to the expected digest: the log holds \(LogDigest(sequence: expected.sequence, hash: recomputed)) (recomputed), expected \(expected); history up to \(expected.sequence) was altered")
        case (.logShorter(let head)?, let expected?):
            problems.append("the log ends at \(head), before the expected digest's event \(expected.sequence): events were removed")
        default:
            break
        }
        return problems
    }

    /// `head SEQ:HASH`, recomputed from the data; `head unknown …` when it cannot be.
    var headLine: String {
        if let head = log.recomputedHead { return "head \(head)" }
        return "head unknown: events after \(log.lastGood.sequence) cannot be read, so no later hash can be recomputed"
    }

    /// Whether the log itself checks (and matches `--expect`), whatever the read models say.
    var logIntact: Bool {
        log.isValid && result.undecodableEvents.isEmpty && result.contentProblems.isEmpty
    }

    /// What is known first: the log's verdict (and the expected digest's), even when the read
    /// models are unreadable; then the read models' problems, each with its way out.
    func printText() {
        let problems = self.problems
        if logIntact {
            let lost = log.lostEvents.reduce(UInt64(0)) { $0 + $1.upperBound - $1.lowerBound + 1 }
            let lostText = lost == 0 ? "" : "; \(lost) event\(lost == 1 ? "" : "s") lost to damage, named below"
            print("ok: \(log.events) events in \(log.segments) segment\(log.segments == 1 ? "" : "s") (\(log.frames) frames): checksums, hash chain and payloads intact\(lostText)")
            if let expected { print("expected digest \(expected) matches") }
        }
        if problems.isEmpty {
            if let readModels = result.readModels, !readModels.needsRecovery {
                let position = readModels.laggingProjectors.isEmpty ? "at the log head" : "consistent with the log (behind its head)"
                let assertions = readModels.laggingProjectors.isEmpty ? "; \(readModels.assertionsChecked) balance assertion(s) hold" : ""
                print("read models \(position); books balance\(assertions)")
            }
        } else {
            for problem in problems { Output.error(problem) }
        }
        for note in result.notes { print("note: \(note)") }
        if let damaged = log.firstDamagedSequence {
            print("last good \(log.lastGood) (the log is damaged from event \(damaged) on)")
        }
        print(headLine)
    }

    var json: String {
        Output.jsonObject([
            ("ok", result.isIntact ? "true" : "false"),
            ("status", EventJSON.quoted(result.outcome.description)),
            ("exit_status", String(VerifyCommand.exitStatus(result.outcome))),
            ("log_intact", logIntact ? "true" : "false"),
            ("events", String(log.events)),
            ("segments", String(log.segments)),
            ("frames", String(log.frames)),
            ("head", log.recomputedHead.map { EventJSON.quoted($0.description) } ?? "null"),
            ("last_good", EventJSON.quoted(log.lastGood.description)),
            ("broken_at", log.firstDamagedSequence.map(String.init) ?? "null"),
            ("lost_events", "[" + log.lostEvents.map { "[\($0.lowerBound),\($0.upperBound)]" }.joined(separator: ",") + "]"),
            ("expectation_met", log.expectation.map { $0 == .matched ? "true" : "false" } ?? "null"),
            ("read_models", readModelsJSON),
            ("deep", deepJSON),
            ("problems", "[" + problems.map(EventJSON.quoted).joined(separator: ",") + "]"),
            ("notes", "[" + result.notes.map(EventJSON.quoted).joined(separator: ",") + "]"),
        ])
    }

    private var deepJSON: String {
        guard let deep = result.deep else { return "null" }
        let differences = deep.differences.map { difference in
            Output.jsonObject([
                ("read_model", EventJSON.quoted(difference.projector)), ("table", EventJSON.quoted(difference.table)),
                ("extra_rows", String(difference.extraRows)), ("missing_rows", String(difference.missingRows)),
            ])
        }
        return Output.jsonObject([
            ("compared", "[" + deep.compared.map(EventJSON.quoted).joined(separator: ",") + "]"),
            ("tables", String(deep.tables)),
            ("skipped", deep.skipped.map(EventJSON.quoted) ?? "null"),
            ("differences", "[" + differences.joined(separator: ",") + "]"),
        ])
    }

    private var readModelsJSON: String {
        guard let readModels = result.readModels else { return "null" }
        let projectors = readModels.projectors.map { checkpoint in
            let (state, distance): (String, UInt64?) = switch checkpoint.position {
            case .atHead: ("at_head", nil)
            case .behind(let events): ("behind", events)
            case .ahead(let events): ("ahead", events)
            case .otherChain: ("other_chain", nil)
            }
            return Output.jsonObject([
                ("name", EventJSON.quoted(checkpoint.projector)),
                ("sequence", String(checkpoint.sequence)),
                ("state", EventJSON.quoted(state)),
                ("behind_by", state == "behind" ? String(distance!) : "0"),
                ("ahead_by", state == "ahead" ? String(distance!) : "0"),
                ("hash_matches", checkpoint.hashMatches.map(String.init) ?? "null"),
            ])
        }
        return Output.jsonObject([
            ("head", String(readModels.head)),
            ("needs_recovery", String(readModels.needsRecovery)),
            ("unreadable", readModels.unreadable.map(EventJSON.quoted) ?? "null"),
            ("books_balance", String(readModels.trialBalance.isEmpty)),
            ("assertions_checked", String(readModels.assertionsChecked)),
            ("failed_assertions", String(readModels.failedAssertions.count)),
            ("projectors", "[" + projectors.joined(separator: ",") + "]"),
        ])
    }
}
