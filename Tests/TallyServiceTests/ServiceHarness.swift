import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
@testable import TallyService

/// A real server on a loopback port chosen by the kernel, in a temp directory of its own,
/// and a real HTTP client (`URLSession`, as the webhooks'). `stop()` shuts it down gracefully
/// and waits for it.
final class ServiceHarness: Sendable {
    static let adminKey = "test-admin-key-0123456789"

    let directory: String
    let server: TallyServer
    let port: Int
    let client: OutboundHTTPClient
    private let running: Task<Void, any Error>

    static func start(
        directory: String? = nil, configure: (inout TallyServer.Configuration) -> Void = { _ in }
    ) async throws -> ServiceHarness {
        let directory = directory ?? NSTemporaryDirectory() + "tally-service-\(UUID().uuidString)"
        var configuration = TallyServer.Configuration(dataDirectory: directory, host: "127.0.0.1", port: 0, adminKey: adminKey)
        configure(&configuration)
        var logger = Logger(label: "tally.serve.test")
        logger.logLevel = .warning
        let server = try TallyServer(configuration: configuration, logger: logger)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let running = Task { try await server.run { port in continuation.yield(port) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw ServiceError("the server did not start") }
        return ServiceHarness(directory: directory, server: server, port: port, running: running)
    }

    private init(directory: String, server: TallyServer, port: Int, running: Task<Void, any Error>) {
        self.directory = directory
        self.server = server
        self.port = port
        self.running = running
        client = OutboundHTTPClient.forTests
    }

    /// Shuts the server down gracefully and waits for it.
    func stop() async throws {
        await server.shutdown()
        try await running.value
    }

    /// Stops, then removes the directory.
    func stopAndRemove() async throws {
        try await stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct Reply: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The body as a JSON object.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:]
        }

        /// A problem document's `code`.
        var code: String? { json["code"] as? String }
    }

    /// Sends one request and collects the whole response within `timeout`.
    func send(
        _ method: HTTPMethod, _ path: String, key: String? = ServiceHarness.adminKey, body: String? = nil,
        headers: [(String, String)] = [], timeout: TimeAmount = .seconds(60)
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method.rawValue
        request.timeoutInterval = TimeInterval(timeout.nanoseconds) / 1_000_000_000
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.addValue(value, forHTTPHeaderField: name) }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        let response = try await client.start(request, deadline: .nanoseconds(timeout.nanoseconds))
        let bytes = try await response.collect(upTo: 64 * 1024 * 1024)
        return Reply(status: response.status, headers: HTTPHeaders(response.headers.map { ($0.key, $0.value) }), body: bytes)
    }

    /// A command with an idempotency key.
    func command(
        _ path: String, _ body: String, key: String? = ServiceHarness.adminKey, idempotencyKey: String = UUID().uuidString,
        timeout: TimeAmount = .seconds(60)
    ) async throws -> Reply {
        try await send(.POST, path, key: key, body: body, headers: [("Idempotency-Key", idempotencyKey)], timeout: timeout)
    }

    /// Creates a ledger with the admin key.
    @discardableResult
    func createLedger(_ id: String, currency: String = "USD") async throws -> Reply {
        try await send(.POST, "/ledgers", body: #"{"id":"\#(id)","name":"Household \#(id)","base_currency":"\#(currency)"}"#)
    }

    /// Creates a key of `ledger` with `scopes`, returns the key.
    func createKey(_ ledger: String, scopes: [String]) async throws -> String {
        let reply = try await send(.POST, "/ledgers/\(ledger)/keys", body: #"{"scopes":[\#(scopes.map { "\"\($0)\"" }.joined(separator: ","))]}"#)
        guard reply.status == 201, let key = reply.json["key"] as? String else {
            throw ServiceError("creating a key failed: \(reply.status) \(reply.text)")
        }
        return key
    }
}

/// Values from a JSON reply.
extension Dictionary where Key == String, Value == Any {
    func objects(_ key: String) -> [[String: Any]] { (self[key] as? [Any])?.compactMap { $0 as? [String: Any] } ?? [] }
}

/// Reads Server-Sent Events from a response body: one message per blank-line-ended block.
struct EventStreamReader {
    struct Message {
        var id: String?
        var event: String?
        var data: String?
        var comments: [String] = []
    }

    private var iterator: AsyncThrowingStream<Data, any Error>.AsyncIterator
    private var buffer: [UInt8] = []

    init(_ response: OutboundHTTPClient.Response) {
        iterator = response.body.makeAsyncIterator()
    }

    /// The next message, or nil when the stream ends.
    mutating func next() async throws -> Message? {
        var message = Message()
        var sawField = false
        while true {
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if line.isEmpty {
                    if sawField { return message }
                    continue
                }
                sawField = true
                if line.hasPrefix(":") {
                    message.comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
                } else if let colon = line.firstIndex(of: ":") {
                    let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                    switch line[..<colon] {
                    case "id": message.id = value
                    case "event": message.event = value
                    case "data": message.data = value
                    default: break
                    }
                }
            }
            guard let chunk = try await iterator.next() else { return nil }
            buffer += chunk
        }
    }

    /// The next message that carries an event (heartbeats and comments skipped), or nil at the end.
    mutating func nextEvent() async throws -> Message? {
        while let message = try await next() {
            if message.event != nil { return message }
        }
        return nil
    }
}

extension ServiceHarness {
    /// Opens a live event stream of `ledger`: returns at its head; the stream fails after
    /// 120 s without a byte (heartbeats keep a quiet one open).
    func openEvents(_ ledger: String, lastEventId: UInt64? = nil, key: String = ServiceHarness.adminKey) async throws -> OutboundHTTPClient.Response {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/ledgers/\(ledger)/events")!)
        request.timeoutInterval = 120
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        if let lastEventId { request.setValue(String(lastEventId), forHTTPHeaderField: "Last-Event-ID") }
        return try await client.start(request)
    }
}

extension OutboundHTTPClient {
    /// The tests' client of the service: one session for the process, kept alive between
    /// tests, following no redirect (a test sees the service's own answer).
    static let forTests = OutboundHTTPClient()
}

/// Runs `body`, or throws when it has not finished within `seconds`: a test of a stream
/// that stalls fails instead of hanging.
func withDeadline<T: Sendable>(seconds: Int, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw ServiceError("\(what) did not finish within \(seconds) s")
        }
        return value
    }
}
