import Foundation

/// Where a log on PostgreSQL lives: a server, a database and a ledger's name in it.
///
/// Written as a libpq connection URI with one more query parameter, `ledger`:
///
/// ```swift
/// let location = try PostgresLogLocation("postgresql://tally@db.internal:5432/books?ledger=household-17&sslmode=require")
/// location.ledger          // "household-17"
/// location.displayName     // "db.internal:5432/books, ledger household-17"
/// ```
///
/// Everything but `ledger` goes to libpq as it is, so the password may come from the URI,
/// `PGPASSWORD` or `~/.pgpass`, and TLS is set with libpq's own parameters (`sslmode`,
/// `sslrootcert` …).
public struct PostgresLogLocation: Hashable, Sendable, CustomStringConvertible {
    /// The URI without its `ledger` parameter, as libpq takes it (it may hold a password: never print it).
    public let connectionString: String
    /// The ledger's name: its log's rows are keyed by it.
    public let ledger: String
    /// Server, port and database, without user or password: for messages.
    public let server: String

    /// The most bytes a ledger's name may take.
    public static let ledgerBytesMax = 120

    /// Whether `text` is meant as a PostgreSQL location (it starts with `postgresql://` or `postgres://`).
    public static func isLocation(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Parses a location.
    /// - Throws: ``LogError`` `invalidArgument` naming what is wrong: another scheme, no database,
    ///   no `ledger` parameter, or a ledger name that is empty, too long or holds characters other
    ///   than letters, digits, `-`, `_`, `.` and `:`.
    public init(_ text: String) throws {
        guard Self.isLocation(text), var components = URLComponents(string: text) else {
            throw LogError(.invalidArgument, "'\(Self.redacted(text))' is not a PostgreSQL location: write postgresql://USER@HOST:PORT/DATABASE?ledger=NAME")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.isEmpty else {
            throw LogError(.invalidArgument, "the PostgreSQL location '\(Self.redacted(text))' names no database: write postgresql://USER@HOST:PORT/DATABASE?ledger=NAME")
        }
        let items = components.queryItems ?? []
        let ledgers = items.filter { $0.name == "ledger" }
        guard ledgers.count == 1, let ledger = ledgers[0].value, !ledger.isEmpty else {
            throw LogError(.invalidArgument, "the PostgreSQL location '\(Self.redacted(text))' needs exactly one ledger=NAME parameter (the ledger's name in the database)")
        }
        try Self.checkLedgerName(ledger)
        let rest = items.filter { $0.name != "ledger" }
        components.queryItems = rest.isEmpty ? nil : rest
        guard let connection = components.string else {
            throw LogError(.invalidArgument, "the PostgreSQL location '\(Self.redacted(text))' cannot be read")
        }
        self.connectionString = connection
        self.ledger = ledger
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        self.server = host + (components.port.map { ":\($0)" } ?? "") + "/" + database
    }

    /// Checks a ledger's name (see ``init(_:)``).
    public static func checkLedgerName(_ name: String) throws {
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.:".unicodeScalars.contains(scalar))
        }
        guard !name.isEmpty, name.utf8.count <= ledgerBytesMax, allowed else {
            throw LogError(.invalidArgument, "'\(name)' is not a ledger name: use 1 to \(ledgerBytesMax) letters, digits, '-', '_', '.' or ':'")
        }
    }

    /// The location as a URI again, with its ledger (and a password, if it had one).
    public var uri: String {
        connectionString + (connectionString.contains("?") ? "&" : "?") + "ledger=" + ledger
    }

    /// Server, database and ledger, for messages; no user, no password.
    public var displayName: String { "\(server), ledger \(ledger)" }

    /// The same as ``displayName``.
    public var description: String { displayName }

    /// `text` with any password in it replaced by `***`, for messages about a location that did not parse.
    public static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "postgresql://…"
    }
}
