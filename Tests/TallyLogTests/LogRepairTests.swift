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

    @Test func aPlanSaysExactlyWhatRepairCutsAndChangesNothing() throws {
        let seed: UInt64 = 0x5EED_0010
        var random = SplitMix64(seed: seed)
        for round in 0..<8 {
            try withTemporaryDirectory { directory in
                let all = try buildLog(at: directory, frames: 15, segmentBytesLimit: 450, seed: random.next())
                let reader = try LogReader.open(directory: directory)
                let segments = try segmentPaths(directory)
                let segmentIndex = Int(random.next() % UInt64(segments.count))
                let frames = try layout(of: segments[segmentIndex]).structures.dropFirst()
                let frame = Array(frames)[Int(random.next() % UInt64(frames.count))]
                var bytes = try fileBytes(segments[segmentIndex])
                let firstRemoved = bytes.loadLittleEndian(UInt64.self, at: frame.start + 8)
                bytes[frame.start + 88 + Int(random.next() % UInt64(frame.end - frame.start - 88))] ^= 0x10
                try writeFileBytes(bytes, to: segments[segmentIndex])
                let context = "seed \(seed), round \(round): segment \(segmentIndex), frame at \(frame.start)"

                let before = try contents(directory)
                let plan = try LogRepair.plan(directory: directory)
                #expect(try contents(directory) == before, "\(context): the plan changed the log")
                let cut = try #require(plan.cut, "\(context)")
                let laterBytes = try segments[(segmentIndex + 1)...].reduce(0) { $0 + (try fileBytes($1)).count }
                #expect(cut.path == segments[segmentIndex] && cut.offset == Int64(frame.start), "\(context)")
                #expect(cut.firstRemovedSequence == firstRemoved && cut.lastRemovedSequence == UInt64(all.count), "\(context)")
                #expect(cut.eventsRemoved == UInt64(all.count) - firstRemoved + 1, "\(context)")
                #expect(cut.laterSegments == Array(segments[(segmentIndex + 1)...]), "\(context)")
                #expect(cut.bytesRemoved == Int64(bytes.count - frame.start + laterBytes), "\(context)")
                #expect(plan.kept == LogDigest(sequence: firstRemoved - 1, hash: try reader.hash(of: firstRemoved - 1)!), "\(context)")

                let report = try LogRepair.repair(directory: directory)
                #expect(report.cutPath == cut.path && report.cutOffset == cut.offset && report.bytesRemoved == cut.bytesRemoved, "\(context)")
                #expect(report.firstRemovedSequence == firstRemoved && report.lastRemovedSequence == UInt64(all.count), "\(context)")
                #expect(report.kept == plan.kept, "\(context)")
                let after = try verifyLog(directory: directory)
                #expect(after.isValid && after.head == plan.kept, "\(context)")
                #expect(try readAll(directory) == Array(all.prefix(Int(firstRemoved - 1))), "\(context)")
            }
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
