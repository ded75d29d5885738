internal import Foundation
internal import Glibc
internal import Synchronization
public import TallyLog

/// What a restore made.
public struct RestoreSummary: Hashable, Sendable {
    /// The events restored, `ledger_created` included.
    public let events: UInt64
    /// The restored log's head: the exporting store's head digest when every event was
    /// exported in the version it was stored in (``ExportSummary/olderVersionEvents`` zero).
    public let head: LogDigest
}

extension Ledger {
    /// Recreates a ledger from an export (``export(to:)``) in a new store: `ledger_created`
    /// with its name, base currency, time zone, effective and recorded times, then every event
    /// with its sequence number, recorded time, effective time, cause and idempotency key, as
    /// they were. Every answer of the restored ledger equals the exported one's, at every date
    /// and as known at every instant; and its hash chain is the same, so its head digest is
    /// the exporting store's (``ExportSummary/head``).
    ///
    /// ```swift
    /// let summary = try Ledger.restore(from: "backup/ledger.ndjson", into: "restored", options: .standard)
    /// print(summary.head)   // the digest `tally verify --expect` checks
    /// ```
    ///
    /// The file is read twice, streaming: first every line is checked (each an event of
    /// `options`' catalog, sequence numbers 1, 2, 3 … with none missing, recorded times never
    /// going backwards, `ledger_created` first and only first); then the store is built in a
    /// staging directory beside `root` and renamed onto it once complete, so a refused or
    /// failed restore leaves nothing behind. The events are not checked against the rules or
    /// for admissibility: they were decided and admitted by the ledger that recorded them, and
    /// are folded as they were.
    ///
    /// - Parameters:
    ///   - path: the NDJSON export.
    ///   - root: the new store's directory: absent, or an empty directory.
    ///   - options: the features and options the restored store will be opened with (its clock
    ///     is not used while restoring: the recorded times are the export's).
    ///   - expect: the head digest the restore must end at (the export's), if known; a restore
    ///     that ends elsewhere is refused and leaves nothing.
    ///   - progress: called with bytes checked, then events appended; throwing stops the restore.
    /// - Throws: ``LedgerError``: `invalidInput` (an ``ImportError`` naming the file and line)
    ///   for a bad line, sequence, time or first event; `store` (a ``StoreError``
    ///   `alreadyExists`) when `root` holds a store or anything else; `inconsistentLog` when
    ///   the restored head is not `expect`.
    @discardableResult
    public static func restore(
        from path: String, into root: String, options: Options = Options(), expect: LogDigest? = nil,
        progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> RestoreSummary {
        try LedgerError.boundary {
            guard options.logFileSystem is PosixFileSystem else {
                throw LedgerError(.invalidArgument, "a store is restored on the real disk; a simulated log file system is for Ledger.open")
            }
            let catalog = try options.catalog()
            _ = try options.registeredProjectors()
            let checked = try RestoreFile.check(path, catalog: catalog, progress: progress)
            let target = try StoreCreation.target(for: root)
            let existingMode = try StoreCreation.checkVacant(target)
            let staging = try RestoreStaging(beside: target)
            // An encrypted store's read models, folded while it was built, live outside it under
            // a name tied to the staging path: they go, and the restored store folds its own.
            let stagingLayout = StoreLayout(root: staging.storePath)
            func forgetStagingReadModels() {
                guard options.encrypt else { return }
                let path = stagingLayout.runtimeReadModelPath
                for suffix in ReadModelStore.fileSuffixes { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            do {
                let head: LogDigest
                do {
                    head = try build(checked, at: staging.storePath, options: options, progress: progress)
                    forgetStagingReadModels()
                } catch {
                    forgetStagingReadModels()
                    throw error
                }
                if let expect, head != expect {
                    throw LedgerError(.inconsistentLog, """
                        the restore of '\(path)' ends at \(head), not at the expected digest \(expect): \
                        the file is not the export that digest was taken from; nothing was restored
                        """)
                }
                try staging.publish(as: target, mode: existingMode)
                return RestoreSummary(events: checked.events, head: head)
            } catch {
                staging.discard()
                throw error
            }
        }
    }

    /// Creates the store with the export's `ledger_created`, then appends the rest group by
    /// group of equal recorded times, the clock set to each group's time.
    private static func build(
        _ file: RestoreFile.Checked, at root: String, options: Options, progress: ((ImportProgress) throws -> Void)?
    ) throws -> LogDigest {
        let clock = RestoreClock(file.created.recordedAt)
        var restoreOptions = options
        restoreOptions.clock = clock.function
        restoreOptions.syncMode = .none
        if options.encrypt && options.keyring != nil {
            throw LedgerError(.invalidArgument, "a restore keeps an encrypted store's keys in its own KEYS file; leave Options.keyring nil")
        }
        let keys = try restoreOptions.prepareEncryption()
        let carried = file.path + Ledger.exportSubjectsSuffix
        restoreOptions.subjectKeys = try SubjectKeys.new(
            root: root, logKeys: restoreOptions.logKeys, seed: options.subjectKeySeed,
            carrying: FileManager.default.fileExists(atPath: carried) ? carried : nil)
        let catalog = try restoreOptions.catalog()
        try EventStore.create(
            at: root, ledger: file.created.payload, effectiveAt: file.created.effectiveAt, catalog: catalog,
            options: restoreOptions.logOptions, keyFile: keys, postgres: options.postgres
        ).close()
        do {
            return try fill(root, from: file, options: restoreOptions, catalog: catalog, clock: clock, progress: progress)
        } catch {
            // A ledger made in a database is not inside the staging directory: it goes as a whole.
            if let postgres = options.postgres { try? PostgresLogWriter.discard(postgres) }
            throw error
        }
    }

    /// Appends the export's events after its `ledger_created`, group by group of equal recorded times.
    private static func fill(
        _ root: String, from file: RestoreFile.Checked, options restoreOptions: Options, catalog: EventCatalog, clock: RestoreClock,
        progress: ((ImportProgress) throws -> Void)?
    ) throws -> LogDigest {
        let ledger = try Ledger.open(at: root, options: restoreOptions)
        do {
            let lines = try LineReader(path: file.path)
            _ = try lines.next()  // ledger_created, already in the store
            var group: [NewEvent] = []
            var groupStart: UInt64 = 2
            var groupRecordedAt = file.created.recordedAt
            var sequence: UInt64 = 1
            func flush() throws {
                guard !group.isEmpty else { return }
                clock.set(groupRecordedAt)
                let events = group
                let result = try ledger.run(LedgerCommand { _ in events })
                guard result.events.count == group.count, result.events.first?.sequence == groupStart,
                      result.events.allSatisfy({ $0.recordedAt == groupRecordedAt }) else {
                    throw LedgerError(.inconsistentLog, """
                        events \(groupStart)-\(groupStart + UInt64(group.count) - 1) of '\(file.path)' were not restored at their sequence numbers \
                        and recorded time; nothing was restored
                        """)
                }
                groupStart += UInt64(group.count)
                group.removeAll(keepingCapacity: true)
                try progress?(ImportProgress(
                    phase: .appending, completed: Int64(groupStart - 1), total: Int64(file.events), committedSequence: groupStart - 1))
            }
            while let (line, bytes) = try lines.next() {
                let decoded = try RestoreFile.decode(bytes, line: line, file: file.path, catalog: catalog)
                sequence += 1
                guard decoded.sequence == sequence, let recordedAt = decoded.recordedAt, recordedAt >= groupRecordedAt else {
                    throw ImportError(.changedDuringImport, file: file.path, line: line, "the file changed after it was checked; nothing was restored")
                }
                if recordedAt != groupRecordedAt || group.count == RestoreFile.commandEventsLimit {
                    try flush()
                    groupRecordedAt = recordedAt
                }
                group.append(decoded.event)
            }
            try flush()
            guard lines.hexDigest() == file.sha256, sequence == file.events else {
                throw ImportError(.changedDuringImport, file: file.path, "the file changed after it was checked (its SHA-256 differs); nothing was restored")
            }
            try ledger.sync()
            let head = ledger.head
            try ledger.close()
            return head
        } catch {
            try? ledger.close()
            throw error
        }
    }
}

/// The clock of a restore: the recorded time of the group being appended.
private final class RestoreClock: Sendable {
    private let value: Mutex<Instant>
    init(_ start: Instant) { value = Mutex(start) }
    func set(_ instant: Instant) { value.withLock { $0 = instant } }
    var function: @Sendable () -> Instant { { self.value.withLock { $0 } } }
}

/// The checking pass of a restore over an export file.
enum RestoreFile {
    /// The most events one command of a restore appends (a group of equal recorded times may
    /// take several, at the same recorded time).
    static let commandEventsLimit = 1_024

    /// The first event, as the store's creation records it.
    struct Created {
        let payload: LedgerCreated
        let effectiveAt: Instant
        let recordedAt: Instant
    }

    /// A file whose every line passed.
    struct Checked {
        let path: String
        let events: UInt64
        let sha256: String
        let created: Created
    }

    /// One line as the event to append, its `seq` and its `recorded_at`.
    static func decode(_ bytes: [UInt8], line: Int, file: String, catalog: EventCatalog) throws -> EventJSON.Decoded {
        do {
            var decoded = try EventJSON.decode(bytes, catalog: catalog)
            _ = try catalog.record(for: decoded.event)
            decoded.event.setOrigin(file: file, line: line)
            return decoded
        } catch let error as EventCodingError {
            if let field = error.field, let reason = error.reason {
                throw ImportError(.invalidRow, file: file, line: line, field: field, "\(error.code): \(reason)")
            }
            throw ImportError(.invalidRow, file: file, line: line, "\(error)")
        }
    }

    /// Reads every line and checks that the file is a whole log: each line an event of
    /// `catalog` with `seq` and `recorded_at`; sequence numbers 1 … n; recorded times never
    /// going backwards; `ledger_created` first and nowhere else; causes naming earlier events.
    static func check(_ path: String, catalog: EventCatalog, progress: ((ImportProgress) throws -> Void)?) throws -> Checked {
        let lines = try LineReader(path: path)
        var count: UInt64 = 0
        var lastRecordedAt: Instant?
        var created: Created?
        while let (line, bytes) = try lines.next() {
            let decoded = try decode(bytes, line: line, file: path, catalog: catalog)
            count += 1
            guard let sequence = decoded.sequence else {
                throw ImportError(.invalidRow, file: path, line: line, field: "seq", "a restore needs every event's sequence number, as `tally export` writes it")
            }
            guard sequence == count else {
                throw ImportError(.invalidRow, file: path, line: line, field: "seq", """
                    is \(sequence) where \(count) was expected: an export holds every event from 1 on, in order, none missing
                    """)
            }
            guard let recordedAt = decoded.recordedAt else {
                throw ImportError(.invalidRow, file: path, line: line, field: "recorded_at", "a restore needs every event's recorded time, as `tally export` writes it")
            }
            if let lastRecordedAt, recordedAt < lastRecordedAt {
                throw ImportError(.invalidRow, file: path, line: line, field: "recorded_at", """
                    \(recordedAt) is before the previous event's \(lastRecordedAt): recorded times never go backwards in a log
                    """)
            }
            lastRecordedAt = recordedAt
            if case .sequence(let cause)? = decoded.event.cause, cause >= sequence {
                throw ImportError(.invalidRow, file: path, line: line, field: "cause", "names sequence \(cause), which is not an earlier event")
            }
            let ledger = decoded.event.body.as(LedgerCreated.self)
            if count == 1 {
                guard let ledger else {
                    throw ImportError(.invalidRow, file: path, line: line, field: "type", """
                        is \(decoded.event.type.name): an export starts with ledger_created, the event that names the ledger, its base currency and time zone
                        """)
                }
                guard decoded.event.idempotencyKey == nil else {
                    throw ImportError(.invalidRow, file: path, line: line, field: "idempotency_key", "ledger_created carries no idempotency key")
                }
                guard (try? LedgerCalendar(timeZoneIdentifier: ledger.timeZone)) != nil else {
                    throw ImportError(.invalidRow, file: path, line: line, field: "data.time_zone", "'\(ledger.timeZone)' is not a time zone this system knows")
                }
                created = Created(payload: ledger, effectiveAt: decoded.event.effectiveAt, recordedAt: recordedAt)
            } else if ledger != nil {
                throw ImportError(.invalidRow, file: path, line: line, field: "type", "a ledger is created once, by the first event of its log")
            }
            if count % 16_384 == 0 {
                try progress?(ImportProgress(phase: .validating, completed: lines.bytesRead, total: lines.fileBytes, committedSequence: nil))
            }
        }
        try progress?(ImportProgress(phase: .validating, completed: lines.bytesRead, total: lines.fileBytes, committedSequence: nil))
        guard let created else {
            throw ImportError(.invalidRow, file: path, "holds no event: an export starts with ledger_created")
        }
        return Checked(path: path, events: count, sha256: lines.hexDigest(), created: created)
    }
}

/// The directory a restore builds its store in, beside the target: `.<name>.tally-restore.<random>`,
/// holding the store as `store/`, renamed onto the target once complete.
private struct RestoreStaging {
    let path: String
    var storePath: String { path + "/store" }

    init(beside target: StoreCreation.Target) throws {
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: .min ... .max), radix: 16)
            let name = "." + String(decoding: target.name.utf8.prefix(100), as: UTF8.self) + ".tally-restore." + suffix
            let path = target.parent == "/" ? "/" + name : target.parent + "/" + name
            let code = makeOwnerOnlyDirectory(path)
            if code == EEXIST { continue }
            guard code == 0 else {
                throw StoreCreation.ioError("mkdir", path: path, errno: code, hint: "cannot create a directory beside '\(target.given)'")
            }
            self.path = path
            return
        }
        throw StoreError(.io, "cannot find a free name for a staging directory beside '\(target.given)'")
    }

    /// Renames the complete store onto the target, with the mode of the empty directory it replaces.
    func publish(as target: StoreCreation.Target, mode: mode_t?) throws {
        if let mode { _ = chmod(storePath, mode) }
        guard rename(storePath, target.path) == 0 else {
            throw StoreCreation.renameError(errno, target: target)
        }
        rmdir(path)
        try StoreCreation.syncDirectory(target.parent, note: "the store at '\(target.given)' is complete, but its restore may not survive a power loss")
    }

    /// Removes the staging directory and everything in it (only ever this one).
    func discard() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
