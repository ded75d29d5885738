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

    /// Without syncing, a commit is published as soon as it is written, but as durable only once
    /// a sync made it so: the durable published head is never ahead of what a power loss leaves.
    @Test func withoutSyncingACommitIsPublishedAsDurableOnlyOnceASyncMakesItSo() throws {
        try withTemporaryDirectory { directory in
            var rng = SplitMix64(seed: 16)
            let writer = try LogWriter.create(directory: directory, options: testOptions(sync: .none))
            var head = LogDigest.genesis
            for _ in 0..<4 { head = try writer.append((0..<3).map { _ in randomRecord(&rng) }).head }
            #expect(PublishedHead.read(in: directory) == head.sequence, "written: readers see it")
            #expect(PublishedHead.readDurable(in: directory) == nil, "not synced: not durable")
            try writer.sync()
            #expect(PublishedHead.readDurable(in: directory) == head.sequence)
            let more = try writer.append([randomRecord(&rng)]).head
            #expect(PublishedHead.read(in: directory) == more.sequence && PublishedHead.readDurable(in: directory) == head.sequence,
                    "a commit written after the sync leaves what the sync made durable")
            try writer.close()
            #expect(PublishedHead.readDurable(in: directory) == more.sequence, "close syncs, then publishes")
            // A crash of a writer without syncing may lose what it only wrote: that is no damage.
            try truncateFile(try #require(try segmentPaths(directory).last), to: 64)
            try writeFileBytes(PublishedHead.encoded(more.sequence, durable: false), to: PublishedHead.path(in: directory))
            let reopened = try LogWriter.open(directory: directory, options: testOptions(sync: .none))
            #expect(reopened.head == .genesis)
            try reopened.close()
        }
    }

    /// A log that ends before its published head lost acknowledged events off its end (cut at
    /// every frame boundary and inside every frame of the last segment, or the last segment
    /// removed whole): writers and readers refuse it, verify names exactly the missing events,
    /// nothing is changed until a repair accepts the shorter log, after which writing goes on
    /// from its end on a chain that verifies.
    @Test func aLogCutBelowItsPublishedHeadIsDamageNeverACrashArtefact() throws {
        try withTemporaryDirectory { root in
            let pristine = root + "/pristine"
            var rng = SplitMix64(seed: 17)
            let writer = try LogWriter.create(directory: pristine, options: testOptions(segmentBytesLimit: 600, sync: .everyCommit))
            for _ in 0..<14 { _ = try writer.append((0..<2).map { _ in randomRecord(&rng, payloadBytesMax: 40) }) }
            try writer.close()
            let published = try #require(PublishedHead.read(in: pristine))
            let segments = try segmentPaths(pristine)
            #expect(segments.count >= 3 && published == 28)
            let last = try #require(segments.last)
            let name = (last as NSString).lastPathComponent
            let lastBytes = try fileBytes(last)
            // (length the last segment is cut to, or nil when it is removed; the head left)
            var cuts: [(length: Int?, head: UInt64)] = []
            for frame in try layout(of: last).structures where frame.kind == "frame" {
                let first = lastBytes.loadLittleEndian(UInt64.self, at: frame.start + 8)
                cuts.append((frame.start, first - 1))
                cuts.append((frame.start + 1, first - 1))
                cuts.append((frame.end - 1, first - 1))
            }
            let segmentFirst = lastBytes.loadLittleEndian(UInt64.self, at: 16)
            cuts.append((nil, segmentFirst - 1))
            for (index, cut) in cuts.enumerated() {
                let directory = root + "/cut-\(index)"
                try copyDirectory(pristine, to: directory)
                if let length = cut.length {
                    try truncateFile(directory + "/" + name, to: length)
                } else {
                    try FileManager.default.removeItem(atPath: directory + "/" + name)
                }
                let context = "cut \(index): \(cut.length.map { "last segment cut to \($0) bytes" } ?? "last segment removed")"
                let before = try segmentPaths(directory).map { try fileBytes($0) }
                #expect(code { _ = try LogWriter.open(directory: directory, options: testOptions(sync: .everyCommit)) } == .truncated, "\(context)")
                #expect(code { _ = try LogReader.open(directory: directory) } == .truncated, "\(context)")
                #expect(try segmentPaths(directory).map { try fileBytes($0) } == before, "a refused open changes nothing: \(context)")
                let verification = try verifyLog(directory: directory)
                #expect(!verification.isValid && verification.problems.map(\.code) == [.truncated], "\(context)")
                #expect(verification.missingAtEnd == (cut.head + 1)...published, "\(context)")
                #expect(verification.tornTail == nil, "a torn frame below the published head is not a crash: \(context)")
                let plan = try LogRepair.plan(directory: directory)
                #expect(plan.cut?.firstRemovedSequence == cut.head + 1 && plan.cut?.lastRemovedSequence == published, "\(context)")
                #expect(plan.kept.sequence == cut.head, "\(context)")
                let report = try LogRepair.repair(directory: directory)
                #expect(report.changed && report.kept.sequence == cut.head, "\(context)")
                #expect(PublishedHead.read(in: directory) == cut.head, "\(context)")
                let reopened = try LogWriter.open(directory: directory, options: testOptions(sync: .everyCommit))
                #expect(try reopened.append([randomRecord(&rng)]).first == cut.head + 1, "\(context)")
                try reopened.close()
                #expect(try verifyLog(directory: directory).isValid, "\(context)")
                try FileManager.default.removeItem(atPath: directory)
            }
        }
    }

    /// A writer that opens and commits nothing (a refused command) leaves `PUBLISHED` byte for
    /// byte as it was, though it holds two slots of different ages.
    @Test func anOpenThatCommitsNothingLeavesThePublishedHeadAsItWas() throws {
        try withTemporaryDirectory { directory in
            var rng = SplitMix64(seed: 18)
            let writer = try LogWriter.create(directory: directory, options: testOptions(sync: .everyCommit))
            for _ in 0..<3 { _ = try writer.append([randomRecord(&rng)]) }
            try writer.close()
            let before = try fileBytes(PublishedHead.path(in: directory))
            #expect(before.count == 2 * PublishedHead.byteCount && before[0..<24] != before[24..<48], "two slots of different ages")
            try LogWriter.open(directory: directory, options: testOptions(sync: .everyCommit)).close()
            #expect(try fileBytes(PublishedHead.path(in: directory)) == before)
            // A torn write of one slot leaves the other's record.
            var torn = before
            torn[30] ^= 0xFF
            try writeFileBytes(torn, to: PublishedHead.path(in: directory))
            #expect(PublishedHead.read(in: directory) != nil)
        }
    }

    /// A writer that opens on a file holding its head in one slot only (left as it was) writes
    /// its first record to the other slot: a write of it failing half way (a full disk) then
    /// damages a slot that no longer matters, and readers never fall back to an older head.
    /// Found by the fault simulator (seed 680): readers saw 40 events of 41 recovered.
    @Test(arguments: [false, true]) func theFirstRecordAfterAnOpenNeverOverwritesTheOnlySlotHoldingTheHead(headInSecondSlot: Bool) throws {
        try withTemporaryDirectory { directory in
            var rng = SplitMix64(seed: 19)
            let writer = try LogWriter.create(directory: directory, options: testOptions(sync: .everyCommit))
            for _ in 0..<3 { _ = try writer.append([randomRecord(&rng)]) }
            let head = writer.head.sequence
            try writer.close()
            let slots = [PublishedHead.encoded(head), PublishedHead.encoded(head - 1)]
            try writeFileBytes(headInSecondSlot ? slots[1] + slots[0] : slots[0] + slots[1], to: PublishedHead.path(in: directory))
            let reopened = try LogWriter.open(directory: directory, options: testOptions(sync: .everyCommit))
            _ = try reopened.append([randomRecord(&rng)])
            try reopened.close()
            // Whichever slot the publication wrote, had that write been torn, the other says `head` or later.
            let written = PublishedHead.slots(of: try fileBytes(PublishedHead.path(in: directory)))
            #expect(written.map { $0?.visible } == (headInSecondSlot ? [head + 1, head] : [head, head + 1]))
        }
    }

    /// The code of the ``LogError`` `body` throws, nil when it throws none.
    private func code(_ body: () throws -> Void) -> LogError.Code? {
        do {
            try body()
            return nil
        } catch let error as LogError {
            return error.code
        } catch {
            return nil
        }
    }
}
