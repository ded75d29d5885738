import Crypto
import Foundation
import Testing
@testable import TallyLog

/// Frames sealed at rest (AES-256-GCM after compression, the header as associated data): what a
/// sealed log hides, what it still answers, and how it refuses a missing, wrong or altered key.
struct LogEncryptionTests {
    static func keys(_ seed: UInt8, id: UInt32 = 1) throws -> LogKeys {
        try LogKeys(sealingKeyID: id, keys: [id: SymmetricKey(data: (0..<32).map { $0 &* 7 &+ seed })])
    }

    /// Records whose entity and payload carry a recognisable secret.
    static func records(_ count: Int, secret: String) -> [LogRecord] {
        (0..<count).map { index in
            LogRecord(
                kind: 7, version: 1, effectiveAt: 1_700_000_000_000_000 + Int64(index),
                entity: "payee:\(secret)", idempotencyKey: "bank:\(secret)-\(index)",
                payload: Array("\(secret) paid \(index) to \(secret) for groceries, again and again".utf8))
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let needle = Array(needle.utf8)
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// Writes two logs of the same events with the same clock, one sealed and one not.
    static func twin(at directory: String, keys: LogKeys, commits: Int = 20, segmentBytesLimit: Int64 = 2048) throws -> (sealed: String, plain: String) {
        let sealed = directory + "/sealed"
        let plain = directory + "/plain"
        for (path, keys) in [(sealed, Optional(keys)), (plain, nil)] {
            var options = testOptions(clock: TestClock(), segmentBytesLimit: segmentBytesLimit)
            options.keys = keys
            let writer = try LogWriter.create(directory: path, options: options)
            for commit in 0..<commits { _ = try writer.append(records(commit % 3 + 1, secret: "Schwarzwald Bakery")) }
            try writer.close()
        }
        return (sealed, plain)
    }

    @Test func aSealedLogReadsBackEveryEventAndHidesEveryByteOfThem() throws {
        try withTemporaryDirectory { directory in
            let keys = try Self.keys(1)
            let (sealed, plain) = try Self.twin(at: directory, keys: keys)
            var sealedEvents: [LoggedEvent] = []
            try LogReader.open(directory: sealed, keys: keys).forEach { sealedEvents.append($0) }
            let plainEvents = try readAll(plain)
            #expect(sealedEvents == plainEvents)
            #expect(sealedEvents.count == 39)
            #expect(try segmentPaths(sealed).count > 1, "the test spans segments")
            for path in try segmentPaths(sealed) {
                #expect(!Self.contains(try fileBytes(path), "Schwarzwald"), "\(path) shows the secret")
                #expect(!Self.contains(try fileBytes(path), "groceries"), "\(path) shows the secret")
            }
            // The control: the same events unsealed are readable on disk (LZ4 keeps literals).
            #expect(try segmentPaths(plain).contains { Self.contains(try fileBytes($0), "Schwarzwald") })
        }
    }

    /// The chain covers the events, not their frames: sealing changes no digest, so a digest kept
    /// before encryption was turned on (or a plain export's) still checks.
    @Test func sealingChangesNoDigestAndVerifyPassesWithTheKeys() throws {
        try withTemporaryDirectory { directory in
            let keys = try Self.keys(2)
            let (sealed, plain) = try Self.twin(at: directory, keys: keys)
            let plainHead = try LogReader.open(directory: plain).head
            #expect(try LogReader.open(directory: sealed, keys: keys).head == plainHead)
            let report = try verifyLog(directory: sealed, expect: plainHead, keys: keys)
            #expect(report.isValid, "\(report.problems)")
            #expect(report.recomputedHead == plainHead)
            #expect(report.expectation == .matched)
            let reader = try LogReader.open(directory: sealed, keys: keys)
            #expect(try reader.hash(of: 17) == (try LogReader.open(directory: plain).hash(of: 17)))
        }
    }

    @Test func withoutTheKeysNothingOpensAndNothingChanges() throws {
        try withTemporaryDirectory { directory in
            let keys = try Self.keys(3)
            let (sealed, _) = try Self.twin(at: directory, keys: keys)
            let before = try segmentPaths(sealed).map { try fileBytes($0) }
            func expectKeyRequired(_ what: String, _ body: () throws -> Void) {
                #expect(what.isEmpty == false)
                do { try body(); Issue.record("\(what) opened a sealed log without its keys") } catch let error as LogError {
                    #expect(error.code == .keyRequired, "\(what): \(error)")
                    #expect(error.message.contains("sealed"), "\(what): \(error)")
                } catch { Issue.record("\(what): \(error)") }
            }
            expectKeyRequired("reader") { try LogReader.open(directory: sealed).forEach { _ in } }
            expectKeyRequired("writer") { _ = try LogWriter.open(directory: sealed, options: testOptions()) }
            expectKeyRequired("verify") { _ = try verifyLog(directory: sealed) }
            expectKeyRequired("repair") { _ = try LogRepair.repair(directory: sealed) }
            #expect(try segmentPaths(sealed).map { try fileBytes($0) } == before)
            #expect(!FileManager.default.fileExists(atPath: sealed + "/quarantine"))
        }
    }

    @Test func theWrongKeyIsRefusedAsDamageNeverReadAsData() throws {
        try withTemporaryDirectory { directory in
            let (sealed, _) = try Self.twin(at: directory, keys: try Self.keys(4))
            let wrong = try Self.keys(5)
            #expect(throws: LogError.self) { try LogReader.open(directory: sealed, keys: wrong).forEach { _ in } }
            do { _ = try LogWriter.open(directory: sealed, options: { var o = testOptions(); o.keys = wrong; return o }()) } catch let error as LogError {
                #expect(error.code == .corrupt && error.message.contains("does not authenticate"), "\(error)")
            }
            let unknownID = try Self.keys(4, id: 9)
            do { try LogReader.open(directory: sealed, keys: unknownID).forEach { _ in } } catch let error as LogError {
                #expect(error.message.contains("key 1, which the log's keys do not hold"), "\(error)")
            }
        }
    }

    /// A ciphertext byte flipped and both checksums recomputed (a deliberate forgery, not a disk error):
    /// the checksums pass, the authentication does not.
    @Test func anAlteredSealedBodyFailsAuthentication() throws {
        try withTemporaryDirectory { directory in
            let keys = try Self.keys(6)
            let (sealed, _) = try Self.twin(at: directory, keys: keys, commits: 3, segmentBytesLimit: 1 << 20)
            let path = try segmentPaths(sealed)[0]
            var bytes = try fileBytes(path)
            let frame = 64
            bytes[frame + 88 + 20] ^= 0x01
            var whole = Array(bytes[frame..<(frame + 88 + Int(bytes.loadLittleEndian(UInt32.self, at: frame + 24)))])
            FrameHeader.writeChecksums(into: &whole)
            bytes.replaceSubrange(frame..<(frame + whole.count), with: whole)
            try writeFileBytes(bytes, to: path)
            let report = try verifyLog(directory: sealed, keys: keys)
            #expect(report.problems.first?.message.contains("does not authenticate") == true, "\(report.problems)")
            #expect(report.firstDamagedSequence == 1)
        }
    }

    /// An unsealed frame appended to an encrypted log, with a correct chain (the previous hash is in the
    /// clear in the header), is refused: only the key holder writes to an encrypted log.
    @Test func anUnsealedFrameInAnEncryptedLogIsRefused() throws {
        try withTemporaryDirectory { directory in
            let keys = try Self.keys(7)
            let (sealed, _) = try Self.twin(at: directory, keys: keys, commits: 2, segmentBytesLimit: 1 << 20)
            let head = try LogReader.open(directory: sealed, keys: keys).head
            let forged = LoggedEvent(
                sequence: head.sequence + 1, recordedAt: Int64.max / 2, kind: 7, version: 1, effectiveAt: 0,
                entity: "payee:forger", cause: nil, idempotencyKey: nil, payload: [1, 2, 3])
            let (frame, _) = FrameCodec.encode([forged], previousHash: head.hash)
            let path = try segmentPaths(sealed)[0]
            try writeFileBytes(try fileBytes(path) + frame, to: path)
            do { try LogReader.open(directory: sealed, keys: keys).forEach { _ in } ; Issue.record("read a forged frame") } catch let error as LogError {
                #expect(error.message.contains("not sealed, but this log is encrypted"), "\(error)")
            }
        }
    }

    @Test func aTornSealedTailIsCutOnOpenLikeAnyOther() throws {
        try withTemporaryDirectory { directory in
            let keys = try Self.keys(8)
            let (sealed, _) = try Self.twin(at: directory, keys: keys, commits: 5, segmentBytesLimit: 1 << 20)
            let path = try segmentPaths(sealed)[0]
            let full = try fileBytes(path)
            let last = try layout(of: path).structures.last!
            try truncateFile(path, to: last.start + 88 + 5)
            try setPublishedHead(7, in: sealed)
            var options = testOptions()
            options.keys = keys
            let writer = try LogWriter.open(directory: sealed, options: options)
            #expect(writer.head.sequence == 7, "5 commits of 1, 2, 3, 1, 2 events, the last cut")
            _ = try writer.append(Self.records(2, secret: "after"))
            try writer.close()
            #expect(try verifyLog(directory: sealed, keys: keys).isValid)
            #expect(full.count > last.start)
        }
    }

    /// Issue 34, item 1: a damaged sealed frame in the middle is set aside like a plain one; the
    /// lost frame (never sealed) is passed over by readers and verify with the keys, the frames
    /// after it still open and verify, and the writer appends sealed frames after them.
    @Test func aDamagedSealedFrameIsSetAsideAndEveryLaterSealedFrameKept() throws {
        try withTemporaryDirectory { directory in
            let keys = try Self.keys(10)
            let (sealed, _) = try Self.twin(at: directory, keys: keys, commits: 8, segmentBytesLimit: 1 << 20)
            let path = try segmentPaths(sealed)[0]
            var bytes = try fileBytes(path)
            let frame = try layout(of: path).structures[3]
            let first = bytes.loadLittleEndian(UInt64.self, at: frame.start + 8)
            let last = first + UInt64(bytes.loadLittleEndian(UInt32.self, at: frame.start + 16)) - 1
            bytes[frame.end - 3] ^= 0x20
            try writeFileBytes(bytes, to: path)
            var before: [LoggedEvent] = []
            let report = try LogRepair.repair(directory: sealed, keys: keys)
            #expect(report.setAside.map { $0.firstSequence...$0.lastSequence } == [first...last] && report.cutPath == nil)
            let verification = try verifyLog(directory: sealed, keys: keys)
            #expect(verification.isValid && verification.lostEvents == [first...last], "\(verification.problems)")
            try LogReader.open(directory: sealed, keys: keys).forEach { before.append($0) }
            #expect(before.allSatisfy { $0.sequence < first || $0.sequence > last } && before.last?.sequence == verification.lastSequence)
            var options = testOptions()
            options.keys = keys
            let writer = try LogWriter.open(directory: sealed, options: options)
            let appended = try writer.append(Self.records(2, secret: "after"))
            try writer.close()
            #expect(appended.first == verification.lastSequence + 1)
            let after = try verifyLog(directory: sealed, keys: keys)
            #expect(after.isValid && after.lostEvents == [first...last])
            #expect(!Self.contains(try fileBytes(path), "after paid"), "what follows is sealed")
        }
    }

    @Test func aSealedFrameCarriesItsKeyIdentifierAndFlag() throws {
        let keys = try Self.keys(9, id: 42)
        let event = LoggedEvent(
            sequence: 1, recordedAt: 5, kind: 1, version: 1, effectiveAt: 5, entity: "e", cause: nil, idempotencyKey: nil,
            payload: Array(repeating: 3, count: 200))
        let (frame, _) = FrameCodec.encode([event], previousHash: LogFormat.genesisHash, keys: keys)
        let header = try frame.withUnsafeBytes { try FrameHeader.decode($0, path: "t", offset: 0) }
        #expect(header.isSealed && header.isCompressed)
        #expect(header.keyID == 42)
        #expect(header.unsealedLength + FrameSealing.overheadBytes == Int(header.storedLength))
        #expect(frame.count == 88 + Int(header.storedLength))
        let (again, _) = FrameCodec.encode([event], previousHash: LogFormat.genesisHash, keys: keys)
        #expect(again[88...] != frame[88...], "a fresh nonce per frame")
        #expect(throws: LogError.self) { try LogKeys(sealingKeyID: 2, keys: [1: SymmetricKey(size: .bits256)]) }
        #expect(throws: LogError.self) { try LogKeys(sealingKeyID: 1, keys: [1: SymmetricKey(size: .bits128)]) }
    }

    /// The fault simulation (crashes, torn and failed writes, failed syncs, bit flips) with every frame sealed.
    @Test func sealedSimulationRun() {
        let count = ProcessInfo.processInfo.environment["TALLY_SIM_SEEDS"].flatMap(Int.init) ?? 120
        let figures = runLogSimulation(first: 5_000, count: count, sealed: true)
        print("sealed log simulation: \(figures)")
        for failure in figures.failures.prefix(5) { Issue.record("\(failure)") }
        #expect(figures.failures.isEmpty, "failing seeds")
    }
}
