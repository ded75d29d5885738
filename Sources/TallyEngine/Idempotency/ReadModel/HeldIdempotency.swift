import GRDB

// A write group's idempotency rows, held back from `idempotency_keys` and
// `idempotency_caused` until the group ends or something reads them (docs/architecture.md
// "The write pipeline").
//
// One at a time, every keyed command wrote its key's row and its run's row (a deposit's split
// is caused by the deposit) in statements of their own. A group planned without a
// savepoint per command holds them instead, with its postings (``HeldPostings``): the keys
// are written once, in the order of their stored spellings, many to a statement
// (``IdempotencyProjector/KeyInserts``), and the runs once each, in the order of their causes.
//
// The pipeline's own question, "did a command use this key?", is answered from SQLite for what
// was there before the group and from here for the group's keys, without writing anything
// (``IdempotencyProjector/range(of:_:holding:)``). Every other reader of those tables on the
// group's connection (a plan's ``IdempotencyProjector/range(of:_:)``, an import's used keys)
// writes what is held first (``HeldPostings/writeHeld(_:)``), so it sees exactly the rows one
// command at a time would have left.
//
// Nothing rolls a held row back on its own: a group planned without savepoints rolls back
// whole (and is planned again with a savepoint per command, which holds none of these).

/// The idempotency rows a write group holds back, for its connection (see above).
final class HeldIdempotency {
    /// The group's first sequence number: a run whose cause is this or later is made in this
    /// group (only a later event makes a run's row), so its whole state is here.
    let first: Int64
    /// Keys folded and not yet written, in log order, with their first sequence numbers.
    private var keys: [(key: String, sequence: Int64)] = []
    /// The first sequence number of each key in `keys` (the first folded wins, as a key's
    /// first insert does), made when the group is first asked about a key: an import's batch
    /// of 40,000 keyed rows is one command that asks none, and hashing each key into it was
    /// 8 % of the import's committing thread.
    private var keyFirst: [String: Int64]?
    /// Every run the group made, by cause: its last event and whether a ``CommandCompleted``
    /// closed it. Kept until the group ends (a run written early may still grow).
    private var runs: [Int64: (last: Int64, closed: Bool)] = [:]
    /// The causes whose runs changed since they were last written.
    private var changed: Set<Int64> = []
    /// How many times a fold changed what is held: a command that left it as it was held
    /// nothing (``WritePipeline``'s check that a refused command left no trace).
    private(set) var changes = 0

    /// When the keys' loose rows are packed (``PackedKeys/bulkDivisor`` for an import's group).
    private let packingDivisor: Int64

    init(first: Int64, packingDivisor: Int64 = PackedKeys.steadyDivisor) {
        self.first = first
        self.packingDivisor = packingDivisor
    }

    /// Folds one event: its key, and the run its cause extends, as
    /// ``IdempotencyProjector/CausedRuns`` would write them. A run whose cause lies before
    /// the group is in SQLite: it is written there at once.
    ///
    /// The event is read where it lies, a field at a time: handed over as a value from the
    /// group's array, each event was copied first (its key, payload and type name retained,
    /// then released) for the few fields read here.
    func fold(_ event: UnsafePointer<Event>, _ db: Database) throws {
        let sequence = Int64(event.pointee.sequence)
        if let key = event.pointee.idempotencyKey {
            keys.append((key, sequence))
            if keyFirst != nil, keyFirst![key] == nil { keyFirst![key] = sequence }
            changes += 1
        }
        guard let cause = event.pointee.cause.map(Int64.init) else { return }
        let completes = event.pointee.body.type.code == CommandCompleted.eventType.code
        guard cause >= first else {
            try IdempotencyProjector.CausedRuns(db).note(cause: cause, sequence: sequence, completes: completes)
            return
        }
        if completes {
            runs[cause] = (sequence, true)
        } else if cause + 1 == sequence {
            guard runs[cause] == nil else { return }
            runs[cause] = (sequence, false)
        } else {
            guard let run = runs[cause], !run.closed, run.last + 1 == sequence else { return }
            runs[cause] = (sequence, false)
        }
        changed.insert(cause)
        changes += 1
    }

    /// The first sequence number of a key the group folded and has not written (nil: none).
    func firstSequence(ofKey key: String) -> Int64? {
        if let keyFirst { return keyFirst[key] }
        var made: [String: Int64] = [:]
        made.reserveCapacity(keys.count)
        for (key, sequence) in keys where made[key] == nil { made[key] = sequence }
        keyFirst = made
        return made[key]
    }

    /// The last event of the run caused by `cause`, an event of this group (nil: it caused
    /// none). A cause before the group has its run in SQLite.
    func lastOfRun(causedBy cause: Int64) -> Int64? {
        precondition(cause >= first, "a run whose cause lies before the group is read from SQLite")
        return runs[cause]?.last
    }

    /// Writes the held keys, sorted and many to a statement, and the changed runs in the
    /// order of their causes.
    func write(_ db: Database) throws {
        if !keys.isEmpty {
            var inserts = try IdempotencyProjector.KeyInserts(db, packingDivisor: packingDivisor)
            defer { inserts.finish() }
            for (key, sequence) in keys { inserts.add(key, firstSequence: sequence) }
            try inserts.flush()
            keys.removeAll(keepingCapacity: true)
            keyFirst = nil
        }
        guard !changed.isEmpty else { return }
        let causes = changed.sorted()
        var next = 0
        if causes.count >= Self.runsPerStatement {
            let many = RawStatement(try db.cachedStatement(sql: Self.runsSQL(Self.runsPerStatement)))
            while causes.count - next >= Self.runsPerStatement {
                for row in 0..<Self.runsPerStatement { bind(causes[next + row], many, row: row) }
                try many.step(db)
                next += Self.runsPerStatement
            }
        }
        let one = RawStatement(try db.cachedStatement(sql: Self.runsSQL(1)))
        for cause in causes[next...] {
            bind(cause, one, row: 0)
            try one.step(db)
        }
        changed.removeAll(keepingCapacity: true)
    }

    /// Runs per statement, as ``IdempotencyProjector/KeyInserts`` writes keys.
    static let runsPerStatement = IdempotencyProjector.KeyInserts.rowsPerStatement

    /// A run's row is written whole: the group made it, so no other state of it is kept.
    private static func runsSQL(_ rows: Int) -> String {
        "INSERT OR REPLACE INTO idempotency_caused (cause, last_sequence, closed) VALUES "
            + Array(repeating: "(?, ?, ?)", count: rows).joined(separator: ", ")
    }

    private func bind(_ cause: Int64, _ statement: RawStatement, row: Int) {
        let run = runs[cause]!
        let base = Int32(3 * row)
        statement.bind(base + 1, cause)
        statement.bind(base + 2, run.last)
        statement.bind(base + 3, Int64(run.closed ? 1 : 0))
    }
}
