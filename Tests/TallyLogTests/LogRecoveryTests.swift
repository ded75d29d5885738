import Foundation
import Testing
@testable import TallyLog

struct LogRecoveryTests {
    /// Cuts the last segment at every byte offset inside its last frame: recovery removes the torn frame,
    /// keeps everything acknowledged before it, and appending continues on a verified chain.
    @Test func tornLastFrameAtEveryOffset() throws {
        try withTemporaryDirectory { root in
            let pristine = root + "/pristine"
            let all = try buildLog(at: pristine, frames: 12, segmentBytesLimit: 600, payloadBytesMax: 60)
            let lastSegment = try segmentPaths(pristine).last!
            let name = (lastSegment as NSString).lastPathComponent
            let frame = try layout(of: lastSegment).structures.last!
            #expect(frame.kind == "frame")
            let frameFirst = UInt64(try fileBytes(lastSegment).loadLittleEndian(UInt64.self, at: frame.start + 8))
            let survivors = Array(all.prefix(Int(frameFirst - 1)))
            for cut in frame.start..<frame.end {
                let directory = root + "/cut-\(cut)"
                try copyDirectory(pristine, to: directory)
                try truncateFile(directory + "/" + name, to: cut)
                try setPublishedHead(frameFirst - 1, in: directory)
                let writer = try LogWriter.open(directory: directory, options: testOptions())
                #expect(writer.head.sequence == frameFirst - 1, "cut at \(cut)")
                #expect(try fileBytes(directory + "/" + name).count == frame.start, "cut at \(cut)")
                let result = try writer.append([LogRecord(kind: 9, version: 1, effectiveAt: 0, entity: "after", payload: [7])])
                #expect(result.first == frameFirst, "cut at \(cut)")
                try writer.close()
                let events = try readAll(directory)
                #expect(Array(events.dropLast()) == survivors, "cut at \(cut)")
                #expect(try verifyLog(directory: directory).isValid, "cut at \(cut)")
                try FileManager.default.removeItem(atPath: directory)
            }
        }
    }

    @Test func zeroTailIsCut() throws {
        try withTemporaryDirectory { root in
            let pristine = root + "/pristine"
            let all = try buildLog(at: pristine, frames: 6, segmentBytesLimit: 100_000)
            let segment = try segmentPaths(pristine).last!
            let name = (segment as NSString).lastPathComponent
            let frame = try layout(of: segment).structures.last!
            let frameFirst = UInt64(try fileBytes(segment).loadLittleEndian(UInt64.self, at: frame.start + 8))
            let bytes = try fileBytes(segment)
            // Zeros after the last frame, and a last frame whose bytes never made it (zero-filled).
            let variants: [[UInt8]] = [
                bytes + [UInt8](repeating: 0, count: 500),
                Array(bytes[0..<frame.start]) + [UInt8](repeating: 0, count: frame.end - frame.start),
                bytes + [0],
            ]
            for (index, variant) in variants.enumerated() {
                let directory = root + "/variant-\(index)"
                try copyDirectory(pristine, to: directory)
                try writeFileBytes(variant, to: directory + "/" + name)
                try setPublishedHead(frameFirst - 1, in: directory)
                #expect(try verifyLog(directory: directory).tornTail != nil, "variant \(index)")
                let writer = try LogWriter.open(directory: directory, options: testOptions())
                try writer.close()
                let events = try readAll(directory)
                #expect(events == (index == 1 ? Array(all.prefix(Int(events.count))) : all), "variant \(index)")
                #expect(try verifyLog(directory: directory).isValid && (try verifyLog(directory: directory).tornTail == nil))
            }
        }
    }

    /// A crash while rolling leaves the new segment with a short or zero header: recovery rewrites it.
    @Test func tornHeaderOfAFreshSegmentAtEveryOffset() throws {
        try withTemporaryDirectory { root in
            let pristine = root + "/pristine"
            let all = try buildLog(at: pristine, frames: 8, segmentBytesLimit: 600)
            let next = UInt64(all.count + 1)
            let name = StoreDirectory.segmentName(firstSequence: next)
            let header = SegmentHeader(firstSequence: next, startHash: try LogReader.open(directory: pristine).head.hash).encoded()
            var variants = (0..<64).map { Array(header.prefix($0)) }
            variants.append([UInt8](repeating: 0, count: 64))
            variants.append([UInt8](repeating: 0, count: 200))
            for (index, variant) in variants.enumerated() {
                let directory = root + "/variant-\(index)"
                try copyDirectory(pristine, to: directory)
                try writeFileBytes(variant, to: directory + "/" + name)
                #expect(try LogReader.open(directory: directory).head.sequence == UInt64(all.count), "variant \(index)")
                let writer = try LogWriter.open(directory: directory, options: testOptions())
                #expect(try fileBytes(directory + "/" + name) == header, "variant \(index)")
                let result = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "", payload: [])])
                #expect(result.first == next, "variant \(index)")
                try writer.close()
                #expect(try readAll(directory).dropLast() == all[...], "variant \(index)")
                #expect(try verifyLog(directory: directory).isValid, "variant \(index)")
                try FileManager.default.removeItem(atPath: directory)
            }
        }
    }

    @Test func tornHeaderOfTheFirstSegment() throws {
        try withTemporaryDirectory { root in
            let header = SegmentHeader(firstSequence: 1, startHash: LogFormat.genesisHash).encoded()
            for cut in 0..<64 {
                let directory = root + "/cut-\(cut)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try writeFileBytes(Array(header.prefix(cut)), to: directory + "/" + StoreDirectory.segmentName(firstSequence: 1))
                let writer = try LogWriter.open(directory: directory, options: testOptions())
                #expect(writer.head == .genesis, "cut \(cut)")
                #expect(try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "", payload: [])]).first == 1)
                try writer.close()
            }
        }
    }

    @Test func tornFrameInASealedSegmentIsDamage() throws {
        try withTemporaryDirectory { directory in
            try buildLog(at: directory, frames: 12, segmentBytesLimit: 600)
            let first = try segmentPaths(directory)[0]
            let bytes = try fileBytes(first)
            try writeFileBytes(Array(bytes.dropLast(3)), to: first)
            #expect { _ = try LogWriter.open(directory: directory) } throws: { error in
                let error = error as! LogError
                return error.code == .corrupt && error.path == first
            }
            #expect(try fileBytes(first) == Array(bytes.dropLast(3)))
        }
    }

    @Test func failedWriteIsCutBackAndEveryCallerInTheGroupThrows() throws {
        try withTemporaryDirectory { directory in
            var options = testOptions()
            options.faultInjection = { first in
                if first == 4 { throw LogError(.io, "pwrite failed: injected") }
            }
            let writer = try LogWriter.create(directory: directory, options: options)
            _ = try writer.append((0..<3).map { _ in LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "", payload: [1]) })
            let head = writer.head
            #expect(throws: LogError.self) { _ = try writer.append([LogRecord(kind: 1, version: 1, effectiveAt: 0, entity: "", payload: [2])]) }
            #expect(writer.head == head)
            try writer.close()
            #expect(try readAll(directory).count == 3)
            #expect(try verifyLog(directory: directory).isValid)
        }
    }
}
