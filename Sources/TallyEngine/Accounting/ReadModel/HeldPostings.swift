import GRDB
internal import Synchronization

// A write group's postings, held back from `posting_days` and the roll-up cells until the
// group ends or something reads them (docs/architecture.md "The write pipeline").
//
// A group plans and folds its commands one after the other in one transaction, each in a
// savepoint of its own. A command's plan reads the `balances` rows (written at the end of
// every command's fold, as before) but rarely a day's postings or a roll-up cell, yet each
// command wrote its postings' rows and cells: three upserts per account and commodity it
// moved. Held, a group writes each row and cell once. Nothing is answered from what is
// held: every read of those tables first writes it (``HeldPostings/writeHeld(_:)``, at the
// top of each read in ``PostingDays`` and ``BalanceRollups``), so a reader sees exactly the
// rows it would have seen.
//
// A refused command's savepoint rolls back what it wrote; here that is its own legs (taken
// off the end) and any held legs of earlier commands that a read wrote inside its
// savepoint (held again). The bytes and sums written are those the command-by-command writes
// made: a row's legs in log order, a cell's sum. Should writing what is held fail (a cell
// beyond 64 bits, which one command at a time refuses alone), the pipeline runs the group
// again without holding (``HeldPostings/WriteFailed``).

/// One leg held for `posting_days` and the roll-up cells: its `balances` row, the leg, and
/// the recorded time of its event.
struct HeldLeg {
    let pair: Int64
    let leg: StoredLeg
    let recordedAt: Int64
}

/// The postings a write group holds back, for one write connection (see above).
final class HeldPostings: @unchecked Sendable {
    // @unchecked: a group's holding is made, used and dropped on its write connection's
    // queue; the registry only finds it there.

    /// Thrown when what was held could not be written; the pipeline runs the group again
    /// with every command writing its own rows.
    struct WriteFailed: Error {
        let underlying: any Error
    }

    private let db: Database
    /// Legs not yet written for good, in log order.
    private(set) var legs: [HeldLeg] = []
    /// `legs[..<written]` were written inside the open command savepoint: kept until it is
    /// released (written for good) or rolled back (held again).
    private var written = 0
    /// Where the open command's own legs begin.
    private var commandStart: Int?
    /// Set when a write failed: nothing more is written.
    private var failure: WriteFailed?
    /// The balances fold kept from one command to the next (its accounts and pairs found,
    /// its recorded times noted); dropped when a command rolls back.
    var fold: BalancesFold?

    private init(_ db: Database) {
        self.db = db
    }

    private static let registry = Mutex<[ObjectIdentifier: HeldPostings]>([:])
    /// How many holdings the registry has: readers (every balance query asks) pass by
    /// without taking its lock while no group is being written.
    private static let open = Atomic<Int>(0)

    /// Starts holding postings on `db` (inside its open transaction) until ``end(_:)``.
    static func begin(_ db: Database) {
        let holding = HeldPostings(db)
        registry.withLock { registry in
            if registry.updateValue(holding, forKey: ObjectIdentifier(db)) == nil { open.add(1, ordering: .relaxed) }
        }
    }

    /// Stops holding on `db`, dropping what was not written: call it once the transaction
    /// is written (``writeAll(_:)``) or is being rolled back.
    static func end(_ db: Database) {
        let holding = registry.withLock { registry in
            let holding = registry.removeValue(forKey: ObjectIdentifier(db))
            if holding != nil { open.subtract(1, ordering: .relaxed) }
            return holding
        }
        holding?.fold = nil  // it holds statements of `db`, and this holding
    }

    /// The holding of `db`, nil when its postings are written as they are folded. A
    /// connection's own holding is begun and ended on its own queue, so a count of zero seen
    /// there is exact for it.
    static func of(_ db: Database) -> HeldPostings? {
        guard open.load(ordering: .relaxed) > 0 else { return nil }
        return registry.withLock { $0[ObjectIdentifier(db)] }
    }

    /// Writes what `db`'s group holds before a read of the postings or the roll-up cells.
    ///
    /// - Throws: ``WriteFailed``, then again at every later write of this group (a write
    ///   that failed half-way cannot tell what it wrote): the group is run again without
    ///   holding.
    static func writeHeld(_ db: Database) throws {
        guard let holding = of(db) else { return }
        if let failure = holding.failure { throw failure }
        do {
            try holding.write()
        } catch {
            holding.failure = WriteFailed(underlying: error)
            throw holding.failure!
        }
    }

    /// Writes everything held, for good (outside any command's savepoint: the group's end).
    static func writeAll(_ db: Database) throws {
        guard let holding = of(db) else { return }
        precondition(holding.commandStart == nil, "a group writes what it holds once its commands are done")
        try writeHeld(db)
    }

    func hold(_ leg: HeldLeg) {
        legs.append(leg)
    }

    /// A command's savepoint opens.
    func commandBegins() {
        precondition(commandStart == nil && written == 0, "command savepoints do not nest")
        commandStart = legs.count
    }

    /// The command's savepoint was released: what was written in it stays.
    func commandReleased() {
        legs.removeFirst(written)
        written = 0
        commandStart = nil
    }

    /// The command's savepoint rolled back: its legs go, and legs written inside it are held
    /// again. The fold's caches (rows it found or made, recorded times it noted) may name
    /// what rolled back: the next command starts a fresh one.
    func commandRolledBack() {
        if let start = commandStart { legs.removeSubrange(start...) }
        written = 0
        commandStart = nil
        fold = nil
    }

    /// Appends the held legs not yet written to their rows and adds them to their cells.
    private func write() throws {
        guard written < legs.count else { return }
        var days = PendingPostingDays()
        var rollups = try BalanceRollups(db)
        defer { rollups.clearBindings() }
        var numbers: [Int64: Int] = [:]
        var rows: [Int64] = []
        for held in legs[written...] {
            days.add(held.leg, pair: held.pair)
            let number: Int
            if let known = numbers[held.pair] {
                number = known
            } else {
                number = rows.count
                numbers[held.pair] = number
                rows.append(held.pair)
            }
            try rollups.add(held.leg.amount, pair: number, effectiveAt: held.leg.effectiveAt, recordedAt: held.recordedAt, pairs: rows)
        }
        try rollups.flush(pairs: rows)
        try days.flush(db)
        if commandStart == nil {
            // Outside a command's savepoint nothing rolls it back: written for good.
            legs.removeAll(keepingCapacity: true)
            written = 0
        } else {
            written = legs.count
        }
    }
}
