extension Ledger {
    /// The ledger's reads for async code: `try await ledger.async.balances()`.
    ///
    /// Each read is the blocking one of the same name, run on the engine's shared blocking
    /// pool (as ``Ledger/run(_:)->T`` is), so the calling task suspends instead of holding a
    /// thread of the cooperative pool while SQLite or the log is read. The answers and the
    /// errors (``LedgerError``) are the blocking reads' own.
    ///
    /// ```swift
    /// func handle(_ request: Request, ledger: Ledger) async throws -> [AccountBalance] {
    ///     let endOfMarch = ledger.calendar.endOfDay(try LocalDate(parsing: "2026-03-31"))
    ///     return try await ledger.async.balances(asOf: endOfMarch)
    /// }
    /// ```
    public var async: AsyncReads { AsyncReads(ledger: self) }

    /// The async reads of one ledger (``Ledger/async``).
    public struct AsyncReads: Sendable {
        /// The ledger read.
        public let ledger: Ledger

        /// ``Ledger/balances(asOf:knownAt:)`` without blocking the cooperative pool.
        public func balances(asOf: Instant? = nil, knownAt: Instant? = nil) async throws -> [AccountBalance] {
            try await ledger.run { try $0.balances(asOf: asOf, knownAt: knownAt) }
        }

        /// ``Ledger/trialBalance()`` without blocking the cooperative pool.
        public func trialBalance() async throws -> [Money] {
            try await ledger.run { try $0.trialBalance() }
        }

        /// ``Ledger/audit(account:from:through:knownAt:)`` without blocking the cooperative pool.
        public func audit(account: String, from: LocalDate? = nil, through: LocalDate? = nil, knownAt: Instant? = nil) async throws -> [AuditEntry] {
            try await ledger.run { try $0.audit(account: account, from: from, through: through, knownAt: knownAt) }
        }

        /// ``Ledger/loggedEvent(at:)`` without blocking the cooperative pool.
        public func loggedEvent(at sequence: UInt64) async throws -> Event? {
            try await ledger.run { try $0.loggedEvent(at: sequence) }
        }

        /// ``Ledger/loggedEvents(at:)`` without blocking the cooperative pool.
        public func loggedEvents(at sequences: [UInt64]) async throws -> [UInt64: Event] {
            try await ledger.run { try $0.loggedEvents(at: sequences) }
        }

        /// ``Ledger/settings()`` without blocking the cooperative pool.
        public func settings() async throws -> LedgerSettings {
            try await ledger.run { try $0.settings() }
        }

        /// ``Ledger/read(_:)`` (a typed read model's query) without blocking the cooperative pool.
        public func read<Value: Sendable>(_ query: ReadModelQuery<Value>) async throws -> Value {
            try await ledger.run { try $0.read(query) }
        }
    }
}
