public import TallyEngine
// Envelope budgeting as a feature of a ledger: the event types it records and the read models
// it keeps, registered through `LedgerFeature` as an embedder's feature is. A new event type
// or read model of this feature is listed here (docs/conventions.md, "Adding an event
// type" and "Adding a read model"); `standardFeatures` (Products.swift) lists the feature.

extension EventCatalog {
    /// The envelope budget's event types.
    public static let envelopeTypes: [any EventPayload.Type] = [
        EnvelopeCreated.self, EnvelopeBudgetChanged.self, EnvelopeFunded.self, EnvelopeRolloverSet.self, EnvelopeDeleted.self,
    ]
}

/// Envelope budgeting (docs/domain.md §3): envelopes, their intervals and rollovers.
public struct EnvelopesFeature: LedgerFeature {
    /// The feature, to register in ``Ledger/Options/features`` (``standardFeatures`` holds one).
    public init() {}
    public var name: String { "envelopes" }
    public var eventTypes: [any EventPayload.Type] { EventCatalog.envelopeTypes }
    public var projectors: [any Projector] { [EnvelopesProjector()] }
}
