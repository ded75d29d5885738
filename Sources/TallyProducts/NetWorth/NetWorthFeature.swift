public import TallyEngine
// The net worth tracker and the portfolio X-ray as a feature of a ledger: the event types it records and the read models
// it keeps, registered through `LedgerFeature` as an embedder's feature is. A new event type
// or read model of this feature is listed here (docs/conventions.md, "Adding an event
// type" and "Adding a read model"); `standardFeatures` (Products.swift) lists the feature.

extension EventCatalog {
    /// The net worth tracker's and portfolio X-ray's event types.
    public static let netWorthTypes: [any EventPayload.Type] = [
        AssetAdded.self, AssetTagged.self, AssetRemoved.self, LiabilityAdded.self, LiabilityRemoved.self,
        ValuationRecorded.self, ValuationOverrideCleared.self, PositionSet.self,
        ReminderSet.self, ReminderCompleted.self, AssetRenamed.self,
    ]
}

/// The net worth tracker and the portfolio X-ray (docs/domain.md §4 and §5): assets, liabilities,
/// valuations, positions, reminders.
public struct NetWorthFeature: LedgerFeature {
    /// The feature, to register in ``Ledger/Options/features`` (``standardFeatures`` holds one).
    public init() {}
    public var name: String { "net-worth" }
    public var eventTypes: [any EventPayload.Type] { EventCatalog.netWorthTypes }
    public var projectors: [any Projector] { [NetWorthProjector()] }
}
