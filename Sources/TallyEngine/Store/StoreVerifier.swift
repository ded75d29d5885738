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
    ///   - progress: called with the last sequence number checked.
    /// - Throws: ``StoreError`` when there is no store at `root`; `LogError` when the log's
    ///   directory cannot be read at all. Damage is reported in the result, not thrown.
    public static func verify(
        at root: String, options: Ledger.Options = Ledger.Options(), expect: LogDigest? = nil, progress: ((UInt64) -> Void)? = nil
    ) throws -> StoreVerification {
        let layout = StoreLayout(root: root)
        try layout.requireStore()
        let catalog = try options.catalog()
        let registered = try options.registeredProjectors().map(\.name)
        // Checkpoints first, then the log (see above): never the other way round.
        let stored = FileManager.default.fileExists(atPath: layout.readModelPath) ? readCheckpoints(layout, registered: registered) : nil
        var sequences: Set<UInt64> = []
        if case .read(let checkpoints)? = stored { sequences = Set(checkpoints.map(\.sequence)) }
        let log = try verifyLog(directory: layout.logDirectory, expect: expect, capturingHashesAt: sequences, progress: progress)
        let scan = log.problems.isEmpty ? try scanPayloads(layout, catalog: catalog, events: log.events) : PayloadScan()
        var readModels: ReadModelCheck?
        if log.isValid, scan.undecodable.isEmpty, scan.content.isEmpty, let stored {
            readModels = compare(stored, with: log, scan: scan, layout: layout)
        }
        return StoreVerification(log: log, undecodableEvents: scan.undecodable, contentProblems: scan.content, readModels: readModels,
                                 readModelFileMissing: stored == nil)
    }

    // MARK: The log's payloads

    /// What decoding every event found.
    struct PayloadScan {
        var undecodable: [String] = []
        var content: [String] = []
        var assertions: [Event] = []
        var timeZone: String? = nil
    }

    /// Decodes every event: each must decode, event 1 must be `ledger_created` and no other may be.
    static func scanPayloads(_ layout: StoreLayout, catalog: EventCatalog, events: UInt64) throws -> PayloadScan {
        var scan = PayloadScan()
        guard events > 0 else {
            scan.content.append("the log holds no events: a store's first event is ledger_created (an interrupted `tally init` of an older version?)")
            return scan
        }
        let reader = try LogReader.open(directory: layout.logDirectory)
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

    /// A read-only connection: it takes no write lock, and waits (up to 10 s) while a writer's
    /// connection briefly locks the file (opening, or checkpointing the WAL as it closes)
    /// instead of failing with "database is locked".
    static func openReadOnly(_ layout: StoreLayout) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: layout.readModelPath, configuration: configuration)
    }

    /// Every built-in projector's checkpoint (0, without a hash, for one that has none yet),
    /// then every other projector's that has one.
    static func readCheckpoints(_ layout: StoreLayout, registered: [String]) -> CheckpointRead {
        do {
            let database = try openReadOnly(layout)
            defer { try? database.close() }
            return .read(try database.read { db in try storedCheckpoints(db, registered: registered) })
        } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
            // A process killed mid-write leaves a journal only a writer can recover.
            return .needsRecovery
        } catch {
            return .unreadable(describe(error, layout))
        }
    }

    static func storedCheckpoints(_ db: Database, registered: [String]) throws -> [StoredCheckpoint] {
        var found: [String: StoredCheckpoint] = [:]
        // A process killed while it first opened the ledger leaves a read-model file without its tables.
        if try db.tableExists("projection_checkpoints") {
            let hasHash = try db.columns(in: "projection_checkpoints").contains { $0.name == "hash" }
            let sql = "SELECT projector, sequence\(hasHash ? ", hash" : "") FROM projection_checkpoints"
            for row in try Row.fetchAll(db, sql: sql) {
                let name: String = row["projector"]
                guard let sequence = UInt64(exactly: row["sequence"] as Int64) else {
                    throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "projector \(name) has a negative checkpoint")
                }
                let hash = hasHash ? (row["hash"] as Data?).map { Array($0) } : nil
                found[name] = StoredCheckpoint(projector: name, sequence: sequence, hash: hash)
            }
        }
        // The registered projectors always (0 for one not folded yet), and every other
        // projector that has a checkpoint: read models of features left out are verified too.
        let others = found.keys.filter { !registered.contains($0) }.sorted()
        return (registered + others).map { found[$0] ?? StoredCheckpoint(projector: $0, sequence: 0, hash: nil) }
    }

    /// Where each checkpoint stands against the verified log; then, when none disagrees, the books.
    static func compare(_ stored: CheckpointRead, with log: LogVerification, scan: PayloadScan, layout: StoreLayout) -> ReadModelCheck {
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
                try checkBooks(&check, layout: layout, scan: scan)
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

    /// The trial balance of the newest committed read models, and every balance assertion when they are at the head.
    static func checkBooks(_ check: inout ReadModelCheck, layout: StoreLayout, scan: PayloadScan) throws {
        let database = try openReadOnly(layout)
        defer { try? database.close() }
        let calendar = try LedgerCalendar(timeZoneIdentifier: scan.timeZone ?? "UTC")
        let head = check.head
        let (trialBalance, failed, checked) = try database.read { db -> ([Money], [FailedAssertion], Int) in
            guard try db.tableExists("balances") else { return ([], [], 0) }
            let trialBalance = try BalanceQueries.trialBalance(db)
            // Assertions are about the whole log: only read models at its head can answer them.
            let checkpoints = try storedCheckpoints(db, registered: [])
            guard checkpoints.allSatisfy({ $0.sequence == head }) else { return (trialBalance, [], 0) }
            return (trialBalance, try failedAssertions(scan.assertions, calendar: calendar, db), scan.assertions.count)
        }
        check.trialBalance = trialBalance
        check.failedAssertions = failed
        check.assertionsChecked = checked
    }

    static func failedAssertions(_ assertions: [Event], calendar: LedgerCalendar, _ db: Database) throws -> [FailedAssertion] {
        var failed: [FailedAssertion] = []
        for event in assertions {
            guard let assertion = event.body.as(BalanceAsserted.self) else { continue }
            let date = calendar.date(of: event.effectiveAt)
            let actual = try Int64.fetchOne(db, sql: """
                SELECT COALESCE(SUM(amount), 0) FROM postings WHERE account = ? AND commodity = ? AND effective_at <= ?
                """, arguments: [assertion.account, assertion.amount.commodity.code, calendar.endOfDay(date).microsecondsSinceEpoch]) ?? 0
            if actual != assertion.amount.minorUnits {
                failed.append(FailedAssertion(sequence: event.sequence, account: assertion.account, date: date, expected: assertion.amount,
                                              actual: Money(minorUnits: actual, commodity: assertion.amount.commodity)))
            }
        }
        return failed
    }

    static func describe(_ error: any Error, _ layout: StoreLayout) -> String {
        if let error = error as? DatabaseError {
            return "\(layout.readModelPath): \(error.message ?? "SQLite error \(error.resultCode.rawValue)")"
        }
        return "\(layout.readModelPath): \(error)"
    }
}
