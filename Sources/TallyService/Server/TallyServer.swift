public import Logging
import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
public import UnixSignals
public import Tally
import TallyLog

/// The engine as a multi-tenant HTTP service: one process, many ledgers (one store per
/// household under the data directory), JSON over HTTP/1.1 with the library's commands,
/// queries, time travel, audit and live events, described by `Schemas/openapi.yaml`.
///
/// ```swift
/// let server = try TallyServer(configuration: .init(dataDirectory: "/var/lib/tally"), logger: logger)
/// if let key = server.generatedAdminKey { print("admin key (shown once): \(key)") }
/// try await server.run(gracefulShutdownSignals: [.sigterm, .sigint])
/// ```
///
/// Graceful shutdown (a signal, or ``shutdown()``) ends live event streams, stops
/// accepting connections, lets every request in flight finish (an acknowledged command is
/// durable before its response is written), then closes every ledger.
public final class TallyServer: Sendable {
    /// Where the server listens, where its data lives and its limits.
    public struct Configuration: Sendable {
        /// The data directory: `ledgers/<id>` (one store each), `keys.json` (API keys, hashed, 0600).
        public var dataDirectory: String
        /// The address to listen on (default loopback only).
        public var host: String
        /// The port; 0 picks a free one (``run(gracefulShutdownSignals:onRunning:)`` reports it).
        public var port: Int
        /// The admin key (`TALLY_ADMIN_KEY`); nil keeps the stored one, or makes one at first start.
        public var adminKey: String?
        /// At most this many ledgers open at once; the least recently used idle one is closed.
        public var openLedgersLimit: Int
        /// A ledger unused this long is closed.
        public var idleSeconds: Int
        /// The largest JSON body a command accepts.
        public var commandBodyBytesLimit: Int
        /// The largest import body.
        public var importBodyBytesLimit: Int
        /// Requests a second per API key, sustained.
        public var rateLimitPerSecond: Int
        /// Requests per API key in a burst.
        public var rateLimitBurst: Int
        /// The interval between heartbeats on a live event stream.
        public var heartbeatMilliseconds: Int
        /// How each ledger is opened (features, sync mode).
        public var ledgerOptions: Ledger.Options
        /// For a deployment of several nodes that share one database: the PostgreSQL server's
        /// URL without a ledger (`postgresql://USER@HOST:PORT/DATABASE`). Every ledger's log then
        /// lives there; the data directory keeps this node's read models and keys.
        public var postgres: String? = nil
        /// This node's name in a shared deployment (its leases' owner; `$TALLY_NODE`, else the host name).
        public var nodeName: String? = nil
        /// Where other nodes and clients reach this node (`http://HOST:PORT`; default from the
        /// listening address and port): a request for a ledger this node holds is redirected here.
        public var advertisedAddress: String? = nil

        /// A configuration with the defaults: loopback, port 8080, 256 open ledgers, 5 idle
        /// minutes, 64 KiB commands, 256 MiB imports, 500 requests/s per key (burst 1000),
        /// a heartbeat every 15 s, the standard products.
        public init(
            dataDirectory: String, host: String = "127.0.0.1", port: Int = 8080, adminKey: String? = nil,
            openLedgersLimit: Int = 256, idleSeconds: Int = 300, commandBodyBytesLimit: Int = 64 * 1024,
            importBodyBytesLimit: Int = 256 * 1024 * 1024, rateLimitPerSecond: Int = 500, rateLimitBurst: Int = 1000,
            heartbeatMilliseconds: Int = 15_000, ledgerOptions: Ledger.Options = .standard
        ) {
            self.dataDirectory = dataDirectory
            self.host = host
            self.port = port
            self.adminKey = adminKey
            self.openLedgersLimit = openLedgersLimit
            self.idleSeconds = idleSeconds
            self.commandBodyBytesLimit = commandBodyBytesLimit
            self.importBodyBytesLimit = importBodyBytesLimit
            self.rateLimitPerSecond = rateLimitPerSecond
            self.rateLimitBurst = rateLimitBurst
            self.heartbeatMilliseconds = heartbeatMilliseconds
            self.ledgerOptions = ledgerOptions
        }
    }

    /// Every operation served, as `Schemas/openapi.yaml` lists them.
    public static var routes: [ServiceRoute] { table.map(\.route) }

    /// The configuration it runs with.
    public let configuration: Configuration
    private let state: ServiceState
    private let group = Mutex<ServiceGroup?>(nil)
    private let logger: Logger

    /// Opens the data directory (creating it, owner-only) and its key file.
    ///
    /// - Throws: ``ServiceError`` for a data directory that cannot be made or a key file that
    ///   is not the server's.
    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keys = try KeyStore(
            directory: configuration.dataDirectory, adminKey: configuration.adminKey,
            shared: configuration.postgres.map { server in
                SharedLedgerKeys { id in try PostgresLogLocation(server: server, ledger: id) }
            })
        var cluster: ServiceCluster?
        if let server = configuration.postgres {
            let node = configuration.nodeName ?? LogStorage.processOwnerName
            let probe = try PostgresLogLocation(server: server, ledger: "probe")
            let nodes = try PostgresNodes(server: probe)
            let address = configuration.advertisedAddress ?? "http://\(configuration.host):\(configuration.port)"
            try nodes.announce(node: node, address: address)
            cluster = ServiceCluster(server: server, node: node, address: address, nodes: nodes)
        }
        let threads = NIOThreadPool(numberOfThreads: 8)
        threads.start()
        state = ServiceState(configuration: configuration, keys: keys, threads: threads, logger: logger, cluster: cluster)
    }

    /// The ledgers (tests watch leases and idle closing through it).
    var pool: LedgerPool { state.pool }

    /// The admin key made at this start (first start without `TALLY_ADMIN_KEY`): print it
    /// once; only its hash is kept.
    public var generatedAdminKey: String? { state.keys.generatedAdminKey }

    /// Serves until graceful shutdown (one of `gracefulShutdownSignals`, or ``shutdown()``).
    ///
    /// - Parameters:
    ///   - gracefulShutdownSignals: the signals that start a graceful shutdown (`tally serve`
    ///     gives SIGTERM and SIGINT; a test none).
    ///   - onRunning: told the port once the server listens.
    public func run(
        gracefulShutdownSignals: [UnixSignal] = [], onRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) async throws {
        let state = self.state
        let router = Router(context: BasicRequestContext.self)
        router.middlewares.add(ProblemMiddleware())
        for entry in Self.table {
            let route = entry.route, handler = entry.handler
            router.on(RouterPath(route.routerPath), method: route.method) { request, context in
                await state.respond(route, request, context, handler)
            }
        }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: [state.pool],
            onServerRunning: { [configuration] channel in
                let port = channel.localAddress?.port ?? 0
                // A node listening on a port picked at start says where it answers once it knows.
                if let cluster = state.pool.cluster, configuration.advertisedAddress == nil, configuration.port == 0 {
                    try? cluster.nodes.announce(node: cluster.node, address: "http://\(configuration.host):\(port)")
                }
                await onRunning(port)
            },
            logger: logger)
        let serviceGroup = ServiceGroup(configuration: .init(
            services: [.init(service: app), .init(service: ShutdownNotifier(signal: state.shutdown))],
            gracefulShutdownSignals: gracefulShutdownSignals, logger: logger))
        group.withLock { $0 = serviceGroup }
        defer { group.withLock { $0 = nil } }
        do {
            try await serviceGroup.run()
        } catch {
            try? await state.threads.shutdownGracefully()
            throw error
        }
        try await state.threads.shutdownGracefully()
        logger.info("server stopped")
    }

    /// Starts a graceful shutdown: live streams end, requests in flight finish, every ledger closes.
    public func shutdown() async {
        // The same path a signal takes: the group tells its services in reverse order, the
        // notifier first (live streams end), then the HTTP server, then the ledgers.
        let serviceGroup = group.withLock { $0 }
        await serviceGroup?.triggerGracefulShutdown()
    }

    // MARK: Routes

    typealias Handler = @Sendable (Call) async throws -> Response

    struct RouteEntry: Sendable {
        let route: ServiceRoute
        let handler: Handler

        init(_ route: ServiceRoute, _ handler: @escaping Handler) {
            self.route = route
            self.handler = handler
        }
    }

    static let table: [RouteEntry] = {
        var table: [RouteEntry] = [
            RouteEntry(AdminRoutes.health, { try await AdminRoutes.handleHealth($0) }),
            RouteEntry(AdminRoutes.metrics, { try await AdminRoutes.handleMetrics($0) }),
            RouteEntry(AdminRoutes.createLedger, { try await AdminRoutes.handleCreateLedger($0) }),
            RouteEntry(AdminRoutes.createKey, { try await AdminRoutes.handleCreateKey($0) }),
            RouteEntry(AdminRoutes.listKeys, { try await AdminRoutes.handleListKeys($0) }),
            RouteEntry(AdminRoutes.revokeKey, { try await AdminRoutes.handleRevokeKey($0) }),
            RouteEntry(ListRoutes.audit, { try await ListRoutes.handleAudit($0) }),
            RouteEntry(ListRoutes.log, { try await ListRoutes.handleLog($0) }),
            RouteEntry(PortabilityRoutes.importEvents, { try await PortabilityRoutes.handleImport(.events, $0) }),
            RouteEntry(PortabilityRoutes.importJournal, { try await PortabilityRoutes.handleImport(.journal, $0) }),
            RouteEntry(PortabilityRoutes.export, { try await PortabilityRoutes.handleExport($0) }),
            RouteEntry(EventStreamRoutes.route, { try await EventStreamRoutes.handle($0) }),
        ]
        for definition in CommandRoutes.all {
            table.append(RouteEntry(definition.route) { try await CommandRoutes.handle(definition, $0) })
        }
        for definition in QueryRoutes.all {
            table.append(RouteEntry(definition.route) { try await QueryRoutes.handle(definition, $0) })
        }
        return table
    }()
}

/// The last service of the group, so the first told of graceful shutdown: it ends the live
/// event streams before the HTTP server waits for its requests in flight.
private struct ShutdownNotifier: Service {
    let signal: ShutdownSignal

    func run() async throws {
        try? await gracefulShutdown()
        signal.fire()
    }
}

/// Answers what no route handled (an unknown path, a wrong method) as a problem document.
private struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return Problem.from(error).response
        }
    }
}
