import Foundation
import Testing
@testable import TallyLog

struct LogAppendTests {
    @Test func roundTripWithCausesKeysAndPayloads() throws {
        try withTemporaryDirectory { directory in
            let clock = TestClock(start: 1_000, step: 10)
            let writer = try LogWriter.create(directory: directory, options: testOptions(clock: clock))
            let deposit = LogRecord(kind: 1, version: 1, effectiveAt: -5, entity: "wallet:1", idempotencyKey: "bank:tx-1", payload: [1, 2, 3])
            let split = LogRecord(kind: 2, version: 3, effectiveAt: 900, entity: "wallet:1", cause: .earlierInBatch(0), payload: [])
            let large = LogRecord(kind: 3, version: 1, effectiveAt: 0, entity: "", payload: [UInt8](repeating: 9, count: LogFormat.payloadBytesMax))
            let first = try writer.append([deposit, split])
            #expect(first.first == 1 && first.last == 2 && first.recordedAt == 1_000)
            let second = try writer.append([LogRecord(kind: 4, version: 1, effectiveAt: 1, entity: "é", cause: .sequence(2), payload: [0]), large])
            #expect(second.first == 3 && second.last == 4 && second.recordedAt == 1_010)
            #expect(writer.head == second.head)
            try writer.close()

            let events = try readAll(directory)
            #expect(events == [
                expectedEvent(deposit, sequence: 1, recordedAt: 1_000, cause: nil),
                expectedEvent(split, sequence: 2, recordedAt: 1_000, cause: 1),
                LoggedEvent(sequence: 3, recordedAt: 1_010, kind: 4, version: 1, effectiveAt: 1, entity: "é", cause: 2, idempotencyKey: nil, payload: [0]),
                expectedEvent(large, sequence: 4, recordedAt: 1_010, cause: nil),
            ])
            let verification = try verifyLog(directory: directory, expect: second.head)
            #expect(verification.isValid && verification.head == second.head)
        }
    }

    @Test func reopenContinuesSequenceChainAndTime() throws {
        try withTemporaryDirectory { directory in
            let clock = TestClock(start: 5_000)
            var writer = try LogWriter.create(directory: directory, options: testOptions(clock: clock))
            _ = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "a", payload: [1])])
            try writer.close()
            clock.set(100)   // the wall clock went backwards
            writer = try LogWriter.open(directory: directory, options: testOptions(clock: clock))
            let result = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "a", payload: [2])])
            #expect(result.first == 2 && result.recordedAt == 5_000)
            try writer.close()
            #expect(try verifyLog(directory: directory).isValid)
        }
    }

    @Test func rollsOverAcrossManySegments() throws {
        try withTemporaryDirectory { directory in
            let seed: UInt64 = 2024
            var rng = SplitMix64(seed: seed)
            let writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 1_024))
            var records: [LogRecord] = []
            for _ in 0..<150 {
                let batch = (0..<Int(rng.next() % 4 + 1)).map { _ in randomRecord(&rng) }
                let result = try writer.append(batch)
                #expect(result.first == UInt64(records.count + 1), "seed \(seed)")
                records += batch
            }
            try writer.close()
            let segments = try segmentPaths(directory)
            #expect(segments.count > 10, "seed \(seed)")
            for (index, path) in segments.enumerated() {
                let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
                let frames = try layout(of: path).structures.count - 1
                #expect(size <= 1_024 || frames == 1, "segment \(index) is \(size) bytes with \(frames) frames, seed \(seed)")
            }
            let events = try readAll(directory)
            #expect(events.map(\.payload) == records.map(\.payload), "seed \(seed)")
            #expect(events.map(\.sequence) == Array(1...UInt64(records.count)))
            #expect(try verifyLog(directory: directory).isValid)
        }
    }

    @Test func limitsAndInvalidRecordsThrowAndAppendNothing() throws {
        try withTemporaryDirectory { directory in
            var options = testOptions()
            options.frameEventsLimit = 10
            options.frameBytesLimit = 4_096
            let writer = try LogWriter.create(directory: directory, options: options)
            _ = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "ok", payload: [1])])
            let good = LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "ok", payload: [])
            func record(entity: String = "ok", key: String? = nil, cause: CauseReference? = nil, payload: Int = 0) -> LogRecord {
                LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: entity, cause: cause, idempotencyKey: key, payload: [UInt8](repeating: 1, count: payload))
            }
            let cases: [([LogRecord], LogError.Code, String)] = [
                ([], .invalidRecord, "at least one"),
                ([good, record(entity: String(repeating: "x", count: 256))], .limitExceeded, "entityBytesMax"),
                ([record(key: "")], .invalidRecord, "must not be empty"),
                ([record(key: String(repeating: "k", count: 256))], .limitExceeded, "idempotencyKeyBytesMax"),
                ([record(payload: LogFormat.payloadBytesMax + 1)], .limitExceeded, "payloadBytesMax"),
                ([record(payload: 5_000)], .limitExceeded, "frameBytesLimit"),
                (Array(repeating: good, count: 11), .limitExceeded, "frameEventsLimit"),
                ([record(cause: .earlierInBatch(0))], .invalidRecord, "does not come before"),
                ([good, record(cause: .earlierInBatch(1))], .invalidRecord, "does not come before"),
                ([record(cause: .sequence(0))], .invalidRecord, "sequence 0"),
                ([good, record(cause: .sequence(3))], .invalidRecord, "not an earlier event"),
            ]
            for (records, code, phrase) in cases {
                do {
                    _ = try writer.append(records)
                    Issue.record("expected \(code) for \(phrase)")
                } catch let error as LogError {
                    #expect(error.code == code, "\(error)")
                    #expect(error.message.contains(phrase), "\(error)")
                }
            }
            #expect(writer.head.sequence == 1)
            let next = try writer.append([record(cause: .sequence(1))])
            #expect(next.first == 2)
            try writer.close()
            #expect(try readAll(directory).count == 2)
        }
    }

    @Test func secondWriterIsLockedAndCreateRefusesExistingLog() throws {
        try withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions())
            #expect { _ = try LogWriter.open(directory: directory) } throws: { error in
                let error = error as! LogError
                return error.code == .locked && error.message.contains(directory)
            }
            #expect { _ = try LogWriter.create(directory: directory) } throws: { ($0 as! LogError).code == .locked }
            try writer.close()
            #expect { _ = try LogWriter.create(directory: directory) } throws: { ($0 as! LogError).code == .alreadyExists }
            let reopened = try LogWriter.open(directory: directory)
            try reopened.close()
            #expect { _ = try LogWriter.open(directory: directory + "/missing") } throws: { ($0 as! LogError).code == .notFound }
        }
    }

    @Test func closedWriterRefusesAppends() throws {
        try withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions())
            try writer.close()
            try writer.close()
            #expect { _ = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "", payload: [])]) } throws: {
                ($0 as! LogError).code == .closed
            }
        }
    }

    @Test func emptyLogHasGenesisHead() throws {
        try withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions())
            #expect(writer.head == .genesis)
            try writer.close()
            let reader = try LogReader.open(directory: directory)
            #expect(reader.head == .genesis)
            #expect(try reader.events(from: 1, limit: 10).isEmpty)
            #expect(try reader.firstSequence(recordedAtOrAfter: 0) == nil)
            let verification = try verifyLog(directory: directory, expect: .genesis)
            #expect(verification.isValid && verification.head == .genesis)
        }
    }
}
