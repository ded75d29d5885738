import Foundation
import Synchronization

/// Commit notices of logs on PostgreSQL: after a writer commits, a `NOTIFY` on the ledger's
/// channel wakes the nodes that follow the ledger (``PostgresLogListener``), so they fold the new
/// events at once rather than at their next poll.
///
/// A notice is a hint and nothing more. It names the head the writer reached, but a follower
/// reads the log itself (`sequence > checkpoint`, continuity and chain checked) and never takes
/// the payload for an event; a notice nobody listens for is lost, and a follower that missed one
/// catches up at its next poll. So notices are sent after the commit, from a connection of the
/// process's own with `synchronous_commit` off, coalesced per ledger: the append's round trip
/// and its durability wait are untouched (a `NOTIFY` inside the append's transaction would take
/// PostgreSQL's notify lock through every commit's flush, and serialise commits of all ledgers).
enum PostgresLogNotices {
    /// The channel of a ledger's notices: `tally_log_` and 16 hex digits of a hash of its name
    /// (a channel is an identifier of at most 63 bytes; two ledgers sharing one only wake each
    /// other's followers for nothing).
    static func channel(of ledger: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in ledger.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "tally_log_" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Sends commit notices for one server (one connection string), from a thread and a connection
/// of its own; one per process and server, shared by every writer of that server's ledgers.
final class PostgresLogNotifier: @unchecked Sendable {
    private static let notifiers = Mutex<[String: PostgresLogNotifier]>([:])

    /// The process's notifier for the server of `location`.
    static func shared(for location: PostgresLogLocation) -> PostgresLogNotifier {
        notifiers.withLock { notifiers in
            if let notifier = notifiers[location.connectionString] { return notifier }
            let notifier = PostgresLogNotifier(location)
            notifiers[location.connectionString] = notifier
            return notifier
        }
    }

    private let location: PostgresLogLocation
    private let condition = NSCondition()
    /// The newest head per ledger not yet told (guarded by `condition`).
    private var pending: [String: UInt64] = [:]
    /// Notices being sent now (guarded by `condition`).
    private var sending = 0
    private var connection: PostgresConnection?

    private init(_ location: PostgresLogLocation) {
        self.location = location
        DedicatedThread.start("TallyLog.commitNotices") { [self] in run() }
    }

    /// Tells followers of `ledger` that its head reached `sequence` (soon, on the notifier's thread).
    func committed(ledger: String, through sequence: UInt64) {
        condition.lock()
        pending[ledger] = max(pending[ledger] ?? 0, sequence)
        condition.signal()
        condition.unlock()
    }

    /// Waits until the notices asked for so far are sent, or `timeoutMilliseconds` passed: for a
    /// short-lived writer (a CLI command) before its process ends.
    func flush(timeoutMilliseconds: Int) {
        let deadline = Date(timeIntervalSinceNow: TimeInterval(timeoutMilliseconds) / 1_000)
        condition.lock()
        while !pending.isEmpty || sending > 0 {
            if !condition.wait(until: deadline) { break }
        }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while pending.isEmpty { condition.wait() }
            let batch = pending
            pending.removeAll()
            sending = batch.count
            condition.unlock()
            send(batch)
            condition.lock()
            sending = 0
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Sends each notice; a failure drops the connection (made again for the next batch) and the
    /// batch: followers poll as well.
    private func send(_ batch: [String: UInt64]) {
        do {
            let connection = try self.connection ?? {
                let made = try PostgresConnection(conninfo: location.connectionString, displayName: location.server)
                try made.execute("SET synchronous_commit = off")
                return made
            }()
            self.connection = connection
            for (ledger, sequence) in batch {
                try connection.query(
                    "SELECT pg_notify($1, $2)", [.text(PostgresLogNotices.channel(of: ledger)), .text("\(sequence) \(ledger)")])
            }
        } catch {
            connection?.close()
            connection = nil
        }
    }
}

/// Waits for commit notices of one ledger on PostgreSQL: what a follower (a node that reads a
/// ledger another node writes) blocks on between its folds.
///
/// ```swift
/// let listener = try PostgresLogListener(location)
/// while running {
///     _ = try listener.wait(timeoutMilliseconds: 1_000)   // a notice, or the poll interval
///     try fold()                                          // reads the log after the checkpoint
/// }
/// ```
public final class PostgresLogListener: @unchecked Sendable {
    private let location: PostgresLogLocation
    private let channel: String
    private var connection: PostgresConnection?
    private let lock = Mutex(())

    /// Connects and listens on the ledger's channel.
    /// - Throws: ``LogError`` `io` when the server cannot be reached.
    public init(_ location: PostgresLogLocation) throws {
        self.location = location
        channel = PostgresLogNotices.channel(of: location.ledger)
        connection = try listening()
    }

    deinit { connection?.close() }

    private func listening() throws -> PostgresConnection {
        let connection = try PostgresConnection(conninfo: location.connectionString, displayName: location.server)
        do {
            try connection.execute("LISTEN \(channel)")
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// Waits up to `timeoutMilliseconds` for a notice that the ledger's head moved, and returns
    /// the newest head sequence noticed, or nil when none came (or the connection broke: it is
    /// made again on the next call, and the caller's poll covers what was missed).
    public func wait(timeoutMilliseconds: Int32) -> UInt64? {
        lock.withLock { _ in
            guard let connection = connection ?? (try? listening()) else {
                usleep(UInt32(max(timeoutMilliseconds, 0)) * 1_000)
                return nil
            }
            self.connection = connection
            do {
                let notices = try connection.notifications(timeoutMilliseconds: timeoutMilliseconds)
                return notices.compactMap { notice -> UInt64? in
                    let parts = notice.payload.split(separator: " ", maxSplits: 1)
                    guard notice.channel == channel, parts.count == 2, String(parts[1]) == location.ledger else { return nil }
                    return UInt64(parts[0])
                }.max()
            } catch {
                connection.close()
                self.connection = nil
                return nil
            }
        }
    }

    /// Stops listening.
    public func close() {
        lock.withLock { _ in
            connection?.close()
            connection = nil
        }
    }
}
