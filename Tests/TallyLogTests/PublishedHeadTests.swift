import Foundation
import Testing
@testable import TallyLog

/// Readers see what the writer has made durable: while a writer holds the lock, a reader's
/// view ends at the writer's published head, never at a frame written but not yet synced.
struct PublishedHeadTests {
    @Test func everyDurableCommitIsPublishedAndReadersSeeExactlyIt() throws {
        try withTemporaryDirectory { directory in
            var rng = SplitMix64(seed: 11)
            let writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 600, sync: .everyCommit))
            #expect(PublishedHead.read(in: directory) == 0)
            for commit in 1...25 {
                let result = try writer.append((0..<3).map { _ in randomRecord(&rng) })
                #expect(PublishedHead.read(in: directory) == result.last, "commit \(commit)")
                #expect(try LogReader.open(directory: directory).head == result.head, "commit \(commit)")
            }
            try writer.close()
        }
    }

    @Test func aCommitWrittenButNotYetPublishedIsHiddenFromReadersUntilTheWriterCloses() throws {
        try withTemporaryDirectory { directory in
            var rng = SplitMix64(seed: 12)
            let writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: 600, sync: .everyCommit))
            var heads: [LogDigest] = []
            for _ in 0..<12 { heads.append(try writer.append((0..<2).map { _ in randomRecord(&rng) }).head) }
            #expect(try segmentPaths(directory).count > 1, "the unpublished commits span a segment roll-over")
            // As if the last five commits were written and their fdatasync had not returned yet.
            try writeFileBytes(PublishedHead.encoded(heads[6].sequence), to: PublishedHead.path(in: directory))
            var reader = try LogReader.open(directory: directory)
            #expect(reader.head == heads[6])
            #expect(try reader.events(from: heads[6].sequence + 1, limit: 10).isEmpty)
            var seen = 0
            try reader.forEach { _ in seen += 1 }
            #expect(UInt64(seen) == heads[6].sequence)
            // Published again (the next commit's sync returned): the view moves on.
            try writeFileBytes(PublishedHead.encoded(heads[9].sequence), to: PublishedHead.path(in: directory))
            try reader.refresh()
            #expect(reader.head == heads[9])
            // A closed writer has synced everything: the whole log is in view.
            try writer.close()
            try reader.refresh()
            #expect(reader.head == heads[11])
        }
    }

    @Test func aMissingOrDamagedPublishedFileFallsBackToTheFrameChecks() throws {
        try withTemporaryDirectory { directory in
            var rng = SplitMix64(seed: 13)
            let writer = try LogWriter.create(directory: directory, options: testOptions(sync: .everyCommit))
            let head = try writer.append((0..<4).map { _ in randomRecord(&rng) }).head
            var damaged = PublishedHead.encoded(1)
            damaged[5] ^= 0xFF
            try writeFileBytes(damaged, to: PublishedHead.path(in: directory))
            #expect(PublishedHead.read(in: directory) == nil)
            #expect(try LogReader.open(directory: directory).head == head)
            try FileManager.default.removeItem(atPath: PublishedHead.path(in: directory))
            #expect(try LogReader.open(directory: directory).head == head)
            try writer.close()
        }
    }

    @Test func aWriterThatOpensAfterACrashSyncsAndPublishesWhatItRecovered() throws {
        try withTemporaryDirectory { directory in
            var rng = SplitMix64(seed: 14)
            let writer = try LogWriter.create(directory: directory, options: testOptions(sync: .none))
            let head = try writer.append((0..<5).map { _ in randomRecord(&rng) }).head
            let copy = directory + "-crashed"
            try copyDirectory(directory, to: copy)
            try writer.close()
            // The copy is the log as a killed writer left it, its published head behind.
            try writeFileBytes(PublishedHead.encoded(0), to: PublishedHead.path(in: copy))
            let reopened = try LogWriter.open(directory: copy, options: testOptions(sync: .everyCommit))
            #expect(PublishedHead.read(in: copy) == head.sequence)
            #expect(try LogReader.open(directory: copy).head == head)
            try reopened.close()
            try? FileManager.default.removeItem(atPath: copy)
        }
    }
}
