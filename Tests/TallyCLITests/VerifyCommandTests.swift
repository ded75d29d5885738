import Foundation
import Synchronization
import Testing

@Suite struct VerifyCommandTests {
    private func store(in directory: TemporaryDirectory, named name: String, potName: String) throws -> String {
        let store = directory.path + "/" + name
        try #require(try TallyProcess.run(["init", "--store", store]).status == 0)
        let events = [
            #"{"type":"pot_created","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"pot_id":"holiday","name":"\#(potName)","target":{"amount":"1500.00","currency":"USD"}}}"#,
            #"{"type":"pot_funded","version":1,"effective_at":"2026-05-02T09:00:00Z","data":{"pot_id":"holiday","amount":{"amount":"200.00","currency":"USD"}}}"#,
        ]
        let file = try directory.file(name + ".ndjson", events.joined(separator: "\n"))
        try #require(try TallyProcess.run(["append", file, "--store", store]).status == 0)
        return store
    }

    private func head(of run: TallyRun) -> String? {
        run.standardOutput.split(separator: "\n").first { $0.hasPrefix("head ") }.map { String($0.dropFirst(5)) }
    }

    @Test func anIntactStorePrintsItsHeadDigestAndMatchesIt() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 0, "\(verified.standardError)")
        #expect(verified.standardOutput.contains("ok: 3 events"))
        let digest = try #require(head(of: verified))
        #expect(digest.hasPrefix("3:") && digest.count == 2 + 64)
        let again = try TallyProcess.run(["verify", "--store", store, "--expect", digest])
        #expect(again.status == 0, "\(again.standardError)")
        let json = try TallyProcess.run(["verify", "--store", store, "--json"])
        #expect(json.standardOutput.contains("\"ok\":true"))
    }

    @Test func aDigestFromALedgerWithAnAlteredEventFails() throws {
        let directory = try TemporaryDirectory()
        let original = try store(in: directory, named: "original", potName: "Holiday")
        let altered = try store(in: directory, named: "altered", potName: "Holidays")
        let digest = try #require(head(of: try TallyProcess.run(["verify", "--store", original])))
        let result = try TallyProcess.run(["verify", "--store", altered, "--expect", digest])
        #expect(result.status != 0)
        #expect(result.standardError.contains("3"), "\(result.standardError)")
    }

    @Test func aDigestOfALongerLogFails() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        let digest = "9:" + String(repeating: "ab", count: 32)
        let result = try TallyProcess.run(["verify", "--store", store, "--expect", digest])
        #expect(result.status != 0)
    }

    @Test func aMalformedDigestIsAUsageError() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        let result = try TallyProcess.run(["verify", "--store", store, "--expect", "3:xyz"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("--expect"))
    }

    @Test func aFlippedByteIsReportedWithItsSegmentAndOffset() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        let segments = try FileManager.default.contentsOfDirectory(atPath: store + "/log").filter { $0.hasSuffix(".tlog") }
        let segment = try #require(segments.first)
        let path = store + "/log/" + segment
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 3] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: path))
        let result = try TallyProcess.run(["verify", "--store", store])
        #expect(result.status != 0)
        #expect(result.standardError.contains(segment), "\(result.standardError)")
        #expect(result.standardError.contains("at byte"), "\(result.standardError)")
    }

    // MARK: Issue 10, finding 9: verify that scripts can trust

    private func line(_ prefix: String, of run: TallyRun) -> String? {
        run.standardOutput.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    private func appendPot(_ store: String, in directory: TemporaryDirectory, amount: String, named name: String) throws {
        let event = #"{"type":"pot_funded","version":1,"effective_at":"2026-05-03T09:00:00Z","data":{"pot_id":"holiday","amount":{"amount":"\#(amount)","currency":"USD"}}}"#
        let file = try directory.file(name + ".ndjson", event)
        try #require(try TallyProcess.run(["append", file, "--store", store]).status == 0)
    }

    /// Copies `readmodels.sqlite` and its journal files, if any, from one store directory to another place.
    private func copyReadModels(from source: String, to target: String) throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? manager.removeItem(atPath: target + "/readmodels.sqlite" + suffix)
            if manager.fileExists(atPath: source + "/readmodels.sqlite" + suffix) {
                try manager.copyItem(atPath: source + "/readmodels.sqlite" + suffix, toPath: target + "/readmodels.sqlite" + suffix)
            }
        }
    }

    /// Before: exit 1 ("read model … not the log head"), although lagging is normal after a crash
    /// or during another process's import.
    @Test func readModelsBehindTheLogAreANoteAndExitZero() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        try #require(try TallyProcess.run(["balances", "--store", store]).status == 0)
        try copyReadModels(from: store, to: directory.path + "/older")
        try appendPot(store, in: directory, amount: "10.00", named: "more1")
        try appendPot(store, in: directory, amount: "20.00", named: "more2")
        try #require(try TallyProcess.run(["balances", "--store", store]).status == 0)
        try copyReadModels(from: directory.path + "/older", to: store)

        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 0, "\(verified.standardOutput)\(verified.standardError)")
        #expect(verified.standardOutput.contains("at event 3 of 5 (2 events behind)"), "\(verified.standardOutput)")
        #expect(line("head ", of: verified)?.hasPrefix("5:") == true)
        let json = try TallyProcess.run(["verify", "--store", store, "--json"])
        #expect(json.status == 0)
        #expect(json.standardOutput.contains(#""ok":true,"status":"intact","exit_status":0"#), "\(json.standardOutput)")
        #expect(json.standardOutput.contains(#""name":"balances","sequence":3,"state":"behind","behind_by":2,"ahead_by":0"#), "\(json.standardOutput)")
    }

    /// Before: read models ahead of an older log were reported as lagging, with advice to open the
    /// ledger to catch up.
    @Test func readModelsAheadOfAnOlderLogExitOneNamingTheWaysOut() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        try #require(try TallyProcess.run(["balances", "--store", store]).status == 0)
        try FileManager.default.copyItem(atPath: store + "/log", toPath: directory.path + "/older-log")
        try appendPot(store, in: directory, amount: "10.00", named: "more")
        try #require(try TallyProcess.run(["balances", "--store", store]).status == 0)
        try FileManager.default.removeItem(atPath: store + "/log")
        try FileManager.default.copyItem(atPath: directory.path + "/older-log", toPath: store + "/log")

        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 1)
        #expect(verified.standardError.contains("read models are ahead of the log"), "\(verified.standardError)")
        #expect(verified.standardError.contains("restore the newer log, or run `tally rebuild`"), "\(verified.standardError)")
        let json = try TallyProcess.run(["verify", "--store", store, "--json"])
        #expect(json.status == 1)
        #expect(json.standardOutput.contains(#""status":"read_models_disagree","exit_status":1"#), "\(json.standardOutput)")
        #expect(json.standardOutput.contains(#""name":"balances","sequence":4,"state":"ahead","behind_by":0,"ahead_by":1"#), "\(json.standardOutput)")
    }

    /// Before: a rewritten payload with recomputed frame checksums made verify print the head digest
    /// stored in the frame, equal to the one kept earlier, so a script comparing that line was fooled.
    @Test func aForgedPayloadPrintsTheRecomputedHeadWhichDiffersFromTheKeptOne() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/a"
        let firstDigest = try #require(line("head ", of: try TallyProcess.run(["init", "--store", store])))
        let events = [
            // A bank's name is not personal text (a pot's name would be sealed per subject in the log).
            #"{"type":"bank_connected","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"bank_id":"first","name":"Wqxzjvk"}}"#,
            #"{"type":"pot_created","version":1,"effective_at":"2026-05-02T09:00:00Z","data":{"pot_id":"holiday","name":"Holiday","target":{"amount":"1500.00","currency":"USD"}}}"#,
        ]
        try #require(try TallyProcess.run(["append", try directory.file("a.ndjson", events.joined(separator: "\n")), "--store", store]).status == 0)
        let kept = try #require(line("head ", of: try TallyProcess.run(["verify", "--store", store])))
        // A name that repeats nothing else is stored as literal bytes even in an LZ4 block.
        var log = try LogFileBytes(store: store)
        try log.rewrite("Wqxzjvk", with: "Wqxzjvm")
        try log.write()

        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 1)
        let head = try #require(line("head ", of: verified))
        #expect(head.hasPrefix("3:") && head.count == 66 && head != kept, "kept \(kept), printed \(head)")
        #expect(verified.standardError.contains("chainMismatch"), "\(verified.standardError)")
        // Events 2 and 3 were one commit: the last good event is 1, whose digest init printed.
        #expect(line("last good ", of: verified)?.hasPrefix(firstDigest + " ") == true, "\(verified.standardOutput)")
        let expected = try TallyProcess.run(["verify", "--store", store, "--expect", kept])
        #expect(expected.status == 1)
        #expect(expected.standardError.contains("does not hash to the expected digest"), "\(expected.standardError)")
        let json = try TallyProcess.run(["verify", "--store", store, "--json"])
        #expect(json.standardOutput.contains(#""head":"\#(head)","last_good":"\#(firstDigest)","broken_at":2"#), "\(json.standardOutput)")
    }

    /// Before: an overwritten read-model file made verify fail with an SQLite error.
    @Test func unreadableReadModelsExitTwoNamingRebuild() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        try #require(try TallyProcess.run(["balances", "--store", store]).status == 0)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + "/readmodels.sqlite" + suffix) }
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: store + "/readmodels.sqlite"))
        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 2, "\(verified.standardError)")
        #expect(verified.standardError.contains("read models unreadable") && verified.standardError.contains("`tally rebuild`"), "\(verified.standardError)")
        #expect(line("head ", of: verified)?.hasPrefix("3:") == true)
    }

    /// Issue 34, item 4: with the read models unreadable, verify still says what it knows: the
    /// log is intact and the expected digest matches (or not), then the read models' problem
    /// and the way out; exit 2 (or 1 for a digest that does not match).
    @Test func unreadableReadModelsDoNotHideTheLogsVerdict() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        let digest = try #require(head(of: try TallyProcess.run(["verify", "--store", store])))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + "/readmodels.sqlite" + suffix) }
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: store + "/readmodels.sqlite"))
        let verified = try TallyProcess.run(["verify", "--store", store, "--expect", digest])
        #expect(verified.status == 2, "\(verified.standardOutput)\(verified.standardError)")
        #expect(verified.standardOutput.contains("ok: 3 events in 1 segment (2 frames): checksums, hash chain and payloads intact"), "\(verified.standardOutput)")
        #expect(verified.standardOutput.contains("expected digest \(digest) matches"), "\(verified.standardOutput)")
        #expect(verified.standardError.contains("read models unreadable") && verified.standardError.contains("`tally rebuild`"), "\(verified.standardError)")
        let json = try TallyProcess.run(["verify", "--store", store, "--expect", digest, "--json"])
        #expect(json.status == 2 && json.standardOutput.contains("\"log_intact\":true") && json.standardOutput.contains("\"expectation_met\":true"), "\(json.standardOutput)")
        let other = "3:" + String(repeating: "0", count: 64)
        let mismatch = try TallyProcess.run(["verify", "--store", store, "--expect", other])
        #expect(mismatch.status == 1 && !mismatch.standardOutput.contains("ok: "), "\(mismatch.standardOutput)")
        #expect(mismatch.standardError.contains("does not hash to the expected digest"), "\(mismatch.standardError)")
    }

    /// Found by the crash harness's concurrent mode: without a busy timeout, verify's read-only
    /// connection failed with "database is locked" (exit 2) while a writer process opened or closed
    /// the read models. Verify and readers beside a stream of writer processes always exit 0.
    @Test func verifyAndReadersBesideAStreamOfWriterProcessesExitZero() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        let shared = SharedState()
        ConcurrentThreads.run(5) { index in
            if index < 2 {
                defer { shared.writing.subtract(1, ordering: .sequentiallyConsistent) }
                for deposit in 0..<16 {
                    let arguments = ["wealth", "deposit", "1.00", "--idempotency-key", "w\(index)-\(deposit)", "--store", store]
                    for _ in 0..<500 {
                        let result = (try? TallyProcess.run(arguments)) ?? TallyRun(status: -1, standardOutput: "", standardError: "could not start")
                        if result.status == 0 { break }
                        // A second writer is refused at once, appending nothing: try again.
                        if !result.standardError.contains("another writer holds") {
                            shared.failures.withLock { $0.append("\(arguments): \(result.standardError)") }
                            break
                        }
                    }
                }
            } else {
                repeat {
                    for arguments in index == 4 ? [["balances", "--store", store]] : [["verify", "--json", "--store", store]] {
                        let result = (try? TallyProcess.run(arguments)) ?? TallyRun(status: -1, standardOutput: "", standardError: "could not start")
                        if result.status != 0 { shared.failures.withLock { $0.append("\(arguments) exited \(result.status): \(result.standardOutput)\(result.standardError)") } }
                    }
                } while shared.writing.load(ordering: .sequentiallyConsistent) > 0
            }
        }
        #expect(shared.failures.withLock { $0 }.isEmpty, "\(shared.failures.withLock { $0 }.prefix(3))")
        let verified = try TallyProcess.run(["verify", "--store", store])
        #expect(verified.status == 0)
        #expect(line("head ", of: verified)?.hasPrefix("\(3 + 2 * 16 * 2):") == true, "\(verified.standardOutput)")
    }

    @Test func aMissingReadModelFileIsANoteInTextAndJSON() throws {
        let directory = try TemporaryDirectory()
        let store = try store(in: directory, named: "a", potName: "Holiday")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + "/readmodels.sqlite" + suffix) }
        let json = try TallyProcess.run(["verify", "--json", "--store", store])
        #expect(json.status == 0, "\(json.standardError)")
        #expect(json.standardOutput.contains(#""read_models":null"#), "\(json.standardOutput)")
        #expect(json.standardOutput.contains("read models not compared: there is no read-model file"), "\(json.standardOutput)")
        let text = try TallyProcess.run(["verify", "--store", store])
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("note: read models not compared: there is no read-model file"), "\(text.standardOutput)")
        #expect(try TallyProcess.run(["balances", "--store", store]).status == 0)
        let caughtUp = try TallyProcess.run(["verify", "--json", "--store", store])
        #expect(!caughtUp.standardOutput.contains("no read-model file"), "\(caughtUp.standardOutput)")
    }

    @Test func noStoreExitsThree() throws {
        let directory = try TemporaryDirectory()
        let verified = try TallyProcess.run(["verify", "--store", directory.path + "/missing"])
        #expect(verified.status == 3)
        #expect(verified.standardError.contains("no store at"), "\(verified.standardError)")
    }
}

/// What the threads of a concurrent test share.
final class SharedState: Sendable {
    let writing = Atomic<Int>(2)
    let failures = Mutex<[String]>([])
}

/// Runs `body` on `count` threads of their own at once (not the thread pool's, which on a small
/// machine may run them one after another), and waits for all of them.
enum ConcurrentThreads {
    static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        group.wait()
    }
}
