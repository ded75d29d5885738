import Synchronization

/// A read-only view of a ledger's log on PostgreSQL, up to the head it saw when opened.
///
/// Frames are read by index range scans on `(ledger, first_sequence)`, a bounded number of rows
/// at a time, and each is checked as a file log's reader checks it — header and body checksums,
/// decoding, sequence continuity — and its chain: the events' hashes are recomputed from the
/// previous frame's and must end at the hash the frame stores. A frame that fails is never
/// returned: ``LogError`` `corrupt` names the ledger and the frame's first sequence number.
///
/// ```swift
/// let reader = try PostgresLogReader.open(location)
/// try reader.forEach(from: 1) { event in apply(event) }
/// ```
public struct PostgresLogReader: LogReading {
    /// Where the log is.
    public let location: PostgresLogLocation
    /// The last event in view.
    public let head: LogDigest
    let keys: LogKeys?
    private let source: Source

    /// Frames read by one query.
    static let framesPerQuery = 256

    /// The connection, used by one call at a time.
    final class Source: Sendable {
        let connection: Mutex<PostgresConnection>
        init(_ connection: PostgresConnection) { self.connection = Mutex(connection) }
        /// The connection goes back to the process's idle ones when the last view on it ends.
        deinit { connection.withLock { $0.recycle() } }
        var isUsable: Bool { connection.withLock { $0.isUsable } }

        /// Runs a read (or an idempotent write); a connection found lost is made again and the
        /// statement sent once more. Errors come as ``LogError``.
        @discardableResult
        func query(_ sql: String, _ parameters: [PostgresConnection.Value]) throws -> PostgresConnection.Rows {
            try connection.withLock { connection in
                do {
                    return try connection.query(sql, parameters)
                } catch let error as PostgresError where error.connectionLost {
                    do {
                        try connection.reconnect()
                        return try connection.query(sql, parameters)
                    } catch let again as PostgresError {
                        throw again.logError
                    }
                } catch let error as PostgresError {
                    throw error.logError
                }
            }
        }
    }

    init(location: PostgresLogLocation, head: LogDigest, keys: LogKeys?, source: Source) {
        self.location = location
        self.head = head
        self.keys = keys
        self.source = source
    }

    /// Opens a view of the ledger's log at its current head, or at `through` (a writer's own head).
    /// - Throws: ``LogError`` `notFound` when the database has no such ledger (or no Tally
    ///   tables); `io` for a server that cannot be reached or refuses.
    public static func open(_ location: PostgresLogLocation, keys: LogKeys? = nil, through: LogDigest? = nil) throws -> PostgresLogReader {
        let connection = try PostgresConnection.pooled(conninfo: location.connectionString, displayName: location.displayName)
        let head: LogDigest
        if let through {
            head = through
        } else {
            do {
                let rows = try connection.query(PostgresLogSchema.head, [.text(location.ledger)])
                guard rows.count == 1 else {
                    throw LogError(.notFound, "the database \(location.server) has no ledger '\(location.ledger)'; create it with `tally init`")
                }
                head = LogDigest(sequence: UInt64(rows.int64(0, 0)), hash: rows.bytes(0, 1))
            } catch let error as PostgresError {
                if error.sqlState == "42P01" {
                    throw LogError(.notFound, "the database \(location.server) holds no Tally logs (no tally_ledgers table); create a ledger with `tally init`")
                }
                throw error.logError
            }
        }
        return PostgresLogReader(location: location, head: head, keys: keys, source: Source(connection))
    }

    /// A view of the same log at its current head (this one is not changed).
    public func refreshed() throws -> PostgresLogReader {
        try Self.open(location, keys: keys)
    }

    // MARK: LogReading

    public func forEach(
        from sequence: UInt64, through last: UInt64?, withFrameEndHashes body: (LoggedEvent, [UInt8]?) throws -> Void
    ) throws {
        let first = max(sequence, 1)
        let end = min(last ?? head.sequence, head.sequence)
        guard first <= end else { return }
        try walkFrames(containing: first, through: end) { frame in
            for event in frame.events where event.sequence >= first && event.sequence <= end {
                try body(event, event.sequence == frame.header.lastSequence ? frame.header.lastHash : nil)
            }
            return frame.header.lastSequence < end
        }
    }

    public func forEach(at sequences: [UInt64], _ body: (LoggedEvent) throws -> Void) throws {
        let wanted = Set(sequences.filter { $0 >= 1 && $0 <= head.sequence })
        guard let low = wanted.min(), let high = wanted.max() else { return }
        // Frames between the least and the greatest number are walked; those holding none are
        // checked but not passed on (one range scan instead of a query per number).
        try walkFrames(containing: low, through: high) { frame in
            for event in frame.events where wanted.contains(event.sequence) { try body(event) }
            return frame.header.lastSequence < high
        }
    }

    public func firstSequence(recordedAtOrAfter instant: Int64) throws -> UInt64? {
        let rows = try query(
            """
            SELECT first_sequence FROM tally_frames WHERE ledger = $1 AND recorded_at_max >= $2 AND first_sequence <= $3
            ORDER BY recorded_at_max, first_sequence LIMIT 1
            """, [.text(location.ledger), .int64(instant), .int64(Int64(head.sequence))])
        guard rows.count == 1 else { return nil }
        var answer: UInt64? = nil
        let start = UInt64(rows.int64(0, 0))
        try walkFrames(containing: start, through: head.sequence) { frame in
            answer = frame.events.first { $0.recordedAt >= instant }?.sequence
            return answer == nil && frame.header.lastSequence < head.sequence
        }
        return answer
    }

    public func hash(of sequence: UInt64) throws -> [UInt8]? {
        if sequence == 0 { return LogFormat.genesisHash }
        if sequence == head.sequence { return head.hash }
        guard sequence < head.sequence else { return nil }
        var result: [UInt8]? = nil
        try walkFrames(containing: sequence, through: sequence) { frame in
            var hash = frame.hashBefore
            for event in frame.events where event.sequence <= sequence { hash = ChainHash.next(after: hash, event) }
            result = hash
            return false
        }
        return result
    }

    public func statistics() throws -> LogStatistics {
        let rows = try query(
            """
            SELECT count(*), coalesce(sum(octet_length(frame)), 0), coalesce(sum(pg_column_size(frame)), 0)
            FROM tally_frames WHERE ledger = $1 AND first_sequence <= $2
            """, [.text(location.ledger), .int64(Int64(head.sequence))])
        let frames = rows.int64(0, 0)
        let bytes = rows.int64(0, 1)
        // The uncompressed size is in each frame's header: read the headers only.
        let headers = try query(
            """
            SELECT coalesce(sum(get_byte(frame, 20) + get_byte(frame, 21) * 256 + get_byte(frame, 22) * 65536
                + get_byte(frame, 23)::bigint * 16777216), 0)
            FROM tally_frames WHERE ledger = $1 AND first_sequence <= $2
            """, [.text(location.ledger), .int64(Int64(head.sequence))])
        return LogStatistics(
            events: head.sequence, frames: UInt64(frames), segments: 0, bytesOnDisk: rows.int64(0, 2),
            uncompressedBytes: headers.int64(0, 0), storedBytes: bytes - frames * Int64(LogFormat.frameHeaderBytes))
    }

    // MARK: Walking frames

    /// A frame read from the database, checked and decoded.
    struct Frame {
        let header: FrameHeader
        let hashBefore: [UInt8]
        let events: [LoggedEvent]
    }

    /// Visits the checked frames from the one holding `first` in log order, a query's worth of
    /// rows at a time, while `visit` returns true and frames start at or before `through`.
    func walkFrames(containing first: UInt64, through: UInt64, _ visit: (Frame) throws -> Bool) throws {
        let ledger = location.ledger
        // The frame holding `first`, and the hash before it (the previous frame's last hash).
        let start = try query(
            """
            SELECT first_sequence FROM tally_frames WHERE ledger = $1 AND first_sequence <= $2
            ORDER BY first_sequence DESC LIMIT 1
            """, [.text(ledger), .int64(Int64(first))])
        guard start.count == 1 else { throw damaged("no frame holds event \(first), which is within the head (\(head.sequence))", at: first) }
        var next = UInt64(start.int64(0, 0))
        var hashBefore: [UInt8]
        if next == 1 {
            hashBefore = LogFormat.genesisHash
        } else {
            let previous = try query(
                "SELECT last_sequence, last_hash FROM tally_frames WHERE ledger = $1 AND first_sequence < $2 ORDER BY first_sequence DESC LIMIT 1",
                [.text(ledger), .int64(Int64(next))])
            guard previous.count == 1, UInt64(previous.int64(0, 0)) == next - 1 else {
                throw damaged("the frames before event \(next) do not end at \(next - 1): events are missing", at: next)
            }
            hashBefore = previous.bytes(0, 1)
        }
        while next <= min(through, head.sequence) {
            let rows = try query(
                """
                SELECT first_sequence, last_sequence, last_hash, frame FROM tally_frames
                WHERE ledger = $1 AND first_sequence >= $2 AND first_sequence <= $3 ORDER BY first_sequence LIMIT $4
                """, [.text(ledger), .int64(Int64(next)), .int64(Int64(min(through, head.sequence))), .int64(Int64(Self.framesPerQuery))])
            guard rows.count > 0 else { throw damaged("no frame starts at event \(next), which is within the head (\(head.sequence))", at: next) }
            for row in 0..<rows.count {
                let frame = try decode(rows, row, expectedFirst: next, hashBefore: hashBefore)
                guard try visit(frame) else { return }
                hashBefore = frame.header.lastHash
                next = frame.header.lastSequence + 1
            }
        }
    }

    /// Checks and decodes one row's frame: its columns against its header, the checksums, the
    /// body, and the chain from `hashBefore` to the hash the header stores.
    private func decode(_ rows: PostgresConnection.Rows, _ row: Int, expectedFirst: UInt64, hashBefore: [UInt8]) throws -> Frame {
        let first = UInt64(rows.int64(row, 0))
        let path = "\(location.displayName), frame \(first)"
        guard first == expectedFirst else {
            throw damaged("the frame after event \(expectedFirst - 1) starts at \(first): events \(expectedFirst)…\(first - 1) are missing", at: expectedFirst)
        }
        return try rows.withBytes(row, 3) { bytes -> Frame in
            guard bytes.count >= LogFormat.frameHeaderBytes else { throw damaged("the frame is shorter than a frame header", at: first) }
            let headerBytes = UnsafeRawBufferPointer(rebasing: bytes[0..<LogFormat.frameHeaderBytes])
            let header = try FrameHeader.decode(headerBytes, path: path, offset: 0)
            let body = UnsafeRawBufferPointer(rebasing: bytes[LogFormat.frameHeaderBytes...])
            guard header.firstSequence == first, header.lastSequence == UInt64(rows.int64(row, 1)), body.count == Int(header.storedLength),
                  header.lastHash == rows.bytes(row, 2)
            else { throw damaged("the frame's header disagrees with its row (sequence range, length or hash)", at: first) }
            try header.checkBody(header: headerBytes, body: body, path: path, offset: 0)
            let records = try FrameCodec.uncompressedBody(header, headerBytes: headerBytes, stored: body, keys: keys, path: path, offset: 0)
            var events: [LoggedEvent] = []
            events.reserveCapacity(Int(header.count))
            var hash = hashBefore
            try FrameCodec.decodeBody(records, header: header, path: path, offset: 0) { event in
                hash = ChainHash.next(after: hash, event)
                events.append(event)
            }
            guard hash == header.lastHash else {
                throw LogError(.chainMismatch, "the events of frame \(first)…\(header.lastSequence) do not hash to the chain hash it stores: history was rewritten", path: path)
            }
            return Frame(header: header, hashBefore: hashBefore, events: events)
        }
    }

    private func damaged(_ what: String, at sequence: UInt64) -> LogError {
        LogError(.corrupt, "the log of ledger '\(location.ledger)' in \(location.server) is damaged at event \(sequence): \(what)")
    }

    private func query(_ sql: String, _ parameters: [PostgresConnection.Value]) throws -> PostgresConnection.Rows {
        try source.query(sql, parameters)
    }
}

/// The small files a ledger keeps in the database beside its log on PostgreSQL (its subject
/// keys, an encrypted store's wrapped keys and marker), by name.
public enum PostgresLedgerFiles {
    /// One file of the ledger's, or nil when it has none of that name (or the database has no such ledger).
    public static func file(named name: String, of location: PostgresLogLocation) throws -> [UInt8]? {
        let connection = try PostgresConnection.pooled(conninfo: location.connectionString, displayName: location.displayName)
        defer { connection.recycle() }
        do {
            let rows = try connection.query(
                "SELECT content FROM tally_ledger_files WHERE ledger = $1 AND name = $2", [.text(location.ledger), .text(name)])
            return rows.count == 1 ? rows.bytes(0, 0) : nil
        } catch let error as PostgresError {
            if error.sqlState == "42P01" { return nil }
            throw error.logError
        }
    }

    /// Stores (or replaces) one file of the ledger's: for what every node of a deployment must
    /// see of a ledger beside its log (a service's API keys of it, hashed). Not fenced by the
    /// lease: the caller is the node that serves the ledger.
    /// - Throws: ``LogError`` `notFound` when the database has no such ledger.
    public static func store(_ content: [UInt8], named name: String, of location: PostgresLogLocation) throws {
        let connection = try PostgresConnection.pooled(conninfo: location.connectionString, displayName: location.displayName)
        defer { connection.recycle() }
        do {
            let stored = try connection.query(
                """
                INSERT INTO tally_ledger_files (ledger, name, content)
                SELECT ledger, $2, $3 FROM tally_ledgers WHERE ledger = $1
                ON CONFLICT (ledger, name) DO UPDATE SET content = EXCLUDED.content, updated_at = now()
                """, [.text(location.ledger), .text(name), .bytes(content)])
            guard stored.affected == 1 else {
                throw LogError(.notFound, "the database \(location.server) has no ledger '\(location.ledger)'")
            }
        } catch let error as PostgresError {
            throw error.logError
        }
    }

    /// The ledger's files, by name; throws ``LogError`` `notFound` when the database has no such ledger.
    public static func load(_ location: PostgresLogLocation) throws -> [String: [UInt8]] {
        let connection = try PostgresConnection.pooled(conninfo: location.connectionString, displayName: location.displayName)
        defer { connection.recycle() }
        do {
            let ledger = try connection.query(PostgresLogSchema.head, [.text(location.ledger)])
            guard ledger.count == 1, ledger.int64(0, 0) > 0 else {
                throw LogError(.notFound, "the database \(location.server) has no ledger '\(location.ledger)'; create it with `tally init`")
            }
            let rows = try connection.query("SELECT name, content FROM tally_ledger_files WHERE ledger = $1", [.text(location.ledger)])
            var files: [String: [UInt8]] = [:]
            for row in 0..<rows.count { files[rows.text(row, 0)] = rows.bytes(row, 1) }
            return files
        } catch let error as PostgresError {
            if error.sqlState == "42P01" {
                throw LogError(.notFound, "the database \(location.server) holds no Tally logs (no tally_ledgers table); create a ledger with `tally init`")
            }
            throw error.logError
        }
    }
}
