import Foundation
import PostgresTestSupport
import Testing
@testable import TallyLog

/// The log's one interface (`LogWriting`, `LogReading`) as everything above it relies on it,
/// checked on each backend alike: the file log and the log on PostgreSQL (a real server) keep
/// the same promises about sequence numbers, recorded times, ranges, hashes, reopening and
/// pinned appends.
@Suite("The log's interface, on each backend")
struct LogInterfaceTests {
    /// A log under test: a writer, and how to open the same log again.
    struct Log {
        let writer: any LogWriting
        let reopen: () throws -> any LogWriting
        let reader: () throws -> any LogReading
    }

    /// Makes an empty log on `backend` in (or named after) `directory`.
    private func makeLog(_ backend: LogBackend, in directory: String, clock: TestClock) throws -> Log {
        let options = testOptions(clock: clock)
        switch backend {
        case .files:
            let path = directory + "/log"
            return Log(
                writer: try LogWriter.create(directory: path, options: options),
                reopen: { try LogWriter.open(directory: path, options: options) },
                reader: { try LogReader.open(directory: path) })
        case .postgresql:
            let location = try PostgresLogLocation(try #require(try backend.newLocation("interface")))
            return Log(
                writer: try PostgresLogWriter.create(location, owner: "interface-test", options: options),
                reopen: { try PostgresLogWriter.open(location, owner: "interface-test", options: options, waitSeconds: 0) },
                reader: { try PostgresLogReader.open(location) })
        }
    }

    @Test(arguments: LogBackend.allCases)
    func appendsGetGaplessNumbersAndEveryRangeReadsBackAsAppended(on backend: LogBackend) throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        var rng = SplitMix64(seed: seed)
        try withTemporaryDirectory { directory in
            let clock = TestClock()
            let log = try makeLog(backend, in: directory, clock: clock)
            defer { try? log.writer.close() }
            var appended: [LogRecord] = []
            var frameEnds: [UInt64] = []
            for _ in 0..<30 {
                let batch = (0..<Int(rng.next() % 20 + 1)).map { _ in randomRecord(&rng) }
                let result = try log.writer.append(batch)
                #expect(result.first == UInt64(appended.count) + 1, "seed \(seed): numbers follow the head without a gap")
                #expect(result.last == result.first + UInt64(batch.count) - 1, "seed \(seed)")
                #expect(log.writer.head == result.head && result.head.sequence == result.last, "seed \(seed)")
                #expect(log.writer.lastRecordedAt == result.recordedAt, "seed \(seed)")
                appended += batch
                frameEnds.append(result.last)
            }
            let reader = try log.writer.openReader()
            #expect(reader.head == log.writer.head, "seed \(seed)")
            var all: [LoggedEvent] = []
            var hashes: [UInt64: [UInt8]] = [:]
            try reader.forEach(from: 1, through: nil) { event, hash in
                all.append(event)
                if let hash { hashes[event.sequence] = hash }
            }
            #expect(all.map(\.sequence) == Array(1...UInt64(appended.count)), "seed \(seed)")
            #expect(all.map(\.payload) == appended.map(\.payload), "seed \(seed): the bytes as appended")
            #expect(all.map(\.entity) == appended.map(\.entity), "seed \(seed)")
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.recordedAt <= $1.recordedAt }, "seed \(seed): recorded times never go back")
            #expect(hashes.keys.sorted() == frameEnds, "seed \(seed): a hash after each commit's last event")
            for end in frameEnds { #expect(try reader.hash(of: end) == hashes[end], "seed \(seed): hash of \(end)") }
            #expect(try reader.hash(of: 0) == LogFormat.genesisHash)
            #expect(try reader.hash(of: UInt64(appended.count) + 1) == nil)
            for _ in 0..<20 {
                let low = rng.next() % UInt64(appended.count) + 1
                let high = low + rng.next() % (UInt64(appended.count) - low + 1)
                var range: [UInt64] = []
                try reader.forEach(from: low, through: high) { range.append($0.sequence) }
                #expect(range == Array(low...high), "seed \(seed): \(low)…\(high)")
            }
            let scattered = (0..<15).map { _ in rng.next() % UInt64(appended.count + 3) }
            var picked: [UInt64] = []
            try reader.forEach(at: scattered) { picked.append($0.sequence) }
            #expect(picked == Set(scattered).filter { $0 >= 1 && $0 <= UInt64(appended.count) }.sorted(), "seed \(seed)")
            let middle = all[all.count / 2]
            let first = try reader.firstSequence(recordedAtOrAfter: middle.recordedAt)
            #expect(first == all.first { $0.recordedAt >= middle.recordedAt }?.sequence, "seed \(seed)")
            #expect(try reader.firstSequence(recordedAtOrAfter: all.last!.recordedAt + 1) == nil)
            let statistics = try reader.statistics()
            #expect(statistics.events == UInt64(appended.count) && statistics.frames == UInt64(frameEnds.count), "seed \(seed): \(statistics)")
        }
    }

    @Test(arguments: LogBackend.allCases)
    func aReopenedLogGoesOnFromItsHeadAndAReaderKeepsItsView(on backend: LogBackend) throws {
        var rng = SplitMix64(seed: 0x1F_2029)
        try withTemporaryDirectory { directory in
            let clock = TestClock()
            let log = try makeLog(backend, in: directory, clock: clock)
            _ = try log.writer.append((0..<5).map { _ in randomRecord(&rng) })
            let early = try log.writer.openReader()
            let last = try log.writer.append([randomRecord(&rng)])
            #expect(early.head.sequence == 5, "a reader is a view up to the head it was opened at")
            var seen: [UInt64] = []
            try early.forEach { seen.append($0.sequence) }
            #expect(seen == Array(1...5))
            let head = log.writer.head
            try log.writer.close()

            // The clock goes back: recorded times still never do.
            clock.set(1_600_000_000_000_000)
            let reopened = try log.reopen()
            defer { try? reopened.close() }
            #expect(reopened.head == head)
            #expect(reopened.lastRecordedAt == last.recordedAt)
            let next = try reopened.append([randomRecord(&rng), randomRecord(&rng)])
            #expect(next.first == 7 && next.recordedAt == last.recordedAt)
            #expect(try log.reader().head == reopened.head)
        }
    }

    @Test(arguments: LogBackend.allCases)
    func aPinnedAppendLandsWhereItsPinSaysOrNowhere(on backend: LogBackend) throws {
        var rng = SplitMix64(seed: 0x9_1411)
        try withTemporaryDirectory { directory in
            let clock = TestClock()
            let log = try makeLog(backend, in: directory, clock: clock)
            defer { try? log.writer.close() }
            let first = try log.writer.append([randomRecord(&rng)])
            let at = first.recordedAt + 5_000
            let records = [randomRecord(&rng), randomRecord(&rng)]
            // A pin that does not follow the head appends nothing.
            #expect(throws: LogError.self) {
                try log.writer.append(records, pinnedTo: AppendPin(firstSequence: 5, recordedAt: at), encodedAhead: nil)
            }
            #expect(log.writer.head == first.head)
            let pin = AppendPin(firstSequence: 2, recordedAt: at)
            let ahead = log.writer.encodeAhead(records, pinnedTo: pin)
            let pinned = try log.writer.append(records, pinnedTo: pin, encodedAhead: ahead)
            #expect(pinned.first == 2 && pinned.last == 3 && pinned.recordedAt == at)
            // The same pin again is behind the head now.
            #expect(throws: LogError.self) { try log.writer.append(records, pinnedTo: pin, encodedAhead: nil) }
            var events: [LoggedEvent] = []
            try log.reader().forEach { events.append($0) }
            #expect(events.map(\.sequence) == [1, 2, 3] && events.suffix(2).allSatisfy { $0.recordedAt == at })
        }
    }
}
