import GRDB
import Tally

/// `webhook_disabled`: the service's own notification kind, added the way an embedder adds
/// one (a ``NotificationSource``, docs/notifications.md "Your own kinds"). A webhook whose
/// delivery failed for the whole retry window is disabled; each time that happens its
/// ledger tells so, with the webhook, the delivery and the way back (redeliver).
///
/// Webhooks are this node's state (`webhooks.json`), not the ledger's log, so this source
/// reads a snapshot of that state rather than the read models: the same file asked about
/// the same moment gives the same notifications (an id per webhook and time it was
/// disabled; `at` is when it was, so an earlier `as_of` or `known_at` does not show it).
/// The service's notifications (`GET …/notifications`) and its webhooks (another webhook of
/// the ledger is sent it) include it; `tally notifications` reads the log alone and does not.
struct WebhookNotifications: NotificationSource {
    /// `webhook_disabled`.
    static let kind = NotificationKind("webhook_disabled")

    /// The ledger's disablements, as ``WebhookStore/disablements(of:)`` gives them.
    let disablements: [(webhook: WebhookStore.Webhook, number: Int, disablement: WebhookStore.Disablement)]

    var kinds: [NotificationKind] { [Self.kind] }

    func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
        disablements.compactMap { webhook, number, disablement in
            let at = Instant(microsecondsSinceEpoch: disablement.atMicros)
            // Recorded when it happened: as known before that, it had not.
            guard at <= context.point.asOf, context.point.knownAt.map({ at <= $0 }) ?? true else { return nil }
            let cause = disablement.lastError.map { " (last: \($0))" } ?? ""
            return LedgerNotification(
                id: "webhook_disabled:\(webhook.id):\(number)", kind: Self.kind, at: at, subject: "webhook:\(webhook.id)", causes: [],
                message: "Webhook \(webhook.id) to \(webhook.url) was disabled: delivery \(disablement.delivery) failed \(disablement.attempts) times\(cause). "
                    + "Nothing more is sent to it until a delivery is redelivered (POST …/webhooks/\(webhook.id)/deliveries/\(disablement.delivery)/redeliver).",
                figures: ["webhook": webhook.id, "url": webhook.url, "delivery": disablement.delivery, "attempts": String(disablement.attempts)])
        }
    }
}

extension ServiceState {
    /// Where a ledger's notifications come from in the service: the products' sources and
    /// the ledger's webhook disablements.
    func notificationSources(_ ledger: String) -> [any NotificationSource] {
        standardNotificationSources + [WebhookNotifications(disablements: webhooks.disablements(of: ledger))]
    }
}
