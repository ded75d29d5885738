public import TallyEngine
// Events of envelope budgeting and savings challenges (DOMAIN.md §3). Envelope
// transactions are `transaction_recorded` and `transfer_made` events that name an envelope.

/// The period an envelope's budgeted amount covers.
public enum EnvelopeInterval: String, EventEnumeration {
    case weekly
    case biweekly
    case monthly
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
public struct EnvelopeCreated: EventPayload {
    public static let eventType = EventType("envelope_created", code: 60)
    public var envelopeId: String
    public var name: String
    public var interval: EnvelopeInterval
    /// Positive, in the base currency.
    public var budgeted: Money
    /// The first day of the first interval.
    public var startDate: LocalDate

    public init(envelopeId: String, name: String, interval: EnvelopeInterval, budgeted: Money, startDate: LocalDate) {
        self.envelopeId = envelopeId
        self.name = name
        self.interval = interval
        self.budgeted = budgeted
        self.startDate = startDate
    }

    public var entity: String { "envelope:\(envelopeId)" }
    public func encode(to writer: inout BinaryWriter) {
        writer.write(envelopeId); writer.write(name); writer.write(interval); writer.write(budgeted)
        writer.write(startDate)
    }
    public init(from reader: inout BinaryReader) throws {
        envelopeId = try reader.read(); name = try reader.read(); interval = try reader.read()
        budgeted = try reader.read(); startDate = try reader.read()
    }
}

/// An envelope's budgeted amount or interval changed from the effective date on.
public struct EnvelopeBudgetChanged: EventPayload {
    public static let eventType = EventType("envelope_budget_changed", code: 61)
    public var envelopeId: String
    public var budgeted: Money
    public var interval: EnvelopeInterval

    public init(envelopeId: String, budgeted: Money, interval: EnvelopeInterval) {
        self.envelopeId = envelopeId
        self.budgeted = budgeted
        self.interval = interval
    }

    public var entity: String { "envelope:\(envelopeId)" }
    public func encode(to writer: inout BinaryWriter) {
        writer.write(envelopeId); writer.write(budgeted); writer.write(interval)
    }
    public init(from reader: inout BinaryReader) throws {
        envelopeId = try reader.read(); budgeted = try reader.read(); interval = try reader.read()
    }
}

/// Money was assigned to an envelope beyond its budgeted amount (or taken back, negative).
public struct EnvelopeFunded: EventPayload {
    public static let eventType = EventType("envelope_funded", code: 62)
    public var envelopeId: String
    public var amount: Money

    public init(envelopeId: String, amount: Money) {
        self.envelopeId = envelopeId
        self.amount = amount
    }

    public var entity: String { "envelope:\(envelopeId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(envelopeId); writer.write(amount) }
    public init(from reader: inout BinaryReader) throws { envelopeId = try reader.read(); amount = try reader.read() }
}

/// An envelope's rollover policy changed from the effective date on.
public struct EnvelopeRolloverSet: EventPayload {
    public static let eventType = EventType("envelope_rollover_set", code: 63)
    public var envelopeId: String
    public var policy: RolloverPolicy

    public init(envelopeId: String, policy: RolloverPolicy) {
        self.envelopeId = envelopeId
        self.policy = policy
    }

    public var entity: String { "envelope:\(envelopeId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(envelopeId); writer.write(policy) }
    public init(from reader: inout BinaryReader) throws { envelopeId = try reader.read(); policy = try reader.read() }
}

/// An envelope was deleted; its transactions stay.
public struct EnvelopeDeleted: EventPayload {
    public static let eventType = EventType("envelope_deleted", code: 64)
    public var envelopeId: String

    public init(envelopeId: String) { self.envelopeId = envelopeId }

    public var entity: String { "envelope:\(envelopeId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(envelopeId) }
    public init(from reader: inout BinaryReader) throws { envelopeId = try reader.read() }
}

/// A savings challenge started from a template (e.g. `52_week`: week n saves n units).
public struct ChallengeStarted: EventPayload {
    public static let eventType = EventType("challenge_started", code: 65)
    public var challengeId: String
    public var template: String
    public var name: String
    /// The unit the template's steps multiply.
    public var unit: Money
    public var stepCount: Int
    /// Where completed steps' savings go.
    public var account: String?

    public init(challengeId: String, template: String, name: String, unit: Money, stepCount: Int, account: String? = nil) {
        self.challengeId = challengeId
        self.template = template
        self.name = name
        self.unit = unit
        self.stepCount = stepCount
        self.account = account
    }

    public var entity: String { "challenge:\(challengeId)" }
    public func encode(to writer: inout BinaryWriter) {
        writer.write(challengeId); writer.write(template); writer.write(name); writer.write(unit)
        writer.write(stepCount); writer.write(account)
    }
    public init(from reader: inout BinaryReader) throws {
        challengeId = try reader.read(); template = try reader.read(); name = try reader.read()
        unit = try reader.read(); stepCount = try reader.read(); account = try reader.read()
    }
}

/// One step of a challenge was completed: a saving transaction of `amount`.
public struct ChallengeStepCompleted: EventPayload {
    public static let eventType = EventType("challenge_step_completed", code: 66)
    public var challengeId: String
    /// 1-based.
    public var step: Int
    public var amount: Money

    public init(challengeId: String, step: Int, amount: Money) {
        self.challengeId = challengeId
        self.step = step
        self.amount = amount
    }

    public var entity: String { "challenge:\(challengeId)" }
    public func encode(to writer: inout BinaryWriter) { writer.write(challengeId); writer.write(step); writer.write(amount) }
    public init(from reader: inout BinaryReader) throws {
        challengeId = try reader.read(); step = try reader.read(); amount = try reader.read()
    }
}
