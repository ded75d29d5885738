import Foundation
import Testing
@testable import TallyLog

struct LogVerifyTests {
    @Test func expectedDigestMatchesAtHeadAndAnyEarlierSequence() throws {
        try withTemporaryDirectory { directory in
            let all = try buildLog(at: directory, frames: 20, segmentBytesLimit: 600)
            let reader = try LogReader.open(directory: directory)
            var progress: [UInt64] = []
            let verification = try verifyLog(directory: directory, expect: reader.head) { progress.append($0) }
            #expect(verification.isValid && verification.expectation == .matched)
            #expect(verification.head == reader.head && verification.events == UInt64(all.count) && verification.frames == 20)
            #expect(progress == progress.sorted() && progress.last == UInt64(all.count))
            for sequence in [UInt64(0), 1, 7, UInt64(all.count / 2)] {
                let digest = LogDigest(sequence: sequence, hash: try reader.hash(of: sequence)!)
                #expect(try verifyLog(directory: directory, expect: digest).expectation == .matched, "sequence \(sequence)")
            }
            let wrong = LogDigest(sequence: 3, hash: [UInt8](repeating: 1, count: 32))
            let mismatch = try verifyLog(directory: directory, expect: wrong)
            #expect(!mismatch.isValid)
            #expect(mismatch.expectation == .mismatched(recomputed: try reader.hash(of: 3)!))
            #expect(mismatch.problems.last?.code == .chainMismatch)
        }
    }

    @Test func digestFromALongerLogIsReported() throws {
        try withTemporaryDirectory { directory in
            try buildLog(at: directory, frames: 10, segmentBytesLimit: 600)
            let digest = try LogReader.open(directory: directory).head
            let last = try segmentPaths(directory).last!
            try truncateFile(last, to: try layout(of: last).structures.last!.start)
            let verification = try verifyLog(directory: directory, expect: digest)
            #expect(verification.expectation == .logShorter(head: verification.head.sequence))
            #expect(verification.head.sequence < digest.sequence)
            #expect(verification.problems.last?.message.contains("ends at sequence \(verification.head.sequence)") == true)
        }
    }

    /// Rewrites frame `index` of `path` with one payload byte changed and valid checksums.
    /// With `keepStoredHash` the frame keeps its old stored chain hash; otherwise every later frame is
    /// re-chained too, as a careful forger would.
    func forge(_ path: String, frame index: Int, keepStoredHash: Bool) throws {
        let bytes = try fileBytes(path)
        let structures = try layout(of: path).structures
        var hash = Array(bytes[24..<56])
        var output = Array(bytes[0..<64])
        for (position, structure) in structures.dropFirst().enumerated() {
            let frameBytes = Array(bytes[structure.start..<structure.end])
            var (header, events) = try FrameCodecTests.decode(frameBytes)
            if position == index {
                let event = events[0]
                var payload = event.payload
                if payload.isEmpty { payload = [1] } else { payload[0] ^= 0xFF }
                events[0] = LoggedEvent(sequence: event.sequence, recordedAt: event.recordedAt, kind: event.kind, version: event.version, effectiveAt: event.effectiveAt, entity: event.entity, cause: event.cause, idempotencyKey: event.idempotencyKey, payload: payload)
            }
            if position < index || (keepStoredHash && position > index) {
                output += frameBytes
                hash = header.lastHash
                continue
            }
            var (forged, newHash) = FrameCodec.encode(events, previousHash: hash)
            if keepStoredHash {
                let decoded = try FrameCodecTests.decode(forged).0
                FrameHeader.write(into: &forged, flags: decoded.flags, firstSequence: decoded.firstSequence, count: decoded.count, uncompressedLength: decoded.uncompressedLength, recordedAtMin: decoded.recordedAtMin, recordedAtMax: decoded.recordedAtMax, lastHash: header.lastHash)
                newHash = header.lastHash
            }
            header = try FrameCodecTests.decode(forged).0
            output += forged
            hash = newHash
        }
        try writeFileBytes(output, to: path)
    }

    @Test func rewrittenPayloadWithValidChecksumsIsAChainMismatch() throws {
        try withTemporaryDirectory { directory in
            try buildLog(at: directory, frames: 6, segmentBytesLimit: 100_000)
            let path = try segmentPaths(directory)[0]
            let frameStart = try layout(of: path).structures[3].start
            try forge(path, frame: 2, keepStoredHash: true)
            let verification = try verifyLog(directory: directory)
            #expect(verification.problems.count == 1)
            #expect(verification.problems.first?.code == .chainMismatch)
            #expect(verification.problems.first?.offset == Int64(frameStart))
            #expect(verification.problems.first?.path == path)
        }
    }

    @Test func fullyReChainedForgeryIsCaughtByTheKeptDigest() throws {
        try withTemporaryDirectory { directory in
            try buildLog(at: directory, frames: 6, segmentBytesLimit: 100_000)
            let digest = try LogReader.open(directory: directory).head
            let path = try segmentPaths(directory)[0]
            try forge(path, frame: 2, keepStoredHash: false)
            #expect(try verifyLog(directory: directory).problems.isEmpty)   // self-consistent forgery…
            let verification = try verifyLog(directory: directory, expect: digest)
            #expect(!verification.isValid)                                  // …but the kept digest disagrees
            if case .mismatched = verification.expectation {} else { Issue.record("expected a mismatch, got \(String(describing: verification.expectation))") }
        }
    }

    /// Issue 10, finding 9: on a rewritten event verify reported the head hash stored in the last frame,
    /// which still equals a digest kept earlier, so a script comparing it was fooled; and a digest kept at
    /// an event after the rewritten frame still "matched", because the walk resumed from stored hashes.
    @Test func digestsAreRecomputedFromTheDataSoARewriteCannotHideBehindStoredHashes() throws {
        try withTemporaryDirectory { directory in
            try buildLog(at: directory, frames: 6, segmentBytesLimit: 100_000)
            let reader = try LogReader.open(directory: directory)
            let kept = reader.head
            let path = try segmentPaths(directory)[0]
            let frames = try layout(of: path).structures.dropFirst()
            let bytes = try fileBytes(path)
            let firstRewritten = bytes.loadLittleEndian(UInt64.self, at: Array(frames)[2].start + 8)
            let lastOfFrame4 = bytes.loadLittleEndian(UInt64.self, at: Array(frames)[5].start + 8) - 1
            let keptBefore = LogDigest(sequence: firstRewritten - 1, hash: try reader.hash(of: firstRewritten - 1)!)
            let keptAfter = LogDigest(sequence: lastOfFrame4, hash: try reader.hash(of: lastOfFrame4)!)
            try forge(path, frame: 2, keepStoredHash: true)

            let verification = try verifyLog(directory: directory, expect: kept)
            let recomputed = try #require(verification.recomputedHead)
            #expect(recomputed.sequence == kept.sequence && recomputed != kept)
            #expect(verification.head == recomputed)
            #expect(verification.firstDamagedSequence == firstRewritten)
            #expect(verification.lastGood == keptBefore)
            #expect(verification.expectation == .mismatched(recomputed: recomputed.hash))
            #expect(try verifyLog(directory: directory, expect: keptAfter).expectation != .matched)
            #expect(try verifyLog(directory: directory, expect: keptBefore).expectation == .matched)
        }
    }

    @Test func hashesAreCapturedAtTheSequencesAskedFor() throws {
        try withTemporaryDirectory { directory in
            let all = try buildLog(at: directory, frames: 20, segmentBytesLimit: 600)
            let reader = try LogReader.open(directory: directory)
            let asked: Set<UInt64> = [0, 1, 7, UInt64(all.count / 2), UInt64(all.count), UInt64(all.count) + 5]
            let verification = try verifyLog(directory: directory, capturingHashesAt: asked)
            #expect(verification.isValid)
            for sequence in asked where sequence <= UInt64(all.count) {
                #expect(verification.hashes[sequence] == (try reader.hash(of: sequence)), "sequence \(sequence)")
            }
            #expect(verification.hashes[UInt64(all.count) + 5] == nil)
        }
    }

    /// Damage that hides events leaves no head to recompute: the last good digest is all there is.
    @Test func aFrameThatCannotBeReadEndsTheRecomputedChain() throws {
        try withTemporaryDirectory { directory in
            try buildLog(at: directory, frames: 6, segmentBytesLimit: 100_000)
            let reader = try LogReader.open(directory: directory)
            let kept = reader.head
            let path = try segmentPaths(directory)[0]
            var bytes = try fileBytes(path)
            let frame = try layout(of: path).structures[3]
            let first = bytes.loadLittleEndian(UInt64.self, at: frame.start + 8)
            bytes[frame.end - 1] ^= 0x40
            try writeFileBytes(bytes, to: path)
            let verification = try verifyLog(directory: directory, expect: kept)
            #expect(verification.recomputedHead == nil)
            #expect(verification.lastGood == LogDigest(sequence: first - 1, hash: try reader.hash(of: first - 1)!))
            #expect(verification.head == verification.lastGood)
            #expect(verification.firstDamagedSequence == first)
            #expect(verification.expectation == .unreadable(lastGood: verification.lastGood))
        }
    }

    @Test func repairCutsAtTheFirstDamageAndQuarantinesTheRest() throws {
        try withTemporaryDirectory { directory in
            let all = try buildLog(at: directory, frames: 15, segmentBytesLimit: 450)
            let segments = try segmentPaths(directory)
            #expect(segments.count >= 4)
            let sound = try LogRepair.repair(directory: directory)
            #expect(!sound.changed)

            var bytes = try fileBytes(segments[1])
            let structures = try layout(of: segments[1]).structures
            let frame = structures[structures.count > 2 ? 2 : 1]
            let firstRemoved = bytes.loadLittleEndian(UInt64.self, at: frame.start + 8)
            // A damaged header hides where the next frame starts: the log is cut there.
            bytes[frame.start + 20] ^= 0x40
            try writeFileBytes(bytes, to: segments[1])

            let writer = try LogWriter.create(directory: directory + "/other", options: testOptions())
            try writer.close()
            // A writer's open refuses the damage; another process holding the lock makes repair wait its turn.
            #expect { _ = try LogWriter.open(directory: directory, options: testOptions()) } throws: { ($0 as! LogError).code == .corrupt }
            let held = try PosixFileSystem().lockForWriting(directory: directory)
            #expect { _ = try LogRepair.repair(directory: directory) } throws: { ($0 as! LogError).code == .locked }
            held.release()

            let report = try LogRepair.repair(directory: directory)
            #expect(report.changed && report.cutPath == segments[1] && report.cutOffset == Int64(frame.start))
            #expect(report.firstRemovedSequence == firstRemoved)
            #expect(report.quarantined.count == segments.count - 1)
            #expect(report.quarantined.allSatisfy { FileManager.default.fileExists(atPath: $0) })
            #expect(try fileBytes(report.quarantined[0]) == Array(bytes[frame.start...]))
            #expect(try segmentPaths(directory) == Array(segments[0...1]))
            #expect(try verifyLog(directory: directory).isValid)
            #expect(try readAll(directory) == Array(all.prefix(Int(firstRemoved - 1))))
            let reopened = try LogWriter.open(directory: directory, options: testOptions())
            #expect(try reopened.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "", payload: [])]).first == firstRemoved)
            try reopened.close()
            #expect(try verifyLog(directory: directory).isValid)
        }
    }

    @Test func repairOfADamagedFirstHeaderLeavesAnEmptyLog() throws {
        try withTemporaryDirectory { directory in
            try buildLog(at: directory, frames: 5, segmentBytesLimit: 450)
            let first = try segmentPaths(directory)[0]
            var bytes = try fileBytes(first)
            bytes[20] ^= 1
            try writeFileBytes(bytes, to: first)
            #expect { _ = try LogWriter.open(directory: directory) } throws: { ($0 as! LogError).offset == 0 }
            let report = try LogRepair.repair(directory: directory)
            #expect(report.firstRemovedSequence == 1 && report.cutOffset == 0)
            let writer = try LogWriter.open(directory: directory, options: testOptions())
            #expect(writer.head == .genesis)
            try writer.close()
        }
    }
}
