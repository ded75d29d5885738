import Foundation
import Synchronization

/// The writer of one ledger's log on PostgreSQL.
///
/// It holds the ledger's lease (a fencing epoch, an owner, an expiry kept by the database's
/// clock and renewed on a thread of its own) and appends each commit in one round trip: a
/// compare-and-set on the head row (expected sequence and chain hash, its epoch) and the
/// insert of the frame's row, in one statement. If another writer committed first, or took
/// the ledger over with a newer epoch, nothing is written and the append throws
/// ``LogError/Code/headMoved``. If the connection is lost while a commit is in flight, the
/// head is read back on a new connection: the frame is there whole or not at all.
///
/// ```swift
/// let location = try PostgresLogLocation("postgresql://tally@localhost:5432/books?ledger=home")
/// let writer = try PostgresLogWriter.open(location, owner: "node-a")
/// let result = try writer.append([record])
/// try writer.close()
/// ```
public final class PostgresLogWriter: @unchecked Sendable, LogWriting {
    // Unchecked: `renewalStopped` is read and written only under `renewal`; the rest is immutable or in a Mutex.
    /// Where the log is.
    public let location: PostgresLogLocation
    /// Who holds the lease (a node's name, or a process of the command-line tool).
    public let owner: String
    let options: LogOptions
    let leaseSeconds: Int64
    private let state: Mutex<State>
    /// Serialises every use of the connection (appends, lease renewal, files).
    private let connectionLock = Mutex(())
    private let connection: PostgresConnection
    /// The connection this writer's views read on (``openReader()``).
    private let readerSource = Mutex<PostgresLogReader.Source?>(nil)
    private let renewal = ConditionLock()
    private var renewalStopped = false
    /// A directory lock held beside the lease (the local read models' single writer), released at close.
    private let localLock: (any LogWriterLock)?

    struct State {
        var head: LogDigest
        var lastRecordedAt: Int64
        var epoch: Int64
        var closed = false
        /// Set when the lease was lost: every later append refuses.
        var fenced: LogError?
        /// Whether this writer committed anything (and so sent commit notices).
        var notified = false
    }

    private init(
        location: PostgresLogLocation, owner: String, options: LogOptions, leaseSeconds: Int64, connection: PostgresConnection,
        head: LogDigest, lastRecordedAt: Int64, epoch: Int64, localLock: (any LogWriterLock)?
    ) {
        self.location = location
        self.owner = owner
        self.options = options
        self.leaseSeconds = leaseSeconds
        self.connection = connection
        self.localLock = localLock
        self.state = Mutex(State(head: head, lastRecordedAt: lastRecordedAt, epoch: epoch))
    }

    deinit {
        try? close()
    }

    /// The default lease: a node that stops renewing loses its ledgers this long after its last renewal.
    public static let defaultLeaseSeconds: Int64 = 10

    /// Creates the ledger's (empty) log in the database, the tables too when missing, and opens it
    /// for writing. A ledger whose log holds no event (a creation interrupted before its first
    /// event) is taken as vacant.
    /// - Throws: ``LogError`` `alreadyExists` when the ledger has events; `io` for a server that
    ///   cannot be reached or refuses.
    public static func create(
        _ location: PostgresLogLocation, owner: String, options: LogOptions = .init(), leaseSeconds: Int64 = defaultLeaseSeconds,
        localLock: (any LogWriterLock)? = nil
    ) throws -> PostgresLogWriter {
        let connection = try PostgresConnection.pooled(conninfo: location.connectionString, displayName: location.displayName)
        try PostgresLogSchema.migrate(connection)
        do {
            let inserted = try connection.query(
                """
                INSERT INTO tally_ledgers (ledger, head_sequence, head_hash, last_recorded_at) VALUES ($1, 0, $2, $3)
                ON CONFLICT (ledger) DO UPDATE SET epoch = tally_ledgers.epoch WHERE tally_ledgers.head_sequence = 0
                RETURNING head_sequence
                """, [.text(location.ledger), .bytes(LogFormat.genesisHash), .int64(.min)])
            guard inserted.count == 1 else {
                throw LogError(.alreadyExists, "the ledger '\(location.ledger)' already has a log in \(location.server); open it instead")
            }
        } catch let error as PostgresError {
            throw error.logError
        }
        return try open(location, owner: owner, options: options, leaseSeconds: leaseSeconds, waitSeconds: 0, connection: connection, localLock: localLock)
    }

    /// Opens a ledger's log for writing: takes its lease, waiting up to `waitSeconds` while another
    /// owner holds it (`waiting` is told once, with the holder's name, when it has to wait).
    /// - Throws: ``LogError`` `notFound` when the database has no such ledger; `locked` when another
    ///   owner still holds it after the wait; `io` for a server that cannot be reached or refuses.
    public static func open(
        _ location: PostgresLogLocation, owner: String, options: LogOptions = .init(), leaseSeconds: Int64 = defaultLeaseSeconds,
        waitSeconds: Int64 = 30, localLock: (any LogWriterLock)? = nil, waiting: ((String) -> Void)? = nil
    ) throws -> PostgresLogWriter {
        let connection = try PostgresConnection.pooled(conninfo: location.connectionString, displayName: location.displayName)
        try PostgresLogSchema.migrate(connection)
        return try open(location, owner: owner, options: options, leaseSeconds: leaseSeconds, waitSeconds: waitSeconds, connection: connection, localLock: localLock, waiting: waiting)
    }

    private static func open(
        _ location: PostgresLogLocation, owner: String, options: LogOptions, leaseSeconds: Int64, waitSeconds: Int64,
        connection: PostgresConnection, localLock: (any LogWriterLock)?, waiting: ((String) -> Void)? = nil
    ) throws -> PostgresLogWriter {
        let options = try options.validated()
        guard leaseSeconds >= 1 && leaseSeconds <= 3_600 else {
            throw LogError(.invalidArgument, "a lease of \(leaseSeconds) s is out of range (1 … 3600)")
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(waitSeconds, 0)) * 1_000_000_000
        var told = false
        while true {
            do {
                var taken = try connection.query(
                    PostgresLogSchema.takeLease, [.text(location.ledger), .text(owner), .int64(leaseSeconds)])
                if taken.count == 0, let gone = try staleHolder(of: location, on: connection) {
                    // Its lease would run out anyway; a process of this machine that is gone
                    // (killed mid-command) writes nothing more: take the ledger now.
                    taken = try connection.query(
                        PostgresLogSchema.takeStaleLease, [.text(location.ledger), .text(owner), .int64(leaseSeconds), .text(gone)])
                }
                if taken.count == 1 {
                    let head = LogDigest(sequence: UInt64(taken.int64(0, 1)), hash: taken.bytes(0, 2))
                    let writer = PostgresLogWriter(
                        location: location, owner: owner, options: options, leaseSeconds: leaseSeconds, connection: connection,
                        head: head, lastRecordedAt: taken.int64(0, 3), epoch: taken.int64(0, 0), localLock: localLock)
                    writer.startRenewing()
                    return writer
                }
                let holder = try connection.query(PostgresLogSchema.leaseHolder, [.text(location.ledger)])
                guard holder.count == 1 else {
                    throw LogError(.notFound, "the database \(location.server) has no ledger '\(location.ledger)'; create it with `tally init`")
                }
                let name = holder.isNull(0, 0) ? "another writer" : holder.text(0, 0)
                let remaining = holder.isNull(0, 1) ? 0 : holder.int64(0, 1)

                guard DispatchTime.now().uptimeNanoseconds < deadline else {
                    throw LogError(.locked, "the ledger '\(location.ledger)' in \(location.server) is held by \(name) (its lease runs \(max(remaining, 0)) ms more); try again when it is done, or wait longer")
                }
                if !told {
                    waiting?("waiting for the ledger '\(location.ledger)': \(name) holds it (its lease runs \(max(remaining, 0)) ms more)")
                    told = true
                }
                usleep(UInt32(min(max(remaining, 20), 250)) * 1_000)
            } catch let error as PostgresError {
                throw error.logError
            }
        }
    }

    /// The ledger's lease holder when it is a process of this machine that no longer runs.
    private static func staleHolder(of location: PostgresLogLocation, on connection: PostgresConnection) throws -> String? {
        let holder = try connection.query(PostgresLogSchema.leaseHolder, [.text(location.ledger)])
        guard holder.count == 1, !holder.isNull(0, 0) else { return nil }
        let name = holder.text(0, 0)
        return isGoneProcessOfThisMachine(name) ? name : nil
    }

    /// Whether `owner` names a process of this machine (`host:pid`, the default owner name)
    /// that no longer runs.
    static func isGoneProcessOfThisMachine(_ owner: String) -> Bool {
        let parts = owner.split(separator: ":")
        guard parts.count == 2, String(parts[0]) == ProcessInfo.processInfo.hostName, let pid = Int32(parts[1]), pid > 0,
              pid != getpid() else { return false }
        return kill(pid, 0) == -1 && errno == ESRCH
    }

    // MARK: LogWriting

    /// The digest of the last event this writer knows committed.
    public var head: LogDigest { state.withLock { $0.head } }
    /// The recorded time of the last commit.
    public var lastRecordedAt: Int64 { state.withLock { $0.lastRecordedAt } }
    /// The most events and uncompressed bytes one commit may hold.
    public var frameLimits: (events: Int, bytes: Int) { (options.frameEventsLimit, options.frameBytesLimit) }
    /// The fencing epoch this writer holds the ledger under.
    public var epoch: Int64 { state.withLock { $0.epoch } }

    /// Appends `records` as one commit at the log's next sequence number (``LogWriting/append(_:)``).
    public func append(_ records: [LogRecord]) throws -> AppendResult {
        _ = try validateBatch(records, options: options)
        return try connectionLock.withLock { _ in
            let (head, last) = state.withLock { ($0.head, $0.lastRecordedAt) }
            let recordedAt = max(options.clock(), last)
            return try commit(records, first: head.sequence + 1, recordedAt: recordedAt, expected: head)
        }
    }

    /// The same, on a thread of the shared blocking pool so that the cooperative pool is
    /// never blocked.
    public func append(_ records: [LogRecord]) async throws -> AppendResult {
        try await BlockingPool.run { [self] in try append(records) }
    }

    /// Appends at the sequence number and recorded time the caller decided (``LogWriting``).
    public func append(_ records: [LogRecord], pinnedTo pin: AppendPin, encodedAhead: FrameEncodedAhead?) throws -> AppendResult {
        _ = try validateBatch(records, options: options)
        return try connectionLock.withLock { _ in
            let (head, last) = state.withLock { ($0.head, $0.lastRecordedAt) }
            guard pin.firstSequence == head.sequence + 1, pin.recordedAt >= last else {
                throw LogError(.invalidRecord, "the append was pinned to sequence \(pin.firstSequence) at \(pin.recordedAt) µs, but the log's next sequence is \(head.sequence + 1) and its last commit was recorded at \(last) µs")
            }
            return try commit(records, first: pin.firstSequence, recordedAt: pin.recordedAt, expected: head)
        }
    }

    /// This log encodes its frame when it appends (the round trip to the server dwarfs it).
    public func encodeAhead(_ records: [LogRecord], pinnedTo pin: AppendPin) -> FrameEncodedAhead? { nil }

    /// Reads the head row again (after ``LogError/Code/headMoved``).
    public func reloadHead() throws {
        try connectionLock.withLock { _ in
            let (sequence, hash, recordedAt, epoch) = try readHead()
            state.withLock { state in
                state.head = LogDigest(sequence: sequence, hash: hash)
                state.lastRecordedAt = recordedAt
                if epoch != state.epoch && state.fenced == nil {
                    state.fenced = LogError(.headMoved, "the ledger '\(location.ledger)' was taken over by another writer (epoch \(epoch), this one held \(state.epoch)); open it again to write")
                }
            }
        }
    }

    /// A view of the log through this writer's head, read on a second connection the writer
    /// keeps for its views (made on first use).
    public func openReader() throws -> any LogReading {
        let source = try readerSource.withLock { source in
            if let source, source.isUsable { return source }
            let made = PostgresLogReader.Source(try PostgresConnection.pooled(conninfo: location.connectionString, displayName: location.displayName))
            source = made
            return made
        }
        return PostgresLogReader(location: location, head: head, keys: options.keys, source: source)
    }

    /// Every commit is durable when it returns (the server's `synchronous_commit`).
    public func sync() throws {}

    /// Gives the lease up and closes the connection.
    public func close() throws {
        let wasOpen = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard wasOpen else { return }
        renewal.withLock {
            renewalStopped = true
            renewal.broadcast()
        }
        connectionLock.withLock { _ in
            let epoch = state.withLock { $0.epoch }
            _ = try? connection.query(PostgresLogSchema.releaseLease, [.text(location.ledger), .int64(epoch)])
            connection.close()
        }
        readerSource.withLock { $0 = nil }
        localLock?.release()
        // A short-lived writer (a CLI command) tells followers of its commits before its process ends.
        if state.withLock({ $0.notified }) { PostgresLogNotifier.shared(for: location).flush(timeoutMilliseconds: 500) }
    }

    // MARK: Files kept beside the log

    /// Stores a small file of the ledger's (its subject keys, its wrapped keys) in the database.
    public func storeFile(_ name: String, _ content: [UInt8]) throws {
        try connectionLock.withLock { _ in
            do {
                try connection.query(
                    """
                    INSERT INTO tally_ledger_files (ledger, name, content) VALUES ($1, $2, $3)
                    ON CONFLICT (ledger, name) DO UPDATE SET content = EXCLUDED.content, updated_at = now()
                    """, [.text(location.ledger), .text(name), .bytes(content)])
            } catch let error as PostgresError {
                throw error.logError
            }
        }
    }

    /// Appends `content` to a small file stored with ``storeFile(_:_:)``, only when the stored
    /// one is `length` bytes long (the caller's copy of it).
    /// - Returns: whether it was appended (false when the stored file is missing or of another length).
    public func appendToFile(_ name: String, _ content: [UInt8], after length: Int) throws -> Bool {
        try connectionLock.withLock { _ in
            do {
                return try connection.query(
                    """
                    UPDATE tally_ledger_files SET content = content || $3, updated_at = now()
                    WHERE ledger = $1 AND name = $2 AND octet_length(content) = $4
                    """, [.text(location.ledger), .text(name), .bytes(content), .int64(Int64(length))]).affected == 1
            } catch let error as PostgresError {
                throw error.logError
            }
        }
    }

    // MARK: Committing

    /// Encodes the frame and runs the compare-and-set. Called with the connection lock held.
    private func commit(_ records: [LogRecord], first: UInt64, recordedAt: Int64, expected: LogDigest) throws -> AppendResult {
        let (closed, fenced, epoch) = state.withLock { ($0.closed, $0.fenced, $0.epoch) }
        if closed { throw LogError(.closed, "the writer is closed") }
        if let fenced { throw fenced }
        let events: [LoggedEvent]
        switch WriterCore.resolve(records, first: first, recordedAt: recordedAt) {
        case .failure(let error): throw error
        case .success(let resolved): events = resolved
        }
        let (frame, lastHash) = FrameCodec.encode(events, previousHash: expected.hash, keys: options.keys)
        let last = first + UInt64(events.count) - 1
        try options.faultInjection?(first)
        if !connection.isUsable {
            // Broken since the last statement (an outcome that could not be learned, a renewal
            // that failed): nothing of this frame is in flight, so a new connection is all it takes.
            do { try connection.reconnect() } catch {
                throw LogError(.io, "the connection to \(location.displayName) is broken and could not be made again: nothing was appended (\(error))")
            }
        }
        var inserted = 0
        // A connection lost in flight is resolved by reading the head back on a new one; only a
        // head that is still the expected one (the frame is certainly not there) is tried again, once.
        for attempt in 1...2 {
            do {
                inserted = try connection.query(PostgresLogSchema.append, [
                    .text(location.ledger), .int64(Int64(expected.sequence)), .bytes(expected.hash), .int64(Int64(last)),
                    .bytes(lastHash), .int64(recordedAt), .int64(epoch), .int64(recordedAt), .bytes(frame),
                ]).affected
                break
            } catch let error as PostgresError {
                guard error.connectionLost else { throw error.logError }
                guard let resolved = try resolveInDoubt(expected: expected, last: last, lastHash: lastHash, error: error, finalAttempt: attempt == 2) else { continue }
                inserted = resolved
                break
            } catch let error as LogError where error.code == .closed {
                guard let resolved = try resolveInDoubt(expected: expected, last: last, lastHash: lastHash, error: nil, finalAttempt: attempt == 2) else { continue }
                inserted = resolved
                break
            }
        }
        if inserted != 1 {
            let (sequence, hash, lastAt, currentEpoch) = try readHead()
            // This very frame at the head is a commit in doubt (its connection was lost) that the
            // server finished after the head was read back, so the resend found the head moved by
            // it: it committed once, and saying otherwise would have the caller plan it again.
            if sequence != last || hash != lastHash {
                try refuse(expected: expected, epoch: epoch, head: (sequence, hash, lastAt, currentEpoch))
            }
        }
        let head = LogDigest(sequence: last, hash: lastHash)
        state.withLock { state in
            state.head = head
            state.lastRecordedAt = recordedAt
            state.notified = true
        }
        PostgresLogNotifier.shared(for: location).committed(ledger: location.ledger, through: last)
        return AppendResult(first: first, last: last, recordedAt: recordedAt, head: head)
    }

    /// Learns the head another writer moved (or the epoch a new owner took) and throws
    /// ``LogError/Code/headMoved``: nothing of this writer's frame was appended.
    private func refuse(expected: LogDigest, epoch: Int64, head: (UInt64, [UInt8], Int64, Int64)) throws -> Never {
        let (sequence, hash, lastAt, currentEpoch) = head
        state.withLock { state in
            state.head = LogDigest(sequence: sequence, hash: hash)
            state.lastRecordedAt = lastAt
            if currentEpoch != epoch {
                state.fenced = LogError(.headMoved, "the ledger '\(location.ledger)' was taken over by another writer (epoch \(currentEpoch), this one held \(epoch)); open it again to write")
            }
        }
        if currentEpoch != epoch {
            throw LogError(.headMoved, "the ledger '\(location.ledger)' was taken over by another writer (epoch \(currentEpoch), this one held \(epoch)): nothing was appended")
        }
        throw LogError(.headMoved, "another writer committed to the ledger '\(location.ledger)' first (its head is \(sequence), this writer expected \(expected.sequence)): nothing was appended")
    }

    /// The connection broke while a commit was in flight: connects again and reads the head.
    /// Returns 1 when the frame is there (committed), 0 when another writer's is, nil when the
    /// head is still the expected one (nothing was appended: the caller may send it again); on
    /// the final attempt that throws `io` instead, as does a server that stays unreachable.
    private func resolveInDoubt(expected: LogDigest, last: UInt64, lastHash: [UInt8], error: PostgresError?, finalAttempt: Bool) throws -> Int? {
        var attempt = 0
        var head: (UInt64, [UInt8], Int64, Int64)
        while true {
            do {
                // A new connection, and the head read on it; either may be cut again.
                try connection.reconnect()
                head = try readHeadOrLoseConnection()
                break
            } catch let error as PostgresError where !error.connectionLost {
                throw error.logError
            } catch let error as LogError where error.code != .io && error.code != .closed {
                throw error
            } catch {
                attempt += 1
                guard attempt < 30 else {
                    throw LogError(.io, "the connection to \(location.displayName) broke during a commit of events \(expected.sequence + 1)…\(last) and could not be made again, so whether it committed is unknown; open the ledger again to learn its head (\(error))")
                }
                usleep(UInt32(min(250_000, 10_000 << min(attempt, 5))))
            }
        }
        let (sequence, hash, _, _) = head
        if sequence == last && hash == lastHash { return 1 }
        if sequence == expected.sequence && hash == expected.hash {
            guard finalAttempt else { return nil }
            throw LogError(.io, "the connection to \(location.displayName) broke before the commit of events \(expected.sequence + 1)…\(last) was done, and it was not: nothing was appended\(error.map { " (\($0.message))" } ?? "")")
        }
        return 0
    }

    /// ``readHead()``, throwing a lost connection as it is (for ``resolveInDoubt``, which tries again).
    private func readHeadOrLoseConnection() throws -> (UInt64, [UInt8], Int64, Int64) {
        let rows = try connection.query(PostgresLogSchema.head, [.text(location.ledger)])
        guard rows.count == 1 else {
            throw LogError(.notFound, "the database \(location.server) has no ledger '\(location.ledger)'")
        }
        return (UInt64(rows.int64(0, 0)), rows.bytes(0, 1), rows.int64(0, 2), rows.int64(0, 3))
    }

    private func readHead() throws -> (UInt64, [UInt8], Int64, Int64) {
        do {
            let rows = try connection.query(PostgresLogSchema.head, [.text(location.ledger)])
            guard rows.count == 1 else {
                throw LogError(.notFound, "the database \(location.server) has no ledger '\(location.ledger)'")
            }
            return (UInt64(rows.int64(0, 0)), rows.bytes(0, 1), rows.int64(0, 2), rows.int64(0, 3))
        } catch let error as PostgresError {
            throw error.logError
        }
    }

    // MARK: The lease

    private func startRenewing() {
        DedicatedThread.start("TallyLog.leaseRenewal") { [weak self] in self?.renewLoop() }
    }

    /// Renews the lease every third of its length; a renewal that finds another epoch fences the writer.
    private func renewLoop() {
        let interval = Int(max(leaseSeconds / 3, 1))
        while true {
            let stop = renewal.withLock { () -> Bool in
                if renewalStopped { return true }
                _ = renewal.wait(seconds: interval)
                return renewalStopped
            }
            if stop { return }
            connectionLock.withLock { _ in
                let epoch = state.withLock { $0.epoch }
                guard let renewed = try? connection.query(
                    PostgresLogSchema.renewLease, [.text(location.ledger), .int64(epoch), .int64(leaseSeconds)]) else {
                    if !connection.isUsable { try? connection.reconnect() }
                    return
                }
                if renewed.affected == 0 {
                    state.withLock { state in
                        if state.fenced == nil {
                            state.fenced = LogError(.headMoved, "the ledger '\(location.ledger)' was taken over by another writer: this one's lease (epoch \(epoch)) ended; open it again to write")
                        }
                    }
                }
            }
        }
    }
}

extension PostgresLogWriter {
    /// Removes a ledger and its whole log from the database, in one transaction: for a creation
    /// that did not finish (a restore that failed half-way). Nothing else calls it.
    public static func discard(_ location: PostgresLogLocation) throws {
        let connection = try PostgresConnection(conninfo: location.connectionString, displayName: location.displayName)
        defer { connection.close() }
        do {
            try connection.execute("BEGIN")
            try connection.query("DELETE FROM tally_ledger_files WHERE ledger = $1", [.text(location.ledger)])
            try connection.query("DELETE FROM tally_frames WHERE ledger = $1", [.text(location.ledger)])
            try connection.query("DELETE FROM tally_ledgers WHERE ledger = $1", [.text(location.ledger)])
            try connection.execute("COMMIT")
        } catch let error as PostgresError {
            try? connection.execute("ROLLBACK")
            throw error.logError
        }
    }
}
