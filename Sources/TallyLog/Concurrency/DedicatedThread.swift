internal import Foundation

/// The one way Tally starts a thread of its own: for a loop that lives as long as what owns
/// it (a log writer's commit thread, the encode-ahead thread, a PostgreSQL lease's renewal
/// and commit notices, a ledger's command thread, a follower) or for the reading side of one
/// long pass (``Handoff``'s producer: an import, a fold of the whole log), which may itself
/// run on a pool thread and so must never wait for one.
///
/// Everything else that blocks runs on ``BlockingPool``: no thread is made per command,
/// per query or per subscriber. docs/architecture.md, "Concurrency" lists every thread.
package enum DedicatedThread {
    /// Starts `body` on a new thread named `name` (as debuggers and `top -H` show it).
    ///
    /// - Parameter stackSize: the thread's stack, in bytes (the platform's default when nil).
    package static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }
}
