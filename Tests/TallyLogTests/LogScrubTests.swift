import Foundation
import Testing
@testable import TallyLog

/// A writer checks every frame not read back since the last check before it writes: damage in
/// the middle of the log stops it; a healthy log is read once, then not at all.
struct LogScrubTests {
    /// A multi-segment log with many frames, closed (so its index lets an open skip the frames).
    private func build(at directory: String) throws {
        var rng = SplitMix64(seed: 0x5C)
        let writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 700, sync: .everyCommit))
        for _ in 0..<30 { _ = try writer.append((0..<2).map { _ in randomRecord(&rng, payloadBytesMax: 40) }) }
        try writer.close()
    }

    private func frames(_ directory: String) throws -> [(path: String, start: Int, end: Int)] {
        try segmentPaths(directory).flatMap { path in
            try layout(of: path).structures.filter { $0.kind == "frame" }.map { (path, $0.start, $0.end) }
        }
    }

    /// One byte flipped in the body of any frame but the last (the last one every open checks
    /// already): the next writer refuses to open, names that frame's file and offset, and
    /// changes no byte of the log.
    @Test func aFlippedByteInAnyFrameStopsTheNextWriterBeforeItWrites() throws {
        try withTemporaryDirectory { root in
            let pristine = root + "/pristine"
            try build(at: pristine)
            let all = try frames(pristine)
            #expect(all.count == 30 && Set(all.map(\.path)).count >= 3)
            let seed = UInt64.random(in: 0...UInt64.max)
            var rng = SplitMix64(seed: seed)
            for (index, frame) in all.dropLast().enumerated() {
                let directory = root + "/flip-\(index)"
                try copyDirectory(pristine, to: directory)
                let path = directory + "/" + (frame.path as NSString).lastPathComponent
                var bytes = try fileBytes(path)
                let offset = frame.start + 88 + Int(rng.next() % UInt64(frame.end - frame.start - 88))
                bytes[offset] ^= UInt8(1 << (rng.next() % 8))
                try writeFileBytes(bytes, to: path)
                let before = try segmentPaths(directory).map { try fileBytes($0) }
                do {
                    _ = try LogWriter.open(directory: directory, options: testOptions(sync: .everyCommit))
                    Issue.record("frame \(index) (byte \(offset)) damaged, and the writer opened (seed \(seed))")
                } catch let error as LogError {
                    #expect(error.code == .corrupt && error.path == path && error.offset == Int64(frame.start), "frame \(index), seed \(seed): \(error)")
                }
                #expect(try segmentPaths(directory).map { try fileBytes($0) } == before, "frame \(index), seed \(seed)")
                try FileManager.default.removeItem(atPath: directory)
            }
        }
    }

    /// The first writer after the log was written reads every frame once; the next reads none;
    /// after one more commit, one; a writer records what it read only when it committed. A record of another log's frames counts for nothing.
    @Test func aHealthyLogIsReadOnceThenOpensWithoutReadingAFrame() throws {
        try withTemporaryDirectory { directory in
            try build(at: directory)
            func scrub() throws -> Int {
                let snapshot = try StoreScanner.scan(
                    directory: directory, role: .writer, prior: LogIndexFile.read(in: directory, fileSystem: PosixFileSystem()),
                    fileSystem: PosixFileSystem())
                return try LogScrub.run(snapshot, record: true).frames
            }
            // A writer that commits nothing records nothing: a refused command leaves the files as they were.
            try LogWriter.open(directory: directory, options: testOptions(sync: .everyCommit)).close()
            #expect(ScrubbedPrefix.read(in: directory, fileSystem: PosixFileSystem()) == nil)
            #expect(try scrub() == 30)
            #expect(try scrub() == 0)
            let writer = try LogWriter.open(directory: directory, options: testOptions(sync: .everyCommit))
            _ = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "next", payload: [1])])
            try writer.close()
            #expect(try scrub() == 1)
            let head = try LogReader.open(directory: directory).head
            ScrubbedPrefix.write(LogDigest(sequence: head.sequence - 3, hash: head.hash), in: directory, fileSystem: PosixFileSystem())
            #expect(try scrub() == 31, "a hash the frame does not store: scrub from the start")
            ScrubbedPrefix.write(LogDigest(sequence: head.sequence + 1, hash: head.hash), in: directory, fileSystem: PosixFileSystem())
            #expect(try scrub() == 31, "past the head: scrub from the start")
        }
    }
}
