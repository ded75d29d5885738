import Foundation
import Testing
@testable import TallyLog

/// A pinned append whose frame was encoded ahead on another thread
/// (`LogWriter.encodeAhead`): the log holds the same bytes as without it, and a frame made
/// of other records, or on another head, is never the one written.
struct EncodeAheadTests {
    private static func segmentBytes(_ directory: String) throws -> [Data] {
        try segmentPaths(directory).map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    }

    @Test func aFrameEncodedAheadWritesTheBytesAnAppendWouldHaveWritten() throws {
        let seed: UInt64 = 20_261_127
        var rng = SplitMix64(seed: seed)
        let batches = (0..<30).map { _ in (0..<Int(rng.next() % 300 + 1)).map { _ in randomRecord(&rng) } }
        var logs: [[Data]] = []
        for ahead in [false, true] {
            try withTemporaryDirectory { directory in
                let writer = try LogWriter.create(directory: directory, options: testOptions(clock: TestClock(start: 1_000, step: 10)))
                for (index, batch) in batches.enumerated() {
                    let pin = AppendPin(firstSequence: writer.head.sequence + 1, recordedAt: 2_000 + Int64(index))
                    let encoded = ahead ? writer.encodeAhead(batch, pinnedTo: pin) : nil
                    #expect((encoded != nil) == ahead, "seed \(seed), batch \(index)")
                    _ = try writer.append(batch, pinnedTo: pin, encodedAhead: encoded)
                }
                try writer.close()
                #expect(try verifyLog(directory: directory).isValid, "seed \(seed)")
                logs.append(try Self.segmentBytes(directory))
            }
        }
        #expect(logs[0] == logs[1], "seed \(seed): the log written with frames encoded ahead differs")
    }

    /// The same number of records at the same pin, but other records: the frame made ahead
    /// must not be written for them.
    @Test func aFrameMadeOfOtherRecordsIsNotWritten() throws {
        try withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions(clock: TestClock(start: 1_000)))
            let pin = AppendPin(firstSequence: 1, recordedAt: 1_500)
            let refused = [LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "a", payload: [1])]
            let kept = [LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "a", payload: [2])]
            let ahead = try #require(writer.encodeAhead(refused, pinnedTo: pin))
            _ = try writer.append(kept, pinnedTo: pin, encodedAhead: ahead)
            // Equal records in another array are encoded again too (the frame is told by its array).
            let copy = Array(kept.map { $0 })
            let second = AppendPin(firstSequence: 2, recordedAt: 1_500)
            let aheadOfCopy = try #require(writer.encodeAhead(kept, pinnedTo: second))
            _ = try writer.append(copy + [], pinnedTo: second, encodedAhead: aheadOfCopy)
            try writer.close()
            #expect(try readAll(directory).map(\.payload) == [[2], [2]])
            #expect(try verifyLog(directory: directory).isValid)
        }
    }

    /// A frame made on a head the log has since moved past is not written: the append is
    /// refused for its pin, as it would be without one.
    @Test func aFrameMadeOnAnEarlierHeadIsNotWritten() throws {
        try withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions(clock: TestClock(start: 1_000)))
            let records = [LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "a", payload: [7])]
            let stale = try #require(writer.encodeAhead(records, pinnedTo: AppendPin(firstSequence: 1, recordedAt: 1_000)))
            _ = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "b", payload: [8])])
            #expect(throws: LogError.self) {
                _ = try writer.append(records, pinnedTo: AppendPin(firstSequence: 1, recordedAt: 1_000), encodedAhead: stale)
            }
            _ = try writer.append(records, pinnedTo: AppendPin(firstSequence: 2, recordedAt: 1_000), encodedAhead: stale)
            #expect(writer.encodeAhead(records, pinnedTo: AppendPin(firstSequence: 9, recordedAt: 1_000)) == nil)
            try writer.close()
            #expect(try readAll(directory).map(\.payload) == [[8], [7]])
            #expect(try verifyLog(directory: directory).isValid)
        }
    }

    /// Records whose cause is not an earlier event: the frame is left unmade, and the append
    /// refuses them as it does without one, appending nothing.
    @Test func recordsTheLogRefusesAreRefusedWithAFrameAheadToo() throws {
        try withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions(clock: TestClock(start: 1_000)))
            let pin = AppendPin(firstSequence: 1, recordedAt: 1_000)
            let records = [LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "a", cause: .sequence(5), payload: [1])]
            let ahead = try #require(writer.encodeAhead(records, pinnedTo: pin))
            #expect(throws: LogError.self) { _ = try writer.append(records, pinnedTo: pin, encodedAhead: ahead) }
            #expect(writer.head.sequence == 0)
            try writer.close()
        }
    }
}
