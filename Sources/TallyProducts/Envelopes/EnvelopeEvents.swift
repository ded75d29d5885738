public import TallyEngine
// Events of envelope budgeting (docs/domain.md §3). Envelope transactions are
// `transaction_recorded` and `transfer_made` events that name an envelope.

/// The period an envelope's budgeted amount covers.
public enum EnvelopeInterval: String, EventEnumeration {
    /// 7 days, counted from the envelope's start date (or from the day its interval last changed).
    case weekly
    /// 14 days, counted from the envelope's start date (or from the day its interval last changed).
    case biweekly
    /// Calendar months of the ledger's time zone; the first runs from the start date.
    case monthly
    /// One interval from the start date on, with no end.
    case oneTime = "one_time"
}

/// What an interval's unspent or overspent amount does in the next interval.
public enum RolloverPolicy: String, EventEnumeration {
    /// Each interval starts from its budgeted amount.
    case reset
    /// Unspent adds to, overspent takes from, the next interval.
    case carryForward = "carry_forward"
    /// Unspent adds to the next interval; overspending is taken from what is left to assign
    /// (YNAB's handling), so the envelope starts the next interval from its budget.
    case takeFromToAssign = "take_from_to_assign"
}

/// An envelope was created with a budgeted amount per interval.
public struct EnvelopeCreated: SealsPersonalText {
    public static let eventType = EventType("envelope_created", code: 60, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<EnvelopeCreated>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["name": .owner]
    /// The envelope's id, 1 to 100 characters; never used again, even after a deletion.
    public var envelopeId: String
    /// What the user calls the envelope.
    public var name: String
    /// The period each budgeted amount covers.
    public var interval: EnvelopeInterval
    /// Positive, in the base currency.
    public var budgeted: Money
    /// The first day of the first interval.
    public var startDate: LocalDate

    /// A new envelope with its budgeted amount per interval.
    ///
    /// - Parameters:
    ///   - envelopeId: the envelope's id.
    ///   - name: what the user calls it.
    ///   - interval: the period each budgeted amount covers.
    ///   - budgeted: the amount per interval, positive, in the base currency; the envelope keeps this currency.
    ///   - startDate: the first day of the first interval.
    public init(envelopeId: String, name: String, interval: EnvelopeInterval, budgeted: Money, startDate: LocalDate) {
        self.envelopeId = envelopeId
        self.name = name
        self.interval = interval
        self.budgeted = budgeted
        self.startDate = startDate
    }

    public var entity: String { "envelope:\(envelopeId)" }
}

extension EnvelopeCreated: ExampleProviding {
    public static var example: EnvelopeCreated {
        get throws {
            try EnvelopeCreated(
                envelopeId: "env_groceries", name: "Groceries", interval: .biweekly,
                budgeted: Money(parsing: "250.00", commodity: .usd),
                startDate: LocalDate(parsing: "2026-04-06")
            )
        }
    }
}

/// An envelope's budgeted amount or interval changed from the effective date on.
public struct EnvelopeBudgetChanged: EventPayload {
    public static let eventType = EventType("envelope_budget_changed", code: 61)
    /// The envelope changed.
    public var envelopeId: String
    /// The amount per interval from the effective date on: zero or positive, in the envelope's currency.
    public var budgeted: Money
    /// The interval from the effective date on; another interval than before re-anchors the
    /// intervals on that date.
    public var interval: EnvelopeInterval

    /// A new budgeted amount and interval for `envelopeId`, in force from the event's effective time.
    public init(envelopeId: String, budgeted: Money, interval: EnvelopeInterval) {
        self.envelopeId = envelopeId
        self.budgeted = budgeted
        self.interval = interval
    }

    public var entity: String { "envelope:\(envelopeId)" }
}

extension EnvelopeBudgetChanged: ExampleProviding {
    public static var example: EnvelopeBudgetChanged {
        get throws {
            try EnvelopeBudgetChanged(
                envelopeId: "env_groceries", budgeted: Money(parsing: "275.00", commodity: .usd),
                interval: .weekly
            )
        }
    }
}

/// Money was assigned to an envelope beyond its budgeted amount (or taken back, negative).
public struct EnvelopeFunded: EventPayload {
    public static let eventType = EventType("envelope_funded", code: 62)
    /// The envelope funded.
    public var envelopeId: String
    /// Signed, in the envelope's currency: positive assigns money to the interval of the
    /// effective date, negative takes some back; not zero.
    public var amount: Money

    /// `amount` assigned to (or, negative, taken back from) the envelope `envelopeId`.
    public init(envelopeId: String, amount: Money) {
        self.envelopeId = envelopeId
        self.amount = amount
    }

    public var entity: String { "envelope:\(envelopeId)" }
}

extension EnvelopeFunded: ExampleProviding {
    public static var example: EnvelopeFunded {
        get throws {
            try EnvelopeFunded(envelopeId: "env_travel", amount: Money(parsing: "15000", commodity: .jpy))
        }
    }
}

/// An envelope's rollover policy changed from the effective date on.
public struct EnvelopeRolloverSet: EventPayload {
    public static let eventType = EventType("envelope_rollover_set", code: 63)
    /// The envelope whose policy changed.
    public var envelopeId: String
    /// What an interval's unspent or overspent amount does in the next interval; the policy
    /// in force on an interval's last day decides.
    public var policy: RolloverPolicy

    /// The rollover policy of `envelopeId`, in force from the event's effective time.
    public init(envelopeId: String, policy: RolloverPolicy) {
        self.envelopeId = envelopeId
        self.policy = policy
    }

    public var entity: String { "envelope:\(envelopeId)" }
}

extension EnvelopeRolloverSet: ExampleProviding {
    public static var example: EnvelopeRolloverSet {
        EnvelopeRolloverSet(envelopeId: "env_groceries", policy: .carryForward)
    }
}

/// An envelope was deleted; its transactions stay.
public struct EnvelopeDeleted: EventPayload {
    public static let eventType = EventType("envelope_deleted", code: 64)
    /// The envelope deleted; answers for earlier dates still show it.
    public var envelopeId: String

    /// The deletion of `envelopeId` from the event's effective time on.
    public init(envelopeId: String) { self.envelopeId = envelopeId }

    public var entity: String { "envelope:\(envelopeId)" }
}

extension EnvelopeDeleted: ExampleProviding {
    public static var example: EnvelopeDeleted {
        EnvelopeDeleted(envelopeId: "env_old_car")
    }
}
