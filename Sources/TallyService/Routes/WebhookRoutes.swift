import Foundation
import Hummingbird
import Tally

/// A ledger's webhooks (docs/notifications.md, "Webhooks"): made with the ledger's admin
/// scope; the signing secret is answered once, when made.
enum WebhookRoutes {
    static let create = ServiceRoute(method: .post, path: "/ledgers/{ledger}/webhooks", operationId: "createWebhook", security: .ledger(.admin))
    static let list = ServiceRoute(method: .get, path: "/ledgers/{ledger}/webhooks", operationId: "listWebhooks", security: .ledger(.admin))
    static let deliveries = ServiceRoute(method: .get, path: "/ledgers/{ledger}/webhooks/{webhook}/deliveries", operationId: "listWebhookDeliveries", security: .ledger(.admin))
    static let redeliver = ServiceRoute(method: .post, path: "/ledgers/{ledger}/webhooks/{webhook}/deliveries/{delivery}/redeliver",
                                        operationId: "redeliverWebhookDelivery", security: .ledger(.admin))

    /// `POST …/webhooks {"url": …, "kinds": […]}`: 201 with the id and the secret.
    static func handleCreate(_ call: Call) async throws -> Response {
        let ledger = try call.ledger
        let body = try await call.body(limit: call.state.configuration.commandBodyBytesLimit)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw Problem(.badRequest, "invalid_json", "the body must be a JSON object with 'url' and, optionally, 'kinds'")
        }
        guard let url = object["url"] as? String else { throw Problem.invalidParameter("url", "'url' is required: where to POST the notifications") }
        try checkDestination(url, call.state.configuration.webhooks)
        let kinds: [String]
        switch object["kinds"] {
        case nil, is NSNull: kinds = []
        case let list as [String]: kinds = list
        default: throw Problem.invalidParameter("kinds", "'kinds' must be a list of notification kinds")
        }
        let store = call.state.webhooks
        let sources = call.state.notificationSources(ledger)
        let webhook = try await call.state.pool.with(ledger) { opened in
            try await call.state.blocking {
                // Every kind is checked, and what is told now is not sent: the webhook starts from here.
                let known = try opened.notifications(kinds: kinds.map { NotificationKind($0) }, sources: sources)
                return try store.create(ledger: ledger, url: url, kinds: kinds,
                                        known: Set(try opened.notifications(sources: sources).map(\.id)).union(known.map(\.id)))
            }
        }
        return Call.json(.object(summary(webhook) + [("secret", .string(webhook.secret))]), status: .created)
    }

    /// `GET …/webhooks`.
    static func handleList(_ call: Call) async throws -> Response {
        let webhooks = call.state.webhooks.webhooks(of: try call.ledger)
        return Call.json(.object([("webhooks", .array(webhooks.map { .object(summary($0)) }))]))
    }

    /// `GET …/webhooks/{webhook}/deliveries`: oldest first, with every attempt.
    static func handleDeliveries(_ call: Call) async throws -> Response {
        let id = try call.parameter("webhook")
        guard let webhook = call.state.webhooks.webhooks(of: try call.ledger).first(where: { $0.id == id }) else {
            throw Problem(.notFound, "not_found", "no webhook '\(id)' on this ledger")
        }
        return Call.json(.object([
            ("webhook", .string(webhook.id)),
            ("deliveries", .array(webhook.deliveries.map { delivery in
                .object([
                    ("id", .string(delivery.id)), ("notification_id", .string(delivery.notificationId)), ("state", .string(delivery.state.rawValue)),
                    ("next_attempt_at", delivery.state == .pending ? .instant(Instant(microsecondsSinceEpoch: delivery.nextAttemptMicros)) : .null),
                    ("attempts", .array(delivery.attempts.map { attempt in
                        .object([("at", .string(attempt.at)), ("status", attempt.status.map { .integer(Int64($0)) } ?? .null), ("error", .optional(attempt.error))])
                    })),
                ])
            })),
        ]))
    }

    /// `POST …/deliveries/{delivery}/redeliver`: 202; sent again from now, its webhook enabled.
    static func handleRedeliver(_ call: Call) async throws -> Response {
        let webhook = try call.parameter("webhook"), delivery = try call.parameter("delivery")
        guard try call.state.webhooks.redeliver(ledger: try call.ledger, webhook: webhook, delivery: delivery, now: Instant.now.microsecondsSinceEpoch) else {
            throw Problem(.notFound, "not_found", "no delivery '\(delivery)' of webhook '\(webhook)' on this ledger")
        }
        return Call.json(.object([("webhook", .string(webhook)), ("delivery", .string(delivery)), ("state", .string("pending"))]), status: .accepted)
    }

    private static func summary(_ webhook: WebhookStore.Webhook) -> [(String, JSONValue)] {
        [("id", .string(webhook.id)), ("url", .string(webhook.url)), ("kinds", .array(webhook.kinds.map(JSONValue.string))),
         ("enabled", .bool(webhook.enabled)), ("disabled_reason", .optional(webhook.disabledReason)), ("created_at", .string(webhook.createdAt))]
    }

    /// `https` to any host; plain `http` only to loopback or a configured host.
    static func checkDestination(_ text: String, _ settings: TallyServer.Configuration.Webhooks) throws {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            throw Problem.invalidParameter("url", "'url' is '\(text)', not an absolute http or https URL")
        }
        let loopback = ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host)
        switch scheme {
        case "https": return
        case "http" where loopback || settings.allowedHTTPHosts.map({ $0.lowercased() }).contains(host): return
        case "http": throw Problem.invalidParameter("url", "'url' uses plain http to \(host); use https, or a loopback or configured host")
        default: throw Problem.invalidParameter("url", "'url' must be http or https, not \(scheme)")
        }
    }
}
