import Crypto
import Foundation
import Synchronization
import Tally

/// Every ledger's webhooks and their deliveries, kept in `webhooks.json` in the data
/// directory (mode 0600, replaced whole by an atomic rename after every change), so that a
/// restarted server neither loses a delivery nor sends one twice more than at-least-once
/// allows (docs/notifications.md, "Webhooks").
///
/// Each webhook remembers the ids of the notifications it has queued (`known`): a
/// notification is queued once, in the order of the ledger's notifications, and each
/// delivery is sent until the receiver answers 2xx, with exponential backoff, within the
/// retry window; the first pending delivery of a webhook holds back the later ones.
final class WebhookStore: Sendable {
    /// One try of a delivery.
    struct Attempt: Codable, Sendable {
        /// When it was made (RFC 3339).
        let at: String
        /// The receiver's HTTP status; nil when no answer came.
        let status: Int?
        /// Why it failed, when it did.
        let error: String?
    }

    /// A notification to send to one webhook.
    struct Delivery: Codable, Sendable {
        enum State: String, Codable, Sendable { case pending, delivered, failed }
        /// `dlv_…`: the receiver deduplicates by it (`Tally-Delivery`).
        let id: String
        let notificationId: String
        /// The JSON body, fixed when queued: a redelivery sends the same bytes under a new signature.
        let body: String
        var state: State
        var attempts: [Attempt]
        /// The earliest next try, microseconds since 1970.
        var nextAttemptMicros: Int64
        /// When the retry window opened: queued, or redelivered by hand.
        var windowStartMicros: Int64
    }

    /// A webhook was disabled: its delivery failed through the whole retry window. Kept for
    /// good, one per time it happened; each is a `webhook_disabled` notification of its ledger
    /// (``WebhookNotifications``).
    struct Disablement: Codable, Sendable {
        /// When, microseconds since 1970.
        let atMicros: Int64
        /// The delivery that failed.
        let delivery: String
        /// How many tries it had.
        let attempts: Int
        /// The last try's error.
        let lastError: String?
    }

    /// A destination and what it receives.
    struct Webhook: Codable, Sendable {
        let id: String
        let ledger: String
        let url: String
        /// The kinds sent; empty for every kind.
        let kinds: [String]
        /// The signing secret (`whsec_…`), shown once when made.
        let secret: String
        let createdAt: String
        var enabled: Bool
        var disabledReason: String?
        var deliveries: [Delivery]
        /// The notification ids queued so far.
        var known: Set<String>
        var deliveryCount: Int
        /// Every time it was disabled, oldest first (absent in a file written before they were kept).
        var disablements: [Disablement]?
    }

    private struct File: Codable { var webhooks: [Webhook] }

    private let path: String
    private let state: Mutex<File>

    /// Opens `webhooks.json` in `directory`, or starts with none.
    /// - Throws: ``ServiceError`` for a file this server did not write.
    init(directory: String) throws {
        path = directory + "/webhooks.json"
        var file = File(webhooks: [])
        if FileManager.default.fileExists(atPath: path) {
            do {
                file = try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw ServiceError("\(path) is not a webhook file this server wrote (\(error)); restore it from a backup or move it away")
            }
        }
        state = Mutex(file)
    }

    /// The ledgers with at least one enabled webhook.
    var ledgersWithWebhooks: [String] {
        state.withLock { Array(Set($0.webhooks.filter(\.enabled).map(\.ledger))).sorted() }
    }

    /// The webhooks of a ledger, oldest first.
    func webhooks(of ledger: String) -> [Webhook] { state.withLock { $0.webhooks.filter { $0.ledger == ledger } } }

    /// Each time a webhook of `ledger` was disabled, with the webhook as it is now.
    func disablements(of ledger: String) -> [(webhook: Webhook, number: Int, disablement: Disablement)] {
        webhooks(of: ledger).flatMap { webhook in
            (webhook.disablements ?? []).enumerated().map { (webhook: webhook, number: $0.offset + 1, disablement: $0.element) }
        }
    }

    /// Adds a webhook that will receive the notifications after `known` (the ones of now).
    func create(ledger: String, url: String, kinds: [String], known: Set<String>) throws -> Webhook {
        let webhook = Webhook(id: "wh_" + Self.randomHex(bytes: 12), ledger: ledger, url: url, kinds: kinds,
                              secret: "whsec_" + Self.randomHex(bytes: 32), createdAt: Instant.now.description, enabled: true,
                              disabledReason: nil, deliveries: [], known: known, deliveryCount: 0, disablements: [])
        try change { $0.webhooks.append(webhook) }
        return webhook
    }

    /// Queues the notifications (in their order) a ledger's enabled webhooks have not queued yet.
    func enqueue(ledger: String, _ notes: [(id: String, kind: String, body: (String) -> String)], now: Int64) throws {
        try change { file in
            for index in file.webhooks.indices where file.webhooks[index].ledger == ledger && file.webhooks[index].enabled {
                var webhook = file.webhooks[index]
                for note in notes where !webhook.known.contains(note.id) && (webhook.kinds.isEmpty || webhook.kinds.contains(note.kind)) {
                    webhook.deliveryCount += 1
                    let id = "dlv_\(webhook.id.dropFirst(3))_\(webhook.deliveryCount)"
                    webhook.deliveries.append(Delivery(id: id, notificationId: note.id, body: note.body(id), state: .pending, attempts: [],
                                                       nextAttemptMicros: now, windowStartMicros: now))
                    webhook.known.insert(note.id)
                }
                file.webhooks[index] = webhook
            }
        }
    }

    /// The first pending delivery of each enabled webhook of `ledger` that is due at `now`.
    func due(ledger: String, now: Int64) -> [(webhook: Webhook, delivery: Delivery)] {
        state.withLock { file in
            file.webhooks.filter { $0.ledger == ledger && $0.enabled }.compactMap { webhook in
                guard let head = webhook.deliveries.first(where: { $0.state == .pending }), head.nextAttemptMicros <= now else { return nil }
                return (webhook, head)
            }
        }
    }

    /// Records a try: delivered on a 2xx; else the next try after the backoff, or, past the
    /// retry window, the delivery failed and the webhook disabled.
    func record(webhook id: String, delivery: String, attempt: Attempt, now: Int64, backoffMicros: Int64, windowMicros: Int64) throws {
        try change { file in
            guard let w = file.webhooks.firstIndex(where: { $0.id == id }),
                  let d = file.webhooks[w].deliveries.firstIndex(where: { $0.id == delivery }) else { return }
            var entry = file.webhooks[w].deliveries[d]
            entry.attempts.append(attempt)
            if let status = attempt.status, (200..<300).contains(status) {
                entry.state = .delivered
            } else if now - entry.windowStartMicros >= windowMicros {
                entry.state = .failed
                file.webhooks[w].enabled = false
                file.webhooks[w].disabledReason = "delivery \(entry.id) failed \(entry.attempts.count) times over \(windowMicros / 1_000_000) s; "
                    + "redeliver it to enable the webhook again"
                file.webhooks[w].disablements = (file.webhooks[w].disablements ?? [])
                    + [Disablement(atMicros: now, delivery: entry.id, attempts: entry.attempts.count, lastError: attempt.error)]
            } else {
                entry.nextAttemptMicros = now + backoffMicros
            }
            file.webhooks[w].deliveries[d] = entry
        }
    }

    /// Sends a delivery again from now, with a new retry window, and enables its webhook.
    /// - Returns: false when there is no such webhook or delivery.
    func redeliver(ledger: String, webhook id: String, delivery: String, now: Int64) throws -> Bool {
        var found = false
        try change { file in
            guard let w = file.webhooks.firstIndex(where: { $0.id == id && $0.ledger == ledger }),
                  let d = file.webhooks[w].deliveries.firstIndex(where: { $0.id == delivery }) else { return }
            found = true
            file.webhooks[w].deliveries[d].state = .pending
            file.webhooks[w].deliveries[d].nextAttemptMicros = now
            file.webhooks[w].deliveries[d].windowStartMicros = now
            file.webhooks[w].enabled = true
            file.webhooks[w].disabledReason = nil
        }
        return found
    }

    /// Removes every webhook of `ledger` and its deliveries (its deletion); returns how many.
    func remove(ledger: String) throws -> Int {
        var removed = 0
        try change { file in
            removed = file.webhooks.filter { $0.ledger == ledger }.count
            file.webhooks.removeAll { $0.ledger == ledger }
        }
        return removed
    }

    /// Applies a change and writes the file before anyone sees it.
    private func change(_ body: (inout File) -> Void) throws {
        try state.withLock { file in
            var changed = file
            body(&changed)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(changed)
            let temporary = path + ".tmp"
            guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw ServiceError("cannot write \(temporary)")
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            try handle.synchronize()
            try handle.close()
            if rename(temporary, path) != 0 { throw ServiceError("cannot replace \(path): errno \(errno)") }
            file = changed
        }
    }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// `t=UNIX,v1=HEX`: HMAC-SHA256 of `t.body` under the secret, as Stripe signs.
    static func signature(secret: String, timestamp: Int64, body: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(timestamp).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}
