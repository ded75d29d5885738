internal import Foundation
internal import GRDB
public import TallyLog

/// Checks a store end to end: `tally verify`.
public enum StoreVerifier {
    /// Verifies the log, decodes every event, and compares the read models with the log.
    ///
    /// Read-only: takes no lock and writes nothing, so it runs beside a writer. The read models'
    /// checkpoints are read before the log, and a writer appends to the log before it commits them,
    /// so read models that are ahead of the log really are.
    ///
    /// ```swift
    /// let verification = try StoreVerifier.verify(at: "books", expect: try LogDigest(parsing: kept))
    /// print(verification.outcome, verification.log.recomputedHead ?? verification.log.lastGood)
    /// ```
    /// - Parameters:
    ///   - root: the store's directory.
    ///   - options: the features the store is opened with (`.standard` for Tally's products):
    ///     their event types are decoded (an event of another type is reported as
    ///     undecodable) and their read models' checkpoints reported, folded or not.
    ///   - expect: a digest kept elsewhere (`seq:hash`); the hash recomputed at that
    ///     sequence number must match.
    ///   - deep: also fold the whole log again into a temporary file and compare every table of
    ///     every read model with it (``DeepComparison``; as long as a rebuild, changes nothing).
    ///   - progress: called with the last sequence number checked.
    /// - Throws: ``StoreError`` when there is no store at `root`; `LogError` when the log's
    ///   directory cannot be read at all. Damage is reported in the result, not thrown.
    public static func verify(
        at root: String, options: Ledger.Options = Ledger.Options(), expect: LogDigest? = nil, deep: Bool = false,
        progress: ((UInt64) -> Void)? = nil
    ) throws -> StoreVerification {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        let options = try options.unlocked(at: root)
        let catalog = try options.catalog()
        let registered = try options.registeredProjectors().map(\.name)
        // Checkpoints first, then the log (see above): never the other way round.
        let stored = FileManager.default.fileExists(atPath: layout.readModelPath) ? readCheckpoints(layout, registered: registered) : nil
        var sequences: Set<UInt64> = []
        if case .read(let checkpoints)? = stored { sequences = Set(checkpoints.map(\.sequence)) }
        let log: LogVerification
        if let remote = try LogStorage.remoteLocation(in: layout.logDirectory) {
            log = try verifyPostgresLog(remote, expect: expect, capturingHashesAt: sequences, keys: options.logKeys, progress: progress)
        } else {
            log = try verifyLog(directory: layout.logDirectory, expect: expect, capturingHashesAt: sequences, keys: options.logKeys, progress: progress)
        }
        let scan = log.problems.isEmpty ? try scanPayloads(layout, catalog: catalog, keys: options.logKeys, events: log.events) : PayloadScan()
        var readModels: ReadModelCheck?
        if log.isValid, scan.undecodable.isEmpty, scan.content.isEmpty, let stored {
            readModels = compare(stored, with: log, scan: scan, layout: layout, registered: registered)
        }
        var verification = StoreVerification(
            log: log, undecodableEvents: scan.undecodable, contentProblems: scan.content, readModels: readModels,
            readModelFileMissing: stored == nil)
        // Sealed text whose key is gone with no erasure in the log: the key file lost it.
        verification.missingSubjectKeys = (catalog.subjectKeys?.missingIdentifiers ?? []).filter { !scan.erased.contains($0) }
        if deep, let readModels, verification.outcome == .intact {
            verification.deep = try deepCompare(layout, options: options, catalog: catalog, check: readModels)
        }
        verification.openToOthers = openToOthers(layout)
        if let keyPath = options.key?.path, OwnerOnly.isOpenToOthers(keyPath) { verification.openToOthers.append(keyPath) }
        return verification
    }

    /// The store's directory, its log directory and the files in both that others may read.
    static func openToOthers(_ layout: StoreLayout) -> [String] {
        var paths = [layout.root, layout.logDirectory]
        for directory in [layout.root, layout.logDirectory] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            paths += names.sorted().map { directory + "/" + $0 }
        }
        return paths.filter(OwnerOnly.isOpenToOthers)
    }

    // MARK: The log's payloads

    /// What decoding every event found.
    struct PayloadScan {
        var undecodable: [String] = []
        var content: [String] = []
        var assertions: [Event] = []
        var timeZone: String? = nil
        /// Subjects the log records as erased (`erasure_recorded`), by identifier.
        var erased: Set<String> = []
    }

    /// Decodes every event: each must decode, event 1 must be `ledger_created` and no other may be.
    static func scanPayloads(_ layout: StoreLayout, catalog: EventCatalog, keys: LogKeys?, events: UInt64) throws -> PayloadScan {
        var scan = PayloadScan()
        guard events > 0 else {
            scan.content.append("the log holds no events: a store's first event is ledger_created (an interrupted `tally init` of an older version?)")
            return scan
        }
        let reader = try LogStorage.openReader(directory: layout.logDirectory, keys: keys)
        try reader.forEach { logged in
            let event: Event
            do { event = try catalog.decode(logged) } catch {
                if scan.undecodable.count < 100 { scan.undecodable.append("\(error)") }
                return
            }
            if let created = event.body.as(LedgerCreated.self) {
                if event.sequence == 1 {
                    scan.timeZone = created.timeZone
                } else if scan.content.count < 100 {
                    scan.content.append("event \(event.sequence) is a second ledger_created: a store has one, as its event 1")
                }
            } else if event.sequence == 1 {
                scan.content.append("event 1 is \(event.type.name), not ledger_created: a store begins with ledger_created")
            } else if event.body.is(BalanceAsserted.self) {
                scan.assertions.append(event)
            } else if let erasure = event.body.as(ErasureRecorded.self) {
                scan.erased.insert(erasure.subject)
            }
        }
        return scan
    }

    // MARK: The read models

    /// A projector's checkpoint as stored.
    struct StoredCheckpoint {
        let projector: String
        let sequence: UInt64
        /// The chain hash after event `sequence`, when the read models record one.
        let hash: [UInt8]?
    }

    enum CheckpointRead {
        case read([StoredCheckpoint])
        /// A hot journal that only a writer can roll back.
        case needsRecovery
        case unreadable(String)
    }

    /// Where each checkpoint stands against the verified log; then, when none disagrees, the books.
    static func compare(
        _ stored: CheckpointRead, with log: LogVerification, scan: PayloadScan, layout: StoreLayout, registered: [String]
    ) -> ReadModelCheck {
        let head = log.head.sequence
        switch stored {
        case .needsRecovery:
            var check = ReadModelCheck(projectors: [], head: head)
            check.needsRecovery = true
            return check
        case .unreadable(let reason):
            var check = ReadModelCheck(projectors: [], head: head)
            check.unreadable = reason
            return check
        case .read(let checkpoints):
            var check = ReadModelCheck(projectors: checkpoints.map { position(of: $0, in: log) }, head: head)
            guard !check.disagreesWithLog else { return check }
            do {
                try checkBooks(&check, layout: layout, scan: scan, registered: registered)
            } catch {
                check.unreadable = describe(error, layout)
            }
            return check
        }
    }

    static func position(of checkpoint: StoredCheckpoint, in log: LogVerification) -> ProjectorCheckpoint {
        let head = log.head.sequence
        guard checkpoint.sequence <= head else {
            return ProjectorCheckpoint(projector: checkpoint.projector, sequence: checkpoint.sequence,
                                       position: .ahead(events: checkpoint.sequence - head), hashMatches: nil)
        }
        let matches: Bool? = checkpoint.hash.flatMap { hash in log.hashes[checkpoint.sequence].map { $0 == hash } }
        let position: ProjectorCheckpoint.Position =
            matches == false ? .otherChain : checkpoint.sequence == head ? .atHead : .behind(events: head - checkpoint.sequence)
        return ProjectorCheckpoint(projector: checkpoint.projector, sequence: checkpoint.sequence, position: position, hashMatches: matches)
    }

    static func describe(_ error: any Error, _ layout: StoreLayout) -> String {
        if let error = error as? DatabaseError {
            return "\(layout.readModelPath): \(error.message ?? "SQLite error \(error.resultCode.rawValue)")"
        }
        return "\(layout.readModelPath): \(error)"
    }
}
