public import TallyEngine
public import GRDB

/// The moment notifications are asked about, as every ``NotificationSource`` receives it.
public struct NotificationContext: Sendable {
    /// The effective instant asked about (`asOf`, now by default) and the recorded instant
    /// the ledger's knowledge is taken at (`knownAt`, nil for everything recorded).
    public let point: PointInTime
    /// The ledger's calendar: its days and months in its time zone.
    public let calendar: LedgerCalendar

    /// A context for `point` in `calendar`.
    public init(point: PointInTime, calendar: LedgerCalendar) {
        self.point = point
        self.calendar = calendar
    }

    /// The day of ``point``'s `asOf` in the ledger's time zone.
    public var today: LocalDate { calendar.date(of: point.asOf) }
}

/// Produces notifications of some kinds from the read models (docs/notifications.md): the
/// products' kinds come from ``standardNotificationSources``; an embedder adds its own kinds
/// by writing a source over its own read model and passing it to
/// ``Ledger/notifications(asOf:knownAt:kinds:since:sources:)``.
///
/// A source must be a pure function of the read models at `context.point`: the same log
/// asked about the same moment gives the same notifications, so it never reads a clock,
/// and a notification's id names what it is about, never when it was computed.
///
/// ```swift
/// struct MerchantTagNotices: NotificationSource {
///     var kinds: [NotificationKind] { [.init("merchant_tagged")] }
///     func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification] {
///         try Row.fetchAll(db.cachedStatement(sql: "SELECT account, merchant, sequence, effective_at FROM merchants WHERE effective_at <= ?"),
///                          arguments: [context.point.effectiveBound]).map { row in
///             LedgerNotification(id: "merchant_tagged:\(row["sequence"] as Int64)", kind: .init("merchant_tagged"),
///                                at: Instant(microsecondsSinceEpoch: row["effective_at"]), subject: "merchant:\(row["account"] as String)",
///                                causes: [UInt64(row["sequence"] as Int64)], message: "\(row["account"] as String) is now tagged \(row["merchant"] as String).")
///         }
///     }
/// }
/// let notes = try ledger.notifications(sources: standardNotificationSources + [MerchantTagNotices()])
/// ```
public protocol NotificationSource: Sendable {
    /// The kinds this source produces.
    var kinds: [NotificationKind] { get }
    /// Every notification of ``kinds`` that refers to a time at or before `context.point.asOf`,
    /// as known at `context.point.knownAt`, read from `db` (one consistent snapshot of the
    /// read models). Order does not matter: the caller sorts.
    ///
    /// - Throws: whatever reading the read models throws.
    func notifications(_ context: NotificationContext, _ db: Database) throws -> [LedgerNotification]
}

/// The products' notification sources, one per kind or pair of kinds; `tally notifications`
/// and the service use these.
public let standardNotificationSources: [any NotificationSource] = [
    DepositNotifications(), BillNotifications(), BankConsentNotifications(), BudgetNotifications(), EnvelopeNotifications(),
    ReminderNotifications(), PriceNotifications(), ChallengeNotifications(), LiabilityMilestoneNotifications(),
]

/// The notifications read model's feature: its projector (`notification_deposits`). It
/// records no event of its own; ``standardFeatures`` registers it after the products whose
/// read models its rules read.
public struct NotificationsFeature: LedgerFeature {
    /// The feature, to register in ``Ledger/Options/features`` (``standardFeatures`` holds one).
    public init() {}
    /// `notifications`.
    public var name: String { "notifications" }
    /// None: notifications are derived, never recorded.
    public var eventTypes: [any EventPayload.Type] { [] }
    /// ``NotificationsProjector``.
    public var projectors: [any Projector] { [NotificationsProjector()] }
}

extension Ledger {
    /// The notifications that refer to a time at or before `asOf` (now by default), as the
    /// ledger knew them at `knownAt`, in order of ``LedgerNotification/at`` then id
    /// (docs/notifications.md).
    ///
    /// ```swift
    /// let all = try ledger.notifications()
    /// let newer = try ledger.notifications(since: all.last?.id)            // what came after the last one seen
    /// let bills = try ledger.notifications(asOf: endOfMay, kinds: [.billDueSoon, .billOverdue])
    /// ```
    ///
    /// - Parameters:
    ///   - asOf: the moment asked about; the time-driven kinds (due soon, overdue, stale) are
    ///     judged at it by the same rule at every date.
    ///   - knownAt: as the ledger knew it at this recorded instant; nil for everything recorded.
    ///   - kinds: only these kinds; empty for every kind.
    ///   - since: only the notifications after the one with this id, in the order above.
    ///   - sources: where notifications come from; ``standardNotificationSources`` plus an
    ///     embedder's own.
    /// - Throws: ``LedgerError`` `invalidArgument` for a kind no source produces (naming the
    ///   known ones), `notFound` for a `since` id that is not among the notifications asked about.
    public func notifications(
        asOf: Instant? = nil, knownAt: Instant? = nil, kinds: [NotificationKind] = [], since: String? = nil,
        sources: [any NotificationSource] = standardNotificationSources
    ) throws -> [LedgerNotification] {
        let known = Set(sources.flatMap(\.kinds))
        if let unknown = kinds.first(where: { !known.contains($0) }) {
            throw LedgerError(.invalidArgument, "no notification kind '\(unknown)'; the kinds are \(known.sorted().map(\.rawValue).joined(separator: ", "))")
        }
        let context = NotificationContext(point: PointInTime(asOf: asOf ?? now, knownAt: knownAt), calendar: calendar)
        let wanted = Set(kinds)
        let all = try read { db in
            try sources.filter { wanted.isEmpty || !wanted.isDisjoint(with: $0.kinds) }.flatMap { try $0.notifications(context, db) }
        }
        .filter { $0.at <= context.point.asOf && (wanted.isEmpty || wanted.contains($0.kind)) }
        .sorted(by: LedgerNotification.precedes)
        guard let since else { return all }
        // The cursor is looked up among every kind, so `since` works with any `kinds` filter.
        let everything = wanted.isEmpty ? all : try notifications(asOf: context.point.asOf, knownAt: knownAt, sources: sources)
        guard let last = everything.first(where: { $0.id == since }) else {
            throw LedgerError(.notFound, "no notification '\(since)' as of \(context.point.asOf); list the notifications to find a valid id")
        }
        return all.filter { LedgerNotification.precedes(last, $0) }
    }
}
