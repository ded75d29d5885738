import GRDB

// A write group's postings, held back from `posting_days` and the roll-up cells until the
// group ends or something reads them (docs/architecture.md "The write pipeline"); with them,
// in a group planned without command savepoints (held whole), its balance changes and its
// idempotency rows (``HeldIdempotency``).
//
// A group plans and folds its commands one after the other in one transaction, each in a
// savepoint of its own. A command's plan reads the `balances` rows (written at the end of
// every command's fold, as before) but rarely a day's postings or a roll-up cell, yet each
// command wrote its postings' rows and cells: three upserts per account and commodity it
// moved. Held, a group writes each row and cell once.
//
// The write pipeline owns the holding: it makes one per group, hands it to each command's
// savepoint and to the balances fold (``GroupDraft/held``), writes it before the append
// (``HeldPostings/writeAll()``) and ends it. Nothing is answered from what is held: a read of
// those tables on the group's connection first writes it (``HeldPostings/writeHeld(_:)``, at
// the top of each read in ``PostingDays`` and ``BalanceRollups``), so a reader sees exactly
// the rows it would have seen. Those readers are reached through the `Database` a plan or a
// projector is given (``LedgerCommand/plan``, ``Projector``), public signatures that carry no
// more than the connection; so the pipeline binds the holding for the span of its group's
// transaction (``HeldPostings/whileReadable(_:_:)``, a task-local value), and a reader finds
// it there when it reads the same connection. There is no state shared across groups,
// connections or stores: outside that span, and on any other connection, there is nothing
// to find.
//
// A refused command's savepoint rolls back what it wrote; here that is its own legs (taken
// off the end) and any held legs of earlier commands that a read wrote inside its
// savepoint (held again). The bytes and sums written are those the command-by-command writes
// made: a row's legs in log order, a cell's sum. Should writing what is held fail (a cell
// beyond 64 bits, which one command at a time refuses alone), the pipeline runs the group
// again without holding (``HeldPostings/WriteFailed``).

// A group held whole writes its `balances` rows once too: its fold keeps each pair's balance
// as it stands (the row read once, then every leg added, a sum beyond 64 bits throwing
// ``HeldBalanceOverflow``: the group is planned again one command at a time, where SQLite
// decides as it always did). A plan's balance of a pair the group moved is answered from there
// (``DatabasePostingContext``); every other reader of `balances` writes what is held first.

/// Thrown when a balance a group held whole keeps would pass 64 bits: the write pipeline plans
/// the group again with a savepoint per command, where each command's fold meets SQLite's
/// refusal of such a sum as it does one at a time.
struct HeldBalanceOverflow: Error {}

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
    // queue; readers find it only there.

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
    /// The event types the group's folds have written to `log_event_types` (or found
    /// there): the event types fold writes each once per group (``EventTypesProjector``).
    /// Emptied when a command rolls back.
    var eventTypesWritten: Set<UInt32> = []
    /// Whether the group is held whole (``holdUntilGroupEnds(first:)``): planned without
    /// command savepoints, so that only the rollback of its whole transaction takes back what
    /// is held, it also holds its balance changes (each pair's balance kept in the fold, which
    /// plans read instead of the `balances` row: ``runningBalance(_:account:commodity:)``)
    /// and its idempotency rows.
    private(set) var wholeGroup = false
    /// What the group's plans read once and keep (``GroupMemo``).
    let memo = GroupMemo()
    /// The group's idempotency rows, held with its postings and written with them (nil:
    /// each command writes its own; a group held whole holds them).
    private(set) var idempotency: HeldIdempotency?
    /// How many legs the group has held: with ``idempotency``'s changes, what a command
    /// that left no trace did not move (``changes``).
    private var legsHeld = 0

    /// How many times the group's folds have held something: a command that did not move it
    /// and changed no row held nothing.
    var changes: Int { legsHeld + (idempotency?.changes ?? 0) }

    /// Holds the postings of the group whose transaction is open on `db`, until ``end()``:
    /// the pipeline hands the holding to what folds and writes, and readers of `db` write it
    /// before they read while the pipeline runs the group in ``whileReadable(_:_:)``.
    init(_ db: Database) {
        self.db = db
    }

    /// The holding of the group being run here, bound by ``whileReadable(_:_:)``.
    @TaskLocal private static var readable: HeldPostings?

    /// Runs `body`, the planning and folding of a group whose transaction is open, with
    /// `holding` found by readers of its connection (``writeHeld(_:)``,
    /// ``runningBalance(_:account:commodity:)``); nil: the group holds nothing, and readers
    /// find nothing.
    static func whileReadable<Result>(_ holding: HeldPostings?, _ body: () throws -> Result) rethrows -> Result {
        try $readable.withValue(holding, operation: body)
    }

    /// The holding bound for a group being run on `db`, nil when none is (a reader's own
    /// connection, a rebuild, any code outside a group).
    private static func holding(of db: Database) -> HeldPostings? {
        guard let holding = readable, holding.db === db else { return nil }
        return holding
    }

    /// The memo of the group being run on `db` (``GroupMemo/of(_:)``).
    static func memo(of db: Database) -> GroupMemo? {
        holding(of: db)?.memo
    }

    /// Holds the group whole from here on: its balance changes and its idempotency rows too,
    /// which nothing takes back but the rollback of the whole transaction (the write pipeline
    /// plans such a group without command savepoints). `first`: the group's first sequence
    /// number; `bulk`: the group holds an import's batch (its keys packed less often,
    /// ``PackedKeys``).
    func holdUntilGroupEnds(first: UInt64, bulk: Bool = false) {
        precondition(fold == nil && legs.isEmpty, "a group is held whole from its start")
        wholeGroup = true
        idempotency = HeldIdempotency(first: Int64(first), packingDivisor: bulk ? PackedKeys.bulkDivisor : PackedKeys.steadyDivisor)
    }

    /// The balance of `account` in `commodity` with everything the group being written on `db`
    /// has folded counted, when that group is held whole and has moved it (nil otherwise: the
    /// `balances` row is the answer). A plan's balance question costs no statement for an
    /// account its group moved.
    static func runningBalance(_ db: Database, account: String, commodity: String) -> Int64? {
        guard let holding = holding(of: db), holding.wholeGroup else { return nil }
        return holding.fold?.runningBalance(BalancePair(account: account, commodity: commodity))
    }

    /// Stops holding, dropping what was not written: call it once the transaction is written
    /// (``writeAll()``) or is being rolled back.
    func end() {
        fold = nil  // it holds statements of `db`, and this holding
        idempotency = nil
        memo.forgetAll()
    }

    /// Writes what the group being written on `db` holds, before a read of the postings or
    /// the roll-up cells; nothing when no group is being run on `db` (a reader's own
    /// connection, a rebuild).
    ///
    /// - Throws: ``WriteFailed``, then again at every later write of this group (a write
    ///   that failed half-way cannot tell what it wrote): the group is run again without
    ///   holding.
    static func writeHeld(_ db: Database) throws {
        guard let holding = holding(of: db) else { return }
        try holding.writeHeld()
    }

    /// ``writeHeld(_:)`` of this holding.
    func writeHeld() throws {
        if let failure { throw failure }
        do {
            try write()
        } catch {
            failure = WriteFailed(underlying: error)
            throw failure!
        }
    }

    /// Writes everything held, for good (outside any command's savepoint: the group's end).
    func writeAll() throws {
        precondition(commandStart == nil, "a group writes what it holds once its commands are done")
        try writeHeld()
    }

    func hold(_ leg: HeldLeg) {
        legs.append(leg)
        legsHeld += 1
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
        eventTypesWritten = []
        memo.forgetAll()
    }

    /// Writes the held balance changes and idempotency rows, then appends the held legs not
    /// yet written to their rows and adds them to their cells.
    private func write() throws {
        if wholeGroup { try fold?.flushBalances() }
        try idempotency?.write(db)
        guard written < legs.count else { return }
        var days = PendingPostingDays()
        var rollups = try BalanceRollups(db)
        defer { rollups.clearBindings() }
        var numbers: [Int64: Int] = [:]
        var rows: [Int64] = []
        for held in legs[written...] {
            let number: Int
            if let known = numbers[held.pair] {
                number = known
            } else {
                number = rows.count
                numbers[held.pair] = number
                rows.append(held.pair)
            }
            days.add(held.leg, pair: held.pair, number: number)
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
