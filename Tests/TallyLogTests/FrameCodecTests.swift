import Testing
@testable import TallyLog

struct FrameCodecTests {
    static func events(_ rng: inout SplitMix64, first: UInt64, count: Int, payloadBytesMax: Int = 200) -> [LoggedEvent] {
        var recordedAt = Int64(rng.next() % 1_000_000)
        return (0..<count).map { index in
            let record = randomRecord(&rng, payloadBytesMax: payloadBytesMax)
            recordedAt += Int64(rng.next() % 3)
            let sequence = first + UInt64(index)
            let cause: UInt64? = sequence > 1 && rng.next() % 2 == 0 ? 1 + rng.next() % (sequence - 1) : nil
            return expectedEvent(record, sequence: sequence, recordedAt: recordedAt, cause: cause)
        }
    }

    static func decode(_ frame: [UInt8]) throws -> (FrameHeader, [LoggedEvent]) {
        let header = try frame.withUnsafeBytes { try FrameHeader.decode($0, path: "test", offset: 0) }
        var decoded: [LoggedEvent] = []
        try frame.withUnsafeBytes { raw in
            let body = UnsafeRawBufferPointer(rebasing: raw[88...])
            try header.checkBody(header: raw, body: body, path: "test", offset: 0)
            let records = try FrameCodec.uncompressedBody(header, stored: body, path: "test", offset: 0)
            try FrameCodec.decodeBody(records, header: header, path: "test", offset: 0) { decoded.append($0) }
        }
        return (header, decoded)
    }

    @Test func roundTripsRandomFrames() throws {
        let seed: UInt64 = 7
        var rng = SplitMix64(seed: seed)
        for round in 0..<50 {
            let first = 1 + rng.next() % 1000
            let events = Self.events(&rng, first: first, count: Int(rng.next() % 40) + 1)
            let previous = (0..<32).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let (frame, lastHash) = FrameCodec.encode(events, previousHash: previous)
            let (header, decoded) = try Self.decode(frame)
            #expect(decoded == events, "round \(round), seed \(seed)")
            #expect(header.firstSequence == first && header.count == UInt32(events.count))
            #expect(header.lastHash == lastHash)
            var hash = previous
            for event in events { hash = ChainHash.next(after: hash, event) }
            #expect(hash == lastHash, "round \(round), seed \(seed)")
        }
    }

    @Test func extremeFieldValuesRoundTrip() throws {
        let event = LoggedEvent(
            sequence: UInt64.max - 1, recordedAt: Int64.max, kind: UInt32.max, version: UInt16.max,
            effectiveAt: Int64.min, entity: String(repeating: "é", count: 127), cause: 1,
            idempotencyKey: String(repeating: "k", count: 255), payload: [])
        let (_, decoded) = try Self.decode(FrameCodec.encode([event], previousHash: LogFormat.genesisHash).frame)
        #expect(decoded == [event])
    }

    @Test func incompressibleBodyIsStoredRaw() throws {
        var rng = SplitMix64(seed: 99)
        let payload = (0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let event = LoggedEvent(sequence: 1, recordedAt: 5, kind: 1, version: 1, effectiveAt: 5, entity: "", cause: nil, idempotencyKey: nil, payload: payload)
        let (frame, _) = FrameCodec.encode([event], previousHash: LogFormat.genesisHash)
        let (header, decoded) = try Self.decode(frame)
        #expect(!header.isCompressed)
        #expect(header.storedLength == header.uncompressedLength)
        #expect(decoded == [event])
    }

    @Test func compressibleBodyIsCompressed() throws {
        let events = (1...100).map { LoggedEvent(sequence: UInt64($0), recordedAt: 5, kind: 1, version: 1, effectiveAt: 5, entity: "same", cause: nil, idempotencyKey: nil, payload: [UInt8](repeating: 3, count: 80)) }
        let (frame, _) = FrameCodec.encode(events, previousHash: LogFormat.genesisHash)
        let (header, decoded) = try Self.decode(frame)
        #expect(header.isCompressed)
        #expect(header.storedLength * 5 < header.uncompressedLength)
        #expect(decoded == events)
    }

    @Test func everyBitFlipOfAFrameIsDetected() throws {
        var rng = SplitMix64(seed: 3)
        let (frame, _) = FrameCodec.encode(Self.events(&rng, first: 1, count: 3, payloadBytesMax: 20), previousHash: LogFormat.genesisHash)
        for offset in frame.indices {
            for bit in 0..<8 {
                var damaged = frame
                damaged[offset] ^= UInt8(1 << bit)
                #expect(throws: LogError.self, "offset \(offset) bit \(bit)") { _ = try Self.decode(damaged) }
            }
        }
    }

    @Test func hashIgnoresFramePacking() throws {
        var rng = SplitMix64(seed: 11)
        let events = Self.events(&rng, first: 1, count: 10)
        let whole = FrameCodec.encode(events, previousHash: LogFormat.genesisHash).lastHash
        let firstHalf = FrameCodec.encode(Array(events[0..<4]), previousHash: LogFormat.genesisHash).lastHash
        let secondHalf = FrameCodec.encode(Array(events[4...]), previousHash: firstHalf).lastHash
        #expect(whole == secondHalf)
    }

    @Test func varintsRejectOverlongInput() {
        let overlong = [UInt8](repeating: 0xFF, count: 11)
        overlong.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            #expect(reader.readVarint() == nil)
        }
        var writer = ByteWriter()
        for value: Int64 in [0, -1, 1, .min, .max] { writer.appendZigzag(value) }
        writer.bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            for value: Int64 in [0, -1, 1, .min, .max] { #expect(reader.readZigzag() == value) }
            #expect(reader.remaining == 0)
        }
    }

    @Test func digestParsesItsDescription() throws {
        let digest = LogDigest(sequence: 1042, hash: (0..<32).map { UInt8($0 * 7) })
        #expect(try LogDigest(parsing: digest.description) == digest)
        #expect(LogDigest.genesis.description == "0:" + String(repeating: "0", count: 64))
        for bad in ["", "12", "x:00", "1:" + String(repeating: "g", count: 64), "1:" + String(repeating: "0", count: 63)] {
            #expect(throws: LogError.self, "\(bad)") { _ = try LogDigest(parsing: bad) }
        }
    }
}
