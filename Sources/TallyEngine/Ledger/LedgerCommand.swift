public import GRDB
internal import Synchronization
import TallyLog

/// A command as a value: what it would record, planned against the read models as they
/// stand when the write pipeline reaches it (including every earlier command of its group).
///
/// Every command method of ``Ledger`` builds one and runs it; an embedder writes its own the
/// same way and runs it with ``Ledger/run(_:)-2djfs`` or, many at once in one commit, with
/// ``Ledger/run(batch:)-659qc``.
///
/// ```swift
/// let command = LedgerCommand(idempotencyKey: "close:2026-05", request: NewEvent(effectiveAt: now, body: body)) { db in
///     guard try somethingToClose(db) else { throw LedgerError(.notAllowed, "nothing to close in 2026-05") }
///     return [NewEvent(effectiveAt: now, body: body)]
/// }
/// let result = try ledger.run(command)
/// ```
public struct LedgerCommand: Sendable {
    /// A key the caller chose for this command; a repeat with the same input returns the
    /// first result and appends nothing, a repeat with different input is refused
    /// (``LedgerError/Code-swift.struct/idempotencyConflict``).
    public var idempotencyKey: String?
    /// The command's input, as the first event it records: a repeat of the key is the same
    /// command when this equals the first event the key recorded (body, and effective time
    /// when ``requestHasEffectiveTime``). Nil: the input is not comparable (a command whose
    /// first event depends on state, such as generating a month's recurring items), and any
    /// repeat of the key returns the first result.
    public var request: NewEvent?
    /// Whether the request's effective time was given by the caller (and so must match on a
    /// repeat) rather than taken from the clock.
    public var requestHasEffectiveTime: Bool
    /// Reads state and returns the events to record (empty: nothing to do), or throws
    /// ``LedgerError`` to refuse. It runs inside the pipeline's write transaction.
    public var plan: @Sendable (Database) throws -> [NewEvent]
    /// For events that arrive already decided (``Ledger/appendEvents(_:)``, imports): each is
    /// checked by ``AdmissionChecked`` at its position and folded before the next, and an event
    /// carrying an idempotency key used before is skipped when it is the same event and
    /// refused as a conflict when it is not.
    var admitsEvents = false
    /// An import's batch: its write group packs the idempotency keys less often, and the
    /// import packs what is loose at its end (``PackedKeys``).
    var isBulk = false

    /// Creates a command.
    ///
    /// - Parameters:
    ///   - idempotencyKey: an optional key (1 to 255 UTF-8 bytes); see ``idempotencyKey``.
    ///   - request: the first event the command records, built from its input alone; see ``request``.
    ///   - requestHasEffectiveTime: true when the caller gave the effective time.
    ///   - plan: the planning function; see ``plan``.
    public init(
        idempotencyKey: String? = nil, request: NewEvent? = nil, requestHasEffectiveTime: Bool = false,
        plan: @escaping @Sendable (Database) throws -> [NewEvent]
    ) {
        self.idempotencyKey = idempotencyKey
        self.request = request
        self.requestHasEffectiveTime = requestHasEffectiveTime
        self.plan = plan
    }
}

/// One command on its way through the pipeline, with the slot its outcome lands in.
final class PendingCommand: @unchecked Sendable {
    /// Dropped (``releaseCommand()``) once the command has run, before its outcome is
    /// published: a blocking caller's plan may be a closure that must not outlive the call.
    private(set) var command: LedgerCommand
    /// Set by the group's leader, under the queue's lock.
    var outcome: Result<Ledger.CommandResult, any Error>?
    /// For a batch: the batch's completion, told once every command of the batch has an outcome.
    let batch: PendingBatch?
    /// The asynchronous callers waiting for the outcome, and the outcome once it is delivered:
    /// whichever comes second resumes a caller, exactly once (a submitted command may be
    /// awaited before or after it commits, and more than once).
    private let delivery: Mutex<Delivery>

    private struct Delivery {
        var waiting: [CheckedContinuation<Ledger.CommandResult, any Error>]
        var delivered: Result<Ledger.CommandResult, any Error>?
    }

    init(_ command: LedgerCommand, continuation: CheckedContinuation<Ledger.CommandResult, any Error>? = nil, batch: PendingBatch? = nil) {
        self.command = command
        self.batch = batch
        self.delivery = Mutex(Delivery(waiting: continuation.map { [$0] } ?? []))
    }

    /// Hands the outcome to the asynchronous callers: resumes those waiting, and keeps the
    /// outcome for later ones (``outcomeWhenDelivered()``). Called once, by the queue.
    func deliver(_ outcome: Result<Ledger.CommandResult, any Error>) {
        let waiting = delivery.withLock { delivery in
            delivery.delivered = outcome
            defer { delivery.waiting = [] }
            return delivery.waiting
        }
        for continuation in waiting { continuation.resume(with: outcome) }
    }

    /// Waits for the outcome ``deliver(_:)`` hands over (at once if it already has).
    func outcomeWhenDelivered() async throws -> Ledger.CommandResult {
        try await withCheckedThrowingContinuation { continuation in
            let delivered = delivery.withLock { delivery in
                if delivery.delivered == nil { delivery.waiting.append(continuation) }
                return delivery.delivered
            }
            if let delivered { continuation.resume(with: delivered) }
        }
    }

    /// Lets go of the command's closures, so that the group's leader holds no reference to a
    /// plan once its caller has been told the outcome.
    func releaseCommand() {
        command.plan = { _ in [] }
    }
}

/// An asynchronous batch waiting for the outcome of each of its commands.
final class PendingBatch: @unchecked Sendable {
    var remaining: Int
    let continuation: CheckedContinuation<Void, Never>

    init(count: Int, continuation: CheckedContinuation<Void, Never>) {
        self.remaining = count
        self.continuation = continuation
    }
}
