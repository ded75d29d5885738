import Foundation
import PostgresTestSupport
import Synchronization
import Testing
@testable import TallyLog

/// A log on a primary with a synchronous streaming standby (two clusters of the test's own):
/// the primary is killed with SIGKILL while appends run, the standby is promoted, and the writer,
/// which names both servers in one libpq URI (`target_session_attrs=read-write`), goes on on the
/// new primary. Every acknowledged append was on the standby before it was acknowledged: none is
/// lost, none is there twice, the chain verifies.
@Suite("Log on PostgreSQL: a standby promoted after the primary is killed")
struct PostgresStandbyTests {
    @Test("a location may name several servers; libpq gets them unchanged and a password never shows")
    func multiHostLocations() throws {
        let text = "postgresql://tally:secret@db-1:5432,db-2:5433/books?target_session_attrs=read-write&ledger=home-1&connect_timeout=2"
        let location = try PostgresLogLocation(text)
        #expect(location.ledger == "home-1")
        #expect(location.connectionString == "postgresql://tally:secret@db-1:5432,db-2:5433/books?target_session_attrs=read-write&connect_timeout=2")
        #expect(location.server == "db-1:5432,db-2:5433/books")
        #expect(!location.displayName.contains("secret"))
        #expect(try PostgresLogLocation(location.uri) == location)
        for bad in [
            "postgresql://db-1,db-2/books", "postgresql://db-1,db-2/?ledger=a", "postgresql://db-1,db-2/books?ledger=a&ledger=b",
            "postgresql://db-1,db-2/books?ledger=a%20b",
        ] {
            #expect(throws: LogError.self, "\(bad)") { try PostgresLogLocation(bad) }
        }
        #expect { try PostgresLogLocation("postgresql://u:hunter2@db-1,db-2/books") } throws: { !"\($0)".contains("hunter2") }
    }

    @Test("the primary killed mid-load, the standby promoted: the writer goes on, nothing acknowledged is lost")
    func standbyPromoted() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["TALLY_PG_FAULT_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970))
        var rng = SplitMix64(seed: seed)
        let primary = try PostgresPrivateCluster.start("primary")
        defer { primary.stop() }
        let standby = try primary.standby()
        defer { standby.stop() }
        let ledger = "standby-\(UUID().uuidString.prefix(8).lowercased())"
        let location = try PostgresLogLocation(
            "postgresql://tally@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/postgres?target_session_attrs=read-write&connect_timeout=2&ledger=\(ledger)")
        let writer = try PostgresLogWriter.create(location, owner: "test", options: testOptions())
        defer { try? writer.close() }
        let killAfter = Int(rng.next() % 60 + 20)
        var acknowledged: [String] = []
        var failed = 0
        var acknowledgedAfterPromotion = 0
        var promoted = false
        for round in 0..<(killAfter + 60) {
            if round == killAfter {
                // The commit in flight (on another thread) meets the kill.
                let entity = "r\(round)"
                let outcome = Mutex<Bool?>(nil)
                Thread {
                    let done = (try? writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: entity, payload: [1])])) != nil
                    outcome.withLock { $0 = done }
                }.start()
                usleep(UInt32(rng.next() % 3_000))
                try primary.kill()
                try standby.promote()
                promoted = true
                while outcome.withLock({ $0 }) == nil { usleep(5_000) }
                if outcome.withLock({ $0 }) == true { acknowledged.append(entity) } else { failed += 1 }
                continue
            }
            let entity = "r\(round)"
            do {
                _ = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: entity, payload: [2])])
                acknowledged.append(entity)
                if promoted { acknowledgedAfterPromotion += 1 }
            } catch let error as LogError where error.code == .io || error.code == .headMoved {
                failed += 1
                if error.code == .headMoved { try writer.reloadHead() }
            }
        }
        var logged: [String] = []
        try PostgresLogReader.open(location).forEach { logged.append($0.entity) }
        let counts = Dictionary(logged.map { ($0, 1) }, uniquingKeysWith: +)
        print("standby promoted (seed \(seed)): killed after \(killAfter) appends, \(acknowledged.count) acknowledged (\(acknowledgedAfterPromotion) on the new primary), \(failed) failed, \(logged.count) in the log")
        #expect(acknowledged.filter { counts[$0] == nil }.isEmpty, "seed \(seed): acknowledged events lost")
        #expect(counts.values.allSatisfy { $0 == 1 }, "seed \(seed): an event twice")
        #expect(acknowledgedAfterPromotion > 0, "seed \(seed): the writer did not go on on the new primary")
        #expect(try standby.sql("SELECT pg_is_in_recovery()") == "f")
        let verification = try verifyPostgresLog(location)
        #expect(verification.isValid, "seed \(seed): \(verification.problems)")
        #expect(verification.recomputedHead?.sequence == UInt64(logged.count), "seed \(seed)")
    }
}
