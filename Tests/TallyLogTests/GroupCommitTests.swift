import Foundation
import Synchronization
import Testing
@testable import TallyLog

struct GroupCommitTests {
    /// 8 threads × 200 durable appends of 1…3 records: gapless, unique, contiguous per call, frames shared.
    @Test func concurrentThreadsShareFrames() throws {
        try withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 64 << 10, sync: .everyCommit))
            let results = Mutex<[(thread: Int, size: Int, result: AppendResult)]>([])
            let failures = Mutex<[String]>([])
            let threads = 8
            let appends = 200
            // Real threads: concurrentPerform would run only as many as there are cores.
            runOnThreads(threads) { thread in
                var rng = SplitMix64(seed: UInt64(thread))
                for index in 0..<appends {
                    let size = Int(rng.next() % 3) + 1
                    let records = (0..<size).map { position in
                        LogRecord(kind: UInt32(thread), version: 1, effectiveAt: 0, entity: "thread:\(thread)", payload: Array("\(thread)/\(index)/\(position)".utf8))
                    }
                    do {
                        let result = try writer.append(records)
                        results.withLock { $0.append((thread, size, result)) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            try writer.close()
            #expect(failures.withLock { $0 }.isEmpty)
            let all = results.withLock { $0 }
            #expect(all.count == threads * appends)
            var covered = Set<UInt64>()
            for entry in all {
                #expect(entry.result.last - entry.result.first + 1 == UInt64(entry.size))
                for sequence in entry.result.first...entry.result.last { #expect(covered.insert(sequence).inserted) }
            }
            let total = all.reduce(0) { $0 + $1.size }
            #expect(covered == Set(1...UInt64(total)))

            let events = try readAll(directory)
            #expect(events.map(\.sequence) == Array(1...UInt64(total)))
            for entry in all {
                let slice = events[Int(entry.result.first - 1)...Int(entry.result.last - 1)]
                #expect(slice.allSatisfy { $0.entity == "thread:\(entry.thread)" && $0.recordedAt == entry.result.recordedAt })
                let positions = slice.map { String(decoding: $0.payload, as: UTF8.self).split(separator: "/")[2] }
                #expect(positions == (0..<entry.size).map { Substring(String($0)) })
            }
            let statistics = try LogReader.open(directory: directory).statistics()
            #expect(statistics.frames < UInt64(threads * appends), "frames \(statistics.frames)")
            #expect(try verifyLog(directory: directory).isValid)
        }
    }

    @Test func asyncAppendsShareFramesToo() async throws {
        try await withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions(sync: .everyCommit))
            let results = try await withThrowingTaskGroup(of: AppendResult.self) { group in
                for task in 0..<400 {
                    group.addTask {
                        try await writer.append([
                            LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "task:\(task)", payload: [1]),
                            LogRecord(kind: 2, version: 1, effectiveAt: 0, entity: "task:\(task)", cause: .earlierInBatch(0), payload: [2]),
                        ])
                    }
                }
                var results: [AppendResult] = []
                for try await result in group { results.append(result) }
                return results
            }
            let blocking = try await writer.append([LogRecord(kind: 3, version: 1, effectiveAt: 0, entity: "", payload: [])])
            #expect(blocking.first == 801)
            try writer.close()
            #expect(Set(results.flatMap { [$0.first, $0.last] }) == Set(1...800))
            let events = try readAll(directory)
            for result in results {
                #expect(events[Int(result.last - 1)].cause == result.first)
            }
            let frames = try LogReader.open(directory: directory).statistics().frames
            #expect(frames < 401, "frames \(frames)")
            #expect(try verifyLog(directory: directory).isValid)
        }
    }

    @Test func aFailedGroupFailsEveryCallerAndLeavesTheLogAsBefore() throws {
        try withTemporaryDirectory { directory in
            let armed = Atomic<Bool>(false)
            var options = testOptions(sync: .everyCommit)
            options.faultInjection = { _ in
                if armed.load(ordering: .relaxed) { throw LogError(.io, "pwrite failed: injected") }
            }
            let writer = try LogWriter.create(directory: directory, options: options)
            _ = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "", payload: [1])])
            let before = try fileBytes(try segmentPaths(directory)[0])
            armed.store(true, ordering: .relaxed)
            let failures = Atomic<Int>(0)
            runOnThreads(8) { _ in
                for _ in 0..<20 {
                    do { _ = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "", payload: [2])]) }
                    catch { failures.add(1, ordering: .relaxed) }
                }
            }
            #expect(failures.load(ordering: .relaxed) == 160)
            #expect(try fileBytes(try segmentPaths(directory)[0]) == before)
            armed.store(false, ordering: .relaxed)
            #expect(try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "", payload: [3])]).first == 2)
            try writer.close()
            #expect(try verifyLog(directory: directory).isValid)
        }
    }

    @Test func closeFailsQueuedAsyncAppends() async throws {
        try await withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions())
            _ = try await writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "", payload: [])])
            try writer.close()
            await #expect(throws: LogError.self) {
                _ = try await writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "", payload: [])])
            }
        }
    }
}

/// Runs `body(index)` on `count` dedicated threads and waits for all of them.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}
