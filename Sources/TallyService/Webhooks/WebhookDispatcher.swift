import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Tally

/// Sends each ledger's notifications to its webhooks (docs/notifications.md, "Webhooks"):
/// every poll it queues the notifications of now that a webhook has not queued, then sends
/// each webhook's first pending delivery when due. At-least-once and in order: a delivery is
/// marked delivered only after a 2xx answer, and the next one waits for it.
struct WebhookDispatcher: Service {
    let state: ServiceState
    let store: WebhookStore
    let settings: TallyServer.Configuration.Webhooks

    func run() async throws {
        // The process's shared client: its connections are pooled, and it needs no shutdown.
        let client = HTTPClient.shared
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            for ledger in store.ledgersWithWebhooks {
                do {
                    try await poll(ledger, client)
                } catch {
                    state.logger.warning("webhooks of \(ledger): \(error)")
                }
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(settings.pollMilliseconds)) }
        }
    }

    /// Queues what is new, then sends what is due.
    func poll(_ ledger: String, _ client: HTTPClient) async throws {
        let store = self.store
        let sources = state.notificationSources(ledger)
        try await state.pool.with(ledger) { opened in
            try await state.blocking {
                let notes = try opened.notifications(sources: sources)
                let calendar = opened.calendar
                try store.enqueue(ledger: ledger, notes.map { note in
                    (note.id, note.kind.rawValue, { delivery in Self.body(note, ledger: ledger, delivery: delivery, calendar: calendar) })
                }, now: Instant.now.microsecondsSinceEpoch)
            }
        }
        for (webhook, delivery) in store.due(ledger: ledger, now: Instant.now.microsecondsSinceEpoch) {
            let attempt = await send(delivery, to: webhook, client)
            let tries = delivery.attempts.count + 1
            try store.record(webhook: webhook.id, delivery: delivery.id, attempt: attempt, now: Instant.now.microsecondsSinceEpoch,
                             backoffMicros: settings.backoffMicros(afterTries: tries), windowMicros: Int64(settings.retryWindowSeconds) * 1_000_000)
        }
    }

    /// One POST of a delivery, signed now.
    func send(_ delivery: WebhookStore.Delivery, to webhook: WebhookStore.Webhook, _ client: HTTPClient) async -> WebhookStore.Attempt {
        let now = Instant.now
        var request = HTTPClientRequest(url: webhook.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "tally-webhooks")
        request.headers.add(name: "Tally-Delivery", value: delivery.id)
        request.headers.add(name: "Tally-Webhook", value: webhook.id)
        request.headers.add(name: "Tally-Signature",
                            value: WebhookStore.signature(secret: webhook.secret, timestamp: now.microsecondsSinceEpoch / 1_000_000, body: delivery.body))
        request.body = .bytes(ByteBuffer(string: delivery.body))
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(settings.timeoutMilliseconds)))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            let status = Int(response.status.code)
            return WebhookStore.Attempt(at: now.description, status: status, error: (200..<300).contains(status) ? nil : "answered \(status)")
        } catch {
            return WebhookStore.Attempt(at: now.description, status: nil, error: "\(error)")
        }
    }

    /// `{"delivery": …, "webhook": …, "ledger": …, "notification": {…}}`.
    static func body(_ note: LedgerNotification, ledger: String, delivery: String, calendar: LedgerCalendar) -> String {
        JSONValue.object([
            ("delivery", .string(delivery)), ("ledger", .string(ledger)),
            ("notification", NotificationRoutes.json(note, calendar: calendar)),
        ]).text
    }
}

extension TallyServer.Configuration {
    /// How `tally serve` delivers webhooks (docs/notifications.md, "Webhooks").
    public struct Webhooks: Sendable {
        /// How often each ledger's notifications are looked at: 1 s.
        public var pollMilliseconds = 1_000
        /// The wait after a delivery's first failed try, doubled after each further one: 10 s.
        public var retryBaseMilliseconds = 10_000
        /// The longest wait between two tries: 1 hour.
        public var retryMaxMilliseconds = 3_600_000
        /// How long a delivery is retried before it fails and its webhook is disabled: 24 hours.
        public var retryWindowSeconds = 86_400
        /// How long a try waits for the receiver's answer: 10 s.
        public var timeoutMilliseconds = 10_000
        /// Hosts a webhook may name over plain `http`, besides loopback; `https` may name any host.
        public var allowedHTTPHosts: [String] = []

        /// The defaults above.
        public init() {}

        /// The wait after `tries` failed tries: base × 2^(tries − 1), at most the maximum.
        func backoffMicros(afterTries tries: Int) -> Int64 {
            let shift = min(max(tries - 1, 0), 30)
            return min(Int64(retryBaseMilliseconds) << shift, Int64(retryMaxMilliseconds)) * 1_000
        }
    }
}
