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
        return try loggedEvents(at: [sequence])[sequence]
    }

    /// The events recorded at `sequences`, read back from the log with each frame that holds
    /// one decoded once (a frame holds up to thousands of events: asking ``loggedEvent(at:)``
    /// once per number decodes one frame per number); numbers past the head are left out.
    ///
    /// ```swift
    /// let openings = try ledger.loggedEvents(at: accounts.map(\.openedSequence))
    /// ```
    ///
    /// - Throws: ``LedgerError``: `invalidArgument` for sequence 0, `store` when the log
    ///   cannot be read.
    public func loggedEvents(at sequences: some Sequence<UInt64>) throws -> [UInt64: Event] {
        let wanted = Set(sequences).sorted()
        guard wanted.first != 0 else { throw LedgerError(.invalidArgument, "sequence numbers start at 1") }
        do {
            var found: [UInt64: Event] = [:]
            let reader = try store?.reader() ?? EventStoreReader.open(at: layout.root, catalog: catalog, fileSystem: options.logFileSystem, keys: options.logKeys)
            try reader.forEach(at: wanted) { found[$0.sequence] = $0 }
            return found
        } catch {
            throw LedgerError.reporting(error) ?? error
        }
    }
}
