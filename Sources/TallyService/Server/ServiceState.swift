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
    /// Failed authentications by client address.
    let failedAuthentications: RateLimiter
    let metrics: ServiceMetrics
    let threads: NIOThreadPool
    let logger: Logger
    let shutdown: ShutdownSignal
    let refusals: RefusedCommands
    /// The ledgers' webhooks and their deliveries.
    let webhooks: WebhookStore

    init(configuration: TallyServer.Configuration, keys: KeyStore, threads: NIOThreadPool, logger: Logger, cluster: ServiceCluster? = nil) throws {
        self.configuration = configuration
        webhooks = try WebhookStore(directory: configuration.dataDirectory)
        self.keys = keys
        self.threads = threads
        self.logger = logger
        pool = LedgerPool(
            directory: configuration.dataDirectory,
            limits: .init(openLedgersLimit: configuration.openLedgersLimit, idleSeconds: configuration.idleSeconds),
            options: configuration.ledgerOptions, threads: threads, logger: logger, cluster: cluster)
        limiter = RateLimiter(perSecond: configuration.rateLimitPerSecond, burst: configuration.rateLimitBurst)
        failedAuthentications = RateLimiter(perMinute: configuration.failedAuthenticationsPerMinute, burst: configuration.failedAuthenticationsBurst)
        metrics = ServiceMetrics()
        shutdown = ShutdownSignal()
        refusals = RefusedCommands(directory: configuration.dataDirectory)
    }

    /// Runs blocking ledger work (a query, an import) on the service's thread pool, never on
    /// the cooperative one.
    func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threads.runIfActive(body)
    }

    /// Answers one request of `route`: checks its key and rate, runs `handler`, turns any
    /// error into a problem document, counts it.
    func respond(
        _ route: ServiceRoute, _ request: Request, _ context: ServiceRequestContext,
        _ handler: @Sendable (Call) async throws -> Response
    ) async -> Response {
        let started = ContinuousClock.now
        let requestId = context.requestId
        var response: Response
        var keyId = "-"
        do {
            let ledger = try Call.pathParameter(context, "ledger")
            var principal: Principal?
            switch route.security {
            case .none:
                break
            case .serverAdmin:
                let caller = try authenticate(request, context, ledger: ledger)
                guard caller.isServerAdmin else {
                    throw Problem(.forbidden, "admin_key_required", "this route needs the server's admin key")
                }
                principal = caller
            case .ledger(let scope):
                let caller = try authenticate(request, context, ledger: ledger)
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
            let ledger = (try? Call.pathParameter(context, "ledger")) ?? ""
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
                logger.error("request failed", metadata: ["operation": "\(route.operationId)", "request_id": "\(requestId)", "error": "\(error)"])
            }
            response = problem.response
        }
        let elapsed = ContinuousClock.now - started
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        metrics.request(operation: route.operationId, status: response.status.code, nanoseconds: nanoseconds)
        logger.debug("request", metadata: [
            "operation": "\(route.operationId)", "request_id": "\(requestId)", "status": "\(response.status.code)", "key": "\(keyId)",
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

    /// The principal of the request's `Authorization: Bearer` key, or 401. A client address
    /// that sent more wrong keys than the failed-authentication burst is 429 until its bucket
    /// refills, whatever key it sends: guessing keys costs time.
    func authenticate(_ request: Request, _ context: ServiceRequestContext, ledger: String?) throws -> Principal {
        let peer = context.peer
        if request.headers[.authorization] != nil, let wait = failedAuthentications.wait(peer) {
            var problem = Problem(.tooManyRequests, "authentication_rate_limited", "too many requests with a missing or wrong API key from this address; retry after \(wait) s")
            problem.headers[.retryAfter] = String(wait)
            throw problem
        }
        do {
            return try authenticate(request, ledger: ledger)
        } catch let problem as Problem where problem.code == Problem.invalidKey.code {
            // A wrong key is a guess; a request with none guesses nothing.
            failedAuthentications.record(peer)
            throw problem
        }
    }

    /// The principal of the request's `Authorization: Bearer` key, or 401 (nothing counted).
    func authenticate(_ request: Request, ledger: String?) throws -> Principal {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { throw Problem.unauthorized }
        let key = String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty, key.utf8.count <= 256, let principal = try keys.principal(for: key, ledger: ledger) else {
            throw Problem.invalidKey
        }
        return principal
    }
}

/// One request as a handler sees it.
struct Call: Sendable {
    let request: Request
    let context: ServiceRequestContext
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

    /// A path parameter, percent-decoded (`manual%3A15` is `manual:15`).
    func parameter(_ name: String) throws -> String {
        guard let value = try Self.pathParameter(context, name), !value.isEmpty else {
            throw Problem.invalidParameter(name, "the path needs '\(name)'")
        }
        return value
    }

    /// A path parameter as the router matched it, percent-decoded; nil when the route has
    /// none of that name; 400 for a malformed escape or one that is not UTF-8.
    static func pathParameter(_ context: ServiceRequestContext, _ name: String) throws -> String? {
        guard let raw = context.parameters.get(name) else { return nil }
        guard raw.contains("%") else { return raw }
        guard let decoded = percentDecoded(raw) else {
            throw Problem.invalidParameter(name, "the path segment '\(raw)' has a malformed percent escape (each % is followed by two hex digits of UTF-8)")
        }
        return decoded
    }

    /// RFC 3986 percent-decoding, strictly: nil for a `%` not followed by two hex digits or
    /// bytes that are not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x25 {
                guard index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) else { return nil }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(validating: decoded, as: UTF8.self)
    }

    /// A query parameter, nil when absent or empty.
    func query(_ name: String) -> String? {
        guard let value = request.uri.queryParameters.get(name), !value.isEmpty else { return nil }
        return value
    }

    /// The body, at most `limit` bytes (413 past it: at once, before reading any of it, when
    /// `Content-Length` announces more).
    func body(limit: Int) async throws -> [UInt8] {
        try Self.requireAnnouncedLength(request, limit: limit)
        var request = request
        let buffer = try await request.collectBody(upTo: limit)
        return Array(buffer.readableBytesView)
    }

    /// 413 when the request's `Content-Length` is over `limit`: the body is never read.
    static func requireAnnouncedLength(_ request: Request, limit: Int) throws {
        guard let text = request.headers[.contentLength] else { return }
        guard let length = Int(text), length >= 0 else {
            throw Problem(.badRequest, "invalid_content_length", "Content-Length '\(text)' is not a byte count")
        }
        guard length <= limit else {
            var problem = Problem(.contentTooLarge, "body_too_large", "the body is \(length) bytes; this route accepts at most \(limit)")
            // The body is not read: the connection cannot carry another request after it.
            problem.headers[.connection] = "close"
            throw problem
        }
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
