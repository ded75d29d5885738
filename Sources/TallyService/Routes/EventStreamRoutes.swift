import HTTPTypes
import Hummingbird
import NIOCore
import Tally

/// `GET /ledgers/{ledger}/events`: committed events as Server-Sent Events, from
/// `Ledger.committedEvents(after:)`. Each event is `id: <seq>`, `event: <type>`,
/// `data: <the event's JSON>`; a client that reconnects with `Last-Event-ID: <seq>` (or
/// `?after=<seq>`) gets every event after it, each once, in order. A comment line goes out
/// every ``TallyServer/Configuration/heartbeatSeconds``: it keeps proxies from closing a
/// quiet stream, and a write that fails tells the server the client went away (a handler
/// waiting for a commit would never notice otherwise). The stream ends when the server
/// shuts down (`event: shutdown`), and when a consumer falls so far behind that events would
/// have to be dropped (`event: too_slow`, then reconnect from the last id).
enum EventStreamRoutes {
    static let route = ServiceRoute(method: .get, path: "/ledgers/{ledger}/events", operationId: "streamEvents", security: .ledger(.read))
    static let lastEventIdField = HTTPField.Name("Last-Event-ID")!

    private enum Item: Sendable {
        case event(Event)
        case heartbeat
        case end(String)
    }

    static func handle(_ call: Call) async throws -> Response {
        let id = try call.ledger
        let state = call.state
        let after = try startSequence(call)
        // A missing ledger is a 404 before the stream starts; the stream's own lease is taken
        // inside the body, so no lease can outlive a response that is never written.
        _ = try await state.pool.with(id) { _ in () }
        let body = ResponseBody { writer in
            try await state.pool.with(id) { ledger in
                try await stream(ledger, after: after, state: state, writer: &writer)
            }
            try await writer.finish(nil)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `Last-Event-ID` (the browser's reconnection header) or `?after=`; 0 (from the first event) without either.
    static func startSequence(_ call: Call) throws -> UInt64 {
        if let text = call.request.headers[lastEventIdField] {
            guard let sequence = UInt64(text) else { throw Problem.invalidParameter("Last-Event-ID", "'Last-Event-ID' is '\(text)', not a sequence number") }
            return sequence
        }
        if let text = call.query("after") {
            guard let sequence = UInt64(text) else { throw Problem.invalidParameter("after", "'after' is '\(text)', not a sequence number") }
            return sequence
        }
        return 0
    }

    private static func stream(_ ledger: Ledger, after: UInt64, state: ServiceState, writer: inout any ResponseBodyWriter) async throws {
        let capacity = max(16, state.configuration.ledgerOptions.subscriptionBufferEvents)
        let (items, continuation) = AsyncStream<Item>.makeStream(bufferingPolicy: .bufferingOldest(capacity))
        let heartbeat = Duration.milliseconds(state.configuration.heartbeatMilliseconds)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await event in ledger.committedEvents(after: after) {
                        if case .dropped = continuation.yield(.event(event)) {
                            continuation.yield(.end("too_slow"))
                            return
                        }
                    }
                    continuation.yield(.end(Task.isCancelled ? "cancelled" : "closed"))
                } catch {
                    continuation.yield(.end("too_slow"))
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: heartbeat)
                    continuation.yield(.heartbeat)
                }
            }
            group.addTask {
                await state.shutdown.wait()
                continuation.yield(.end("shutdown"))
            }
            defer { group.cancelAll() }
            try await writer.write(ByteBuffer(string: "retry: 1000\n: stream of ledger events\n\n"))
            loop: for await item in items {
                switch item {
                case .event(let event):
                    let line = try EventJSON.encode(event)
                    try await writer.write(ByteBuffer(string: "id: \(event.sequence)\nevent: \(event.type.name)\ndata: \(line)\n\n"))
                case .heartbeat:
                    try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                case .end(let reason):
                    if reason != "cancelled" && reason != "closed" {
                        try await writer.write(ByteBuffer(string: "event: \(reason)\ndata: {}\n\n"))
                    }
                    break loop
                }
            }
            continuation.finish()
        }
    }
}
