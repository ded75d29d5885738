// libFuzzer target: the log's frame and segment reader (TallyLog's `FrameHeader`,
// `FrameCodec`, `StoreScanner`, `LogReader`).
//
// Byte 0 chooses the mode:
// - even: the rest is one frame. Its two CRC32C checksums are recomputed first (unless
//   bit 1 is set), so that mutations reach the header checks, LZ4 and the record decoder
//   instead of stopping at a checksum; then the frame is decoded as `forEach` would.
// - odd: the rest is the body of a segment file (after a valid 64-byte header for sequence
//   1), written to a scratch log directory and opened as a reader would, every event read.
// Any outcome is fine but a crash, a hang or unbounded memory.
@testable import TallyLog
import Foundation

private let scratchDirectory = NSTemporaryDirectory() + "tally-fuzz-log-\(ProcessInfo.processInfo.processIdentifier)"
private let segmentPath = StoreDirectory.join(scratchDirectory, StoreDirectory.segmentName(firstSequence: 1))
private let segmentHeader = SegmentHeader(firstSequence: 1, startHash: [UInt8](repeating: 0, count: 32)).encoded()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let mode = data[0]
    var bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if mode & 1 == 0 {
        decodeFrame(&bytes, fixChecksums: mode & 2 == 0)
    } else {
        readSegment(bytes)
    }
    return 0
}

private func decodeFrame(_ bytes: inout [UInt8], fixChecksums: Bool) {
    let headerBytes = LogFormat.frameHeaderBytes
    guard bytes.count >= headerBytes else { return }
    if fixChecksums {
        let frameChecksum = bytes.withUnsafeBytes { raw in
            CRC32C.update(CRC32C.update(0, UnsafeRawBufferPointer(rebasing: raw[0..<80])),
                          UnsafeRawBufferPointer(rebasing: raw[headerBytes...]))
        }
        bytes.storeLittleEndian(frameChecksum, at: 80)
        let headerChecksum = bytes.withUnsafeBytes { CRC32C.update(0, UnsafeRawBufferPointer(rebasing: $0[0..<84])) }
        bytes.storeLittleEndian(headerChecksum, at: 84)
    }
    bytes.withUnsafeBytes { raw in
        let headerRaw = UnsafeRawBufferPointer(rebasing: raw[0..<headerBytes])
        guard let header = try? FrameHeader.decode(headerRaw, path: "fuzz", offset: 0) else { return }
        let stored = UnsafeRawBufferPointer(rebasing: raw[headerBytes...].prefix(Int(header.storedLength)))
        guard stored.count == Int(header.storedLength) else { return }
        guard (try? header.checkBody(header: headerRaw, body: stored, path: "fuzz", offset: 0)) != nil else { return }
        guard let body = try? FrameCodec.uncompressedBody(header, stored: stored, path: "fuzz", offset: 0) else { return }
        var count: UInt64 = 0
        _ = try? FrameCodec.decodeBody(body, header: header, path: "fuzz", offset: 0) { event in
            precondition(event.sequence == header.firstSequence + count, "records come out in sequence")
            count += 1
        }
    }
}

private func readSegment(_ body: [UInt8]) {
    try? FileManager.default.removeItem(atPath: scratchDirectory)
    try? FileManager.default.createDirectory(atPath: scratchDirectory, withIntermediateDirectories: true)
    guard FileManager.default.createFile(atPath: segmentPath, contents: Data(segmentHeader + body)) else {
        fatalError("cannot write the scratch segment \(segmentPath)")
    }
    guard let reader = try? LogReader.open(directory: scratchDirectory) else { return }
    var previous: UInt64 = 0
    _ = try? reader.forEach { event in
        precondition(event.sequence == previous + 1, "events come out gapless")
        previous = event.sequence
    }
    _ = try? reader.statistics()
    _ = try? verifyLog(directory: scratchDirectory)
}
