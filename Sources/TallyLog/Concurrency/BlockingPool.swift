internal import Dispatch
internal import Synchronization

/// Where Tally runs blocking work (a command that waits for its commit, a query, an append
/// to PostgreSQL, a subscriber's read of the log) for an async caller, so that no task of
/// the cooperative pool ever blocks: one concurrent queue for the whole process, whose
/// threads are pooled and reused. A call starts no thread of its own when one is idle, and a
/// blocked item gets another thread, so work that waits for a commit never starves the one
/// leading it.
///
/// libdispatch gives such a queue a bounded number of threads (255 on Linux); past that,
/// items wait for a thread. So that background work can never take them all from callers,
/// it goes through ``startBackground(_:)``: at most ``backgroundJobsMax`` run at once, the
/// rest wait their turn in order without holding a thread, and each must end without
/// waiting for anyone (a subscriber catching up reads what its consumer has room for and
/// returns; it is started again when the consumer has read half of it).
package enum BlockingPool {
    private static let queue = DispatchQueue(label: "Tally.blocking", attributes: .concurrent)

    /// Background jobs run at once, at most.
    package static let backgroundJobsMax = 16

    /// Background jobs waiting for a turn, and how many run (the lane's count).
    private static let background = Mutex<(waiting: [@Sendable () -> Void], running: Int)>(([], 0))

    /// Runs `body` on a thread of the pool and returns its result (or throws its error).
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Starts `body` on a thread of the pool when fewer than ``backgroundJobsMax`` background
    /// jobs run, else once an earlier one has ended (in the order they were started), and
    /// returns at once. `body` must not wait for another job or a caller: it holds one of
    /// a few turns.
    package static func startBackground(_ body: @escaping @Sendable () -> Void) {
        let now = background.withLock { lane -> Bool in
            guard lane.running < backgroundJobsMax else {
                lane.waiting.append(body)
                return false
            }
            lane.running += 1
            return true
        }
        if now { queue.async { runBackground(body) } }
    }

    /// Runs background jobs on this thread: `first`, then those waiting, until none waits.
    private static func runBackground(_ first: @escaping @Sendable () -> Void) {
        var job: (@Sendable () -> Void)? = first
        while let current = job {
            current()
            job = background.withLock { lane in
                guard !lane.waiting.isEmpty else {
                    lane.running -= 1
                    return nil
                }
                return lane.waiting.removeFirst()
            }
        }
    }

    /// Background jobs that are running or waiting for a turn (for tests and diagnostics).
    package static var backgroundJobs: (running: Int, waiting: Int) {
        background.withLock { ($0.running, $0.waiting.count) }
    }
}
