public import GRDB

/// A challenge's progress at a date, derived from its completed steps.
public struct ChallengeProgress: Hashable, Sendable {
    public let challengeId: String
    public let name: String
    /// The template id, e.g. `52_week`.
    public let template: String
    public let unit: Money
    public let stepCount: Int
    /// Where the savings go, if the challenge moves money.
    public let account: String?
    /// Completed steps, ascending.
    public let completedSteps: [Int]
    /// The sum of the completed steps' amounts.
    public let saved: Money
    /// What all steps save, from the template (nil for a template the table lacks).
    public let target: Money?
    public var remaining: Money? { target.flatMap { try? $0.subtracting(saved) } }
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

    public init() {}

    /// Folds one event. Never validates.
    public mutating func apply(_ event: Event) {
        switch event.body {
        case .challengeStarted(let started):
            challenges[started.challengeId] = Challenge(started: started)
        case .challengeStepCompleted(let completed):
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

/// The challenges read model: challenges and their completed steps, with their times.
public struct ChallengesProjector: Projector {
    public init() {}

    public let name = "challenges"
    public let version = 1
    public let tables = ["challenges", "challenge_steps"]

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE challenges (
                challenge_id TEXT PRIMARY KEY NOT NULL,
                template TEXT NOT NULL,
                name TEXT NOT NULL,
                commodity TEXT NOT NULL,
                unit INTEGER NOT NULL,
                step_count INTEGER NOT NULL,
                account TEXT,
                sequence INTEGER NOT NULL,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE challenge_steps (
                sequence INTEGER PRIMARY KEY NOT NULL,
                challenge_id TEXT NOT NULL,
                step INTEGER NOT NULL,
                commodity TEXT NOT NULL,
                amount INTEGER NOT NULL,
                effective_at INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX challenge_steps_by_challenge ON challenge_steps (challenge_id, step);
            """)
    }

    public func apply(_ event: Event, _ db: Database) throws {
        switch event.body {
        case .challengeStarted(let started):
            // A second start of the same id starts again, as the fold does.
            try db.execute(sql: "DELETE FROM challenge_steps WHERE challenge_id = ?", arguments: [started.challengeId])
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO challenges
                        (challenge_id, template, name, commodity, unit, step_count, account, sequence, effective_at, recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [started.challengeId, started.template, started.name, started.unit.commodity.code, started.unit.minorUnits,
                            started.stepCount, started.account, Int64(event.sequence),
                            event.effectiveAt.microsecondsSinceEpoch, event.recordedAt.microsecondsSinceEpoch]
            )
        case .challengeStepCompleted(let completed):
            try db.execute(
                sql: "INSERT INTO challenge_steps (sequence, challenge_id, step, commodity, amount, effective_at, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [Int64(event.sequence), completed.challengeId, completed.step, completed.amount.commodity.code,
                            completed.amount.minorUnits, event.effectiveAt.microsecondsSinceEpoch, event.recordedAt.microsecondsSinceEpoch]
            )
        default:
            break
        }
    }
}

extension ChallengeBook {
    /// The book for events effective at or before `bound` (recorded by `knownAt`), from
    /// the challenges read model.
    static func load(_ db: Database, effectiveThrough bound: Instant, knownAt: Instant? = nil) throws -> ChallengeBook {
        let arguments: StatementArguments = [bound.microsecondsSinceEpoch, knownAt?.microsecondsSinceEpoch ?? Int64.max]
        var book = ChallengeBook()
        for row in try Row.fetchAll(db, sql: "SELECT * FROM challenges WHERE effective_at <= ? AND recorded_at <= ?", arguments: arguments) {
            let started = ChallengeStarted(
                challengeId: row["challenge_id"], template: row["template"], name: row["name"],
                unit: Money(minorUnits: row["unit"], commodity: try Commodity.named(row["commodity"])),
                stepCount: row["step_count"], account: row["account"]
            )
            book.challenges[started.challengeId] = Challenge(started: started)
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM challenge_steps WHERE effective_at <= ? AND recorded_at <= ? ORDER BY sequence", arguments: arguments) {
            let id: String = row["challenge_id"]
            let step: Int = row["step"]
            if book.challenges[id] != nil, book.challenges[id]?.steps[step] == nil {
                book.challenges[id]?.steps[step] = Money(minorUnits: row["amount"], commodity: try Commodity.named(row["commodity"]))
            }
        }
        return book
    }
}
