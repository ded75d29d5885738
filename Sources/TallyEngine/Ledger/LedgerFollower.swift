internal import Foundation
import Synchronization
internal import TallyLog

/// Keeps this node's read models of a ledger current while another node writes it: a follower.
///
/// A store whose log is on PostgreSQL may be read on many machines, each with read models of
/// its own (``Ledger/openForReading(at:options:)`` folds what is new when it opens). A follower
/// keeps them current between reads: it folds the log after its checkpoint whenever the writer's
/// commit notice arrives (PostgreSQL `NOTIFY`, a wake-up only), and at least every poll interval
/// besides (a notice is lost when the connection drops). It reads the log itself, with the same
/// continuity and chain checks as any reader, under this node's directory lock and never the
/// ledger's lease: the writing node never waits for it. Readers of this node then answer from
/// read models at most one fold behind the writer.
///
/// On a store of files the writer folds every commit itself; a follower there only folds what a
/// writer left behind (it was killed after its append), at each poll.
///
/// ```swift
/// let follower = try LedgerFollower.start(at: "/var/lib/tally/home")
/// _ = follower.waitUntilFolded(through: 1_250, timeoutMilliseconds: 5_000)
/// let reader = try Ledger.openForReading(at: "/var/lib/tally/home")   // current through 1 250
/// follower.stop()
/// ```
public final class LedgerFollower: Sendable {
    /// What a follower has done: the sequence its read models are folded through, and the last
    /// fold's failure (nil once a fold succeeds again).
    public struct Progress: Sendable {
        /// The sequence number this node's read models are folded through.
        public var folded: UInt64
        /// Why the last fold failed, in words; nil when it succeeded.
        public var failure: String?
        /// Folds done since the start.
        public var folds: Int
    }

    private let root: String
    private let options: Ledger.Options
    private let pollMilliseconds: Int32
    private let listener: PostgresLogListener?
    private let state = Mutex<(progress: Progress, stopped: Bool)>((Progress(folded: 0, failure: nil, folds: 0), false))
    private let changed = NSCondition()
    private let finished = DispatchSemaphore(value: 0)

    private init(root: String, options: Ledger.Options, pollMilliseconds: Int32, listener: PostgresLogListener?) {
        self.root = root
        self.options = options
        self.pollMilliseconds = pollMilliseconds
        self.listener = listener
    }

    /// Folds the ledger at `root` once, then keeps following it on a thread of its own.
    /// - Parameters:
    ///   - pollMilliseconds: the longest a fold waits without a notice (default one second).
    /// - Throws: ``LedgerError``: the store cannot be read, or its first fold failed.
    public static func start(at root: String, options: Ledger.Options = Ledger.Options(), pollMilliseconds: Int32 = 1_000) throws -> LedgerFollower {
        try LedgerError.boundary {
            guard pollMilliseconds >= 1 && pollMilliseconds <= 3_600_000 else {
                throw LedgerError(.invalidArgument, "a follower's poll interval of \(pollMilliseconds) ms is out of range (1 … 3 600 000)")
            }
            let layout = StoreLayout(root: root)
            try layout.requireStore()
            var options = options
            options.writerLockWaitMicroseconds = 0
            let listener = try LogStorage.remoteLocation(in: layout.logDirectory).map { try PostgresLogListener($0) }
            let follower = LedgerFollower(root: root, options: options, pollMilliseconds: pollMilliseconds, listener: listener)
            if let failure = follower.fold() { throw failure }
            DedicatedThread.start("Tally.follower") { follower.run() }
            return follower
        }
    }

    /// What the follower has done so far.
    public var progress: Progress { state.withLock { $0.progress } }

    /// Waits until the read models are folded through `sequence` or `timeoutMilliseconds` passed;
    /// whether they are.
    public func waitUntilFolded(through sequence: UInt64, timeoutMilliseconds: Int) -> Bool {
        let deadline = Date(timeIntervalSinceNow: TimeInterval(timeoutMilliseconds) / 1_000)
        changed.lock()
        defer { changed.unlock() }
        while state.withLock({ $0.progress.folded }) < sequence {
            if !changed.wait(until: deadline) { return state.withLock { $0.progress.folded } >= sequence }
        }
        return true
    }

    /// Stops following (waits for a fold in progress); the read models stay as folded.
    public func stop() {
        let already = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !already else { return }
        listener?.close()
        finished.wait()
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func run() {
        defer { finished.signal() }
        // Waits in slices of at most a quarter second, so that ``stop()`` is never kept waiting long.
        var waited: Int32 = 0
        while !stopped {
            let slice = min(pollMilliseconds - waited, 250)
            let noticed: Bool
            if let listener {
                noticed = listener.wait(timeoutMilliseconds: slice) != nil
            } else {
                usleep(UInt32(slice) * 1_000)
                noticed = false
            }
            waited += slice
            if stopped { return }
            if noticed || waited >= pollMilliseconds {
                _ = fold()
                waited = 0
            }
        }
    }

    /// Folds what is new; the failure, when there was one. A local writer holding the store is
    /// not one: it folds its own commits.
    private func fold() -> (any Error)? {
        do {
            record(folded: try Ledger.catchUp(at: root, options: options), failure: nil)
            return nil
        } catch let error where LedgerError.reporting(error)?.code == .locked {
            return nil
        } catch {
            let reported = LedgerError.reporting(error)?.message ?? "\(error)"
            record(folded: nil, failure: reported)
            return error
        }
    }

    private func record(folded: UInt64?, failure: String?) {
        state.withLock { state in
            if let folded { state.progress.folded = max(state.progress.folded, folded) }
            state.progress.failure = failure
            state.progress.folds += 1
        }
        changed.lock()
        changed.broadcast()
        changed.unlock()
    }
}
