internal import Dispatch

/// Where Tally runs blocking work (a command that waits for its commit, a query, an append
/// to PostgreSQL) for an async caller, so that no task of the cooperative pool ever blocks:
/// one concurrent queue for the whole process, whose threads are pooled and reused. A call
/// starts no thread of its own when one is idle, and a blocked item gets another thread, so
/// work that waits for a commit never starves the one leading it.
package enum BlockingPool {
    private static let queue = DispatchQueue(label: "Tally.blocking", attributes: .concurrent)

    /// Runs `body` on a thread of the pool and returns its result (or throws its error).
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Starts `body` on a thread of the pool and returns at once: for long blocking work that
    /// reports its own outcome (a subscriber catching up from the log, which waits for its
    /// consumer), without a thread created and torn down for each.
    package static func start(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }
}
