public import TallyEngine
public import GRDB

/// The challenges read model: challenges and their completed steps, with their times.
public struct ChallengesProjector: Projector {
    /// The projector; its tables are created by ``createTables(_:)``.
    public init() {}

    public let name = "challenges"
    public let version = 1
    public let tables = ["challenges", "challenge_steps"]
    /// The event types this read model folds; every other passes it by.
    public var eventTypes: [any EventPayload.Type]? {
        [ChallengeStarted.self, ChallengeStepCompleted.self]
    }

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
        switch event.body.payload {
        case let started as ChallengeStarted:
            // A second start of the same id starts again, as the fold does.
            try db.cachedStatement(sql: "DELETE FROM challenge_steps WHERE challenge_id = ?").execute(arguments: [started.challengeId])
            try db.cachedStatement(sql: """
                    INSERT OR REPLACE INTO challenges
                        (challenge_id, template, name, commodity, unit, step_count, account, sequence, effective_at, recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [
                        started.challengeId, started.template, started.name, started.unit.commodity.code, started.unit.minorUnits,
                        started.stepCount, started.account, event.rowSequence,
                        event.rowEffectiveAt, event.rowRecordedAt,
                    ])
        case let completed as ChallengeStepCompleted:
            try db.cachedStatement(sql: "INSERT INTO challenge_steps (sequence, challenge_id, step, commodity, amount, effective_at, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
                .execute(arguments: [
                    event.rowSequence, completed.challengeId, completed.step, completed.amount.commodity.code,
                    completed.amount.minorUnits, event.rowEffectiveAt, event.rowRecordedAt,
                ])
        default:
            throw eventNotFolded(event)
        }
    }
}

extension ChallengeBook {
    /// The book for events effective at or before `bound` (recorded by `knownAt`), from
    /// the challenges read model.
    static func load(_ db: Database, effectiveThrough bound: Instant, knownAt: Instant? = nil) throws -> ChallengeBook {
        let arguments: StatementArguments = [bound.microsecondsSinceEpoch, knownAt?.microsecondsSinceEpoch ?? Int64.max]
        var book = ChallengeBook()
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM challenges WHERE effective_at <= ? AND recorded_at <= ?"), arguments: arguments) {
            let started = ChallengeStarted(
                challengeId: row[ChallengeColumns.challengeId], template: row[ChallengeColumns.template], name: row[ChallengeColumns.name],
                unit: try row.money(ChallengeColumns.unit, ChallengeColumns.commodity),
                stepCount: row[ChallengeColumns.stepCount], account: row[ChallengeColumns.account]
            )
            book.challenges[started.challengeId] = Challenge(started: started)
        }
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM challenge_steps WHERE effective_at <= ? AND recorded_at <= ? ORDER BY sequence"), arguments: arguments) {
            let id: String = row[ChallengeColumns.challengeId]
            let step: Int = row[ChallengeColumns.step]
            if book.challenges[id] != nil, book.challenges[id]?.steps[step] == nil {
                book.challenges[id]?.steps[step] = try row.money(ChallengeColumns.amount, ChallengeColumns.commodity)
            }
        }
        return book
    }
}

extension ChallengesProjector {
    /// Whether a challenge of this id was ever started.
    static func challengeExists(_ challengeId: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM challenges WHERE challenge_id = ?)"), arguments: [challengeId]) ?? false
    }

    /// When the challenge's start took effect; nil when it was never started.
    static func startedAt(_ challengeId: String, _ db: Database) throws -> Instant? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT effective_at FROM challenges WHERE challenge_id = ?"), arguments: [challengeId])
            .map(Instant.init(microsecondsSinceEpoch:))
    }
}

/// The columns of this read model's tables and query results, by name: the one place a
/// column's name is spelled outside the statements that create, write and select it.
enum ChallengeColumns {
    static let account = Column("account")
    static let amount = Column("amount")
    static let challengeId = Column("challenge_id")
    static let commodity = Column("commodity")
    static let name = Column("name")
    static let step = Column("step")
    static let stepCount = Column("step_count")
    static let template = Column("template")
    static let unit = Column("unit")
}
