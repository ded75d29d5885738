import Foundation
import Synchronization
@testable import TallyLog

/// A fresh directory under the system temp directory, removed after `body`.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tallylog-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tallylog-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// A clock that returns a scripted sequence of instants, then keeps returning the last plus one step.
final class TestClock: Sendable {
    private let state: Mutex<(next: Int64, step: Int64)>
    init(start: Int64 = 1_700_000_000_000_000, step: Int64 = 1_000) { state = Mutex((start, step)) }
    func now() -> Int64 { state.withLock { value in defer { value.next += value.step }; return value.next } }
    func set(_ instant: Int64, step: Int64? = nil) { state.withLock { $0.next = instant; if let step { $0.step = step } } }
    var function: @Sendable () -> Int64 { { self.now() } }
}

func testOptions(clock: TestClock = TestClock(), segmentBytesLimit: Int64 = 128 << 20, sync: LogOptions.SyncMode = .none) -> LogOptions {
    LogOptions(segmentBytesLimit: segmentBytesLimit, clock: clock.function, syncMode: sync)
}

func randomRecord(_ rng: inout SplitMix64, payloadBytesMax: Int = 120) -> LogRecord {
    let payloadCount = Int(rng.next() % UInt64(payloadBytesMax + 1))
    var payload = [UInt8](repeating: 0, count: payloadCount)
    for index in payload.indices { payload[index] = UInt8(truncatingIfNeeded: rng.next() % 7) } // compressible
    let key: String? = rng.next() % 3 == 0 ? "key-\(rng.next() % 1_000_000)" : nil
    return LogRecord(
        kind: UInt32(rng.next() % 40), version: UInt16(rng.next() % 3 + 1),
        effectiveAt: 1_600_000_000_000_000 + Int64(rng.next() % 100_000_000_000),
        entity: "account:\(rng.next() % 1000)", idempotencyKey: key, payload: payload)
}

/// The expected event for a record appended at `sequence` and `recordedAt` with a resolved cause.
func expectedEvent(_ record: LogRecord, sequence: UInt64, recordedAt: Int64, cause: UInt64?) -> LoggedEvent {
    LoggedEvent(
        sequence: sequence, recordedAt: recordedAt, kind: record.kind, version: record.version,
        effectiveAt: record.effectiveAt, entity: record.entity, cause: cause,
        idempotencyKey: record.idempotencyKey, payload: record.payload)
}

func readAll(_ directory: String) throws -> [LoggedEvent] {
    var events: [LoggedEvent] = []
    try LogReader.open(directory: directory).forEach { events.append($0) }
    return events
}

func segmentPaths(_ directory: String) throws -> [String] {
    try StoreDirectory.segments(in: directory).map(\.path)
}

func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

func writeFileBytes(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Sets the log's published head to `sequence`: as if the commits after it had been written
/// but a crash came before their sync returned (so they were never published).
func setPublishedHead(_ sequence: UInt64, in directory: String) throws {
    try writeFileBytes(PublishedHead.encoded(sequence), to: PublishedHead.path(in: directory))
}

func truncateFile(_ path: String, to length: Int) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.truncate(atOffset: UInt64(length))
    try handle.close()
}

/// Copies every regular file of `source` (not subdirectories) into a new directory `target`.
func copyDirectory(_ source: String, to target: String) throws {
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    for name in try FileManager.default.contentsOfDirectory(atPath: source) {
        let from = source + "/" + name
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: from, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
        try FileManager.default.copyItem(atPath: from, toPath: target + "/" + name)
    }
}

/// Where each structure of a segment file lies: the header, then each frame (from frame headers).
struct Layout {
    var path: String
    var structures: [(start: Int, end: Int, kind: String)]
}

func layout(of path: String) throws -> Layout {
    let bytes = try fileBytes(path)
    var structures: [(Int, Int, String)] = [(0, 64, "segment header")]
    var offset = 64
    while offset + 88 <= bytes.count {
        let stored = Int(bytes.loadLittleEndian(UInt32.self, at: offset + 24))
        structures.append((offset, offset + 88 + stored, "frame"))
        offset += 88 + stored
    }
    return Layout(path: path, structures: structures.map { (start: $0.0, end: $0.1, kind: $0.2) })
}

/// A small multi-segment log: `frames` appends of 1…`recordsPerFrameMax` records with tiny segments.
@discardableResult
func buildLog(
    at directory: String, frames: Int, segmentBytesLimit: Int64 = 600, seed: UInt64 = 42, payloadBytesMax: Int = 40, recordsPerFrameMax: UInt64 = 3
) throws -> [LoggedEvent] {
    var rng = SplitMix64(seed: seed)
    let writer = try LogWriter.create(directory: directory, options: testOptions(segmentBytesLimit: segmentBytesLimit))
    for _ in 0..<frames {
        let count = Int(rng.next() % recordsPerFrameMax) + 1
        _ = try writer.append((0..<count).map { _ in randomRecord(&rng, payloadBytesMax: payloadBytesMax) })
    }
    try writer.close()
    return try readAll(directory)
}
