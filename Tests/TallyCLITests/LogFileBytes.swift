import Foundation
import TallyLog

/// The bytes of a store's single log segment, with its frames located, for tests that damage or
/// forge the log the way a disk fault or an attacker would (see Schemas/log-format.md).
struct LogFileBytes {
    let path: String
    var bytes: [UInt8]

    /// The store's first (in these tests, only) segment file.
    init(store: String) throws {
        let log = store + "/log"
        let segment = try FileManager.default.contentsOfDirectory(atPath: log).filter { $0.hasSuffix(".tlog") }.sorted().first
        guard let segment else { throw CocoaError(.fileNoSuchFile) }
        path = log + "/" + segment
        bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Each frame's start and end (a 64-byte segment header, then 88-byte frame headers each followed by its body).
    var frames: [(start: Int, end: Int)] {
        var result: [(Int, Int)] = []
        var offset = 64
        while offset + 88 <= bytes.count {
            let stored = Int(bytes[offset + 24]) | Int(bytes[offset + 25]) << 8 | Int(bytes[offset + 26]) << 16 | Int(bytes[offset + 27]) << 24
            result.append((offset, offset + 88 + stored))
            offset += 88 + stored
        }
        return result.map { (start: $0.0, end: $0.1) }
    }

    /// Replaces the first occurrence of `old` with `new` (same length) inside a frame body, then
    /// recomputes that frame's checksums, so that only the hash chain can tell.
    mutating func rewrite(_ old: String, with new: String) throws {
        let needle = Array(old.utf8)
        let replacement = Array(new.utf8)
        precondition(needle.count == replacement.count)
        guard let at = (0...(bytes.count - needle.count)).first(where: { Array(bytes[$0..<$0 + needle.count]) == needle }),
              let frame = frames.first(where: { $0.start + 88 <= at && at < $0.end })
        else { throw CocoaError(.fileReadCorruptFile) }
        bytes.replaceSubrange(at..<at + needle.count, with: replacement)
        let frameChecksum = CRC32C.update(CRC32C.checksum(bytes[frame.start..<frame.start + 80]), bytes[frame.start + 88..<frame.end])
        store(frameChecksum, at: frame.start + 80)
        store(CRC32C.checksum(bytes[frame.start..<frame.start + 84]), at: frame.start + 84)
    }

    private mutating func store(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))) }
    }

    func write() throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
