import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import Tally

/// `GET /ledgers/{ledger}/events`: committed events as Server-Sent Events, from
/// `Ledger.committedEvents(after:)`. Each event is `id: <seq>`, `event: <type>`,
/// `data: <the event's JSON>`; a client that reconnects with `Last-Event-ID: <seq>` (or
/// `?after=<seq>`) gets every event after it, each once, in order. An id beyond the head
/// (a ledger restored from an older export) is an empty catch-up: the stream goes on with
/// the next commit.
///
/// Flow control: a catch-up of any size delivers every event. The library reads the log
/// only as fast as this handler writes (``CommittedEvents`` waits for its consumer while
/// catching up), and the handler holds at most ``inFlightEvents`` events between the two.
/// The events that wait when the writer is free go out in one write and one flush.
/// Live commits cannot wait for a slow client: once the library's buffer
/// (`Ledger.Options.subscriptionBufferEvents`) is full it ends the stream with
/// `event: too_slow`, whose data names the last event written (`{"last_event_id": N}`):
/// reconnect with `Last-Event-ID: N`. The stream also ends with `event: shutdown` (the
/// server stops) and `event: error` (the log could not be read), each with the same data.
///
/// A comment line goes out every ``TallyServer/Configuration/heartbeatMilliseconds``: it
/// keeps proxies from closing a quiet stream, and a write that fails tells the server the
/// client went away (a handler waiting for a commit would never notice otherwise).
enum EventStreamRoutes {
    static let route = ServiceRoute(method: .get, path: "/ledgers/{ledger}/events", operationId: "streamEvents", security: .ledger(.read))
    static let lastEventIdField = HTTPField.Name("Last-Event-ID")!
    /// At most this many events wait between the ledger's stream and the response writer.
    static let inFlightEvents = 256

    /// Why a stream ends.
    enum Ending: String, Sendable {
        /// The ledger closed or the client went away: nothing to say.
        case closed
        /// The client fell behind live commits further than the ledger buffers.
        case tooSlow = "too_slow"
        /// The server is shutting down.
        case shutdown
        /// The log could not be read.
        case error
    }

    private enum Item: Sendable {
        case event(Event)
        case heartbeat
        case end(Ending)
    }

    static func handle(_ call: Call) async throws -> Response {
        let id = try call.ledger
        let state = call.state
        let asked = try startSequence(call)
        // A missing ledger is a 404 before the stream starts; the stream's own lease is taken
        // inside the body, so no lease can outlive a response that is never written.
        _ = try await state.pool.with(id) { _ in () }
        let body = ResponseBody { writer in
            try await state.pool.with(id) { ledger in
                try await stream(ledger, after: min(asked, ledger.head.sequence), state: state, writer: &writer)
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
        // Unbounded, yet small: events enter only with a credit (at most `inFlightEvents`
        // wait), heartbeats only when none is pending, one end.
        let items = Mailbox<Item>()
        let credits = Credits(inFlightEvents)
        let heartbeatPending = PendingFlag()
        let heartbeat = Duration.milliseconds(state.configuration.heartbeatMilliseconds)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await event in ledger.committedEvents(after: after) {
                        try await credits.take()
                        items.post(.event(event))
                    }
                    items.post(.end(.closed))
                } catch let error as SubscriptionError {
                    items.post(.end(error.code == .consumerTooSlow ? .tooSlow : .error))
                } catch {
                    items.post(.end(.closed))
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: heartbeat)
                    if heartbeatPending.raise() { items.post(.heartbeat) }
                }
            }
            group.addTask {
                await state.shutdown.wait()
                items.post(.end(.shutdown))
            }
            defer { group.cancelAll() }
            var lastWritten = after
            try await writer.write(ByteBuffer(string: "retry: 1000\n: stream of ledger events\n\n"))
            // What waits is written at once, in one write: a catch-up goes out up to
            // `inFlightEvents` events per write and flush instead of one (a write passes the
            // whole channel pipeline and its flush is a system call).
            var buffer = ByteBuffer()
            loop: while true {
                let batch = await items.takeAll()
                if batch.isEmpty { break }
                var events = 0
                var ended = false
                for item in batch {
                    switch item {
                    case .event(let event):
                        let line = try EventJSON.encode(event)
                        buffer.writeString("id: \(event.sequence)\nevent: \(event.type.name)\ndata: \(line)\n\n")
                        lastWritten = event.sequence
                        events += 1
                    case .heartbeat:
                        heartbeatPending.lower()
                        buffer.writeString(": heartbeat\n\n")
                    case .end(let ending):
                        if ending != .closed {
                            buffer.writeString("event: \(ending.rawValue)\ndata: {\"last_event_id\":\(lastWritten)}\n\n")
                        }
                        ended = true
                    }
                    if ended { break }
                }
                if buffer.readableBytes > 0 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
                for _ in 0..<events { credits.give() }
                if ended { break loop }
            }
            items.finish()
        }
    }
}

/// Items handed from producer tasks to one consumer, which takes every item that waits at
/// once (``takeAll()``), in the order they were posted.
final class Mailbox<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var waiter: CheckedContinuation<[Item], Never>?
        var finished = false
    }

    private let state = Mutex(State())

    /// Adds `item` for the consumer; nothing once ``finish()`` was called.
    func post(_ item: Item) {
        let waiter = state.withLock { state -> CheckedContinuation<[Item], Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.items.append(item)
            return nil
        }
        waiter?.resume(returning: [item])
    }

    /// Ends the mailbox: posts are dropped and a waiting or later ``takeAll()`` answers empty.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<[Item], Never>? in
            state.finished = true
            state.items = []
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: [])
    }

    /// Every item waiting, oldest first; suspends until one is posted when none waits. Empty
    /// once finished, or when the calling task is cancelled.
    func takeAll() async -> [Item] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Item], Never>) in
                let ready = state.withLock { state -> [Item]? in
                    if !state.items.isEmpty {
                        defer { state.items = [] }
                        return state.items
                    }
                    if state.finished || Task.isCancelled { return [] }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<[Item], Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: [])
        }
    }
}

/// A flag shared between tasks: raised by one (true when it was down), lowered by another.
final class PendingFlag: Sendable {
    private let raised = Mutex(false)

    /// Raises the flag; true when it was down.
    func raise() -> Bool {
        raised.withLock { raised in
            defer { raised = true }
            return !raised
        }
    }

    func lower() {
        raised.withLock { $0 = false }
    }
}

/// A counting semaphore for async tasks: `take` suspends while no credit is left; `give`
/// returns one. A task cancelled while waiting throws `CancellationError`.
final class Credits: Sendable {
    private struct State {
        var available: Int
        var nextId = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let state: Mutex<State>

    init(_ count: Int) {
        state = Mutex(State(available: count))
    }

    func take() async throws {
        let id = state.withLock { state -> Int? in
            if state.available > 0 {
                state.available -= 1
                return nil
            }
            state.nextId += 1
            return state.nextId
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    // A credit given between the check above and now is taken here.
                    if state.available > 0 {
                        state.available -= 1
                        continuation.resume()
                        return false
                    }
                    state.waiters.append((id, continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    func give() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        waiter?.resume()
    }
}
