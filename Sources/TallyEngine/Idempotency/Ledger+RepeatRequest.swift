import GRDB

// How a command whose first event holds a value it derives from state builds the request
// a repeat of its idempotency key is compared with.
//
// The write pipeline compares a repeat's request (a `NewEvent`) with the first event the key
// recorded. Most commands build that event from their input alone. A few cannot: the event
// holds a value the command derives from the ledger's state or the clock (the total a deleted
// pot returned, the adjustment of a reference balance, the id `manual:<sequence>`, the fields
// an amendment leaves as they were). For those, a repeat takes the derived values from the
// event the key first recorded and lays its own input over them, so that the comparison is
// on what the caller gave and nothing else; the first time, there is nothing to compare with
// and the command passes no request.

extension Ledger {
    /// The request a repeat of `key` is compared with, for a command whose first event holds
    /// values derived from state: nil when `key` is nil or has not been used (the pipeline
    /// then plans the command, or, should the key be used by a concurrent run meanwhile,
    /// returns that run's result uncompared).
    ///
    /// - Parameters:
    ///   - key: the command's idempotency key.
    ///   - build: the command's first event from its input, with the derived values taken
    ///     from `first`, the event the key recorded; nil when `first` is not of this
    ///     command's kind.
    /// - Throws: ``LedgerError`` `idempotencyConflict` when the key was used by another kind
    ///   of command; `LogError` when the log cannot be read.
    public func repeatRequest(key: String?, _ build: (_ first: Event) -> NewEvent?) throws -> NewEvent? {
        guard let key, let first = try firstEvent(recordedWith: key) else { return nil }
        guard let request = build(first) else {
            throw LedgerError(.idempotencyConflict, """
                the idempotency key '\(key)' was used by event \(first.sequence) (\(first.type.name)), another kind of command; \
                a repeat must be the same command, and a new command needs a new key
                """)
        }
        return request
    }

    /// The first event recorded with `key`, read back from the log; nil when none was.
    private func firstEvent(recordedWith key: String) throws -> Event? {
        guard let range = try read({ db in try IdempotencyProjector.range(of: key, db) }) else { return nil }
        return try pipeline.committedEvents(range.lowerBound...range.lowerBound).first
    }
}
