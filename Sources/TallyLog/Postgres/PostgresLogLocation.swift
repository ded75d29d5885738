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
/// `sslrootcert` …). A URI may name several servers, as libpq's do, so that the log follows a
/// failover to whichever is the primary:
///
/// ```swift
/// let location = try PostgresLogLocation(
///     "postgresql://tally@db-1:5432,db-2:5432/books?target_session_attrs=read-write&ledger=home")
/// location.server          // "db-1:5432,db-2:5432/books"
/// ```
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

    /// The location of `ledger` on the server `server` names (a URL without `ledger=`), as a
    /// deployment that serves every ledger of one database addresses each.
    /// - Throws: as ``init(_:)``.
    public init(server: String, ledger: String) throws {
        try self.init(server + (server.contains("?") ? "&" : "?") + "ledger=" + ledger)
    }

    /// Parses a location.
    /// - Throws: ``LogError`` `invalidArgument` naming what is wrong: another scheme, no database,
    ///   no `ledger` parameter, or a ledger name that is empty, too long or holds characters other
    ///   than letters, digits, `-`, `_`, `.` and `:`.
    public init(_ text: String) throws {
        if Self.isLocation(text), let hosts = Self.hostList(of: text), hosts.contains(",") {
            self = try Self.multiHost(text)
            return
        }
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

    /// The text between `://` (and any `user:password@`) and the path: one host or a list.
    private static func hostList(of text: String) -> Substring? {
        guard let scheme = text.range(of: "://") else { return nil }
        let rest = text[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        return authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
    }

    /// A URI naming several servers (`host1:port1,host2:port2`), which Foundation's URL parser
    /// refuses and libpq takes: the `ledger` parameter is taken out, the rest is kept byte for byte.
    private static func multiHost(_ text: String) throws -> PostgresLogLocation {
        let scheme = text.range(of: "://")!
        let afterScheme = text[scheme.upperBound...]
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" }
        let hosts = hostList(of: text)!
        let afterAuthority = afterScheme[authority.endIndex...]
        let path = afterAuthority.prefix { $0 != "?" }
        let query = afterAuthority.dropFirst(path.count).dropFirst()
        let database = (path.hasPrefix("/") ? String(path.dropFirst()) : String(path)).removingPercentEncoding ?? ""
        guard !database.isEmpty else {
            throw LogError(.invalidArgument, "the PostgreSQL location '\(redacted(text))' names no database: write postgresql://USER@HOST:PORT/DATABASE?ledger=NAME")
        }
        let items = query.isEmpty ? [] : query.split(separator: "&", omittingEmptySubsequences: false)
        let isLedger = { (item: Substring) in item.prefix { $0 != "=" } == "ledger" }
        let ledgers = items.filter(isLedger).map { $0.drop { $0 != "=" }.dropFirst().removingPercentEncoding ?? "" }
        guard ledgers.count == 1, !ledgers[0].isEmpty else {
            throw LogError(.invalidArgument, "the PostgreSQL location '\(redacted(text))' needs exactly one ledger=NAME parameter (the ledger's name in the database)")
        }
        try checkLedgerName(ledgers[0])
        let rest = items.filter { !isLedger($0) }
        let connection = String(text[..<path.endIndex]) + (rest.isEmpty ? "" : "?" + rest.joined(separator: "&"))
        return PostgresLogLocation(connectionString: connection, ledger: ledgers[0], server: String(hosts) + "/" + database)
    }

    private init(connectionString: String, ledger: String, server: String) {
        self.connectionString = connectionString
        self.ledger = ledger
        self.server = server
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
        if let hosts = hostList(of: text), hosts.contains(","), let scheme = text.range(of: "://") {
            // Several servers: Foundation cannot parse it, so the user's part is cut by hand.
            let authority = text[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
            guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
            return String(text[..<authority.index(after: colon)]) + "***" + String(text[at...])
        }
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "postgresql://…"
    }
}
