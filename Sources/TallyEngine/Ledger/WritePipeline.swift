internal import Foundation
import GRDB
internal import Synchronization
import TallyLog

/// The write pipeline of docs/architecture.md, one group of commands at a time:
///
/// 1. the group is taken whole from the ``CommandQueue``;
/// 2. inside one open SQLite write transaction each command is planned against state that
///    includes the earlier ones, encoded (every limit the log enforces), checked and folded,
///    each in a savepoint of its own so that a refused command leaves no trace;
/// 3. the group's events are appended as one frame with one `fdatasync`, at the sequence
///    numbers and recorded time they were folded with;
/// 4. the transaction commits, with every checkpoint at the new head and its chain hash;
/// 5. observers are told.
///
/// A crash before (3) leaves nothing. Between (3) and (4) the read models are behind and
/// the next open folds the log into them. A commit that fails at (4) marks the pipeline
/// behind: it folds the log before the next group.
final class WritePipeline: Sendable {
    let store: EventStore?
    let readModels: ReadModelStore
    /// The store's directory.
    let root: String
    let catalog: EventCatalog
    /// Where the log's files live.
    let fileSystem: any LogFileSystem
    let keys: LogKeys?
    let faultAfterAppend: (@Sendable () throws -> Void)?
    let clock: @Sendable () -> Instant
    let observers: Subscriptions
    /// Set when the read models may be behind the log (a failed commit after an append).
    private let behind = Mutex(false)
    /// While a command is planned: the sequence number its first event will get.
    private let planning = Mutex<UInt64?>(nil)
    /// How many times an admission read a balance's later legs (a backdated event): an
    /// event in date order reads none (``AdmissionTimes``), which keeps a bulk append linear.
    let admissionScans = Atomic<Int>(0)

    init(
        root: String, catalog: EventCatalog, fileSystem: any LogFileSystem, keys: LogKeys?, faultAfterAppend: (@Sendable () throws -> Void)?, store: EventStore?,
        readModels: ReadModelStore, clock: @escaping @Sendable () -> Instant, observers: Subscriptions
    ) {
        self.root = root
        self.fileSystem = fileSystem
        self.keys = keys
        self.catalog = catalog
        self.faultAfterAppend = faultAfterAppend
        self.store = store
        self.readModels = readModels
        self.clock = clock
        self.observers = observers
    }

    /// Whether the read models are known to be behind the log.
    var isBehind: Bool { behind.withLock { $0 } }

    /// The sequence number the first event of the command being planned will get (nil when
    /// no command is being planned). Commands of one group are planned one after the other,
    /// each after the events of the earlier ones: the log's head is not this.
    var sequenceBeingPlanned: UInt64? { planning.withLock { $0 } }

    /// Runs a group and returns each command's outcome, in order. Never throws and never
    /// traps: a failure is the outcome of the commands it concerns.
    func run(_ group: [PendingCommand]) -> [Result<Ledger.CommandResult, any Error>] {
        var outcomes: [Result<Ledger.CommandResult, any Error>?] = Array(repeating: nil, count: group.count)
        var index = 0
        while index < group.count {
            index = commitSome(group, from: index, into: &outcomes)
        }
        return outcomes.map { $0! }
    }

    /// Whether a group holds an import's batch, whose keys are packed less often (``PackedKeys``).
    private static func holdsBulk(_ commands: ArraySlice<PendingCommand>) -> Bool { commands.contains { $0.command.isBulk } }

    /// Plans and folds commands from `start` until the group ends or the frame is full,
    /// appends them as one frame and commits. Returns the index of the first command left.
    ///
    /// The group is first planned optimistically, without a savepoint per command
    /// (`savepoints` false): a command refused before it wrote anything (its plan's checks,
    /// a repeated key's conflict: the usual refusals) is refused alone and the group goes on,
    /// and a command refused after it wrote (its fold or its admission) rolls the whole
    /// transaction back, and the same commands are planned again from `start`, each in a
    /// savepoint of its own, which rolls back the refused one alone.
    ///
    /// The group's postings are held until its commands are planned (``HeldPostings``);
    /// when writing them fails, the same commands are planned again from `start`, each
    /// writing its own (`holding` false, in savepoints), so that a command a held write could
    /// not take is refused alone, as it is one at a time.
    private func commitSome(
        _ group: [PendingCommand], from start: Int, into outcomes: inout [Result<Ledger.CommandResult, any Error>?], holding: Bool = true,
        savepoints: Bool = false, attempt: Int = 1
    ) -> Int {
        precondition(holding || savepoints, "a group whose commands write their own postings plans each in a savepoint")
        func failAll(_ error: any Error) -> Int {
            for index in start..<group.count { outcomes[index] = .failure(error) }
            return group.count
        }
        guard let store else {
            return failAll(StoreError(.readOnly, "this ledger was opened for reading; open it with Ledger.open to run commands"))
        }
        do { try catchUpIfBehind(store) } catch { return failAll(error) }

        let head = store.head
        let recordedAt = Instant(microsecondsSinceEpoch: max(clock().microsecondsSinceEpoch, store.writer.lastRecordedAt))
        var draft = GroupDraft(first: head.sequence + 1, recordedAt: recordedAt, frameLimits: store.writer.frameLimits)
        var next = start
        var appended: AppendResult?
        do {
            try readModels.database.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    let held = holding ? HeldPostings(db) : nil
                    draft.held = held
                    if !savepoints { held?.holdUntilGroupEnds(first: draft.first, bulk: Self.holdsBulk(group[start...])) }  // only the group's rollback takes back
                    defer { held?.end() }
                    return try HeldPostings.whileReadable(held) {
                        draft.checkpoints = try readModels.checkpointsInOrder(db)
                        while next < group.count {
                            guard let outcome = try planOne(group[next].command, into: &draft, savepoints: savepoints, db) else { break }
                            outcomes[next] = outcome
                            next += 1
                        }
                        guard !draft.records.isEmpty else { return .rollback }
                        try endHolding(draft, db)
                        let result = try store.append(records: draft.records, pinnedTo: AppendPin(
                            firstSequence: draft.first, recordedAt: recordedAt.microsecondsSinceEpoch), encodedAhead: draft.encodedAhead)
                        appended = result
                        try faultAfterAppend?()
                        try readModels.setCheckpoints(result.head.sequence, hash: result.head.hash, db)
                        return .commit
                    }
                }
            }
        } catch {
            if appended == nil,
               let again = planAgain(after: error, group, from: start, into: &outcomes, holding: holding, savepoints: savepoints, attempt: attempt) {
                return again
            }
            if appended == nil, let error = error as? LogError, error.code == .headMoved, attempt < Self.headMovedAttempts {
                // Another writer committed first (a log shared through a database): nothing of this
                // frame was appended. Learn the head, fold what the other wrote, plan these commands again.
                for index in start..<group.count { outcomes[index] = nil }
                do {
                    try store.writer.reloadHead()
                    behind.withLock { $0 = true }
                } catch {
                    return failAll(error)
                }
                return commitSome(group, from: start, into: &outcomes, holding: holding, savepoints: savepoints, attempt: attempt + 1)
            }
            guard appended != nil else {
                // Nothing reached the log: every command whose result lay in this frame fails.
                guard next > start else { return failAll(error) }
                for index in start..<next where outcomes[index].map({ Self.lies(in: draft, $0) }) == true {
                    outcomes[index] = .failure(error)
                }
                return next
            }
            // The log has the events and the read models do not: they catch up before the next group.
            behind.withLock { $0 = true }
        }
        if appended != nil { observers.publish(draft.events) }
        return next
    }

    /// Plans the commands from `start` again when the group's transaction rolled back, before
    /// anything was appended, for a reason planning otherwise answers: a held write that failed
    /// (each command then writes its own, in a savepoint), or a command refused after it wrote
    /// in a group planned without savepoints (each command then in a savepoint). Returns nil
    /// when `error` is not such a reason.
    private func planAgain(
        after error: any Error, _ group: [PendingCommand], from start: Int, into outcomes: inout [Result<Ledger.CommandResult, any Error>?],
        holding: Bool, savepoints: Bool, attempt: Int
    ) -> Int? {
        let holdingAgain: Bool
        if holding, error is HeldPostings.WriteFailed {
            holdingAgain = false
        } else if !savepoints, error is RefusedAfterWriting {
            holdingAgain = holding
        } else {
            return nil
        }
        for index in start..<group.count { outcomes[index] = nil }
        return commitSome(group, from: start, into: &outcomes, holding: holdingAgain, savepoints: true, attempt: attempt)
    }

    /// How many times a group is planned again after another writer committed first, before its
    /// commands fail with `headMoved`.
    static let headMovedAttempts = 8

    /// Whether a successful outcome's events are those of the frame being built.
    private static func lies(in draft: GroupDraft, _ outcome: Result<Ledger.CommandResult, any Error>) -> Bool {
        guard case .success(let result) = outcome, let first = result.events.first else { return false }
        return first.sequence >= draft.first
    }

    /// Plans one command, in a savepoint of its own when `savepoints`. Returns nil when its
    /// events do not fit the frame the group has left (it goes into the next frame), else its
    /// outcome.
    ///
    /// Without a savepoint, a command refused before it changed anything (no row of the
    /// read models written, no leg held) is refused alone; one refused after it changed
    /// something throws ``RefusedAfterWriting``: the group is planned again with savepoints.
    private func planOne(
        _ command: LedgerCommand, into draft: inout GroupDraft, savepoints: Bool, _ db: Database
    ) throws -> Result<Ledger.CommandResult, any Error>? {
        let before = savepoints ? nil : GroupTrace(db, draft)
        do {
            return .success(try savepoints ? planInSavepoint(command, into: &draft, db) : plan(command, into: &draft, db))
        } catch let failure as HeldPostings.WriteFailed {
            throw failure  // the group runs again without holding
        } catch let error where before.map({ !$0.unchanged(db, draft) || error is FoldOverflow || error is HeldBalanceOverflow }) == true {
            if db.isInsideTransaction { throw RefusedAfterWriting() }
            throw error
        } catch is FrameFull {
            if draft.records.isEmpty {
                return .failure(LogError(.limitExceeded, "the command's events exceed one commit (\(draft.frameLimits.events) events, \(draft.frameLimits.bytes) bytes); split it"))
            }
            return nil
        } catch {
            if db.isInsideTransaction { return .failure(error) }
            throw error
        }
    }

    /// Plans one command in a savepoint: a refusal rolls back whatever it read or folded. A
    /// fold that would take a balance beyond 64 bits is refused naming the event that does
    /// it, found once the savepoint has rolled back.
    private func planInSavepoint(_ command: LedgerCommand, into draft: inout GroupDraft, _ db: Database) throws -> Ledger.CommandResult {
        var result: Ledger.CommandResult?
        do {
            try db.inCommandSavepoint(holding: draft.held) {
                result = try plan(command, into: &draft, db)
                return .commit
            }
        } catch let overflow as FoldOverflow {
            throw try nameOverflow(overflow, draft: draft, db)
        }
        return result!
    }

    /// Plans, encodes and folds one command against the open transaction, in named steps: a
    /// repeat of a key answers what it first recorded; else the command's events are planned,
    /// turned into log records (arriving-decided events admitted and folded one by one), fitted
    /// into the frame, and folded.
    fileprivate func plan(_ command: LedgerCommand, into draft: inout GroupDraft, _ db: Database) throws -> Ledger.CommandResult {
        if let repeated = try repeatOfKeyedCommand(command, draft: draft, db) { return repeated }
        planning.withLock { $0 = draft.next }
        defer { planning.withLock { $0 = nil } }
        let planned = try plannedEvents(of: command, db)
        guard !planned.isEmpty else { return Ledger.CommandResult(events: [], wasAlreadyApplied: false) }
        let prepared = try prepare(planned, of: command, draft: draft, db)
        guard !prepared.records.isEmpty else { return Ledger.CommandResult(events: [], wasAlreadyApplied: true) }
        try LogWriter.validate(prepared.records, frameEventsLimit: draft.frameLimits.events, frameBytesLimit: draft.frameLimits.bytes)
        guard draft.fits(prepared.records) else { throw FrameFull() }
        encodeAheadIfLarge(prepared.records, into: &draft)
        if !command.admitsEvents { try foldPlanned(prepared.events, planned: planned, into: &draft, db) }
        draft.add(prepared.records, prepared.events)
        return Ledger.CommandResult(events: prepared.events, wasAlreadyApplied: false)
    }

    /// A command whose idempotency key was used before: what the key first recorded (nil for
    /// a new key, or no key).
    ///
    /// - Throws: ``LedgerError`` `idempotencyConflict` when the key recorded other input.
    private func repeatOfKeyedCommand(_ command: LedgerCommand, draft: GroupDraft, _ db: Database) throws -> Ledger.CommandResult? {
        guard let key = command.idempotencyKey, let range = try IdempotencyProjector.range(of: key, db, holding: draft.held?.idempotency) else {
            return nil
        }
        let events = try draft.events(in: range) ?? committedEvents(range)
        try Self.requireSameInput(command, key: key, first: events.first)
        return Ledger.CommandResult(events: events, wasAlreadyApplied: true)
    }

    /// The events the command's plan decides, its key on the first, and a keyed command whose
    /// later events its first did not cause ending with its boundary, so that its key maps to
    /// every event it records (``CommandCompleted``).
    private func plannedEvents(of command: LedgerCommand, _ db: Database) throws -> [NewEvent] {
        var planned = try command.plan(db)
        guard !planned.isEmpty else { return [] }
        if let key = command.idempotencyKey { planned[0].idempotencyKey = key }
        if command.idempotencyKey != nil, !command.admitsEvents, planned.count > 1,
           planned.dropFirst().contains(where: { $0.cause != .earlierInBatch(0) }) {
            planned.append(NewEvent(effectiveAt: planned[0].effectiveAt, cause: .earlierInBatch(0), body: EventBody(CommandCompleted())))
        }
        assert(command.request.map { $0.body == planned[0].body } ?? true,
               "a command's request must be the first event it records, or a repeat of its key could not be recognised")
        return planned
    }

    /// A command's events as log records and as the events folded, at the sequence numbers
    /// they get.
    private struct PreparedCommand {
        var records: [LogRecord] = []
        var events: [Event] = []
    }

    /// A held group's end, before its append: the snapshots due (its folds took none,
    /// ``ReadModelStore/takeSnapshots(_:last:)``), then everything it held, for good.
    private func endHolding(_ draft: GroupDraft, _ db: Database) throws {
        guard let held = draft.held else { return }
        if let last = draft.events.last { try readModels.takeSnapshots(db, last: last) }
        try held.writeAll()
    }

    /// Turns planned events into records and events: each cause resolved to a sequence number,
    /// and for events that arrive decided, a repeat of a key skipped (it keeps its first
    /// sequence number) and every other event admitted and folded before the next.
    private func prepare(_ planned: [NewEvent], of command: LedgerCommand, draft: GroupDraft, _ db: Database) throws -> PreparedCommand {
        let first = draft.next
        var prepared = PreparedCommand()
        prepared.records.reserveCapacity(planned.count)
        prepared.events.reserveCapacity(planned.count)
        /// The sequence number each planned event has: its own, or a repeat's first one.
        var sequences: [UInt64] = []
        sequences.reserveCapacity(planned.count)
        let admissionTimes = AdmissionTimes()
        defer { if admissionTimes.scans > 0 { admissionScans.add(admissionTimes.scans, ordering: .relaxed) } }
        // Each event is read where it lies in `planned`, through a pointer: a copy would retain
        // every string in it, and an array subscript per property read made one.
        try planned.withUnsafeBufferPointer { planned in
            for position in planned.indices {
                let planned = planned.baseAddress! + position
                let sequence = first + UInt64(prepared.records.count)
                if command.admitsEvents, let key = planned.pointee.idempotencyKey, position > 0 || command.idempotencyKey == nil,
                   let existing = try repeatOf(planned.pointee, key: key, draft: draft, db) {
                    sequences.append(existing)
                    continue
                }
                let cause = try Self.resolve(planned.pointee.cause, position: position, sequences: sequences, own: sequence)
                var record = try catalog.preparedRecord(of: planned.pointee) ?? catalog.record(for: planned.pointee)
                record.cause = cause.map { .sequence($0) }
                let folded = Event(
                    sequence: sequence, recordedAt: draft.recordedAt, effectiveAt: planned.pointee.effectiveAt, cause: cause,
                    idempotencyKey: planned.pointee.idempotencyKey, body: planned.pointee.body)
                if command.admitsEvents {
                    try admit(planned, as: folded, label: planned.pointee.origin ?? "event \(position + 1)", admissionTimes, draft: draft, db)
                }
                prepared.records.append(record)
                prepared.events.append(folded)
                sequences.append(sequence)
            }
        }
        return prepared
    }

    /// Admits one event that arrived decided where it lands: its type's checks against the
    /// state before it, its fold, then the balances it protects.
    private func admit(
        _ event: UnsafePointer<NewEvent>, as folded: Event, label: String, _ times: AdmissionTimes, draft: GroupDraft, _ db: Database
    ) throws {
        let protected = try Admissibility.checkBefore(event.pointee, label: label, times, db)
        let postings = try BalanceQueries.postings(of: [event.pointee], db)
        do {
            try readModels.fold([folded][...], db, checkpointsInOrder: draft.checkpoints, atLeast: folded.sequence - 1, holding: draft.held)
        } catch let error as DatabaseError where Self.isOverflow(error) {
            throw Self.overflow(label, event.pointee)
        }
        times.noteFolded(postings)
        try Admissibility.checkAfter(folded, label: label, protected, times, db)
    }

    /// A large first command (an import's batch) has its frame encoded on another core while
    /// it folds here; the append uses it if no other command joins the frame.
    private func encodeAheadIfLarge(_ records: [LogRecord], into draft: inout GroupDraft) {
        guard draft.records.isEmpty, records.count >= Self.encodeAheadEventsMin, !draft.isRehearsal, let store else { return }
        draft.encodedAhead = store.writer.encodeAhead(records, pinnedTo: AppendPin(
            firstSequence: draft.next, recordedAt: draft.recordedAt.microsecondsSinceEpoch))
    }

    /// Folds a planned command's events into every read model. A fold beyond 64 bits is
    /// thrown as ``FoldOverflow``, which names its event once the savepoint has rolled back.
    private func foldPlanned(_ events: [Event], planned: [NewEvent], into draft: inout GroupDraft, _ db: Database) throws {
        do {
            try readModels.fold(events[...], db, checkpointsInOrder: draft.checkpoints, atLeast: draft.foldedThrough, holding: draft.held)
        } catch {
            draft.encodedAhead = nil  // the command is refused: its records are not appended
            if let error = error as? DatabaseError, Self.isOverflow(error) { throw FoldOverflow(events: events, planned: planned) }
            throw error
        }
    }

    /// The fewest events a command needs for its frame to be encoded ahead, while it folds:
    /// below this, handing the work to another thread costs more than it saves.
    static let encodeAheadEventsMin = 256

    /// The refusal of a command whose fold would take a balance beyond 64 bits, naming the
    /// event that does it: its events are folded again one by one (from the state before the
    /// command: its savepoint has rolled back), then rolled back.
    private func nameOverflow(_ overflow: FoldOverflow, draft: GroupDraft, _ db: Database) throws -> LedgerError {
        let events = overflow.events
        var culprit = 0
        try db.inCommandSavepoint(holding: draft.held) {
            for index in events.indices {
                do {
                    try readModels.fold(
                        events[index...index], db, checkpointsInOrder: draft.checkpoints, atLeast: events[index].sequence - 1, holding: draft.held)
                } catch let error as DatabaseError where Self.isOverflow(error) {
                    culprit = index
                    break
                }
            }
            return .rollback
        }
        // Without admission no event is skipped: the folded events are the planned ones.
        return Self.overflow(overflow.planned[culprit].origin ?? "event \(culprit + 1) of the command", overflow.planned[culprit])
    }

    /// SQLite's refusal of a sum beyond 64 bits (it turns into a REAL, which a STRICT
    /// integer column refuses).
    private static func isOverflow(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CONSTRAINT && (error.message ?? "").contains("REAL value in INTEGER column")
    }

    private static func overflow(_ label: String, _ event: NewEvent) -> LedgerError {
        LedgerError(.invalidArgument, """
            \(label) (\(event.type.name)): it would take a balance beyond the largest amount a balance can hold \
            (9,223,372,036,854,775,807 minor units); nothing was appended
            """)
    }

    /// For an event that arrived decided with a key used before: the sequence number of the
    /// event the key recorded when it is the same event, nil when the key is new.
    ///
    /// - Throws: ``LedgerError`` `idempotencyConflict` when the key recorded another event.
    private func repeatOf(_ event: NewEvent, key: String, draft: GroupDraft, _ db: Database) throws -> UInt64? {
        guard let range = try IdempotencyProjector.range(of: key, db, holding: draft.held?.idempotency) else { return nil }
        let recorded = try draft.events(in: range.lowerBound...range.lowerBound) ?? committedEvents(range.lowerBound...range.lowerBound)
        guard let first = recorded.first, first.body == event.body, first.effectiveAt == event.effectiveAt else {
            throw LedgerError(.idempotencyConflict, """
                \(event.origin.map { "\($0): " } ?? "")the idempotency key '\(key)' was used by event \(range.lowerBound) for a different event; \
                a repeat must be the same event, and a new event needs a new key
                """)
        }
        return range.lowerBound
    }

    /// A cause as a sequence number: an earlier event of the same command (its own sequence
    /// number, or the first one of the event it repeats), or an event already in the log.
    private static func resolve(_ cause: CauseReference?, position: Int, sequences: [UInt64], own: UInt64) throws -> UInt64? {
        switch cause {
        case .none:
            return nil
        case .earlierInBatch(let earlier):
            guard earlier >= 0, earlier < position else {
                throw LedgerError(.invalidArgument, "event \(position + 1) of the command names event \(earlier + 1) of the same command as its cause, which does not come before it")
            }
            return sequences[earlier]
        case .sequence(let sequence):
            guard sequence >= 1, sequence < own else {
                throw LedgerError(.invalidArgument, "event \(position + 1) of the command names sequence \(sequence) as its cause, which is not an earlier event")
            }
            return sequence
        }
    }

    /// A repeat of a key is the same command when its input is what the key first recorded.
    private static func requireSameInput(_ command: LedgerCommand, key: String, first: Event?) throws {
        guard let request = command.request, let first else { return }
        let sameBody = first.body == request.body
        let sameTime = !command.requestHasEffectiveTime || first.effectiveAt == request.effectiveAt
        guard sameBody && sameTime else {
            throw LedgerError(.idempotencyConflict, """
                the idempotency key '\(key)' was used by event \(first.sequence) (\(first.type.name)) with different input\
                \(sameBody ? " (another effective time)" : ""); a repeat must be the same command, and a new command needs a new key
                """)
        }
    }

    /// The events a committed command recorded, read back from the log.
    ///
    /// - Throws: ``StoreError`` `readModelsAhead` when the log no longer holds them all: a
    ///   failed `fdatasync` cut the log back to what was synced (``LogOptions/SyncMode/none``)
    ///   after the read models folded the events it dropped. A repeat of a key such an event
    ///   recorded must fail, not answer "already applied" with events that are gone.
    func committedEvents(_ range: ClosedRange<UInt64>) throws -> [Event] {
        var events: [Event] = []
        // The writer's own view: readers elsewhere may lag its head (a failed write of the published head).
        let reader = try store?.reader() ?? EventStoreReader.open(at: root, catalog: catalog, fileSystem: fileSystem, keys: keys)
        try reader.forEach(from: range.lowerBound, through: range.upperBound) { events.append($0) }
        guard events.count == range.count else { throw Self.readModelsAhead(range) }
        return events
    }

    /// The error for events the read models folded and the log no longer holds.
    private static func readModelsAhead(_ range: ClosedRange<UInt64>) -> StoreError {
        StoreError(.readModelsAhead, """
            the read models hold events \(range.lowerBound)-\(range.upperBound), which the log no longer does \
            (a failed sync cut it back to what was synced); reopen the ledger, which folds the read models again from the log
            """)
    }

    /// Folds the log into read models that a failed commit left behind.
    private func catchUpIfBehind(_ store: EventStore) throws {
        guard isBehind else { return }
        let reader = try store.reader()
        try readModels.checkAgreement(with: reader)
        try readModels.catchUp(from: reader)
        behind.withLock { $0 = false }
    }
}

extension WritePipeline {
    /// Plans commands one after another, each against state that includes the earlier ones,
    /// exactly as one group would, then rolls everything back: nothing reaches the log or the
    /// read models. The first refusal is thrown. An import rehearses a whole file before it
    /// appends its first batch, so that a refusal anywhere in it leaves the store as it was.
    /// Call it while no group runs (``CommandQueue/exclusively(_:)``).
    func rehearse(_ body: (_ plan: (LedgerCommand) throws -> Void) throws -> Void) throws {
        try rehearsing { plan in
            try withoutActuallyEscaping(plan) { plan in try body { command in _ = try plan(command) } }
        }
    }

    /// ``rehearse(_:)`` whose `plan` returns each command's result as the commit would
    /// (its events with the sequence numbers and recorded time they would have), and which
    /// returns what `body` returns.
    func rehearsing<T>(_ body: (_ plan: (LedgerCommand) throws -> Ledger.CommandResult) throws -> T) throws -> T {
        guard let store else {
            throw StoreError(.readOnly, "this ledger was opened for reading; open it with Ledger.open to run commands")
        }
        try catchUpIfBehind(store)
        let recordedAt = Instant(microsecondsSinceEpoch: max(clock().microsecondsSinceEpoch, store.writer.lastRecordedAt))
        var draft = GroupDraft(first: store.head.sequence + 1, recordedAt: recordedAt, frameLimits: store.writer.frameLimits, isRehearsal: true)
        var answer: T?
        try readModels.database.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                draft.checkpoints = try readModels.checkpointsInOrder(db)
                answer = try body { command in try planInSavepoint(command, into: &draft, db) }
                return .rollback
            }
        }
        return answer!
    }
}

/// Thrown inside a command's savepoint when its events do not fit the frame being built.
private struct FrameFull: Error {}

/// Thrown when a command planned without a savepoint is refused after it changed the
/// group's state: the group's transaction rolls back and its commands are planned again,
/// each in a savepoint.
private struct RefusedAfterWriting: Error {}

/// What a command planned without a savepoint can change, as it stood before the command:
/// the rows the write connection has changed and what the group holds. A command that left
/// both as they were left no trace, whatever it read (a read that writes what is held
/// changes rows).
private struct GroupTrace {
    let rows: Int
    let held: Int?

    init(_ db: Database, _ draft: GroupDraft) {
        rows = db.totalChangesCount
        held = draft.held?.changes
    }

    func unchanged(_ db: Database, _ draft: GroupDraft) -> Bool {
        db.totalChangesCount == rows && draft.held?.changes == held
    }
}

/// Thrown inside a command's savepoint when folding its events would take a balance beyond
/// 64 bits; the refusal names the event once the savepoint has rolled back.
private struct FoldOverflow: Error {
    let events: [Event]
    let planned: [NewEvent]
}

/// The frame a group is building: its records, its events as folded, and what is left.
struct GroupDraft {
    let first: UInt64
    let recordedAt: Instant
    let frameLimits: (events: Int, bytes: Int)
    /// A rehearsal's draft: never full, and it keeps no records (nothing is appended).
    let isRehearsal: Bool
    private(set) var records: [LogRecord] = []
    private(set) var events: [Event] = []
    /// How many records the draft holds (a rehearsal counts them without keeping them).
    private(set) var recordCount = 0
    /// Each projector's checkpoint as the group found it, in the order of the read models'
    /// projectors (the table moves once the frame is durable); the group's folds have moved
    /// each to at least ``foldedThrough``.
    var checkpoints: [UInt64?] = []
    /// The last event the group's commands have folded (0 before the first): one number,
    /// not a dictionary of checkpoints rewritten after every command.
    private(set) var foldedThrough: UInt64 = 0
    /// The frame of the first command's records, being encoded on another thread while the
    /// group folds (``WritePipeline/encodeAheadEventsMin``); the log uses it only if it still
    /// matches what is appended.
    var encodedAhead: FrameEncodedAhead?
    /// The group's held postings (nil: each command writes its own), owned by the pipeline for
    /// the group's transaction and handed to each command's savepoint and fold.
    var held: HeldPostings?
    private var bytes = 0

    init(first: UInt64, recordedAt: Instant, frameLimits: (events: Int, bytes: Int), isRehearsal: Bool = false) {
        self.first = first
        self.recordedAt = recordedAt
        self.frameLimits = frameLimits
        self.isRehearsal = isRehearsal
    }

    /// The sequence number the next event gets.
    var next: UInt64 { first + UInt64(recordCount) }

    func fits(_ more: [LogRecord]) -> Bool {
        if isRehearsal { return true }
        return records.count + more.count <= frameLimits.events
            && bytes + more.reduce(0) { $0 + LogWriter.boundBytes(of: $1) } <= frameLimits.bytes
    }

    mutating func add(_ more: [LogRecord], _ folded: [Event]) {
        recordCount += more.count
        if !isRehearsal {
            bytes += more.reduce(0) { $0 + LogWriter.boundBytes(of: $1) }
            // The first command's arrays are taken as they are: appending them to empty
            // arrays would copy every record and event, retaining every string in them.
            if records.isEmpty { records = more } else { records.append(contentsOf: more) }
        }
        if events.isEmpty { events = folded } else { events.append(contentsOf: folded) }
        if let last = folded.last?.sequence { foldedThrough = max(foldedThrough, last) }
    }

    /// The events of this group in `range`, or nil when the range was committed before.
    func events(in range: ClosedRange<UInt64>) -> [Event]? {
        guard range.lowerBound >= first else { return nil }
        return Array(events[Int(range.lowerBound - first)...Int(range.upperBound - first)])
    }
}
