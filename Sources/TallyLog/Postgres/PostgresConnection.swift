import CLibPQ
import Foundation
import Synchronization

/// One connection to a PostgreSQL server through libpq: statements with binary parameters and
/// binary results, nothing else. Not safe for concurrent use: its owner serialises calls.
///
/// libpq reads the connection string as every PostgreSQL tool does (a `postgresql://` URI or
/// `key=value` pairs), and with it `PGPASSWORD`, `~/.pgpass`, `PGSSLMODE` and the other
/// `PG*` variables, so a deployment configures Tally as it configures `psql`.
final class PostgresConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    /// The connection string, for reconnecting (never printed: it may hold a password).
    private let conninfo: String
    /// What messages name: the server and database, without user or password (set anew when
    /// a pooled connection is taken for another ledger).
    private(set) var displayName: String

    /// Connects, or throws ``LogError`` `io` with libpq's reason.
    init(conninfo: String, displayName: String) throws {
        self.conninfo = conninfo
        self.displayName = displayName
        try connect()
    }

    deinit { if let handle { PQfinish(handle) } }

    private func connect() throws {
        if let handle { PQfinish(handle) }
        handle = PQconnectdb(conninfo)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let reason = handle.map { Self.message(PQerrorMessage($0)) } ?? "out of memory"
            if let handle { PQfinish(handle) }
            self.handle = nil
            throw LogError(.io, "cannot connect to PostgreSQL at \(displayName): \(reason)")
        }
        // Messages from the server (NOTICE) are not the log's business.
        _ = PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    // MARK: The process's idle connections

    /// Connections a short-lived user gave back (``recycle()``), by connection string.
    private static let idle = Mutex<[String: [PostgresConnection]]>([:])
    /// The most idle connections kept per connection string.
    static let idleLimit = 4

    /// An idle connection to `conninfo` this process made earlier, or a new one: a command that
    /// reads a ledger's files, opens a view and writes connects once or twice, not once a step.
    static func pooled(conninfo: String, displayName: String) throws -> PostgresConnection {
        while let connection = idle.withLock({ $0[conninfo]?.popLast() }) {
            if connection.isReady {
                connection.displayName = displayName
                return connection
            }
            connection.close()
        }
        return try PostgresConnection(conninfo: conninfo, displayName: displayName)
    }

    /// Gives the connection back for the process's next user of the same server, or closes it
    /// when it is not idle and sound (broken, or inside a transaction) or enough are kept.
    func recycle() {
        guard isReady else { return close() }
        let kept = Self.idle.withLock { idle -> Bool in
            guard idle[conninfo, default: []].count < Self.idleLimit else { return false }
            idle[conninfo, default: []].append(self)
            return true
        }
        if !kept { close() }
    }

    /// Up, and outside any transaction.
    private var isReady: Bool {
        handle.map { PQstatus($0) == CONNECTION_OK && PQtransactionStatus($0) == PQTRANS_IDLE } ?? false
    }

    /// Whether the connection is up (after a failure, ``reconnect()`` makes a new one).
    var isUsable: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Drops the connection and makes a new one.
    func reconnect() throws { try connect() }

    /// Closes the connection; later calls throw.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Waits up to `timeoutMilliseconds` for notifications (of a `LISTEN` this connection ran)
    /// and returns each one's channel and payload, oldest first; empty when none came.
    /// - Throws: ``LogError`` `io` when the connection is lost (``reconnect()`` and listen again).
    func notifications(timeoutMilliseconds: Int32) throws -> [(channel: String, payload: String)] {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { throw closedError() }
        var received = takeNotifications(handle)
        if received.isEmpty {
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, timeoutMilliseconds)
            if ready < 0 && errno != EINTR {
                throw LogError(.io, "waiting for notices from PostgreSQL at \(displayName) failed: errno \(errno)")
            }
        }
        guard PQconsumeInput(handle) == 1 else {
            throw LogError(.io, "the connection to PostgreSQL at \(displayName) broke: \(Self.message(PQerrorMessage(handle)))")
        }
        received += takeNotifications(handle)
        return received
    }

    private func takeNotifications(_ handle: OpaquePointer) -> [(channel: String, payload: String)] {
        var received: [(channel: String, payload: String)] = []
        while let notice = PQnotifies(handle) {
            received.append((String(cString: notice.pointee.relname), String(cString: notice.pointee.extra)))
            PQfreemem(notice)
        }
        return received
    }

    /// Runs one statement (no parameters, any number of commands; results discarded).
    func execute(_ sql: String) throws {
        guard let handle else { throw closedError() }
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// Runs one statement with parameters, each sent in binary, and returns its rows, each
    /// column in binary. `sql` names parameters `$1`, `$2` …; their types are given by ``Value``.
    @discardableResult
    func query(_ sql: String, _ parameters: [Value] = []) throws -> Rows {
        guard let handle else { throw closedError() }
        var types: [Oid] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var buffers: [[UInt8]] = []
        for parameter in parameters {
            let (oid, bytes) = parameter.encoded
            types.append(oid)
            buffers.append(bytes ?? [])
            lengths.append(Int32(bytes?.count ?? 0))
            formats.append(1)
        }
        let nulls = parameters.map(\.isNull)
        let result: OpaquePointer? = Self.withPointers(buffers, nulls: nulls) { pointers in
            PQexecParams(handle, sql, Int32(parameters.count), types, pointers, lengths, formats, 1)
        }
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        return Rows(result: result!)
    }

    private static func withPointers<R>(_ buffers: [[UInt8]], nulls: [Bool], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafePointer<CChar>?] = []
        var allocated: [UnsafeMutablePointer<UInt8>] = []
        for (buffer, isNull) in zip(buffers, nulls) {
            if isNull {
                pointers.append(nil)
                continue
            }
            let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: max(buffer.count, 1))
            buffer.withUnsafeBufferPointer { memory.initialize(from: $0.baseAddress!, count: buffer.count) }
            allocated.append(memory)
            pointers.append(UnsafeRawPointer(memory).assumingMemoryBound(to: CChar.self))
        }
        defer { for memory in allocated { memory.deallocate() } }
        return body(pointers)
    }

    private func check(_ result: OpaquePointer?, sql: String) throws {
        guard let result else {
            // Nothing could be sent (a connection already broken): a lost connection, for the caller to make again.
            throw PostgresError(
                sqlState: "", message: "no result: \(handle.map { Self.message(PQerrorMessage($0)) } ?? "closed")",
                connectionLost: handle.map { PQstatus($0) != CONNECTION_OK } ?? true, displayName: displayName)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let text = Self.message(PQresultErrorMessage(result))
            // The server ending the session (57P01 after pg_terminate_backend, 57P02, 57P03) or a
            // connection exception (class 08) may come back before libpq has seen the socket close.
            let ended = state.hasPrefix("57P") || state.hasPrefix("08")
            throw PostgresError(
                sqlState: state, message: text, connectionLost: ended || (handle.map { PQstatus($0) != CONNECTION_OK } ?? true),
                displayName: displayName)
        }
    }

    private func closedError() -> LogError {
        LogError(.closed, "the connection to PostgreSQL at \(displayName) is closed")
    }

    static func message(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Values

    /// A parameter, sent in PostgreSQL's binary form.
    enum Value {
        case int64(Int64)
        case text(String)
        case bytes([UInt8])
        case null

        var isNull: Bool { if case .null = self { true } else { false } }

        var encoded: (Oid, [UInt8]?) {
            switch self {
            case .int64(let value): (20, withUnsafeBytes(of: value.bigEndian) { Array($0) })
            case .text(let value): (25, Array(value.utf8))
            case .bytes(let value): (17, value)
            case .null: (0, nil)
            }
        }
    }

    /// The rows of a result, each column read in binary. Frees the result when released.
    final class Rows {
        private let result: OpaquePointer

        init(result: OpaquePointer) { self.result = result }
        deinit { PQclear(result) }

        /// The number of rows.
        var count: Int { Int(PQntuples(result)) }
        /// The number of rows a command changed (UPDATE, INSERT, DELETE).
        var affected: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

        func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) == 1 }

        /// A column's bytes (bytea and text alike).
        func bytes(_ row: Int, _ column: Int) -> [UInt8] {
            let length = Int(PQgetlength(result, Int32(row), Int32(column)))
            guard length > 0, let pointer = PQgetvalue(result, Int32(row), Int32(column)) else { return [] }
            return UnsafeRawBufferPointer(start: pointer, count: length).map { $0 }
        }

        /// A column's bytes, passed in place (valid only inside `body`).
        func withBytes<R>(_ row: Int, _ column: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            let length = Int(PQgetlength(result, Int32(row), Int32(column)))
            guard length > 0, let pointer = PQgetvalue(result, Int32(row), Int32(column)) else {
                return try body(UnsafeRawBufferPointer(start: nil, count: 0))
            }
            return try body(UnsafeRawBufferPointer(start: pointer, count: length))
        }

        func text(_ row: Int, _ column: Int) -> String { String(decoding: bytes(row, column), as: UTF8.self) }

        /// A bigint (int8), integer (int4) or smallint (int2) column.
        func int64(_ row: Int, _ column: Int) -> Int64 {
            withBytes(row, column) { raw in
                switch raw.count {
                case 8: Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
                case 4: Int64(Int32(bigEndian: raw.loadUnaligned(as: Int32.self)))
                case 2: Int64(Int16(bigEndian: raw.loadUnaligned(as: Int16.self)))
                default: 0
                }
            }
        }
    }
}

/// An error the PostgreSQL server (or the connection to it) reported.
struct PostgresError: Error, CustomStringConvertible {
    /// The SQLSTATE code (`40001`, `23505` …), empty when the connection failed.
    let sqlState: String
    let message: String
    /// Whether the connection was lost: the statement's outcome may be unknown.
    let connectionLost: Bool
    let displayName: String

    var description: String { "PostgreSQL at \(displayName): \(message)\(sqlState.isEmpty ? "" : " (SQLSTATE \(sqlState))")" }

    /// The same as a ``LogError``.
    var logError: LogError { LogError(.io, description) }
}
