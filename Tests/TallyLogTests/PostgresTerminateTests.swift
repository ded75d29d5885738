import Foundation
import PostgresTestSupport
import Synchronization
import Testing
@testable import TallyLog

/// A writer's connection ended by `pg_terminate_backend` while a commit is in flight, against a
/// real server (a cluster of the suite's own, its tests one at a time: a test changes server settings). The outcome of
/// such a commit is learned by reading the head back on a new connection, never by a blind
/// resend: a commit that was done is acknowledged once, one that was not is sent again once,
/// and under load every acknowledged append is in the log exactly once, with no gap.
@Suite("Log on PostgreSQL: connections terminated mid-commit", .serialized)
final class PostgresTerminateTests {
    let cluster: PostgresPrivateCluster
    /// Runs the test's own SQL: locks, settings, terminations.
    let control: PostgresConnection

    init() throws {
        cluster = try PostgresPrivateCluster.forSuite("terminate")
        control = try PostgresConnection(conninfo: cluster.serverURL, displayName: "control")
    }

    deinit {
        control.close()
    }

    private func location(_ name: String) throws -> PostgresLogLocation {
        let ledger = "\(name)-\(UUID().uuidString.prefix(8).lowercased())"
        return try PostgresLogLocation("\(cluster.serverURL)?ledger=\(ledger)&application_name=\(ledger)")
    }

    private func record(_ entity: String) -> LogRecord {
        LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: entity, payload: Array(entity.utf8))
    }

    /// The pid of the ledger's writer backend once it waits as `condition` says (a `pg_stat_activity` predicate).
    private func backend(of location: PostgresLogLocation, waiting condition: String) throws -> Int64 {
        for _ in 0..<400 {
            // Inside the test's transaction (a held lock) the activity view is a snapshot: drop it.
            try control.execute("SELECT pg_stat_clear_snapshot()")
            let rows = try control.query(
                "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND \(condition)", [.text(location.ledger)])
            if rows.count == 1 { return rows.int64(0, 0) }
            usleep(10_000)
        }
        let seen = try control.query(
            "SELECT string_agg(pid || ' ' || coalesce(wait_event_type, '-') || ' ' || coalesce(wait_event, '-') || ' ' || state || ' ' || left(query, 40), '; ') FROM pg_stat_activity WHERE application_name = $1",
            [.text(location.ledger)])
        throw LogError(.io, "the writer's backend never waited (\(condition)); its backends: \(seen.isNull(0, 0) ? "none" : seen.text(0, 0))")
    }

    private func terminate(_ pid: Int64) throws {
        try control.query("SELECT pg_terminate_backend($1::int)", [.int64(pid)])
    }

    private func entities(_ location: PostgresLogLocation) throws -> [String] {
        var entities: [String] = []
        try PostgresLogReader.open(location).forEach { entities.append($0.entity) }
        return entities
    }

    /// Appends on a thread of its own and returns a way to wait for the outcome.
    private func appendInBackground(_ writer: PostgresLogWriter, _ records: [LogRecord]) -> () -> Result<AppendResult, any Error> {
        let outcome = Mutex<Result<AppendResult, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let result = Result { try writer.append(records) }
            outcome.withLock { $0 = result }
            done.signal()
        }.start()
        return {
            done.wait()
            return outcome.withLock { $0! }
        }
    }

    @Test("terminated while its statement waits, before the commit: the head is the old one, the frame is sent again, once")
    func terminatedBeforeTheCommit() throws {
        let location = try location("before")
        let writer = try PostgresLogWriter.create(location, owner: "test", options: testOptions())
        defer { try? writer.close() }
        _ = try writer.append([record("first")])
        // Another transaction holds the head row: the writer's compare-and-set waits on it.
        try control.execute("BEGIN")
        try control.query("SELECT 1 FROM tally_ledgers WHERE ledger = $1 FOR UPDATE", [.text(location.ledger)])
        let outcome = appendInBackground(writer, [record("second")])
        do {
            try terminate(try backend(of: location, waiting: "wait_event_type = 'Lock'"))
        } catch {
            try? control.execute("ROLLBACK")
            throw error
        }
        usleep(100_000)
        try control.execute("ROLLBACK")
        let result = try outcome().get()
        #expect(result.first == 2 && result.last == 2)
        #expect(try entities(location) == ["first", "second"])
        _ = try writer.append([record("third")])
        #expect(try entities(location) == ["first", "second", "third"])
        #expect(try verifyPostgresLog(location).isValid)
    }

    @Test("terminated after the commit is durable but before its answer: the head read back says it committed, acknowledged once")
    func terminatedAfterTheCommit() throws {
        let location = try location("after")
        let writer = try PostgresLogWriter.create(location, owner: "test", options: testOptions())
        defer { try? writer.close() }
        _ = try writer.append([record("first")])
        // A synchronous standby that never comes: the commit is in the WAL and stays unanswered.
        try control.execute("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
        try control.execute("SELECT pg_reload_conf()")
        usleep(300_000)
        let outcome = appendInBackground(writer, [record("second"), record("third")])
        let waiting: Int64
        do {
            waiting = try backend(of: location, waiting: "wait_event = 'SyncRep'")
        } catch {
            try? control.execute("ALTER SYSTEM RESET synchronous_standby_names; SELECT pg_reload_conf()")
            throw error
        }
        try terminate(waiting)
        let result = outcome()
        try control.execute("ALTER SYSTEM RESET synchronous_standby_names")
        try control.execute("SELECT pg_reload_conf()")
        usleep(300_000)
        let appended = try result.get()
        #expect(appended.first == 2 && appended.last == 3)
        #expect(writer.head.sequence == 3)
        _ = try writer.append([record("fourth")])
        #expect(try entities(location) == ["first", "second", "third", "fourth"])
        #expect(try verifyPostgresLog(location).isValid)
    }

    @Test("the client's side of the connection cut while the server still runs the commit: the resend finds the writer's own frame, acknowledged once")
    func connectionCutWhileTheServerGoesOn() throws {
        let location = try location("cut")
        let writer = try PostgresLogWriter.create(location, owner: "test", options: testOptions())
        defer { try? writer.close() }
        _ = try writer.append([record("first")])
        try control.execute("BEGIN")
        try control.query("SELECT 1 FROM tally_ledgers WHERE ledger = $1 FOR UPDATE", [.text(location.ledger)])
        let outcome = appendInBackground(writer, [record("second")])
        do {
            // The writer's statement waits on the lock; its socket is cut on this side only (a
            // proxy or a network that drops the connection): the server's backend goes on waiting.
            let pid = try backend(of: location, waiting: "wait_event_type = 'Lock'")
            let port = try control.query("SELECT client_port FROM pg_stat_activity WHERE pid = $1::int", [.int64(pid)]).int64(0, 0)
            #expect(shutdownSocket(localPort: UInt16(port)), "no socket of this process on port \(port)")
            // The writer reads the head back (still the old one: the first statement has not run)
            // and sends the frame again, which waits behind the first.
            _ = try backend(of: location, waiting: "wait_event_type = 'Lock' AND pid <> \(pid)")
        } catch {
            try? control.execute("ROLLBACK")
            throw error
        }
        // The lock goes: the first statement commits the frame, the resend finds the head moved by it.
        try control.execute("ROLLBACK")
        let result = try outcome().get()
        #expect(result.first == 2 && result.last == 2)
        #expect(writer.head.sequence == 2)
        _ = try writer.append([record("third")])
        #expect(try entities(location) == ["first", "second", "third"])
        #expect(try verifyPostgresLog(location).isValid)
    }

    @Test("under load, backends terminated at random: every acknowledged append once, no gap, the chain verifies")
    func terminatedUnderLoad() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["TALLY_PG_FAULT_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970))
        var rng = SplitMix64(seed: seed)
        let location = try location("load")
        let writer = try PostgresLogWriter.create(location, owner: "test", options: testOptions())
        defer { try? writer.close() }
        let stop = Mutex(false)
        let terminated = Mutex(0)
        let terminatorSeed = rng.next()
        let serverURL = cluster.serverURL
        let ledger = location.ledger
        let terminator = Thread {
            var rng = SplitMix64(seed: terminatorSeed)
            guard let connection = try? PostgresConnection(conninfo: serverURL, displayName: "terminator") else { return }
            defer { connection.close() }
            while !stop.withLock({ $0 }) {
                usleep(UInt32(rng.next() % 20_000 + 2_000))
                if let rows = try? connection.query(
                    "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1",
                    [.text(ledger)]) {
                    terminated.withLock { $0 += Int(rows.int64(0, 0)) }
                }
            }
        }
        terminator.start()
        var acknowledged: [String] = []
        var failed = 0
        for round in 0..<600 {
            let batch = (0..<Int(rng.next() % 4 + 1)).map { record("r\(round)-\($0)") }
            do {
                _ = try writer.append(batch)
                acknowledged += batch.map(\.entity)
            } catch let error as LogError where error.code == .headMoved || error.code == .io {
                // headMoved: an in-doubt commit of this writer that was done after all; io: an
                // outcome that could not be learned. Either may or may not be in the log.
                failed += 1
                if error.code == .headMoved { try writer.reloadHead() }
            }
        }
        stop.withLock { $0 = true }
        while terminator.isExecuting { usleep(1_000) }
        let logged = try entities(location)
        let counts = Dictionary(logged.map { ($0, 1) }, uniquingKeysWith: +)
        let repeated = counts.filter { $0.value > 1 }.keys.sorted()
        let lost = acknowledged.filter { counts[$0] == nil }
        let terminations = terminated.withLock { $0 }
        print("pg_terminate_backend under load (seed \(seed)): \(terminations) backends terminated, \(acknowledged.count) events acknowledged, \(failed) appends failed, \(logged.count) in the log")
        #expect(repeated.isEmpty, "events in the log twice (seed \(seed)): \(repeated.prefix(10))")
        #expect(lost.isEmpty, "acknowledged events missing (seed \(seed)): \(lost.prefix(10))")
        #expect(terminations > 0, "seed \(seed): nothing was terminated")
        // A termination costs the append it lands on and perhaps the next (an in-doubt commit that
        // was done after all), not the writer: every failure is one a termination explains (how
        // many land on an append depends on the machine's speed, so the test bounds failures by
        // terminations, not by a share of the appends), and the writer
        // connects again and goes on (the append after the terminator stops must succeed).
        #expect(failed <= 2 * terminations, "seed \(seed): \(failed) appends failed, \(terminations) backends terminated")
        _ = try writer.append([record("after")])
        let verification = try verifyPostgresLog(location)
        #expect(verification.isValid, "seed \(seed): \(verification.problems)")
        #expect(verification.recomputedHead?.sequence == UInt64(logged.count + 1), "seed \(seed): a gap")
    }
}

/// Shuts down this process's TCP socket whose local port is `localPort` (the server sees nothing).
private func shutdownSocket(localPort: UInt16) -> Bool {
    for descriptor in Int32(3)..<Int32(4_096) {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0, address.sin_family == sa_family_t(AF_INET), UInt16(bigEndian: address.sin_port) == localPort else { continue }
        return shutdown(descriptor, Int32(SHUT_RDWR)) == 0
    }
    return false
}
