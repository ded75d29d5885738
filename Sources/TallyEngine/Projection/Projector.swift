public import GRDB

/// A fold of events into SQLite tables: one read model.
///
/// `apply` is called for every event in log order, inside the transaction that also
/// advances the projector's checkpoint, so a crash never applies an event twice or skips
/// one. Projectors never validate: they fold what the log says, deterministically.
///
/// ```swift
/// struct PotsProjector: Projector {
///     let name = "pots"; let version = 1
///     func createTables(_ db: Database) throws { try db.execute(sql: "CREATE TABLE pots (…)") }
///     func apply(_ event: Event, _ db: Database) throws { if let p = event.body.as(PotCreated.self) { … } }
/// }
/// ```
public protocol Projector: Sendable {
    /// A stable name: the checkpoint key.
    var name: String { get }
    /// The version of the projector's tables and fold; a change rebuilds it from the log.
    var version: Int { get }
    /// The tables this projector owns (dropped and recreated on rebuild).
    var tables: [String] { get }
    /// Creates the tables and indexes.
    func createTables(_ db: Database) throws
    /// Folds one event.
    func apply(_ event: Event, _ db: Database) throws
    /// Folds a run of consecutive events, in log order, in one transaction. The default
    /// folds them one by one; a projector overrides it to batch its writes (prepared
    /// statements kept for the run, sums kept in memory and written once), provided the rows
    /// are exactly those the one-by-one fold gives.
    func apply(_ events: ArraySlice<Event>, _ db: Database) throws
    /// Indexes that `apply` never reads: a rebuild drops them while it folds and creates them
    /// again at the end, which is faster than keeping them current row by row. Default: none.
    var indexesDeferredOnRebuild: [String] { get }
    /// The event types this projector reads, or nil for every event. Events of other types are
    /// never handed to ``apply(_:_:)-(Event,_)`` by the default batch fold, so a read model of a few
    /// types skips the rest of a busy log without looking at them; and a run holding none of
    /// these types is not handed to either `apply` at all (a batch fold that overrides the
    /// default sees only runs holding at least one). The read models read the list when they
    /// open to decide that: it must not change afterwards. Default: nil.
    var eventTypes: [any EventPayload.Type]? { get }
    /// Tables among ``tables`` that hold derived caches (snapshots): their rows depend on
    /// when events were folded, not only on the log, so two folds of one log may differ
    /// there and still answer the same. Default: none.
    var cacheTables: [String] { get }
}

extension Projector {
    /// The tables two folds of one log must hold row for row alike: all but the caches
    /// (``cacheTables``) and those a ``BatchDependentProjector`` compares by what they hold.
    var rowComparedTables: [String] {
        let batchDependent = (self as? any BatchDependentProjector)?.batchDependentTables ?? []
        return tables.filter { !cacheTables.contains($0) && !batchDependent.contains($0) }
    }
}

/// A projector some of whose tables hold rows that depend on how the log was batched when it
/// was folded, though what they hold does not (keys kept loose, then packed): two folds of
/// one log are compared there by ``comparableRows(_:schema:)`` instead of row by row.
public protocol BatchDependentProjector: Projector {
    /// Those tables, among ``Projector/tables``.
    var batchDependentTables: [String] { get }
    /// What ``batchDependentTables`` hold, one text per row, the same for every fold of one
    /// log; `schema` names the database (`main`, or an attached one).
    func comparableRows(_ db: Database, schema: String) throws -> [String]
}

extension Projector {
    /// Folds the events one by one, skipping those of a type ``eventTypes`` leaves out.
    public func apply(_ events: ArraySlice<Event>, _ db: Database) throws {
        try EventCodeSet.forEach(of: eventTypes.map(EventCodeSet.init(types:)), in: events) { event, _ in try apply(event, db) }
    }

    /// Every event is read.
    public var eventTypes: [any EventPayload.Type]? { nil }

    /// No index is deferred.
    public var indexesDeferredOnRebuild: [String] { [] }

    /// No cache table.
    public var cacheTables: [String] { [] }

    /// The error for an event a fold was handed but does not fold: the `default:` of a
    /// projector's switch over the types its ``eventTypes`` lists, which the engine never
    /// reaches unless a type is listed and left unhandled, or handed to ``apply(_:_:)-(Event,_)``
    /// by hand. A new type listed without a case then fails loudly instead of being skipped.
    ///
    /// ```swift
    /// switch event.body.payload {
    /// case let tagged as MerchantTagged: try record(tagged, db)
    /// default: throw eventNotFolded(event)
    /// }
    /// ```
    public func eventNotFolded(_ event: Event) -> LedgerError {
        LedgerError(.inconsistentLog, "read model \(name) was handed event \(event.sequence) (\(event.type.name)), a type it does not fold")
    }
}

/// A set of event type codes as bits: asked once per event and projector on every fold, where
/// a `Set`'s hashing of each code cost more than the question.
package struct EventCodeSet: Sendable {
    private var words: [UInt64] = []

    /// The codes of these event types.
    package init(types: [any EventPayload.Type]) {
        self.init(types.map { $0.eventType.code })
    }

    init(_ codes: some Sequence<UInt32>) {
        for code in codes {
            let word = Int(code >> 6)
            if word >= words.count { words += Array(repeating: 0, count: word + 1 - words.count) }
            words[word] |= 1 << UInt64(code & 63)
        }
    }

    @inline(__always)
    func contains(_ code: UInt32) -> Bool {
        let word = Int(code >> 6)
        return word < words.count && words[word] & (1 << UInt64(code & 63)) != 0
    }

    /// Calls `body` with each event of `events` whose type is among `codes` (every event when
    /// nil) and its place in the run, each read where it lies (a copy would retain every string
    /// in the event, for every projector): the loop of every fold of a run.
    package static func forEach(
        of codes: EventCodeSet?, in events: ArraySlice<Event>, _ body: (Event, Int) throws -> Void
    ) rethrows {
        try events.withUnsafeBufferPointer { buffer in
            guard var event = buffer.baseAddress else { return }
            for index in 0..<buffer.count {
                if codes?.contains(event.pointee.body.type.code) ?? true { try body(event.pointee, index) }
                event += 1
            }
        }
    }
}
