import Foundation
import Testing
@testable import TallyLog

/// The log's `INDEX` (issue 12, target 5): an open resumes each segment at the last frame the
/// previous writer indexed instead of walking every frame header, and the view it builds is
/// the one a walk from the start builds; an index that is torn, stale, or from another log is
/// ignored, never believed.
@Suite struct LogIndexTests {
    /// Everything a snapshot says about the log, in a comparable form.
    private func summary(_ snapshot: StoreSnapshot) -> String {
        var lines = ["head \(snapshot.head.sequence) \(snapshot.head.hash) recorded \(snapshot.lastRecordedAt) tail \(snapshot.tail)"]
        for segment in snapshot.segments {
            lines.append("segment \(segment.path) last \(segment.lastSequence) \(segment.lastHash) frames \(segment.frames) valid \(segment.validLength) "
                + "bytes \(segment.uncompressedBytes)/\(segment.storedBytes) recorded \(segment.lastRecordedAt) resume \(String(describing: segment.resume))")
        }
        for entry in snapshot.entries {
            lines.append("entry \(entry.segment) \(entry.offset) \(entry.firstSequence) \(entry.recordedAtMin) \(entry.hashBefore)")
        }
        return lines.joined(separator: "\n")
    }

    private func fullScan(_ directory: String) throws -> StoreSnapshot {
        try StoreScanner.scan(directory: directory, role: .reader(writerActive: false), fileSystem: PosixFileSystem())
    }

    private func indexedScan(_ directory: String) throws -> StoreSnapshot {
        try StoreScanner.scan(
            directory: directory, role: .reader(writerActive: false),
            prior: LogIndexFile.read(in: directory, fileSystem: PosixFileSystem()), fileSystem: PosixFileSystem())
    }

    /// Appends `frames` commits of 1 to 20 random records.
    private func append(_ writer: LogWriter, frames: Int, _ random: inout SplitMix64) throws {
        for _ in 0..<frames {
            _ = try writer.append((0..<Int(random.next() % 20 + 1)).map { _ in randomRecord(&random) })
        }
    }

    /// Writes `frames` random commits into a new log of 64 KB segments, closes it, and
    /// returns how many segments it spans (at least three).
    private func writeSegmentedLog(in directory: String, frames: Int, _ random: inout SplitMix64) throws -> Int {
        let writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 64 << 10))
        try append(writer, frames: frames, &random)
        try writer.close()
        let segments = try segmentPaths(directory).count
        #expect(segments >= 3, "the story spans several segments")
        return segments
    }

    @Test func anOpenAfterACloseWalksOnlyTheLastFrameOfEachSegmentAndSeesWhatAWalkSees() throws {
        try withTemporaryDirectory { directory in
            var random = SplitMix64(seed: 0x1D3)
            let segments = try writeSegmentedLog(in: directory, frames: 600, &random)
            let indexed = try indexedScan(directory)
            let walked = try fullScan(directory)
            #expect(summary(indexed) == summary(walked))
            #expect(indexed.framesWalked == segments, "one frame per segment: \(indexed.framesWalked) of \(walked.framesWalked)")
            #expect(try readAll(directory).count == Int(walked.head.sequence))
        }
    }

    /// Random appends, closes and reopens across segments, readers in between: every open
    /// through the index equals a walk from the start. `TALLY_TEST_SEED` replays one story.
    @Test func randomSessionsKeepTheIndexedViewEqualToAWalk() throws {
        let master = ProcessInfo.processInfo.environment["TALLY_TEST_SEED"].flatMap { UInt64($0) } ?? 0x1DE_C0DE
        for story in 0..<4 {
            let seed = master &+ UInt64(story) &* 0x9E37_79B9
            try withTemporaryDirectory { directory in
                var random = SplitMix64(seed: seed)
                var writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 16 << 10))
                for session in 0..<12 {
                    try append(writer, frames: Int(random.next() % 60), &random)
                    if random.next() % 3 == 0 {
                        var reader = try LogReader.open(directory: directory)
                        try append(writer, frames: Int(random.next() % 10), &random)
                        try reader.refresh()
                        #expect(reader.head == writer.head, "TALLY_TEST_SEED=\(master) story \(story) session \(session): a refreshed reader")
                    }
                    try writer.close()
                    #expect(summary(try indexedScan(directory)) == summary(try fullScan(directory)),
                            "TALLY_TEST_SEED=\(master) story \(story) (seed \(seed)) session \(session)")
                    writer = try LogWriter.open(directory: directory, options: testOptions(segmentBytesLimit: 16 << 10))
                }
                try writer.close()
            }
        }
    }

    @Test func aTornOrForeignIndexIsIgnored() throws {
        try withTemporaryDirectory { root in
            var random = SplitMix64(seed: 0xF0)
            let first = root + "/first", second = root + "/second"
            for directory in [first, second] {
                let writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 32 << 10))
                try append(writer, frames: 300, &random)
                try writer.close()
            }
            let index = first + "/" + LogIndexFile.name
            var bytes = try #require(FileManager.default.contents(atPath: index))
            // A flipped byte: the checksum refuses it.
            bytes[bytes.count / 2] ^= 0x40
            try bytes.write(to: URL(fileURLWithPath: index))
            #expect(LogIndexFile.read(in: first, fileSystem: PosixFileSystem()) == nil)
            #expect(summary(try indexedScan(first)) == summary(try fullScan(first)))
            // Another log's index, same segment names: the resumed frame's chain does not continue.
            try FileManager.default.removeItem(atPath: index)
            try FileManager.default.copyItem(atPath: second + "/" + LogIndexFile.name, toPath: index)
            #expect(summary(try indexedScan(first)) == summary(try fullScan(first)))
            #expect(try LogReader.open(directory: first).head == (try fullScan(first)).head)
        }
    }

    /// A writer killed between writing its index under a temporary name and renaming it leaves
    /// `INDEX.<digits>` behind; the next index written removes such leftovers (and nothing
    /// else), so that crashes do not pile them up in the log's directory.
    @Test func temporaryIndexFilesLeftByAKilledWriterAreRemovedByTheNextIndexWritten() throws {
        try withTemporaryDirectory { directory in
            var random = SplitMix64(seed: 0x7E3)
            var writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 32 << 10))
            try append(writer, frames: 50, &random)
            try writer.close()
            let leftovers = ["\(LogIndexFile.name).\(random.next())", "\(LogIndexFile.name).\(random.next())"]
            let kept = ["\(LogIndexFile.name).notes", "\(LogIndexFile.name)."]
            for name in leftovers + kept { try Data([1, 2, 3]).write(to: URL(fileURLWithPath: directory + "/" + name)) }

            writer = try LogWriter.open(directory: directory, options: testOptions(segmentBytesLimit: 32 << 10))
            try append(writer, frames: 5, &random)
            try writer.close()
            let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
            #expect(names.isDisjoint(with: leftovers), "\(names.sorted())")
            #expect(names.isSuperset(of: kept + [LogIndexFile.name]), "\(names.sorted())")
            #expect(summary(try indexedScan(directory)) == summary(try fullScan(directory)))
        }
    }

    /// An index whose checksum holds but whose resume point says another chain hash, another
    /// previous frame, or another sequence number (written by a bug, or by hand) is checked
    /// against the frame header before the resume point and ignored; so is a version 1 file.
    @Test func anIndexWhoseResumePointDisagreesWithTheFrameBeforeItIsIgnored() throws {
        try withTemporaryDirectory { directory in
            var random = SplitMix64(seed: 0x2E5)
            let writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 32 << 10))
            try append(writer, frames: 300, &random)
            try writer.close()
            let walked = summary(try fullScan(directory))
            let original = try #require(LogIndexFile.read(in: directory, fileSystem: PosixFileSystem()))
            #expect(original.segments.count >= 2)
            let forgeries: [(String, (inout ResumePoint) -> Void)] = [
                ("another chain hash", { $0.lastHash[7] ^= 1 }),
                ("another previous frame", { $0.previousOffset = $0.previousOffset.map { $0 - 1 } ?? Int64(LogFormat.segmentHeaderBytes) }),
                ("no previous frame", { $0.previousOffset = nil }),
                ("another sequence number", { $0.lastSequence += 1 }),
                ("another recorded time", { $0.lastRecordedAt += 1 }),
            ]
            for segment in original.segments.indices {
                for (what, forge) in forgeries {
                    var prior = original
                    forge(&prior.segments[segment].resume)
                    guard prior.segments[segment].resume != original.segments[segment].resume else { continue }
                    #expect(LogIndexFile.decode(LogIndexFile.encode(prior)) != nil, "\(what): the file itself is whole")
                    let index = directory + "/" + LogIndexFile.name
                    try Data(LogIndexFile.encode(prior)).write(to: URL(fileURLWithPath: index))
                    let indexed = try indexedScan(directory)
                    #expect(summary(indexed) == walked, "segment \(segment), \(what)")
                    #expect(indexed.framesWalked > original.segments.count, "segment \(segment), \(what): the index was not believed")
                }
            }
            // A file of version 1 (no previous frame's offset) is not read.
            var old = LogIndexFile.encode(original)
            old[4] = 1
            old.replaceSubrange((old.count - 4)..., with: withUnsafeBytes(of: CRC32C.checksum(Array(old[..<(old.count - 4)])).littleEndian, Array.init))
            #expect(LogIndexFile.decode(old) == nil)
        }
    }

    @Test func anIndexLongerThanATruncatedLogIsIgnoredAndTheWriterReplacesIt() throws {
        try withTemporaryDirectory { directory in
            var random = SplitMix64(seed: 0x7A)
            let writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 1 << 20))
            try append(writer, frames: 400, &random)
            try writer.close()
            // The last segment loses its end (a disk that lied): the index points past it.
            let last = try #require(try segmentPaths(directory).last)
            let length = try #require(try FileManager.default.attributesOfItem(atPath: last)[.size] as? Int)
            let handle = try #require(FileHandle(forWritingAtPath: last))
            try handle.truncate(atOffset: UInt64(length / 2))
            try handle.close()
            let walked = try StoreScanner.scan(directory: directory, role: .reader(writerActive: false), fileSystem: PosixFileSystem())
            #expect(summary(try indexedScan(directory)) == summary(walked))
            // So did its published head (else the shorter log is refused as cut short).
            try setPublishedHead(walked.head.sequence, in: directory)
            // The writer's open cuts the torn tail and drops the index; its close writes a true one.
            let reopened = try LogWriter.open(directory: directory, options: testOptions(segmentBytesLimit: 1 << 20))
            #expect(!FileManager.default.fileExists(atPath: directory + "/" + LogIndexFile.name))
            try append(reopened, frames: 5, &random)
            try reopened.close()
            #expect(summary(try indexedScan(directory)) == summary(try fullScan(directory)))
        }
    }

    /// A writer that appends nothing (a rebuild, a command that only reads) closes without
    /// reading the log again: its open's scan is the log as it stands, and the index it
    /// writes from that scan lets the next open walk one frame per segment.
    @Test func aWriterThatAppendedNothingIndexesItsOpenWithoutReadingTheLogAgain() throws {
        try withTemporaryDirectory { directory in
            var random = SplitMix64(seed: 0x1D4)
            let segments = try writeSegmentedLog(in: directory, frames: 400, &random)
            LogIndexFile.remove(in: directory, fileSystem: PosixFileSystem())

            let counting = ReadCountingFileSystem()
            var options = testOptions(segmentBytesLimit: 64 << 10)
            options.fileSystem = counting
            let idle = try LogWriter.open(directory: directory, options: options)
            #expect(counting.segmentBytesRead > 0, "the open walks the log without an index")
            counting.reset()
            try idle.close()
            #expect(counting.segmentBytesRead == 0, "the close read \(counting.segmentBytesRead) bytes of segments again")
            let indexed = try indexedScan(directory)
            #expect(summary(indexed) == summary(try fullScan(directory)))
            #expect(indexed.framesWalked == segments, "one frame per segment: \(indexed.framesWalked)")

            // One more frame: that close walks on from the open's scan, and the index still agrees.
            let busy = try LogWriter.open(directory: directory, options: options)
            try append(busy, frames: 1, &random)
            counting.reset()
            try busy.close()
            #expect(counting.segmentBytesRead > 0, "a close after an append indexes the new frame")
            #expect(summary(try indexedScan(directory)) == summary(try fullScan(directory)))
        }
    }
}

/// The real disk, counting the bytes read from segment files.
private final class ReadCountingFileSystem: LogFileSystem, @unchecked Sendable {
    // @unchecked: the count is behind `lock`.
    private let lock = NSLock()
    private var bytes = 0
    private let disk = PosixFileSystem()

    var segmentBytesRead: Int { lock.withLock { bytes } }
    func reset() { lock.withLock { bytes = 0 } }
    fileprivate func count(_ read: Int) { lock.withLock { bytes += read } }

    func open(_ path: String, mode: LogFileMode) throws -> any LogFile {
        let file = try disk.open(path, mode: mode)
        return path.hasSuffix(".tlog") ? CountedFile(file: file, counter: self) : file
    }
    func entries(of directory: String) throws -> [String] { try disk.entries(of: directory) }
    func exists(_ path: String) -> Bool { disk.exists(path) }
    func makeDirectory(_ path: String) throws { try disk.makeDirectory(path) }
    func remove(_ path: String) throws { try disk.remove(path) }
    func rename(_ source: String, to target: String) throws { try disk.rename(source, to: target) }
    func syncDirectory(_ path: String) throws { try disk.syncDirectory(path) }
    func lockForWriting(directory: String) throws -> any LogWriterLock { try disk.lockForWriting(directory: directory) }
    func isLockedForWriting(directory: String) -> Bool { disk.isLockedForWriting(directory: directory) }

    private struct CountedFile: LogFile {
        let file: any LogFile
        let counter: ReadCountingFileSystem
        var path: String { file.path }
        func size() throws -> Int64 { try file.size() }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
            let read = try file.read(into: buffer, at: offset)
            counter.count(read)
            return read
        }
        func write(_ bytes: [UInt8], at offset: Int64) throws { try file.write(bytes, at: offset) }
        func dataSync() throws { try file.dataSync() }
        func fullSync() throws { try file.fullSync() }
        func truncate(to length: Int64) throws { try file.truncate(to: length) }
        func close() { file.close() }
    }
}
