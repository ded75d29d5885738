import Foundation
import Testing
import TallyLog

/// Issue 34, items 2 and 12: a command that writes waits for another process writing the same
/// store (`--wait SECONDS`, `TALLY_WAIT`, 5 s by default, 0 for no wait) and says why when it
/// waits long; a reader waits for a writer rather than failing.
@Suite struct ConcurrentProcessCommandTests {
    private func funded(_ amount: String) -> String {
        #"{"type":"pot_funded","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"pot_id":"holiday","amount":{"amount":"\#(amount)","currency":"USD"}}}"#
    }

    /// A store with a pot, and a file funding it.
    private func store(in directory: TemporaryDirectory) throws -> (store: String, more: String) {
        let store = directory.path + "/home"
        try #require(try TallyProcess.run(["init", "--store", store]).status == 0)
        let created = try directory.file("created.ndjson", #"{"type":"pot_created","version":1,"effective_at":"2026-05-01T09:00:00Z","data":{"pot_id":"holiday","name":"Holiday","target":{"amount":"1500.00","currency":"USD"}}}"#)
        try #require(try TallyProcess.run(["append", created, "--store", store]).status == 0)
        return (store, try directory.file("more.ndjson", funded("5.00")))
    }

    /// Holds the store's writer lock, as another `tally` writing would, and lets it go after `seconds`.
    private func holdWriterLock(of store: String, for milliseconds: Int) throws -> DispatchSemaphore {
        let lock = try PosixFileSystem().lockForWriting(directory: store + "/log")
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
            lock.release()
            released.signal()
        }
        return released
    }

    @Test func aWriterWaitsForAnotherAndSaysWhyWhenTheWaitIsLong() throws {
        let directory = try TemporaryDirectory()
        let (store, more) = try store(in: directory)
        // Held 3 s: the writer says why it waits after a second of waiting, and under the
        // suite's load the command may start waiting well after the lock was taken.
        let released = try holdWriterLock(of: store, for: 3_000)
        let started = Date()
        let waited = try TallyProcess.run(["append", more, "--store", store])
        released.wait()
        #expect(waited.status == 0 && waited.standardOutput.contains("seq 3-3"), "\(waited.standardOutput)\(waited.standardError)")
        #expect(Date().timeIntervalSince(started) >= 2.9)
        #expect(waited.standardError.contains("waiting for another process that is writing to \(store) to finish"), "\(waited.standardError)")
    }

    @Test func noWaitFailsAtOnceAndAShortWaitSaysHowLongItWaited() throws {
        let directory = try TemporaryDirectory()
        let (store, more) = try store(in: directory)
        let released = try holdWriterLock(of: store, for: 4_000)
        let before = try directory.snapshot("home")
        let started = Date()
        let immediate = try TallyProcess.run(["append", more, "--store", store, "--wait", "0"])
        #expect(immediate.status != 0 && immediate.standardError.contains("another writer holds the log"), "\(immediate.standardError)")
        #expect(Date().timeIntervalSince(started) < 2)
        let short = try TallyProcess.run(["append", more, "--store", store], environment: ["TALLY_WAIT": "0.3"])
        #expect(short.status != 0 && short.standardError.contains("for the whole wait of 300 ms"), "\(short.standardError)")
        #expect(try directory.snapshot("home") == before, "a writer that gave up changed nothing")
        for bad in ["-1", "abc", "1.2345678", "100000", ""] {
            let refused = try TallyProcess.run(["append", more, "--store", store, "--wait", bad])
            #expect(refused.status == 64 && refused.standardError.contains("--wait"), "--wait '\(bad)': \(refused.standardError)")
        }
        released.wait()
    }

    /// With the read models missing and a writer holding the store, a reader waits for the
    /// writer (then builds the read models) instead of failing with `locked` at once.
    @Test func aReaderWaitsForAWriterWhenThereAreNoReadModels() throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try store(in: directory)
        try FileManager.default.removeItem(atPath: store + "/readmodels.sqlite")
        let released = try holdWriterLock(of: store, for: 1_000)
        let read = try TallyProcess.run(["pot", "list", "--json", "--store", store])
        released.wait()
        #expect(read.status == 0 && read.standardOutput.contains("\"id\":\"holiday\""), "\(read.standardOutput)\(read.standardError)")
    }
}
