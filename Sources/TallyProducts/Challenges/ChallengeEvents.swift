public import TallyEngine
// Events of savings challenges (docs/domain.md §3): a challenge started from a template, and
// its steps completed. The entity is `challenge:<id>`.

/// A savings challenge started from a template (e.g. `52_week`: week n saves n units).
public struct ChallengeStarted: SealsPersonalText {
    public static let eventType = EventType("challenge_started", code: 65, version: 2)
    /// Version 1 stored personal text as plain strings.
    public static var legacyVersions: [any LegacyEventPayload.Type] { [PlainTextVersion<ChallengeStarted>.self] }
    /// The fields sealed per subject in the log.
    public static let personalTextFields: [String: PersonalTextSealing] = ["name": .owner]
    /// The challenge's id, 1 to 100 characters.
    public var challengeId: String
    /// The template's id, e.g. `52_week`.
    public var template: String
    /// What the user calls the challenge; the template's name when none was given.
    public var name: String
    /// The unit the template's steps multiply.
    public var unit: Money
    /// How many steps the template had when the challenge started.
    public var stepCount: Int
    /// Where completed steps' savings go.
    public var account: String?

    /// A challenge started from a template.
    ///
    /// - Parameters:
    ///   - challengeId: the challenge's id.
    ///   - template: the template's id (``ChallengeTemplate/id``).
    ///   - name: what the user calls it.
    ///   - unit: what one template unit is worth, positive.
    ///   - stepCount: the template's step count.
    ///   - account: the user account each step's saving moves to; nil when steps are only counted.
    public init(challengeId: String, template: String, name: String, unit: Money, stepCount: Int, account: String? = nil) {
        self.challengeId = challengeId
        self.template = template
        self.name = name
        self.unit = unit
        self.stepCount = stepCount
        self.account = account
    }

    public var entity: String { "challenge:\(challengeId)" }
}

extension ChallengeStarted: ExampleProviding {
    public static var example: ChallengeStarted {
        get throws {
            try ChallengeStarted(
                challengeId: "ch_52w_2026", template: "52_week", name: "52-week challenge",
                unit: Money(parsing: "1.00", commodity: .usd), stepCount: 52, account: "Savings"
            )
        }
    }
}

/// One step of a challenge was completed: a saving transaction of `amount`.
public struct ChallengeStepCompleted: EventPayload {
    public static let eventType = EventType("challenge_step_completed", code: 66)
    /// The challenge the step belongs to.
    public var challengeId: String
    /// 1-based.
    public var step: Int
    /// What the step saved: the challenge's unit times the template's multiple for the step.
    public var amount: Money

    /// Step `step` of `challengeId` completed, saving `amount`.
    public init(challengeId: String, step: Int, amount: Money) {
        self.challengeId = challengeId
        self.step = step
        self.amount = amount
    }

    public var entity: String { "challenge:\(challengeId)" }
}

extension ChallengeStepCompleted: ExampleProviding {
    public static var example: ChallengeStepCompleted {
        get throws {
            try ChallengeStepCompleted(
                challengeId: "ch_52w_2026", step: 17, amount: Money(parsing: "17.00", commodity: .usd)
            )
        }
    }
}
