/// Reads a ledger's whole log from PostgreSQL and checks everything, as ``verifyLog(directory:expect:capturingHashesAt:fileSystem:keys:progress:)``
/// does for files: each frame's header and checksums against its row, decompression and decoding
/// (with the keys of a sealed log), sequence continuity, recorded-time order, every hash link, and
/// the head row against the last frame.
///
/// Problems are collected rather than stopping at the first: after a damaged frame the walk goes
/// on at the next row, taking the hash the damaged frame's row stores as the chain's link. The
/// digests reported are recomputed from the events themselves.
///
/// ```swift
/// let report = try verifyPostgresLog(try PostgresLogLocation(url))
/// print(report.recomputedHead ?? report.lastGood)
/// ```
/// - Throws: ``LogError`` `notFound` when the database has no such ledger; `io` when it cannot be read.
public func verifyPostgresLog(
    _ location: PostgresLogLocation, expect: LogDigest? = nil, capturingHashesAt sequences: Set<UInt64> = [],
    keys: LogKeys? = nil, progress: ((UInt64) -> Void)? = nil
) throws -> LogVerification {
    let connection = try PostgresConnection.pooled(conninfo: location.connectionString, displayName: location.displayName)
    defer { connection.recycle() }
    do {
        let headRow = try connection.query(PostgresLogSchema.head, [.text(location.ledger)])
        guard headRow.count == 1 else {
            throw LogError(.notFound, "the database \(location.server) has no ledger '\(location.ledger)'")
        }
        // The head row and its frames commit together: every frame through the head read here
        // is visible to the reads after it; frames a writer commits meanwhile are past it.
        let stated = LogDigest(sequence: UInt64(headRow.int64(0, 0)), hash: headRow.bytes(0, 1))
        var walk = PostgresVerificationWalk(location: location, keys: keys, expect: expect, capture: sequences)
        var after: Int64 = 0
        while true {
            let rows = try connection.query(
                """
                SELECT first_sequence, last_sequence, last_hash, frame FROM tally_frames
                WHERE ledger = $1 AND first_sequence > $2 AND first_sequence <= $4 ORDER BY first_sequence LIMIT $3
                """, [.text(location.ledger), .int64(after), .int64(Int64(PostgresLogReader.framesPerQuery)), .int64(Int64(stated.sequence))])
            if rows.count == 0 { break }
            for row in 0..<rows.count {
                walk.check(rows, row)
                after = rows.int64(row, 0)
                progress?(walk.nextSequence - 1)
            }
        }
        return walk.result(stated: stated)
    } catch let error as PostgresError {
        throw error.logError
    }
}

/// The state of a walk over a ledger's frames (``verifyPostgresLog(_:expect:capturingHashesAt:keys:progress:)``).
struct PostgresVerificationWalk {
    let location: PostgresLogLocation
    let keys: LogKeys?
    let expect: LogDigest?
    var capture: Set<UInt64>
    var captured: [UInt64: [UInt8]] = [:]
    var problems: [LogError] = []
    var nextSequence: UInt64 = 1
    /// The chain as stored: each frame is checked against the hash its predecessor's row stores.
    var storedHash = LogFormat.genesisHash
    /// The chain recomputed from events alone; nil once an event cannot be read.
    var recomputed: [UInt8]? = LogFormat.genesisHash
    var lastGood = LogDigest.genesis
    var firstDamaged: UInt64?
    var lastRecordedAt = Int64.min
    var events: UInt64 = 0
    var frames: UInt64 = 0

    init(location: PostgresLogLocation, keys: LogKeys?, expect: LogDigest?, capture: Set<UInt64>) {
        self.location = location
        self.keys = keys
        self.expect = expect
        var capture = capture
        if let expect { capture.insert(expect.sequence) }
        self.capture = capture
        if capture.contains(0) { captured[0] = LogFormat.genesisHash }
    }

    private mutating func report(_ what: String, at sequence: UInt64, code: LogError.Code = .corrupt) {
        problems.append(LogError(code, "ledger '\(location.ledger)', frame at event \(sequence): \(what)", path: location.server))
        if firstDamaged == nil { firstDamaged = sequence }
    }

    /// Checks one row's frame and moves the walk past it.
    mutating func check(_ rows: PostgresConnection.Rows, _ row: Int) {
        frames += 1
        let first = UInt64(rows.int64(row, 0))
        let last = UInt64(rows.int64(row, 1))
        let rowHash = rows.bytes(row, 2)
        if first != nextSequence {
            report(first > nextSequence ? "events \(nextSequence)…\(first - 1) are missing" : "it overlaps the frame before (starts at \(first), expected \(nextSequence))", at: nextSequence)
            recomputed = nil
        }
        let problemsBefore = problems.count
        let decoded: (FrameHeader, [LoggedEvent])? = rows.withBytes(row, 3) { bytes in
            do {
                guard bytes.count >= LogFormat.frameHeaderBytes else {
                    throw LogError(.corrupt, "the frame is shorter than a frame header")
                }
                let headerBytes = UnsafeRawBufferPointer(rebasing: bytes[0..<LogFormat.frameHeaderBytes])
                let path = "\(location.displayName), frame \(first)"
                let header = try FrameHeader.decode(headerBytes, path: path, offset: 0)
                let body = UnsafeRawBufferPointer(rebasing: bytes[LogFormat.frameHeaderBytes...])
                guard header.firstSequence == first, header.lastSequence == last, body.count == Int(header.storedLength) else {
                    throw LogError(.corrupt, "the frame's header disagrees with its row (events \(header.firstSequence)…\(header.lastSequence), \(header.storedLength) bytes)")
                }
                try header.checkBody(header: headerBytes, body: body, path: path, offset: 0)
                let records = try FrameCodec.uncompressedBody(header, headerBytes: headerBytes, stored: body, keys: keys, path: path, offset: 0)
                var events: [LoggedEvent] = []
                try FrameCodec.decodeBody(records, header: header, path: path, offset: 0) { events.append($0) }
                return (header, events)
            } catch let error as LogError {
                report(error.message, at: first, code: error.code)
                return nil
            } catch {
                report("\(error)", at: first)
                return nil
            }
        }
        guard let (header, decoded) = decoded else {
            // The events of this frame cannot be read: the chain goes on from the hash its row stores.
            recomputed = nil
            storedHash = rowHash
            nextSequence = max(nextSequence, last + 1)
            return
        }
        var hash = storedHash
        for event in decoded {
            if event.recordedAt < lastRecordedAt {
                report("event \(event.sequence) was recorded before the event ahead of it", at: first)
            }
            lastRecordedAt = event.recordedAt
            hash = ChainHash.next(after: hash, event)
            if let chain = recomputed {
                let next = ChainHash.next(after: chain, event)
                recomputed = next
                if capture.contains(event.sequence) { captured[event.sequence] = next }
            }
            events += 1
        }
        if hash != header.lastHash || rowHash != header.lastHash {
            report("its events do not hash to the chain hash it stores: history was rewritten", at: first, code: .chainMismatch)
        }
        storedHash = header.lastHash
        nextSequence = last + 1
        if problems.count == problemsBefore, firstDamaged == nil, let chain = recomputed {
            lastGood = LogDigest(sequence: last, hash: chain)
        }
    }

    /// The verification, with the head row compared to the last frame.
    mutating func result(stated: LogDigest) -> LogVerification {
        let lastSequence = nextSequence - 1
        if stated.sequence != lastSequence {
            report("the head row says \(stated.sequence) events but the frames hold \(lastSequence)", at: min(stated.sequence, lastSequence) + 1)
        } else if stated.hash != storedHash {
            report("the head row's hash differs from the last frame's", at: lastSequence)
        }
        let recomputedHead = recomputed.map { LogDigest(sequence: lastSequence, hash: $0) }
        var expectation: LogVerification.Expectation?
        if let expect {
            if expect.sequence > lastSequence {
                expectation = .logShorter(head: lastSequence)
            } else if let hash = captured[expect.sequence] {
                expectation = hash == expect.hash ? .matched : .mismatched(recomputed: hash)
            } else {
                expectation = .unreadable(lastGood: lastGood)
            }
        }
        return LogVerification(
            head: recomputedHead ?? lastGood, recomputedHead: recomputedHead, lastGood: problems.isEmpty ? (recomputedHead ?? lastGood) : lastGood,
            firstDamagedSequence: firstDamaged, lastSequence: lastSequence, hashes: captured, events: events, frames: frames, segments: 0,
            problems: problems, tornTail: nil, writerActive: false, expectation: expectation)
    }
}
