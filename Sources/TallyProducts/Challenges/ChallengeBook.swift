public import TallyEngine
import GRDB

/// A challenge's progress at a date, derived from its completed steps.
public struct ChallengeProgress: Hashable, Sendable {
    /// The challenge's id.
    public let challengeId: String
    /// Its display name.
    public let name: String
    /// The template id, e.g. `52_week`.
    public let template: String
    /// What one template unit is worth.
    public let unit: Money
    /// How many steps the template has.
    public let stepCount: Int
    /// Where the savings go, if the challenge moves money.
    public let account: String?
    /// Completed steps, ascending.
    public let completedSteps: [Int]
    /// The sum of the completed steps' amounts.
    public let saved: Money
    /// What all steps save, from the template (nil for a template the table lacks).
    public let target: Money?
    /// What is left to save (nil when the target is unknown).
    public var remaining: Money? { target.flatMap { try? $0.subtracting(saved) } }
    /// Whether every step is done.
    public var isComplete: Bool { completedSteps.count >= stepCount }
    /// The lowest step not completed yet.
    public var nextStep: Int? { (1...max(stepCount, 1)).first { !completedSteps.contains($0) && $0 <= stepCount } }
}

/// Challenges and their steps with their times: the state progress is derived from.
/// ``apply(_:)`` folds it from events (a full replay); the ledger loads it from the
/// challenges read model for events effective through a date.
public struct ChallengeBook: Sendable {
    struct Challenge: Sendable {
        let started: ChallengeStarted
        /// Step number → amount; the first completion of a step counts.
        var steps: [Int: Money] = [:]
    }

    var challenges: [String: Challenge] = [:]

    /// An empty book.
    public init() {}

    /// Folds one event. Never validates.
    public mutating func apply(_ event: Event) {
        switch event.body.payload {
        case let started as ChallengeStarted:
            challenges[started.challengeId] = Challenge(started: started)
        case let completed as ChallengeStepCompleted:
            if challenges[completed.challengeId]?.steps[completed.step] == nil {
                challenges[completed.challengeId]?.steps[completed.step] = completed.amount
            }
        default:
            break
        }
    }

    /// Folds every event effective at or before `bound` (recorded by `knownAt`, if given).
    public static func folding(_ events: [Event], effectiveThrough bound: Instant, knownAt: Instant? = nil) -> ChallengeBook {
        var book = ChallengeBook()
        for event in events where event.effectiveAt <= bound && knownAt.map({ event.recordedAt <= $0 }) ?? true { book.apply(event) }
        return book
    }

    /// The progress of one challenge, or nil when the book does not have it.
    ///
    /// - Throws: ``MoneyError`` on overflow.
    public func progress(of challengeId: String) throws -> ChallengeProgress? {
        guard let challenge = challenges[challengeId] else { return nil }
        let started = challenge.started
        var saved = Money.zero(started.unit.commodity)
        for amount in challenge.steps.values where amount.commodity == saved.commodity { saved = try saved.adding(amount) }
        return ChallengeProgress(
            challengeId: started.challengeId, name: started.name, template: started.template, unit: started.unit,
            stepCount: started.stepCount, account: started.account, completedSteps: challenge.steps.keys.sorted(), saved: saved,
            target: try ChallengeTemplate.named(started.template).map { try $0.total(unit: started.unit) }
        )
    }

    /// Every challenge's progress, by id.
    public func progresses() throws -> [ChallengeProgress] {
        try challenges.keys.sorted().compactMap { try progress(of: $0) }
    }
}
