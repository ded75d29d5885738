public import TallyEngine

// The products' reads for async code, beside the engine's on `ledger.async`: each is the
// blocking read of the same name run on the engine's blocking pool, so the calling task
// suspends instead of holding a thread of the cooperative pool. Answers and errors
// (`LedgerError`) are the blocking reads' own.
extension Ledger.AsyncReads {
    /// ``TallyEngine/Ledger/wealthSummary(account:asOf:knownAt:)`` without blocking the cooperative pool.
    public func wealthSummary(account: String, asOf: Instant? = nil, knownAt: Instant? = nil) async throws -> WealthSummary {
        try await ledger.run { try $0.wealthSummary(account: account, asOf: asOf, knownAt: knownAt) }
    }

    /// ``TallyEngine/Ledger/pots(asOf:knownAt:)`` without blocking the cooperative pool.
    public func pots(asOf: Instant? = nil, knownAt: Instant? = nil) async throws -> [Pot] {
        try await ledger.run { try $0.pots(asOf: asOf, knownAt: knownAt) }
    }

    /// ``TallyEngine/Ledger/budgetOverview(month:asOf:knownAt:)`` without blocking the cooperative pool.
    public func budgetOverview(month: Month, asOf: Instant? = nil, knownAt: Instant? = nil) async throws -> BudgetOverview {
        try await ledger.run { try $0.budgetOverview(month: month, asOf: asOf, knownAt: knownAt) }
    }

    /// ``TallyEngine/Ledger/envelopeStatus(_:asOf:knownAt:)`` without blocking the cooperative pool.
    public func envelopeStatus(_ envelopeId: String, asOf: Instant? = nil, knownAt: Instant? = nil) async throws -> EnvelopeStatus {
        try await ledger.run { try $0.envelopeStatus(envelopeId, asOf: asOf, knownAt: knownAt) }
    }

    /// ``TallyEngine/Ledger/envelopeStatuses(asOf:knownAt:)`` without blocking the cooperative pool.
    public func envelopeStatuses(asOf: Instant? = nil, knownAt: Instant? = nil) async throws -> [EnvelopeStatus] {
        try await ledger.run { try $0.envelopeStatuses(asOf: asOf, knownAt: knownAt) }
    }

    /// ``TallyEngine/Ledger/netWorth(asOf:knownAt:)`` without blocking the cooperative pool.
    public func netWorth(asOf: Instant? = nil, knownAt: Instant? = nil) async throws -> NetWorthReport {
        try await ledger.run { try $0.netWorth(asOf: asOf, knownAt: knownAt) }
    }

    /// ``TallyEngine/Ledger/xray(asOf:knownAt:)`` without blocking the cooperative pool.
    public func xray(asOf: Instant? = nil, knownAt: Instant? = nil) async throws -> XRaySnapshot {
        try await ledger.run { try $0.xray(asOf: asOf, knownAt: knownAt) }
    }
}
