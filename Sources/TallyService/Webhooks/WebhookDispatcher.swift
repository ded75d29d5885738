import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
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
        // One session for the dispatcher's life: its connections are kept and reused. A redirect
        // is followed (up to 20, as browsers do) only to a URL a webhook could name itself.
        let settings = self.settings
        let client = OutboundHTTPClient(redirects: .follow(maximum: 20, allowed: { url in
            (try? WebhookRoutes.checkDestination(url.absoluteString, settings)) != nil
        }))
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
    func poll(_ ledger: String, _ client: OutboundHTTPClient) async throws {
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
            // A stopping server starts no new try; one under way gets its answer (within the
            // timeout) and records it, so a receiver that took it is not sent it again.
            if Task.isShuttingDownGracefully || Task.isCancelled { return }
            let attempt = await send(delivery, to: webhook, client)
            let tries = delivery.attempts.count + 1
            try store.record(webhook: webhook.id, delivery: delivery.id, attempt: attempt, now: Instant.now.microsecondsSinceEpoch,
                             backoffMicros: settings.backoffMicros(afterTries: tries), windowMicros: Int64(settings.retryWindowSeconds) * 1_000_000)
        }
    }

    /// One POST of a delivery, signed now. The try has `timeoutMilliseconds` for the whole
    /// answer; of its body at most 64 KiB is read, and only its status counts.
    func send(_ delivery: WebhookStore.Delivery, to webhook: WebhookStore.Webhook, _ client: OutboundHTTPClient) async -> WebhookStore.Attempt {
        let now = Instant.now
        guard let url = URL(string: webhook.url) else {
            return WebhookStore.Attempt(at: now.description, status: nil, error: "'\(webhook.url)' is not a URL")
        }
        let timeout = Duration.milliseconds(settings.timeoutMilliseconds)
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        // curl's wait for data, which Foundation counts in whole seconds (0.5 s would be none):
        // rounded up; the deadline bounds the whole try exactly.
        request.timeoutInterval = TimeInterval(max(1, (settings.timeoutMilliseconds + 999) / 1_000))
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("tally-webhooks", forHTTPHeaderField: "User-Agent")
        request.setValue(delivery.id, forHTTPHeaderField: "Tally-Delivery")
        request.setValue(webhook.id, forHTTPHeaderField: "Tally-Webhook")
        request.setValue(WebhookStore.signature(secret: webhook.secret, timestamp: now.microsecondsSinceEpoch / 1_000_000, body: delivery.body),
                         forHTTPHeaderField: "Tally-Signature")
        request.httpBody = Data(delivery.body.utf8)
        do {
            let response = try await client.start(request, deadline: timeout)
            _ = try? await response.collect(upTo: 64 * 1024)
            let status = response.status
            return WebhookStore.Attempt(at: now.description, status: status, error: (200..<300).contains(status) ? nil : "answered \(status)")
        } catch {
            return WebhookStore.Attempt(at: now.description, status: nil, error: OutboundHTTPError.describe(error))
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
