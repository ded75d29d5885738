import ArgumentParser
import Foundation
import Logging
import TallyService

/// `tally serve`: the HTTP service, an executable of its own (`tally-serve`) so that the
/// `tally` command links none of the service's dependencies (Hummingbird, NIO, TLS); `tally
/// serve ARGS` runs it with the same arguments. Fully async: the server runs on the
/// command's own task until a signal ends it.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tally serve",
        abstract: "Serve many ledgers over HTTP (JSON, API keys, live events); Schemas/openapi.yaml describes the API.",
        discussion: """
            One store per ledger under --data DIR/ledgers, opened on first use and closed when \
            idle. The admin key is $TALLY_ADMIN_KEY when set; else one is made at the first \
            start, printed once, and only its hash kept (DIR/keys.json, mode 0600). SIGTERM or \
            SIGINT shuts down gracefully: live event streams end, requests in flight finish, \
            every ledger is closed.

            With --postgres URL (postgresql://USER@HOST:PORT/DATABASE), every ledger's log lives \
            in that database and this process is one node of a deployment: nodes share the \
            database, each keeps its own read models under --data, and one node writes a ledger \
            at a time under a lease. A request for a ledger another node holds is redirected \
            (307) to the address that node announced (--advertise); when a node dies, its \
            leases run out and the next request takes its ledgers over. Give every node the \
            same TALLY_ADMIN_KEY.
            """
    )

    @Option(help: ArgumentHelp("The data directory (created when missing).", valueName: "dir"))
    var data: String

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port (0: any free port, printed).")
    var port = 8080

    @Option(name: .customLong("open-ledgers"), help: "At most this many ledgers open at once.")
    var openLedgers = 256

    @Option(name: .customLong("rate-limit"), help: "Requests a second per API key.")
    var rateLimit = 500

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(help: ArgumentHelp("Keep every ledger's log in this PostgreSQL database, shared with other nodes.", valueName: "url"))
    var postgres: String?

    @Option(help: ArgumentHelp("This node's name in a shared deployment (default: $TALLY_NODE, else host and process id).", valueName: "name"))
    var node: String?

    @Option(help: ArgumentHelp("Where other nodes and clients reach this node (default: http://HOST:PORT).", valueName: "url"))
    var advertise: String?

    @Option(name: .customLong("cors-origin"), help: ArgumentHelp("A browser origin allowed to call the API (e.g. https://app.example); repeat for several.", valueName: "origin"))
    var corsOrigins: [String] = []

    func validate() throws {
        for origin in corsOrigins {
            guard origin != "*", let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme),
                  url.host != nil, url.path.isEmpty, url.query == nil
            else { throw ValidationError("--cors-origin '\(origin)' is not an origin: give scheme and host as a browser sends them, e.g. https://app.example (never *)") }
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port) is not a TCP port (0-65535)") }
        guard openLedgers >= 1 else { throw ValidationError("--open-ledgers must be at least 1") }
        guard rateLimit >= 1 else { throw ValidationError("--rate-limit must be at least 1") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level '\(logLevel)' is not a level") }
        if let postgres {
            guard postgres.hasPrefix("postgresql://") || postgres.hasPrefix("postgres://"), !postgres.contains("ledger=") else {
                throw ValidationError("--postgres takes the database's URL, postgresql://USER@HOST:PORT/DATABASE, without a ledger")
            }
        } else if node != nil || advertise != nil {
            throw ValidationError("--node and --advertise are for a node of a shared deployment: add --postgres URL")
        }
    }

    func run() async throws {
        var logger = Logger(label: "tally.serve")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let adminKey = ProcessInfo.processInfo.environment["TALLY_ADMIN_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        var configuration = TallyServer.Configuration(
            dataDirectory: data, host: host, port: port, adminKey: adminKey, openLedgersLimit: openLedgers,
            rateLimitPerSecond: rateLimit, rateLimitBurst: rateLimit * 2)
        configuration.postgres = postgres
        configuration.advertisedAddress = advertise
        configuration.corsOrigins = corsOrigins
        if let node {
            configuration.nodeName = node
            // The ledgers' leases are held under this node's name.
            setenv("TALLY_NODE", node, 1)
        }
        let server = try TallyServer(configuration: configuration, logger: logger)
        if let key = server.generatedAdminKey {
            print("admin key (shown once, only its hash is kept; set TALLY_ADMIN_KEY to choose your own): \(key)")
        }
        let host = self.host
        try await server.run(gracefulShutdownSignals: [.sigterm, .sigint]) { port in
            print("listening on http://\(host):\(port)")
            fflush(nil)
        }
    }
}
