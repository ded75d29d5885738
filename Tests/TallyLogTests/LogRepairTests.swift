import Foundation
import Testing
@testable import TallyLog

/// `LogRepair.plan` says exactly what `LogRepair.repair` cuts, and changes nothing.
struct LogRepairTests {
    /// Every file of `directory` (recursively) with its bytes.
    private func contents(_ directory: String) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for relative in FileManager.default.subpaths(atPath: directory) ?? [] {
            var isDirectory: ObjCBool = false
            let path = directory + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[relative] = try fileBytes(path)
            }
        }
        return result
    }

    /// A byte flipped in the body of any frame: the plan changes nothing and says exactly what the
    /// repair does. A frame with frames after it is set aside (its events lost, every later frame
    /// kept, its bytes in quarantine); the log's last frame is cut. Verify then names exactly the
    /// lost events and finds everything else intact, and writing goes on after the head.
    @Test func aPlanSaysExactlyWhatRepairDoesAndChangesNothing() throws {
        let seed = ProcessInfo.processInfo.environment["TALLY_TEST_SEED"].flatMap { UInt64($0) } ?? 0x5EED_0010
        var random = SplitMix64(seed: seed)
        for round in 0..<16 {
            try withTemporaryDirectory { directory in
                let all = try buildLog(at: directory, frames: 15, segmentBytesLimit: 450, seed: random.next())
                let reader = try LogReader.open(directory: directory)
                let segments = try segmentPaths(directory)
                // Every third round damages the log's last frame.
                let segmentIndex = round % 3 == 0 ? segments.count - 1 : Int(random.next() % UInt64(segments.count))
                let frames = Array(try layout(of: segments[segmentIndex]).structures.dropFirst())
                let frame = round % 3 == 0 ? frames[frames.count - 1] : frames[Int(random.next() % UInt64(frames.count))]
                let original = try fileBytes(segments[segmentIndex])
                var bytes = original
                let first = bytes.loadLittleEndian(UInt64.self, at: frame.start + 8)
                let last = first + UInt64(bytes.loadLittleEndian(UInt32.self, at: frame.start + 16)) - 1
                bytes[frame.start + 88 + Int(random.next() % UInt64(frame.end - frame.start - 88))] ^= 0x10
                try writeFileBytes(bytes, to: segments[segmentIndex])
                let isLastFrame = last == UInt64(all.count)
                let context = "TALLY_TEST_SEED=\(seed), round \(round): segment \(segmentIndex), frame at \(frame.start), events \(first)…\(last)"

                let before = try contents(directory)
                let plan = try LogRepair.plan(directory: directory)
                #expect(try contents(directory) == before, "\(context): the plan changed the log")
                if isLastFrame {
                    let cut = try #require(plan.cut, "\(context)")
                    #expect(plan.setAside.isEmpty && cut.path == segments[segmentIndex] && cut.offset == Int64(frame.start), "\(context)")
                    #expect(cut.firstRemovedSequence == first && cut.lastRemovedSequence == UInt64(all.count), "\(context)")
                    #expect(cut.bytesRemoved == Int64(bytes.count - frame.start), "\(context)")
                    #expect(plan.kept == LogDigest(sequence: first - 1, hash: try reader.hash(of: first - 1)!), "\(context)")
                } else {
                    #expect(plan.cut == nil, "\(context)")
                    #expect(plan.setAside.map { [$0.path, "\($0.offset)", "\($0.firstSequence)", "\($0.lastSequence)"] }
                            == [[segments[segmentIndex], "\(frame.start)", "\(first)", "\(last)"]], "\(context)")
                    #expect(plan.kept == reader.head, "\(context): the head stays")
                }

                let report = try LogRepair.repair(directory: directory)
                #expect(report.changed && report.kept == plan.kept, "\(context)")
                let after = try verifyLog(directory: directory)
                #expect(after.isValid, "\(context): \(after.problems)")
                let survivors = isLastFrame ? Array(all.prefix(Int(first - 1))) : all.filter { $0.sequence < first || $0.sequence > last }
                #expect(try readAll(directory) == survivors, "\(context)")
                if isLastFrame {
                    #expect(after.lostEvents.isEmpty && after.head == plan.kept, "\(context)")
                } else {
                    #expect(after.lostEvents == [first...last] && after.events == UInt64(survivors.count), "\(context)")
                    #expect(after.head == reader.head, "\(context): the chain goes on through the lost frame")
                    #expect(try fileBytes(segments[segmentIndex]).count == original.count, "\(context): replaced in place")
                    let copy = try #require(report.quarantined.first, "\(context)")
                    #expect(try fileBytes(copy) == Array(bytes[frame.start..<frame.end]), "\(context): the damaged bytes are kept")
                    #expect(try LogReader.open(directory: directory).hash(of: last) == (try reader.hash(of: last)), "\(context)")
                }
                let writer = try LogWriter.open(directory: directory, options: testOptions())
                let next = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "after", payload: [1])])
                #expect(next.first == (isLastFrame ? first : UInt64(all.count) + 1), "\(context)")
                try writer.close()
                #expect(try verifyLog(directory: directory).isValid, "\(context)")
            }
        }
    }

    /// Two damaged bodies in different segments, then a damaged header: both are set aside and the
    /// log is cut at the header, each named.
    @Test func damagedBodiesBeforeACutAreSetAsideAndTheCutComesAfter() throws {
        try withTemporaryDirectory { directory in
            let all = try buildLog(at: directory, frames: 15, segmentBytesLimit: 450)
            let segments = try segmentPaths(directory)
            try #require(segments.count >= 4)
            var ranges: [ClosedRange<UInt64>] = []
            for index in [0, 1] {
                var bytes = try fileBytes(segments[index])
                let frame = try layout(of: segments[index]).structures[1]
                let first = bytes.loadLittleEndian(UInt64.self, at: frame.start + 8)
                ranges.append(first...(first + UInt64(bytes.loadLittleEndian(UInt32.self, at: frame.start + 16)) - 1))
                bytes[frame.end - 1] ^= 0x01
                try writeFileBytes(bytes, to: segments[index])
            }
            var bytes = try fileBytes(segments[2])
            let header = try layout(of: segments[2]).structures[1]
            let cutFrom = bytes.loadLittleEndian(UInt64.self, at: header.start + 8)
            bytes[header.start + 9] ^= 0x01
            try writeFileBytes(bytes, to: segments[2])
            let plan = try LogRepair.plan(directory: directory)
            #expect(plan.setAside.map { $0.firstSequence...$0.lastSequence } == ranges)
            #expect(plan.cut?.firstRemovedSequence == cutFrom && plan.cut?.path == segments[2])
            _ = try LogRepair.repair(directory: directory)
            let after = try verifyLog(directory: directory)
            #expect(after.isValid && after.lostEvents == ranges && after.head.sequence == cutFrom - 1)
            #expect(try readAll(directory) == all.filter { event in event.sequence < cutFrom && !ranges.contains { $0.contains(event.sequence) } })
            #expect(PublishedHead.readDurable(in: directory) == cutFrom - 1)
        }
    }

    @Test func aDamagedFrameHeaderInTheLastSegmentHidesHowManyEventsGo() throws {
        try withTemporaryDirectory { directory in
            try buildLog(at: directory, frames: 15, segmentBytesLimit: 450)
            let last = try segmentPaths(directory).last!
            let structures = try layout(of: last).structures
            try #require(structures.count > 1)
            let frame = structures[1]
            var bytes = try fileBytes(last)
            let firstRemoved = bytes.loadLittleEndian(UInt64.self, at: frame.start + 8)
            bytes[frame.start + 2] ^= 0x01
            try writeFileBytes(bytes, to: last)
            let cut = try #require(try LogRepair.plan(directory: directory).cut)
            #expect(cut.firstRemovedSequence == firstRemoved)
            #expect(cut.lastRemovedSequence == nil && cut.eventsRemoved == nil)
        }
    }

    @Test func aSoundLogHasNoCutAndATornTailIsNotedNotCut() throws {
        try withTemporaryDirectory { directory in
            let all = try buildLog(at: directory, frames: 6, segmentBytesLimit: 100_000)
            let path = try segmentPaths(directory)[0]
            #expect(try LogRepair.plan(directory: directory).cut == nil)
            #expect(try LogRepair.plan(directory: directory).tornTail == nil)
            let frame = try layout(of: path).structures.last!
            try truncateFile(path, to: frame.end - 5)
            let frameFirst = UInt64(try fileBytes(path).loadLittleEndian(UInt64.self, at: frame.start + 8))
            try setPublishedHead(frameFirst - 1, in: directory)
            let before = try contents(directory)
            let plan = try LogRepair.plan(directory: directory)
            #expect(plan.cut == nil && plan.tornTail?.offset == Int64(frame.start))
            let report = try LogRepair.repair(directory: directory)
            #expect(!report.changed && report.kept == plan.kept && plan.kept.sequence < UInt64(all.count))
            #expect(try contents(directory) == before)
        }
    }
}
