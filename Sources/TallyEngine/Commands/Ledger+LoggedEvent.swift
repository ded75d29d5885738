import TallyLog

extension Ledger {
    /// The event recorded at `sequence`, read back from the log; nil past the head.
    ///
    /// A command that corrects an earlier event (a reversal, an amendment) reads what it
    /// corrects this way: the event as recorded, with every field a read model may not keep.
    ///
    /// ```swift
    /// if let deposit = try ledger.loggedEvent(at: 12)?.body.as(DepositReceived.self) { … }
    /// ```
    ///
    /// - Throws: ``LedgerError``: `invalidArgument` for sequence 0, `store` when the log
    ///   cannot be read.
    public func loggedEvent(at sequence: UInt64) throws -> Event? {
        guard sequence >= 1 else { throw LedgerError(.invalidArgument, "sequence numbers start at 1") }
        guard sequence <= head.sequence else { return nil }
        do {
            var found: Event?
            let reader = try store?.reader() ?? EventStoreReader.open(at: layout.root, catalog: catalog, fileSystem: options.logFileSystem, keys: options.logKeys)
            try reader.forEach(from: sequence, through: sequence) { found = $0 }
            return found
        } catch {
            throw LedgerError.reporting(error) ?? error
        }
    }
}
