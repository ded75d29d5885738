public import TallyLog

/// The outcome of checking a whole store (`tally verify`): the log's checksums, hash chain and
/// sequence, every payload, and how the read models stand against the log.
///
/// The log is the truth. Read models *behind* its head are normal (after a crash, or while another
/// process imports) and only a note; read models *ahead* of it, or folded from another chain, mean
/// the log lost or changed events they had seen.
///
/// ```swift
/// let verification = try StoreVerifier.verify(at: "books")
/// switch verification.outcome {
/// case .intact: print("ok", verification.log.head)
/// default: verification.problems.forEach { print($0) }
/// }
/// ```
public struct StoreVerification: Sendable {
    /// What a verification concluded, worst first. A struct over a private enum, so new outcomes break no `switch`.
    public struct Outcome: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable { case intact, logDamaged, keysMissing, readModelsDisagree, readModelsDamaged, assertionFailed }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The log checks, and the read models are at its head or behind it.
        public static let intact = Outcome(.intact)
        /// The log fails a check: damaged bytes, a rewritten event, a digest kept earlier that no longer
        /// matches, a payload this build cannot read, or no `ledger_created` first.
        public static let logDamaged = Outcome(.logDamaged)
        /// The log is sound, but personal text in it is sealed under subject keys the store no
        /// longer holds although the log records no erasure of them (``StoreVerification/missingSubjectKeys``):
        /// the subject key file (`SUBJECTS`) was deleted or damaged. Restore it from a backup.
        public static let keysMissing = Outcome(.keysMissing)
        /// The read models have seen events the log no longer holds (they are ahead of it, or their
        /// checkpoint's chain hash differs from the log's): restore the newer log, or `tally rebuild`.
        public static let readModelsDisagree = Outcome(.readModelsDisagree)
        /// The log is sound but the read models are unreadable or inconsistent (the books do not balance):
        /// `tally rebuild` makes them again from the log.
        public static let readModelsDamaged = Outcome(.readModelsDamaged)
        /// The log and read models are sound, and a balance assertion recorded in the log does not hold.
        public static let assertionFailed = Outcome(.assertionFailed)

        /// `intact`, `log_damaged`, `keys_missing`, `read_models_disagree`, `read_models_damaged`, `assertion_failed`.
        public var description: String {
            switch value {
            case .intact: "intact"
            case .logDamaged: "log_damaged"
            case .keysMissing: "keys_missing"
            case .readModelsDisagree: "read_models_disagree"
            case .readModelsDamaged: "read_models_damaged"
            case .assertionFailed: "assertion_failed"
            }
        }
    }

    /// What the log check found: digests recomputed from the data, counts, problems.
    public let log: LogVerification
    /// Payloads that did not decode, as messages naming the sequence number.
    public let undecodableEvents: [String]
    /// Events in the wrong place: no `ledger_created` first, a second one later.
    public let contentProblems: [String]
    /// How the read models stand, when the store has them and the log was sound enough to compare.
    public let readModels: ReadModelCheck?
    /// True when the store has no read-model file at all (`readmodels.sqlite`): nothing to compare,
    /// and the next command that opens the ledger makes it from the log.
    public let readModelFileMissing: Bool
    /// The store's directory and files that accounts other than the owner may read or enter
    /// (a store made before stores were created owner-only, or loosened since): a warning,
    /// not damage.
    public var openToOthers: [String] = []
    /// The identifiers of subjects whose sealed text the log holds, whose key the store does not
    /// hold, and whose erasure the log does not record: keys lost, not erased (a deleted or
    /// damaged `SUBJECTS`). Their text reads as erased until the file is restored.
    public var missingSubjectKeys: [String] = []
    /// The read models folded again and compared table by table (`verify --deep`), when asked.
    public var deep: DeepComparison?

    /// What the verification concluded.
    public var outcome: Outcome {
        if !log.isValid || !undecodableEvents.isEmpty || !contentProblems.isEmpty { return .logDamaged }
        if !missingSubjectKeys.isEmpty { return .keysMissing }
        guard let readModels else { return .intact }
        if readModels.disagreesWithLog { return .readModelsDisagree }
        if readModels.isDamaged { return .readModelsDamaged }
        if let deep, !deep.differences.isEmpty { return .readModelsDamaged }
        if !readModels.failedAssertions.isEmpty { return .assertionFailed }
        return .intact
    }

    /// True when the log is sound and the read models agree with it (they may be behind).
    public var isIntact: Bool { outcome == .intact }

    /// Every problem as a sentence, the log's first (amounts included: verify's output is the user's own).
    public var problems: [String] {
        log.problems.map(\.description) + undecodableEvents + contentProblems + missingKeyProblems + (readModels?.problems ?? [])
            + (deep?.problems ?? [])
    }

    /// The lost subject keys as a sentence, with the way out.
    private var missingKeyProblems: [String] {
        guard !missingSubjectKeys.isEmpty else { return [] }
        return ["\(SubjectKeys.lostDescription(missingSubjectKeys)) cannot be read: "
                + "their keys are missing from the subject key file (SUBJECTS) and the log records no erasure of them, so the file was "
                + "deleted or damaged; their text reads as erased until it is restored from a backup"]
    }

    /// What is worth knowing but wrong with nothing: read models behind the head, a torn last frame.
    public var notes: [String] {
        var notes: [String] = []
        if let torn = log.tornTail { notes.append("the last frame is not complete and was not counted (\(torn.message))") }
        for lost in log.lostEvents {
            let count = lost.upperBound - lost.lowerBound + 1
            notes.append("events \(lost.lowerBound)…\(lost.upperBound) (\(count) event\(count == 1 ? "" : "s")) were lost to damage and set aside by a repair (their bytes are in the log's quarantine/); every other event checks")
        }
        if readModels == nil && !log.isValid { notes.append("read models not compared: the log is damaged") }
        if readModels == nil && log.isValid && readModelFileMissing {
            notes.append("read models not compared: there is no read-model file (readmodels.sqlite); the next tally command that opens the ledger makes it from the log")
        }
        if !openToOthers.isEmpty {
            notes.append("other accounts on this machine can read \(openToOthers.joined(separator: ", ")); run `chmod -R go-rwx` on the store to keep it its owner's alone")
        }
        return notes + (readModels?.notes ?? []) + comparedNotes
    }

    /// Which read models were compared, and how (what the default run checks, and `--deep`).
    private var comparedNotes: [String] {
        guard let readModels, !readModels.needsRecovery, readModels.unreadable == nil else { return [] }
        let names = readModels.projectors.map(\.projector).joined(separator: ", ")
        guard let deep else {
            return ["compared with the log: the checkpoints (sequence number and chain hash) of \(readModels.projectors.count) read models (\(names)), "
                    + "the books' trial balance and \(readModels.assertionsChecked) balance assertion(s); their rows were not folded again: "
                    + "`tally verify --deep` also folds the whole log into a temporary file and compares every table, roll-ups included (as long as a `tally rebuild`)"]
        }
        if let skipped = deep.skipped { return ["not folded again (--deep): \(skipped)"] }
        let tenths = (deep.seconds * 10).rounded() / 10
        return ["folded again (--deep): \(deep.compared.count) read models (\(deep.compared.joined(separator: ", "))), \(deep.tables) tables, "
                + "every row compared at event \(deep.head), in \(tenths) s"]
    }
}

/// A balance assertion that does not hold.
public struct FailedAssertion: Hashable, Sendable {
    /// The assertion's event.
    public let sequence: UInt64
    /// The account asserted.
    public let account: String
    /// The day whose end the assertion is about, in the ledger's time zone.
    public let date: LocalDate
    /// The balance the assertion states.
    public let expected: Money
    /// The balance the postings give.
    public let actual: Money
}

/// How one projector's checkpoint stands against the log.
public struct ProjectorCheckpoint: Hashable, Sendable {
    /// Where a checkpoint is relative to the log.
    public enum Position: Hashable, Sendable {
        /// At the log's head, on the same chain.
        case atHead
        /// Behind the head by this many events, on the same chain (as far as it can tell): it catches up.
        case behind(events: UInt64)
        /// Past the log's head by this many events: the log lost events the read model folded.
        case ahead(events: UInt64)
        /// At or behind the head, but its chain hash differs from the log's at its sequence number.
        case otherChain
    }

    /// The projector's name.
    public let projector: String
    /// The last sequence number it folded (0 when it has no checkpoint yet).
    public let sequence: UInt64
    /// Where that is relative to the log.
    public let position: Position
    /// Whether the checkpoint's chain hash equals the log's recomputed hash at ``sequence``; `nil` when the
    /// checkpoint holds no hash (read models written before checkpoints had one) or it is past the head.
    public let hashMatches: Bool?
}

/// What `verify` checks in the read models: where each projector's checkpoint is against the log
/// (sequence and chain hash), that the books balance, and that every balance assertion holds.
public struct ReadModelCheck: Sendable {
    /// Every projector's checkpoint against the log, by projector name.
    public let projectors: [ProjectorCheckpoint]
    /// The log's head the checkpoints were compared with.
    public let head: UInt64
    /// Non-zero sums of all balances per commodity (empty when the books balance).
    public var trialBalance: [Money] = []
    /// Balance assertions that do not hold (checked only when every read model is at the head).
    public var failedAssertions: [FailedAssertion] = []
    /// How many balance assertions were checked.
    public var assertionsChecked = 0
    /// Whether the read models were left mid-write by a process that stopped: a read-only check cannot
    /// read them until a ledger opens them and SQLite recovers its journal. Nothing else was checked.
    public var needsRecovery = false
    /// Why the read-model file could not be read (corrupt, not a database), when it could not.
    public var unreadable: String? = nil

    /// Projectors behind the head, with their checkpoint.
    public var laggingProjectors: [(name: String, sequence: UInt64)] {
        projectors.filter { if case .behind = $0.position { true } else { false } }.map { ($0.projector, $0.sequence) }
    }

    /// Whether some read model has seen events the log no longer holds (ahead, or another chain).
    public var disagreesWithLog: Bool {
        projectors.contains { switch $0.position { case .ahead, .otherChain: true; case .atHead, .behind: false } }
    }

    /// Whether the read models cannot be trusted on their own terms (unreadable, or the books do not balance).
    public var isDamaged: Bool { unreadable != nil || !trialBalance.isEmpty }

    /// Each failure as a sentence, with the ways out.
    public var problems: [String] {
        var problems: [String] = []
        if let unreadable {
            problems.append("read models unreadable (\(unreadable)); the log is the truth: run `tally rebuild` to make them again from it")
        }
        problems += aheadProblems() + otherChainProblems()
        problems += trialBalance.map { "the books do not balance: \($0.commodity.code) postings sum to \($0.decimalString); the read models are inconsistent: run `tally rebuild`" }
        problems += failedAssertions.map { "balance assertion (event \($0.sequence)) failed: \($0.account) at the end of \($0.date) is \($0.actual.decimalString) \($0.actual.commodity.code), expected \($0.expected.decimalString) \($0.expected.commodity.code)" }
        return problems
    }

    /// Each finding that is not a failure, as a sentence.
    public var notes: [String] {
        if needsRecovery {
            return ["the read models were left mid-write by a process that stopped and were not checked; the next tally command that opens the ledger recovers them and catches up"]
        }
        var bySequence: [UInt64: [String]] = [:]
        for checkpoint in projectors {
            if case .behind = checkpoint.position { bySequence[checkpoint.sequence, default: []].append(checkpoint.projector) }
        }
        return bySequence.keys.sorted().map { sequence in
            "read models behind the log: \(bySequence[sequence]!.joined(separator: ", ")) at event \(sequence) of \(head) "
                + "(\(head - sequence) event\(head - sequence == 1 ? "" : "s") behind); they catch up when the ledger is next opened"
        }
    }

    private func aheadProblems() -> [String] {
        let ahead = projectors.filter { if case .ahead = $0.position { true } else { false } }
        guard let furthest = ahead.map(\.sequence).max() else { return [] }
        return ["read models are ahead of the log: \(ahead.map(\.projector).joined(separator: ", ")) folded events up to \(furthest), "
                + "but the log ends at \(head): the log lost \(furthest - head) event\(furthest - head == 1 ? "" : "s") they saw "
                + "(an older copy restored, or a repair cut them). Either restore the newer log, or run `tally rebuild` to accept the log as it is"]
    }

    private func otherChainProblems() -> [String] {
        let other = projectors.filter { $0.position == .otherChain }
        guard let first = other.map(\.sequence).min() else { return [] }
        return ["read models were folded from another history: \(other.map(\.projector).joined(separator: ", ")) recorded a chain hash "
                + "at event \(first) that differs from the log's (the log was rewritten or replaced since). Either restore the log they "
                + "were folded from, or run `tally rebuild` to accept the log as it is"]
    }
}
