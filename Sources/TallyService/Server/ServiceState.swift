import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Tally

/// What every handler shares: the ledgers, the keys, the limits, the metrics.
final class ServiceState: Sendable {
    let configuration: TallyServer.Configuration
    let pool: LedgerPool
    let keys: KeyStore
    let limiter: RateLimiter
    let metrics: ServiceMetrics
    let threads: NIOThreadPool
    let logger: Logger
    let shutdown: ShutdownSignal

    init(configuration: TallyServer.Configuration, keys: KeyStore, threads: NIOThreadPool, logger: Logger, cluster: ServiceCluster? = nil) {
        self.configuration = configuration
        self.keys = keys
        self.threads = threads
        self.logger = logger
        pool = LedgerPool(
            directory: configuration.dataDirectory,
            limits: .init(openLedgersLimit: configuration.openLedgersLimit, idleSeconds: configuration.idleSeconds),
            options: configuration.ledgerOptions, threads: threads, logger: logger, cluster: cluster)
        limiter = RateLimiter(perSecond: configuration.rateLimitPerSecond, burst: configuration.rateLimitBurst)
        metrics = ServiceMetrics()
        shutdown = ShutdownSignal()
    }

    /// Runs blocking ledger work (a query, an import) on the service's thread pool, never on
    /// the cooperative one.
    func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threads.runIfActive(body)
    }

    /// Answers one request of `route`: checks its key and rate, runs `handler`, turns any
    /// error into a problem document, counts it.
    func respond(
        _ route: ServiceRoute, _ request: Request, _ context: BasicRequestContext,
        _ handler: @Sendable (Call) async throws -> Response
    ) async -> Response {
        let started = ContinuousClock.now
        var response: Response
        var keyId = "-"
        do {
            let ledger = context.parameters.get("ledger")
            var principal: Principal?
            switch route.security {
            case .none:
                break
            case .serverAdmin:
                let caller = try authenticate(request, ledger: ledger)
                guard caller.isServerAdmin else {
                    throw Problem(.forbidden, "admin_key_required", "this route needs the server's admin key")
                }
                principal = caller
            case .ledger(let scope):
                let caller = try authenticate(request, ledger: ledger)
                guard let ledger else { throw Problem(.notFound, "not_found", "no ledger in the path") }
                try caller.require(scope, on: ledger)
                principal = caller
            }
            if let principal {
                keyId = principal.keyId
                try limiter.take(principal.keyId)
            }
            response = try await handler(Call(request: request, context: context, principal: principal, ledgerId: ledger, state: self))
        } catch let held as LedgerHeldElsewhere {
            // Another node of the deployment holds the ledger: the client follows the redirect.
            response = Self.redirect(held, request).response
        } catch where LedgerPool.isFenced(error) {
            // This node's hold on the ledger ended (another node took it over while this one was
            // stalled): nothing of the request was written; it goes to the new holder.
            let ledger = context.parameters.get("ledger") ?? ""
            if let cluster = pool.cluster, let location = try? cluster.location(of: ledger),
               let holder = try? cluster.nodes.holder(of: location), holder.node != cluster.node {
                response = Self.redirect(LedgerHeldElsewhere(ledger: ledger, node: holder.node, address: holder.address), request).response
            } else {
                var problem = Problem(.serviceUnavailable, "ledger_moved", "another node took the ledger over; nothing was written: retry the request")
                problem.headers[.retryAfter] = "1"
                response = problem.response
            }
        } catch {
            let problem = Problem.from(error)
            if problem.status.code >= 500 {
                logger.error("request failed", metadata: ["operation": "\(route.operationId)", "error": "\(error)"])
            }
            response = problem.response
        }
        let elapsed = ContinuousClock.now - started
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        metrics.request(operation: route.operationId, status: response.status.code, nanoseconds: nanoseconds)
        logger.debug("request", metadata: [
            "operation": "\(route.operationId)", "status": "\(response.status.code)", "key": "\(keyId)",
            "micros": "\(nanoseconds / 1000)",
        ])
        return response
    }

    /// The redirect to the node that holds a ledger (307: the method and body are kept).
    static func redirect(_ held: LedgerHeldElsewhere, _ request: Request) -> Problem {
        var problem = Problem(.temporaryRedirect, "ledger_elsewhere", "the ledger '\(held.ledger)' is served by node '\(held.node)' now; the request goes there")
        if let address = held.address { problem.headers[.location] = address + request.uri.description }
        return problem
    }

    /// The principal of the request's `Authorization: Bearer` key, or 401.
    func authenticate(_ request: Request, ledger: String?) throws -> Principal {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { throw Problem.unauthorized }
        let key = String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty, key.utf8.count <= 256, let principal = try keys.principal(for: key, ledger: ledger) else {
            throw Problem(.unauthorized, "invalid_key", "the API key is unknown or revoked")
        }
        return principal
    }
}

/// One request as a handler sees it.
struct Call: Sendable {
    let request: Request
    let context: BasicRequestContext
    let principal: Principal?
    let ledgerId: String?
    let state: ServiceState

    /// The ledger id in the path.
    var ledger: String {
        get throws {
            guard let ledgerId else { throw Problem(.notFound, "not_found", "no ledger in the path") }
            return ledgerId
        }
    }

    /// A path parameter.
    func parameter(_ name: String) throws -> String {
        guard let value = context.parameters.get(name), !value.isEmpty else {
            throw Problem.invalidParameter(name, "the path needs '\(name)'")
        }
        return value
    }

    /// A query parameter, nil when absent or empty.
    func query(_ name: String) -> String? {
        guard let value = request.uri.queryParameters.get(name), !value.isEmpty else { return nil }
        return value
    }

    /// The body, at most `limit` bytes (413 past it).
    func body(limit: Int) async throws -> [UInt8] {
        var request = request
        let buffer = try await request.collectBody(upTo: limit)
        return Array(buffer.readableBytesView)
    }

    /// A JSON response.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: value.text)))
    }
}

/// Told once when graceful shutdown begins, before the HTTP server stops: live event
/// streams end on it, so the server's wait for in-flight requests ends.
final class ShutdownSignal: Sendable {
    private struct State {
        var fired = false
        var nextId = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    var hasFired: Bool { state.withLock { $0.fired } }

    func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when shutdown begins (at once if it has), or when the task is cancelled.
    func wait() async {
        let id = state.withLock { state -> Int in
            state.nextId += 1
            return state.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.fired || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
