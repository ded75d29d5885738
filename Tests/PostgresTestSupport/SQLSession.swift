internal import CLibPQ
internal import Foundation
import Synchronization

/// SQL a test runs on a server behind Tally's back (damage a row, end a connection, read a
/// ledger's rows for a snapshot), through libpq in the test process, answered as
/// `psql --no-align --tuples-only` prints it: a row per line, its columns joined by `|`, NULL
/// as nothing, every statement's rows in order, without the surrounding blank space.
///
/// One connection, opened on first use and kept: `psql` cost a process and a server backend
/// per statement (about 45 ms of CPU on the 2-core machine), and the CLI suites snapshot a
/// ledger's rows before and after every refused command. Statements take turns on it.
final class SQLSession: Sendable {
    private let url: String
    private let connection = Mutex<OpaquePointer?>(nil)

    init(url: String) {
        self.url = url
    }

    deinit {
        connection.withLock { connection in
            if let connection { PQfinish(connection) }
        }
    }

    /// Runs `sql` (one statement or several, in one implicit transaction as `psql -c` runs
    /// them) and returns the rows it answered.
    ///
    /// A connection the server ended since the last statement (a restart, a test ending every
    /// connection but its ledger's) is replaced, and the statement sent again on the new one.
    /// - Throws: ``PostgresTestCluster/ClusterFailure`` with the server's message and the SQL.
    func run(_ sql: String) throws -> String {
        try connection.withLock { connection in
            if let kept = connection {
                // A statement the server refused on a sound connection is the caller's error;
                // one that found the connection gone falls through to a new connection.
                do {
                    if PQstatus(kept) == CONNECTION_OK { return try Self.execute(sql, on: kept) }
                } catch let error where PQstatus(kept) == CONNECTION_OK {
                    throw error
                } catch {}
                PQfinish(kept)
                connection = nil
            }
            let opened = try Self.connect(url)
            connection = opened
            return try Self.execute(sql, on: opened)
        }
    }

    /// One statement on a connection of its own, closed after it: for a server that a test
    /// kills, restarts or promotes between two statements.
    static func runOnce(_ sql: String, url: String) throws -> String {
        let connection = try connect(url)
        defer { PQfinish(connection) }
        return try execute(sql, on: connection)
    }

    private static func connect(_ url: String) throws -> OpaquePointer {
        guard let connection = PQconnectdb(url) else {
            throw PostgresTestCluster.ClusterFailure(description: "cannot connect to \(url): libpq is out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresTestCluster.ClusterFailure(description: "cannot connect to \(url): \(message)")
        }
        return connection
    }

    private static func execute(_ sql: String, on connection: OpaquePointer) throws -> String {
        guard PQsendQuery(connection, sql) == 1 else {
            throw PostgresTestCluster.ClusterFailure(description: "cannot send \(sql): \(String(cString: PQerrorMessage(connection)))")
        }
        var lines: [String] = []
        var failure: String?
        // Every result is read, also after an error: the connection is ready again only then.
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_TUPLES_OK:
                lines += rows(of: result)
            case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
                break
            default:
                failure = failure ?? String(cString: PQresultErrorMessage(result))
            }
        }
        if let failure {
            throw PostgresTestCluster.ClusterFailure(description: "the server refused \(sql): \(failure)")
        }
        return lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func rows(of result: OpaquePointer) -> [String] {
        (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { column in
                PQgetisnull(result, row, column) == 1 ? "" : String(cString: PQgetvalue(result, row, column))
            }.joined(separator: "|")
        }
    }
}
