internal import Foundation
public import GRDB

/// Full replays of a store's log into fresh, throw-away state: the reference answer for a
/// point in time, never the store's read models or their roll-ups (the test oracle of every
/// indexed point-in-time answer, and `tally replay`).
///
/// "As known at K" keeps only the events recorded at or before K (a prefix of the log, as
/// recorded times never decrease); each answer then applies its own effective-time rule to
/// that state.
///
/// ```swift
/// let balances = try Replay.fold(at: "books", knownAt: nil) { state in
///     try state.balances(asOf: calendar.endOfDay(try LocalDate(parsing: "2026-03-31")))
/// }
/// ```
public enum Replay {
    /// Events per SQLite transaction while folding.
    static let batchSize = 10_000

    /// Folds the log of the store at `root` up to `knownAt` into a temporary read-model
    /// database with the engine's projectors and those of `options` (its features and
    /// projectors), hands every folded event to `observe`, answers with `answer`, and deletes
    /// the database. Reads the log only: the store's read models are not opened, and another
    /// process may hold the store open.
    ///
    /// - Parameters:
    ///   - root: the store directory.
    ///   - options: the features whose event types the log holds and whose read models to fold.
    ///   - knownAt: fold only events recorded at or before this instant; nil for all.
    ///   - observe: called with each folded event, in log order.
    ///   - answer: reads the folded state.
    /// - Throws: ``StoreError`` or a log error when the store cannot be read; SQLite errors
    ///   from the temporary database; what `answer` throws.
    public static func fold<Answer>(
        at root: String, options: Ledger.Options = Ledger.Options(), knownAt: Instant? = nil,
        observe: (Event) -> Void = { _ in }, answer: (ReplayState) throws -> Answer
    ) throws -> Answer {
        let options = try options.unlocked(at: root)
        let reader = try EventStoreReader.open(at: root, catalog: try options.catalog(), keys: options.logKeys)
        let calendar = try reader.ledgerCalendar()
        // An encrypted store's replay state stays off the disk, beside its read models.
        let layout = StoreLayout(root: root)
        let base = layout.isEncrypted
            ? (layout.runtimeReadModelPath as NSString).deletingLastPathComponent
            : FileManager.default.temporaryDirectory.path
        if layout.isEncrypted { try OwnerOnly.preparePrivateParent(of: base + "/replay") }
        let directory = base + "/tally-replay-\(UUID().uuidString)"
        try OwnerOnly.makeDirectory(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = try ReadModelStore(path: directory + "/replay.sqlite", projectors: try options.registeredProjectors())
        defer { try? state.database.close() }
        try state.skipSyncing()

        var folded: UInt64 = 0
        let bound = knownAt?.microsecondsSinceEpoch ?? Int64.max
        do {
            try EventBatches.read(from: reader, first: 1, batchSize: batchSize) { batch, _, afterLostEvents in
                let known = batch.prefix { $0.recordedAt.microsecondsSinceEpoch <= bound }
                if !known.isEmpty {
                    try state.apply(Array(known), hash: nil, afterLostEvents: afterLostEvents)
                    for event in known { observe(event) }
                    folded += UInt64(known.count)
                }
                if known.count < batch.count { throw ReplayStop() }
            }
        } catch is ReplayStop {
            // The rest of the log was recorded after `knownAt`.
        }
        return try state.database.read { db in
            try answer(ReplayState(database: db, calendar: calendar, eventsFolded: folded, knownAt: knownAt))
        }
    }
}

/// The state a replay folded (``Replay/fold(at:options:knownAt:observe:answer:)``).
public struct ReplayState {
    /// The temporary read models, every registered projector's tables folded to the bound.
    public let database: Database
    /// The ledger's calendar.
    public let calendar: LedgerCalendar
    /// How many events were folded (those recorded by the bound).
    public let eventsFolded: UInt64
    /// The bound: events recorded at or before it; nil for every event.
    public let knownAt: Instant?

    /// Every non-zero balance at `asOf`, by account then commodity, summed from the folded
    /// postings (no roll-up is read).
    public func balances(asOf: Instant) throws -> [AccountBalance] {
        try BalanceQueries.scannedBalances(database, asOf: asOf)
    }
}

/// Stops the fold at the first event recorded after the replay's bound.
private struct ReplayStop: Error {}
