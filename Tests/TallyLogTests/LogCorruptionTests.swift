import Foundation
import Testing
@testable import TallyLog

struct LogCorruptionTests {
    /// Flips one bit at every byte offset of a small three-segment log. Opening a writer, opening a reader or
    /// verifying must report it, naming the damaged segment file and an offset inside the damaged structure;
    /// a failed open leaves every byte as it was.
    @Test func everyFlippedByteIsDetectedAndLocated() throws {
        try withTemporaryDirectory { root in
            let pristine = root + "/pristine"
            try buildLog(at: pristine, frames: 9, segmentBytesLimit: 450, payloadBytesMax: 24)
            let segments = try segmentPaths(pristine)
            #expect(segments.count >= 3)
            let directory = root + "/work"
            try copyDirectory(pristine, to: directory)
            for segment in segments {
                let name = (segment as NSString).lastPathComponent
                let target = directory + "/" + name
                let original = try fileBytes(segment)
                let structures = try layout(of: segment).structures
                for offset in original.indices {
                    let structure = structures.first { $0.start <= offset && offset < $0.end }!
                    var damaged = original
                    damaged[offset] ^= UInt8(1 << (offset % 8))
                    try writeFileBytes(damaged, to: target)
                    let context = "\(name) byte \(offset) in the \(structure.kind) at \(structure.start)"

                    func located(_ error: LogError) -> Bool {
                        guard error.path == target, let at = error.offset else { return false }
                        return Int(at) >= structure.start && Int(at) < structure.end
                    }
                    var detected = false
                    do {
                        let writer = try LogWriter.open(directory: directory, options: testOptions())
                        try writer.close()
                    } catch let error as LogError {
                        #expect(located(error), "\(context): \(error)")
                        detected = true
                    }
                    #expect(try fileBytes(target) == damaged, "\(context): bytes changed")
                    let verification = try verifyLog(directory: directory)
                    #expect(
                        !verification.problems.isEmpty,
                        "\(context): verify found nothing (tornTail: \(verification.tornTail.map { "\($0)" } ?? "none"), writerActive: \(verification.writerActive), lock held now: \(DirectoryLock.isHeld(directory: directory)))")
                    if let problem = verification.problems.first {
                        #expect(located(problem), "\(context): \(problem)")
                        detected = true
                    }
                    #expect(detected, "\(context)")
                    do {
                        var events = 0
                        try LogReader.open(directory: directory).forEach { _ in events += 1 }
                        Issue.record("\(context): a reader read \(events) events without noticing")
                    } catch let error as LogError {
                        #expect(located(error), "\(context): reader \(error)")
                    }
                }
                try writeFileBytes(original, to: target)
            }
            #expect(try verifyLog(directory: directory).isValid)
        }
    }

    @Test func problemsAreCollectedAcrossSegments() throws {
        try withTemporaryDirectory { directory in
            try buildLog(at: directory, frames: 12, segmentBytesLimit: 450, payloadBytesMax: 24)
            let segments = try segmentPaths(directory)
            for path in [segments[0], segments[2]] {
                var bytes = try fileBytes(path)
                let frame = try layout(of: path).structures[1]
                bytes[frame.end - 1] ^= 0x10
                try writeFileBytes(bytes, to: path)
            }
            let verification = try verifyLog(directory: directory)
            #expect(verification.problems.map(\.path) == [segments[0], segments[2]])
            #expect(verification.problems.allSatisfy { $0.code == .corrupt && $0.offset == 64 })
        }
    }

    @Test func missingSegmentIsAGap() throws {
        try withTemporaryDirectory { directory in
            try buildLog(at: directory, frames: 12, segmentBytesLimit: 450)
            let segments = try segmentPaths(directory)
            try FileManager.default.removeItem(atPath: segments[1])
            #expect { _ = try LogWriter.open(directory: directory) } throws: { error in
                let error = error as! LogError
                return error.code == .corrupt && error.path == segments[2]
            }
            #expect(try verifyLog(directory: directory).problems.first?.path == segments[2])
        }
    }
}
