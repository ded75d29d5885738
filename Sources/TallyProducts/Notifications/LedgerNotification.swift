public import TallyEngine

/// What a notification is about: a stable snake_case name (`deposit_received`).
///
/// The products' kinds are the static members; an embedder names its own the same way and
/// produces them with a ``NotificationSource``:
///
/// ```swift
/// extension NotificationKind { static let merchantTagged = NotificationKind("merchant_tagged") }
/// ```
public struct NotificationKind: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The name, as the CLI's `--kind` and the service's `kind` take it.
    public let rawValue: String

    /// A kind named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A kind named `name`.
    public init(_ name: String) { self.rawValue = name }

    /// The name.
    public var description: String { rawValue }

    /// Kinds order by name.
    public static func < (lhs: NotificationKind, rhs: NotificationKind) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A deposit arrived in a wealth account, with its split and the month's round-ups so far
    /// (docs/domain.md §1).
    public static let depositReceived = NotificationKind("deposit_received")
    /// A recurring bill falls due within the due-soon window and is not paid yet (docs/domain.md §2).
    public static let billDueSoon = NotificationKind("bill_due_soon")
    /// A recurring bill's day passed with no matching payment (docs/domain.md §2).
    public static let billOverdue = NotificationKind("bill_overdue")
    /// A bank's consent ends within 7 days and was not renewed before then (docs/domain.md §2).
    public static let bankConsentExpiring = NotificationKind("bank_consent_expiring")
    /// A month's spending in a category went past its budget (docs/domain.md §2).
    public static let budgetOverspent = NotificationKind("budget_overspent")
    /// An envelope's spending went past what it had in an interval (docs/domain.md §3).
    public static let envelopeOverspent = NotificationKind("envelope_overspent")
    /// A reminder to update an asset's value fell due (docs/domain.md §4, §5).
    public static let valuationReminderDue = NotificationKind("valuation_reminder_due")
    /// The price (or live value) an item is valued at went stale (docs/domain.md §4).
    public static let priceStale = NotificationKind("price_stale")
    /// A savings challenge reached a quarter, half, three quarters or all of its steps
    /// (docs/domain.md §3).
    public static let challengeMilestone = NotificationKind("challenge_milestone")
    /// A liability reached a payment milestone: a quarter, half, three quarters or all of
    /// its starting amount paid off (docs/domain.md §4).
    public static let liabilityMilestone = NotificationKind("liability_milestone")

    /// The kinds Tally's products produce, by name.
    public static let standard: [NotificationKind] = [
        bankConsentExpiring, billDueSoon, billOverdue, budgetOverspent, challengeMilestone, depositReceived,
        envelopeOverspent, liabilityMilestone, priceStale, valuationReminderDue,
    ]
}

/// Something the ledger tells its user: derived from events, and for the time-driven kinds
/// from the date, so that the same log asked about the same moment gives the same
/// notifications, id for id and word for word (docs/notifications.md).
///
/// ```swift
/// for note in try ledger.notifications() { print(note.at, note.kind, note.message) }
/// ```
public struct LedgerNotification: Hashable, Sendable {
    /// Stable: the kind and what it is about (`deposit_received:42`,
    /// `bill_overdue:rent:2026-05`); the same notification has the same id in every answer,
    /// after a rebuild and on every node.
    public let id: String
    /// What happened.
    public let kind: NotificationKind
    /// The ledger time it refers to: when the deposit took effect, the first instant of the
    /// day a bill became due soon or overdue, the moment a price went stale.
    public let at: Instant
    /// What it is about, as the events name it: `wealth:main`, `recurring:rent`,
    /// `budget:groceries:2026-05`, `envelope:food`, `asset:house`, `challenge:c52`.
    public let subject: String
    /// The sequence numbers of the events that caused it, ascending.
    public let causes: [UInt64]
    /// Plain words with the exact figures.
    public let message: String
    /// The figures of the message by name, each exact: amounts as decimal strings in their
    /// currency's scale (`"700.00"`) with the currency under `currency`, days as `YYYY-MM-DD`.
    public let figures: [String: String]

    /// A notification; ``causes`` are sorted and made unique.
    ///
    /// - Parameters:
    ///   - id: stable across answers: derive it from the kind and the subject, never from a clock.
    ///   - kind: what happened.
    ///   - at: the ledger time it refers to.
    ///   - subject: what it is about.
    ///   - causes: the events that caused it.
    ///   - message: plain words with the figures.
    ///   - figures: the exact figures by name.
    public init(id: String, kind: NotificationKind, at: Instant, subject: String, causes: [UInt64], message: String,
                figures: [String: String] = [:]) {
        self.id = id
        self.kind = kind
        self.at = at
        self.subject = subject
        self.causes = Array(Set(causes)).sorted()
        self.message = message
        self.figures = figures
    }

    /// The order of every list of notifications: by ``at``, then by ``id``.
    public static func precedes(_ lhs: LedgerNotification, _ rhs: LedgerNotification) -> Bool {
        (lhs.at, lhs.id) < (rhs.at, rhs.id)
    }
}
