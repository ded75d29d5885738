public import Logging
import Foundation
import HTTPTypes
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
/// accepting connections (new ones are refused), answers in full every request in flight
/// (being read or answered, or already sent on a kept-alive connection: see
/// ``Configuration/shutdownGraceMilliseconds``), each with `Connection: close` (an
/// acknowledged command is durable before its response is written), then closes every ledger.
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
        /// How long a client has to send a request's head (from connecting, or from the
        /// previous response on a kept-alive connection); past it the connection is closed.
        public var headerReadTimeoutMilliseconds: Int = 10_000
        /// How long a client has to send a request's body once its head arrived.
        public var bodyReadTimeoutMilliseconds: Int = 120_000
        /// In a graceful shutdown, how long a connection idle between two requests stays open
        /// for a request its client had already sent when shutdown began (each such request is
        /// answered, with `Connection: close`); a request being read or answered is always
        /// answered in full.
        public var shutdownGraceMilliseconds: Int = 1_000
        /// Failed authentications a minute per client address, sustained; past the burst,
        /// every request from that address that carries a key is 429 until the bucket refills.
        public var failedAuthenticationsPerMinute: Int = 120
        /// Failed authentications per client address in a burst.
        public var failedAuthenticationsBurst: Int = 20
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
        /// The browser origins allowed to call the API (`--cors-origin`, e.g.
        /// `https://app.example`); empty (the default): no CORS headers at all.
        public var corsOrigins: [String] = []
        /// Where other nodes and clients reach this node (`http://HOST:PORT`; default from the
        /// listening address and port): a request for a ledger this node holds is redirected here.
        public var advertisedAddress: String? = nil
        /// How webhooks are delivered: polls, retries, timeouts, allowed hosts.
        public var webhooks = Webhooks()

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

    /// The API's version, in every response's `Tally-API-Version` header and in
    /// `Schemas/openapi.yaml` (`info.version`'s major). Within a version, changes only add
    /// (routes, optional fields, response fields, enum cases in answers); a change that
    /// breaks a client would come as version 2 under `/v2`.
    public static let apiVersion = "1"

    /// Every operation served, as `Schemas/openapi.yaml` lists them.
    public static var routes: [ServiceRoute] { table.map(\.route) }

    /// The configuration it runs with.
    public let configuration: Configuration
    private let state: ServiceState
    private let group = Mutex<ServiceGroup?>(nil)
    /// The listening channel, once the server listens.
    private let listener = Mutex<(any Channel)?>(nil)
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
        state = try ServiceState(configuration: configuration, keys: keys, threads: threads, logger: logger, cluster: cluster)
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
        let router = Router(context: ServiceRequestContext.self)
        router.middlewares.add(RequestIdMiddleware())
        if !configuration.corsOrigins.isEmpty { router.middlewares.add(CORSOriginsMiddleware(origins: configuration.corsOrigins)) }
        router.middlewares.add(ProblemMiddleware(routes: Self.routes))
        for entry in Self.table {
            let route = entry.route, handler = entry.handler
            router.on(RouterPath(route.routerPath), method: route.method) { request, context in
                await state.respond(route, request, context, handler)
            }
        }
        let deadlines = (header: TimeAmount.milliseconds(Int64(configuration.headerReadTimeoutMilliseconds)),
                         body: TimeAmount.milliseconds(Int64(configuration.bodyReadTimeoutMilliseconds)),
                         shutdownGrace: TimeAmount.milliseconds(Int64(configuration.shutdownGraceMilliseconds)))
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [
                RequestDeadlineHandler(header: deadlines.header, body: deadlines.body), ShutdownDrainHandler(grace: deadlines.shutdownGrace),
            ])),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: [state.pool, WebhookDispatcher(state: state, store: state.webhooks, settings: configuration.webhooks)],
            onServerRunning: { [configuration, self] channel in
                self.listener.withLock { $0 = channel }
                let port = channel.localAddress?.port ?? 0
                // A node listening on a port picked at start says where it answers once it knows.
                if let cluster = state.pool.cluster, configuration.advertisedAddress == nil, configuration.port == 0 {
                    try? cluster.nodes.announce(node: cluster.node, address: "http://\(configuration.host):\(port)")
                }
                await onRunning(port)
            },
            logger: logger)
        let serviceGroup = ServiceGroup(configuration: .init(
            services: [.init(service: app), .init(service: ShutdownNotifier(signal: state.shutdown, stopAccepting: { [self] in
                // No connection is accepted from now on (a client's connect waits in the backlog
                // and is refused when the listener closes): one accepted while the server closes
                // its listener would be dropped half set up.
                let channel = self.listener.withLock { $0 }
                try? await channel?.setOption(ChannelOptions.autoRead, value: false).get()
            }))],
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
            RouteEntry(PortabilityRoutes.restore, { try await PortabilityRoutes.handleRestore($0) }),
            RouteEntry(EventStreamRoutes.route, { try await EventStreamRoutes.handle($0) }),
            RouteEntry(NotificationRoutes.notifications, { try await NotificationRoutes.handleNotifications($0) }),
            RouteEntry(NotificationRoutes.chart, { try await NotificationRoutes.handleChart($0) }),
            RouteEntry(WebhookRoutes.create, { try await WebhookRoutes.handleCreate($0) }),
            RouteEntry(WebhookRoutes.list, { try await WebhookRoutes.handleList($0) }),
            RouteEntry(WebhookRoutes.deliveries, { try await WebhookRoutes.handleDeliveries($0) }),
            RouteEntry(WebhookRoutes.redeliver, { try await WebhookRoutes.handleRedeliver($0) }),
            RouteEntry(FileRoutes.importBankCSV, { try await FileRoutes.handleImportBankCSV($0) }),
            RouteEntry(FileRoutes.exportCSV, { try await FileRoutes.handleExportCSV($0) }),
            RouteEntry(LedgerAdminRoutes.list, { try await LedgerAdminRoutes.handleList($0) }),
            RouteEntry(LedgerAdminRoutes.delete, { try await LedgerAdminRoutes.handleDelete($0) }),
            RouteEntry(LedgerAdminRoutes.subjects, { try await LedgerAdminRoutes.handleSubjects($0) }),
            RouteEntry(LedgerAdminRoutes.erase, { try await LedgerAdminRoutes.handleErase($0) }),
            RouteEntry(DashboardRoutes.route, { try await DashboardRoutes.handle($0) }),
        ]
        for definition in CommandRoutes.all {
            table.append(RouteEntry(definition.route) { try await CommandRoutes.handle(definition, $0) })
        }
        for definition in QueryRoutes.all + ReadRoutes.all + PortfolioRoutes.all {
            table.append(RouteEntry(definition.route) { try await QueryRoutes.handle(definition, $0) })
        }
        return table
    }()
}

/// The last service of the group, so the first told of graceful shutdown: it stops accepting
/// connections and ends the live event streams before the HTTP server waits for its requests
/// in flight.
private struct ShutdownNotifier: Service {
    let signal: ShutdownSignal
    let stopAccepting: @Sendable () async -> Void

    func run() async throws {
        try? await gracefulShutdown()
        await stopAccepting()
        signal.fire()
    }
}

/// Answers what no route handled as a problem document: a path served with other methods is
/// 405 with `Allow` naming them, any other path 404.
private struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: [ServiceRoute]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = routes.filter { $0.matches(path: request.uri.path) }.map(\.method.rawValue)
            guard !allowed.isEmpty else { return Problem.from(error).response }
            let methods = Set(allowed).sorted().joined(separator: ", ")
            var problem = Problem(.methodNotAllowed, "method_not_allowed", "\(request.method.rawValue) is not served on this path; it answers \(methods)")
            problem.headers[.allow] = methods
            return problem.response
        } catch {
            return Problem.from(error).response
        }
    }
}

/// Gives every request an id, `X-Request-ID`: the client's own when it sent a sane one (1 to
/// 200 of `A-Z a-z 0-9 - _ . :`), else a new random one. The response carries it back and every
/// log line of the request names it (`request_id`), so a client's report finds the server's log.
/// Every response also names the API's version (`Tally-API-Version`, ``TallyServer/apiVersion``).
struct RequestIdMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext
    static var field: HTTPField.Name { HTTPField.Name("X-Request-ID")! }
    static var versionField: HTTPField.Name { HTTPField.Name("Tally-API-Version")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let given = request.headers[Self.field], (1...200).contains(given.utf8.count),
           given.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2D, 0x5F, 0x2E, 0x3A].contains($0) }) {
            context.requestId = given
        } else {
            context.requestId = KeyStore.randomHex(bytes: 12)
        }
        var response = try await next(request, context)
        response.headers[Self.field] = context.requestId
        response.headers[Self.versionField] = TallyServer.apiVersion
        return response
    }
}

/// CORS for browser apps, for the origins `--cors-origin` names (exactly as a browser sends
/// them, `https://app.example`). A request from such an origin is answered with
/// `Access-Control-Allow-Origin` naming that origin (never `*`; no cookies are involved, the
/// key travels in `Authorization`, so `Access-Control-Allow-Credentials` is never sent), and
/// the headers a client needs exposed; a preflight (`OPTIONS` with
/// `Access-Control-Request-Method`) is answered 204 with the methods and request headers the
/// API takes. Another origin gets no CORS headers, so the browser withholds the answer.
struct CORSOriginsMiddleware<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>

    init(origins: [String]) {
        self.origins = Set(origins)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], origins.contains(origin) else {
            return try await next(request, context)
        }
        var response: Response
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            response = Response(status: .noContent)
            response.headers[.accessControlAllowMethods] = "GET, POST, DELETE, OPTIONS"
            response.headers[.accessControlAllowHeaders] = "Authorization, Content-Type, Idempotency-Key, Last-Event-ID, X-Request-ID"
            response.headers[.accessControlMaxAge] = "600"
        } else {
            response = try await next(request, context)
            response.headers[.accessControlExposeHeaders] = "X-Request-ID, Idempotent-Replayed, Location, Retry-After, Tally-Import-Line, Allow, WWW-Authenticate"
        }
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.vary] = "Origin"
        return response
    }
}
