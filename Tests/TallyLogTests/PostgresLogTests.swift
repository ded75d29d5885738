import Foundation
import PostgresTestSupport
import Testing
@testable import TallyLog

/// The log on PostgreSQL, against a real server (a throwaway cluster): the same frames, events
/// and digests as the file log; one writer at a time under a fenced lease; a lost connection
/// resolved by reading the head back; damage found and named.
@Suite("Log on PostgreSQL")
struct PostgresLogTests {
    let cluster: PostgresTestCluster

    init() throws { cluster = try PostgresTestCluster.shared() }

    private func location(_ name: String) throws -> PostgresLogLocation {
        try PostgresLogLocation(cluster.ledgerLocation(name))
    }

    @Test("the same appends give the same events and the same head digest as the file log")
    func sameEventsAndDigestAsFiles() throws {
        let seed = UInt64(0x5EED_2901)
        var rng = SplitMix64(seed: seed)
        let location = try location("same")
        try withTemporaryDirectory { directory in
            let fileClock = TestClock()
            let remoteClock = TestClock()
            let files = try LogWriter.create(directory: directory + "/log", options: testOptions(clock: fileClock))
            let remote = try PostgresLogWriter.create(location, owner: "test", options: testOptions(clock: remoteClock))
            defer {
                try? files.close()
                try? remote.close()
            }
            for _ in 0..<40 {
                let batch = (0..<Int(rng.next() % 30 + 1)).map { _ in randomRecord(&rng) }
                let fromFiles = try files.append(batch)
                let fromRemote = try remote.append(batch)
                #expect(fromFiles == fromRemote, "seed \(seed)")
            }
            #expect(files.head == remote.head, "seed \(seed)")
            var fileEvents: [LoggedEvent] = []
            try files.reader().forEach { fileEvents.append($0) }
            var remoteEvents: [LoggedEvent] = []
            let reader = try PostgresLogReader.open(location)
            try reader.forEach { remoteEvents.append($0) }
            #expect(remoteEvents == fileEvents, "seed \(seed)")
            #expect(reader.head == files.head)
            // Reads of a range, of scattered numbers, of hashes and by time agree too.
            let scattered: [UInt64] = [0, 3, 3, 17, 250, 1, UInt64(fileEvents.count), UInt64(fileEvents.count) + 5]
            var fromFiles: [LoggedEvent] = []
            try files.reader().forEach(at: scattered) { fromFiles.append($0) }
            var fromRemote: [LoggedEvent] = []
            try reader.forEach(at: scattered) { fromRemote.append($0) }
            #expect(fromRemote == fromFiles)
            for sequence in [UInt64(0), 1, 2, 100, UInt64(fileEvents.count)] {
                #expect(try reader.hash(of: sequence) == files.reader().hash(of: sequence), "hash of \(sequence)")
            }
            let middle = fileEvents[fileEvents.count / 2].recordedAt
            #expect(try reader.firstSequence(recordedAtOrAfter: middle) == files.reader().firstSequence(recordedAtOrAfter: middle))
            let verification = try verifyPostgresLog(location, expect: files.head)
            #expect(verification.isValid, "\(verification.problems)")
            #expect(verification.recomputedHead == files.head)
        }
    }

    @Test("a second writer waits for the lease and is refused while it is held")
    func secondWriterIsRefusedWhileTheLeaseIsHeld() throws {
        let location = try location("lease")
        let first = try PostgresLogWriter.create(location, owner: "node-a", options: testOptions())
        defer { try? first.close() }
        _ = try first.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "e", payload: [1])])
        var told: String?
        #expect {
            _ = try PostgresLogWriter.open(location, owner: "node-b", options: testOptions(), waitSeconds: 1, waiting: { told = $0 })
        } throws: { error in
            (error as? LogError)?.code == .locked && "\(error)".contains("node-a")
        }
        #expect(told?.contains("node-a") == true)
        // Given up, the lease is free at once.
        try first.close()
        let second = try PostgresLogWriter.open(location, owner: "node-b", options: testOptions(), waitSeconds: 0)
        defer { try? second.close() }
        #expect(second.head.sequence == 1)
    }

    @Test("a paused writer whose lease ran out is fenced by the new owner's epoch: nothing forks")
    func pausedWriterIsFenced() throws {
        let location = try location("fence")
        let paused = try PostgresLogWriter.create(location, owner: "node-a", options: testOptions())
        defer { try? paused.close() }
        _ = try paused.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "a", payload: [1])])
        // The pause: node-a's lease runs out without a renewal (as after SIGSTOP).
        try cluster.sql("UPDATE tally_ledgers SET lease_until = now() - interval '1 second' WHERE ledger = '\(location.ledger)'")
        let successor = try PostgresLogWriter.open(location, owner: "node-b", options: testOptions(), waitSeconds: 0)
        defer { try? successor.close() }
        #expect(successor.epoch == paused.epoch + 1)
        _ = try successor.append([LogRecord(kind: 2, version: 1, effectiveAt: 0, entity: "b", payload: [2])])
        // node-a wakes up and writes: refused, and nothing of it reaches the log.
        #expect {
            _ = try paused.append([LogRecord(kind: 3, version: 1, effectiveAt: 0, entity: "a", payload: [3])])
        } throws: { ($0 as? LogError)?.code == .headMoved }
        #expect {
            _ = try paused.append([LogRecord(kind: 3, version: 1, effectiveAt: 0, entity: "a", payload: [3])])
        } throws: { ($0 as? LogError)?.code == .headMoved }
        var entities: [String] = []
        try PostgresLogReader.open(location).forEach { entities.append($0.entity) }
        #expect(entities == ["a", "b"])
        #expect(try verifyPostgresLog(location).isValid)
    }

    @Test("a pinned append at a stale head is refused, and a reload learns the head")
    func stalePinIsRefused() throws {
        let location = try location("pin")
        let writer = try PostgresLogWriter.create(location, owner: "test", options: testOptions())
        defer { try? writer.close() }
        let record = LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "e", payload: [1])
        _ = try writer.append([record])
        #expect {
            _ = try writer.append([record], pinnedTo: AppendPin(firstSequence: 5, recordedAt: writer.lastRecordedAt), encodedAhead: nil)
        } throws: { ($0 as? LogError)?.code == .invalidRecord }
        let result = try writer.append([record, record], pinnedTo: AppendPin(firstSequence: 2, recordedAt: writer.lastRecordedAt + 10), encodedAhead: nil)
        #expect(result.first == 2 && result.last == 3)
        try writer.reloadHead()
        #expect(writer.head == result.head)
    }

    @Test("a connection ended in the middle of writing is resolved by reading the head: every commit once")
    func terminatedConnectionIsResolved() throws {
        let location = try location("cut")
        let writer = try PostgresLogWriter.create(location, owner: "test", options: testOptions())
        defer { try? writer.close() }
        var expected: [String] = []
        for round in 0..<12 {
            if round % 3 == 1 {
                try cluster.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(location.ledger)'")
            }
            let entity = "round-\(round)"
            _ = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: entity, payload: [UInt8(round)])])
            expected.append(entity)
        }
        var entities: [String] = []
        try PostgresLogReader.open(location).forEach { entities.append($0.entity) }
        #expect(entities == expected)
        #expect(try verifyPostgresLog(location).isValid)
    }

    @Test("a changed byte in a frame's row is refused by readers and named by verify")
    func damagedRowIsFound() throws {
        let location = try location("damage")
        let writer = try PostgresLogWriter.create(location, owner: "test", options: testOptions())
        var rng = SplitMix64(seed: 29)
        for _ in 0..<5 { _ = try writer.append((0..<4).map { _ in randomRecord(&rng) }) }
        try writer.close()
        try cluster.sql("""
            UPDATE tally_frames SET frame = set_byte(frame, 100, (get_byte(frame, 100) + 1) % 256)
            WHERE ledger = '\(location.ledger)' AND first_sequence = 9
            """)
        #expect { try PostgresLogReader.open(location).forEach { _ in } } throws: { ($0 as? LogError)?.code == .corrupt }
        let verification = try verifyPostgresLog(location)
        #expect(!verification.isValid)
        #expect(verification.firstDamagedSequence == 9)
        #expect(verification.lastGood.sequence == 8)
        #expect(verification.problems.count == 1, "\(verification.problems)")
    }

    @Test("locations: the ledger parameter is required and checked; a password never shows")
    func locations() throws {
        let parsed = try PostgresLogLocation("postgresql://tally:secret@db.example:5433/books?ledger=home-1&sslmode=require")
        #expect(parsed.ledger == "home-1")
        #expect(parsed.server == "db.example:5433/books")
        #expect(parsed.connectionString == "postgresql://tally:secret@db.example:5433/books?sslmode=require")
        #expect(!parsed.displayName.contains("secret"))
        for bad in [
            "postgresql://db/books", "postgresql://db/books?ledger=", "postgresql://db/books?ledger=a&ledger=b",
            "postgresql://db/?ledger=a", "postgresql://db/books?ledger=a%20b", "mysql://db/books?ledger=a",
        ] {
            #expect(throws: LogError.self, "\(bad)") { try PostgresLogLocation(bad) }
        }
        #expect { try PostgresLogLocation("postgresql://u:hunter2@db/books") } throws: { !"\($0)".contains("hunter2") }
    }
}
