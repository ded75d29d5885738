import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import Synchronization
import Tally
import TallyService
import Testing

/// A real `tally serve` (the service in this process, on a loopback port the kernel chose,
/// in a temp directory of its own) and clients generated from Schemas/openapi.yaml that
/// call it over HTTP, as an app's backend would.
final class APIHarness: Sendable {
    let adminKey: String
    let directory: String
    let server: TallyServer
    let serverURL: URL
    private let running: Task<Void, any Error>

    static func start(configure: (inout TallyServer.Configuration) -> Void = { _ in }) async throws -> APIHarness {
        let directory = NSTemporaryDirectory() + "tally-api-client-\(UUID().uuidString)"
        let adminKey = "tally-api-client-admin-\(UUID().uuidString)"
        var configuration = TallyServer.Configuration(dataDirectory: directory, host: "127.0.0.1", port: 0, adminKey: adminKey)
        configure(&configuration)
        var logger = Logger(label: "tally.serve.api-client-test")
        logger.logLevel = .warning
        let server = try TallyServer(configuration: configuration, logger: logger)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let running = Task { try await server.run { port in continuation.yield(port) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw APIClientTestError("the server did not start") }
        return APIHarness(adminKey: adminKey, directory: directory, server: server, port: port, running: running)
    }

    private init(adminKey: String, directory: String, server: TallyServer, port: Int, running: Task<Void, any Error>) {
        self.adminKey = adminKey
        self.directory = directory
        self.server = server
        self.serverURL = URL(string: "http://127.0.0.1:\(port)")!
        self.running = running
    }

    /// The generated client, sending `key` as its bearer token (the server's admin key by default).
    func client(key: String? = nil, timeout: Duration = .seconds(120)) -> Client {
        Client(
            serverURL: serverURL,
            configuration: OpenAPIRuntime.Configuration(dateTranscoder: RFC3339Transcoder()),
            transport: StreamingTransport(client: Self.http, timeout: timeout),
            middlewares: [BearerToken(key: key ?? adminKey)]
        )
    }

    /// The HTTP client under every generated client of the suites: one session, its connections kept.
    static let http = OutboundHTTPClient()

    /// Shuts the server down gracefully, waits for it and removes its directory.
    func stop() async throws {
        await server.shutdown()
        try await running.value
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// `Authorization: Bearer KEY` on every request, as an app's backend sends its key.
struct BearerToken: ClientMiddleware {
    let key: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(key)"
        return try await next(request, body, baseURL)
    }
}

/// The service's instants: RFC 3339, with microseconds when it has them (`…T23:59:59.999999Z`)
/// and without when it has none (the runtime's default transcoder reads only the second).
struct RFC3339Transcoder: DateTranscoder {
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let whole = Date.ISO8601FormatStyle()

    func encode(_ date: Date) throws -> String { Self.fractional.format(date) }

    func decode(_ text: String) throws -> Date {
        if let date = try? Self.fractional.parse(text) { return date }
        return try Self.whole.parse(text)
    }
}

struct APIClientTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension APIHarness {
    /// A new ledger (admin key) and a key of it with `scopes`; the client that sends that key.
    func ledger(_ id: String, baseCurrency: String = "USD", timeZone: String = "UTC", scopes: [Components.Schemas.CreateKey.ScopesPayloadPayload] = [.read, .write]) async throws -> Client {
        let admin = client()
        let created = try await admin.createLedger(body: .json(.init(id: id, name: "Household \(id)", baseCurrency: baseCurrency, timeZone: timeZone)))
        let ledger = try created.created.body.json
        #expect(ledger.id == id)
        #expect(ledger.baseCurrency == baseCurrency)
        #expect(ledger.timeZone == timeZone)
        let key = try await admin.createKey(path: .init(ledger: id), body: .json(.init(scopes: scopes)))
        return client(key: try key.created.body.json.key)
    }
}

/// A fresh idempotency key for a command.
func idempotencyKey(_ what: String = "command") -> String { "\(what)-\(UUID().uuidString)" }

/// A command's resource: the document says "the resource, or null once the command ended
/// it" as `oneOf: [{$ref}, {enum: [null]}]`, which the generator renders as an enum.
extension Components.Schemas.CommandResult {
    var potResource: Components.Schemas.Pot? {
        if case .Pot(let pot)? = pot { return pot }
        return nil
    }

    var transactionResource: Components.Schemas.Transaction? {
        if case .Transaction(let transaction)? = transaction { return transaction }
        return nil
    }
}
