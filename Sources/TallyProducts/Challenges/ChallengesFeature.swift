public import TallyEngine
// Savings challenges as a feature of a ledger: the event types it records and the read models
// it keeps, registered through `LedgerFeature` as an embedder's feature is. A new event type
// or read model of this feature is listed here (docs/conventions.md, "Adding an event
// type" and "Adding a read model"); `standardFeatures` (Products.swift) lists the feature.

extension EventCatalog {
    /// The challenges' event types.
    public static let challengeTypes: [any EventPayload.Type] = [ChallengeStarted.self, ChallengeStepCompleted.self]
}

/// Savings challenges (docs/domain.md §3): the 52-week challenge and its kin.
public struct ChallengesFeature: LedgerFeature {
    /// The feature, to register in ``Ledger/Options/features`` (``standardFeatures`` holds one).
    public init() {}
    public var name: String { "challenges" }
    public var eventTypes: [any EventPayload.Type] { EventCatalog.challengeTypes }
    public var projectors: [any Projector] { [ChallengesProjector()] }
}
