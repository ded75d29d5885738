import Foundation
import Testing
@testable import TallyLog

/// A writer waits for another writer's lock (``LogOptions/lockWaitMicroseconds``), like SQLite's
/// busy timeout, says so when the wait grows long, and with no wait fails at once as before.
struct LockWaitTests {
    private func options(waitMicroseconds: Int64, noticeAfter: Int64 = 1_000_000, notices: NoticeLog? = nil) -> LogOptions {
        var options = testOptions(sync: .everyCommit)
        options.lockWaitMicroseconds = waitMicroseconds
        options.lockWaitNoticeAfterMicroseconds = noticeAfter
        if let notices { options.lockWaitNotice = { notices.append($0) } }
        return options
    }

    @Test func aWriterWaitsForTheLockAndSaysWhyOnceTheWaitGrowsLong() throws {
        try withTemporaryDirectory { directory in
            let first = try LogWriter.create(directory: directory, options: testOptions(sync: .everyCommit))
            let head = try first.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "first", payload: [1])]).head
            let released = DispatchSemaphore(value: 0)
            let notices = NoticeLog()
            // The lock is released once the waiting writer has said why it waits (or after
            // 9 s, which fails the test), not after a fixed time: on a loaded machine the
            // writer may start waiting so late that a timed release comes before its notice is due.
            DispatchQueue.global().async {
                _ = notices.firstPosted.wait(timeout: .now() + .seconds(9))
                try? first.close()
                released.signal()
            }
            let start = LogOptions.monotonicMicroseconds()
            let second = try LogWriter.open(directory: directory, options: options(waitMicroseconds: 10_000_000, noticeAfter: 150_000, notices: notices))
            let waited = LogOptions.monotonicMicroseconds() - start
            released.wait()
            #expect(second.head == head)
            #expect(waited >= 150_000 && waited < 9_000_000, "waited \(waited) µs for a lock released after the notice, due after 150 ms")
            #expect(notices.values.count == 1 && notices.values.allSatisfy { $0 >= 150_000 }, "\(notices.values)")
            try second.close()
        }
    }

    @Test func noWaitFailsAtOnceAndAWaitThatRunsOutSaysHowLongItWaited() throws {
        try withTemporaryDirectory { directory in
            let holder = try LogWriter.create(directory: directory, options: testOptions(sync: .everyCommit))
            defer { try? holder.close() }
            for (wait, message) in [(Int64(0), "close it first"), (250_000, "for the whole wait of 250 ms")] {
                let notices = NoticeLog()
                let start = LogOptions.monotonicMicroseconds()
                do {
                    _ = try LogWriter.open(directory: directory, options: options(waitMicroseconds: wait, noticeAfter: 100_000, notices: notices))
                    Issue.record("a second writer opened while the first held the lock")
                } catch let error as LogError {
                    #expect(error.code == .locked && error.message.contains(message), "\(error)")
                }
                let waited = LogOptions.monotonicMicroseconds() - start
                // At most 5 s past the wait: it does not hang, and a loaded machine's pauses fit.
                #expect(waited >= wait && waited < wait + 5_000_000, "wait \(wait) µs: took \(waited) µs")
                #expect(notices.values.count == (wait == 0 ? 0 : 1), "wait \(wait) µs: \(notices.values)")
            }
            var negative = testOptions()
            negative.lockWaitMicroseconds = -1
            #expect(throws: LogError.self) { _ = try LogWriter.open(directory: directory, options: negative) }
        }
    }
}

/// The waits a writer reported, from its notice callback's thread.
final class NoticeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Int64] = []
    /// Signalled at each notice: another thread waits on it for the first.
    let firstPosted = DispatchSemaphore(value: 0)
    func append(_ value: Int64) {
        lock.withLock { stored.append(value) }
        firstPosted.signal()
    }
    var values: [Int64] { lock.withLock { stored } }
}
