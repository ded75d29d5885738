import Foundation
import Testing
@testable import TallyLog

struct LogReaderTests {
    @Test func readsFromEverySequenceAcrossSegments() throws {
        try withTemporaryDirectory { directory in
            let all = try buildLog(at: directory, frames: 60, segmentBytesLimit: 700)
            let reader = try LogReader.open(directory: directory)
            #expect(reader.head.sequence == UInt64(all.count))
            for start in 1...UInt64(all.count) {
                let events = try reader.events(from: start, limit: 5)
                #expect(events == Array(all[Int(start - 1)..<min(all.count, Int(start - 1) + 5)]), "from \(start)")
            }
            var seen: [LoggedEvent] = []
            try reader.forEach(from: 7, through: 30) { seen.append($0) }
            #expect(seen == Array(all[6..<30]))
            #expect(try reader.events(from: UInt64(all.count) + 1, limit: 3).isEmpty)
            #expect(try reader.events(from: 0, limit: 1) == [all[0]])
        }
    }

    /// Events asked for by number, scattered, repeated, 0 or past the head, in order or not,
    /// over frames of several events, across segments and the sparse index: each one asked
    /// for comes back once, in log order, as a walk over the whole log would give it.
    @Test func eventsAtScatteredNumbersComeBackOnceEachInOrder() throws {
        try withTemporaryDirectory { directory in
            let seed: UInt64 = 2611
            let all = try buildLog(at: directory, frames: 300, segmentBytesLimit: 4_096, seed: seed, payloadBytesMax: 60, recordsPerFrameMax: 12)
            var rng = SplitMix64(seed: seed &+ 1)
            let reader = try LogReader.open(directory: directory)
            #expect(reader.snapshot.segments.count > 3 && reader.snapshot.entries.count > 3, "seed \(seed)")
            let head = UInt64(all.count)
            for round in 0..<200 {
                let count = Int(rng.next() % 40)
                let wanted = (0..<count).map { _ in rng.next() % (head + 5) }.sorted()
                var seen: [LoggedEvent] = []
                try reader.forEach(at: wanted) { seen.append($0) }
                let expected = Set(wanted).filter { $0 >= 1 && $0 <= head }.sorted().map { all[Int($0 - 1)] }
                #expect(seen == expected, "round \(round), seed \(seed)")
            }
            var every: [LoggedEvent] = []
            try reader.forEach(at: Array(0...(head + 1))) { every.append($0) }
            #expect(every == all, "seed \(seed)")
            // In any order: each event once, in log order.
            var shuffled: [LoggedEvent] = []
            try reader.forEach(at: (Array(1...head) + [3, head, 0, head + 2]).shuffled(using: &rng)) { shuffled.append($0) }
            #expect(shuffled == all, "seed \(seed)")
        }
    }

    @Test func hashOfAnyEventMatchesTheChain() throws {
        try withTemporaryDirectory { directory in
            let all = try buildLog(at: directory, frames: 30, segmentBytesLimit: 700)
            let reader = try LogReader.open(directory: directory)
            var hash = LogFormat.genesisHash
            #expect(try reader.hash(of: 0) == hash)
            for event in all {
                hash = ChainHash.next(after: hash, event)
                #expect(try reader.hash(of: event.sequence) == hash, "sequence \(event.sequence)")
            }
            #expect(reader.head.hash == hash)
            #expect(try reader.hash(of: UInt64(all.count) + 1) == nil)
        }
    }

    /// Every frame gets one recorded time; runs of equal times span several frames and segments.
    @Test func firstSequenceByRecordedTime() throws {
        try withTemporaryDirectory { directory in
            let seed: UInt64 = 77
            var rng = SplitMix64(seed: seed)
            let clock = TestClock(start: 100, step: 0)
            let writer = try LogWriter.create(directory: directory, options: testOptions(clock: clock, segmentBytesLimit: 512))
            var time: Int64 = 100
            for _ in 0..<120 {
                if rng.next() % 3 == 0 { time += Int64(rng.next() % 3) * 10; clock.set(time, step: 0) }
                _ = try writer.append((0..<Int(rng.next() % 3 + 1)).map { _ in randomRecord(&rng, payloadBytesMax: 30) })
            }
            try writer.close()
            let all = try readAll(directory)
            let reader = try LogReader.open(directory: directory)
            for instant in Int64(90)...(time + 15) {
                let expected = all.first { $0.recordedAt >= instant }?.sequence
                #expect(try reader.firstSequence(recordedAtOrAfter: instant) == expected, "instant \(instant), seed \(seed)")
            }
        }
    }

    @Test func firstSequenceWithSparseIndexOverLargeSegments() throws {
        try withTemporaryDirectory { directory in
            let clock = TestClock(start: 0, step: 1)
            let writer = try LogWriter.create(directory: directory, options: testOptions(clock: clock, segmentBytesLimit: 1 << 20))
            var rng = SplitMix64(seed: 5)
            for _ in 0..<400 {
                let payload = (0..<600).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                _ = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "e", payload: payload)])
            }
            try writer.close()
            let reader = try LogReader.open(directory: directory)
            #expect(reader.snapshot.entries.count > 2 && reader.snapshot.entries.count < 100)
            for instant in Int64(-1)...401 {
                let expected: UInt64? = instant < 400 ? UInt64(max(instant, 0) + 1) : nil
                #expect(try reader.firstSequence(recordedAtOrAfter: instant) == expected, "instant \(instant)")
            }
            #expect(try reader.events(from: 399, limit: 1).first?.recordedAt == 398)
        }
    }

    @Test func statisticsCountFramesAndBytes() throws {
        try withTemporaryDirectory { directory in
            let all = try buildLog(at: directory, frames: 40, segmentBytesLimit: 700)
            let statistics = try LogReader.open(directory: directory).statistics()
            let segments = try segmentPaths(directory)
            let frames = try segments.reduce(0) { $0 + (try layout(of: $1).structures.count - 1) }
            let bytes = try segments.reduce(0) { $0 + (try fileBytes($1).count) }
            #expect(statistics.events == UInt64(all.count))
            #expect(statistics.frames == 40 && frames == 40)
            #expect(statistics.segments == segments.count)
            #expect(statistics.bytesOnDisk == Int64(bytes))
            #expect(statistics.compressionRatio.numerator == statistics.uncompressedBytes)
            #expect(statistics.compressionRatioPerMille == statistics.uncompressedBytes * 1000 / statistics.storedBytes)
        }
    }

    @Test func readerSeesASnapshotWhileTheWriterAppends() throws {
        try withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 600))
            var rng = SplitMix64(seed: 1)
            for _ in 0..<10 { _ = try writer.append([randomRecord(&rng)]) }
            var reader = try LogReader.open(directory: directory)
            #expect(reader.head.sequence == 10)
            for _ in 0..<30 { _ = try writer.append([randomRecord(&rng)]) }
            #expect(try readCount(reader) == 10)
            try reader.refresh()
            #expect(reader.head == writer.head)
            #expect(try readCount(reader) == 40)

            // A frame still being written at the end (here: half of one) ends the view while the writer holds the lock.
            let last = try segmentPaths(directory).last!
            let before = try fileBytes(last)
            let (frame, _) = FrameCodec.encode([LoggedEvent(sequence: 41, recordedAt: .max, kind: 1, version: 1, effectiveAt: 0, entity: "", cause: nil, idempotencyKey: nil, payload: [1, 2, 3])], previousHash: writer.head.hash)
            try writeFileBytes(before + frame.prefix(frame.count - 2), to: last)
            try reader.refresh()
            #expect(reader.head.sequence == 40)
            // A complete last frame with a bad checksum is "not yet committed" while the writer is active…
            var damaged = frame
            damaged[damaged.count - 1] ^= 1
            try writeFileBytes(before + damaged, to: last)
            try reader.refresh()
            #expect(reader.head.sequence == 40)
            try writer.close()
            // …and corruption once no writer holds the lock.
            #expect { _ = try LogReader.open(directory: directory) } throws: { ($0 as! LogError).code == .corrupt }
            try writeFileBytes(before, to: last)
            #expect(try LogReader.open(directory: directory).head.sequence == 40)
        }
    }

    func readCount(_ reader: LogReader) throws -> Int {
        var count = 0
        try reader.forEach { _ in count += 1 }
        return count
    }
}
