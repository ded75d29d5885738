public import TallyEngine
// The wealth account as a feature of a ledger: the event types it records and the read models
// it keeps, registered through `LedgerFeature` as an embedder's feature is. A new event type
// or read model of this feature is listed here (docs/conventions.md, "Adding an event
// type" and "Adding a read model"); `standardFeatures` (Products.swift) lists the feature.

extension EventCatalog {
    /// The wealth account's event types.
    public static let wealthTypes: [any EventPayload.Type] = [
        DepositReceived.self, DepositSplit.self, SplitRuleSet.self, RoundUpsSwitched.self,
        AutomationPaused.self, AutomationResumed.self, CardFrozen.self, CardUnfrozen.self,
        PurchaseMade.self, RoundUpApplied.self, RoundUpSkipped.self, WithdrawalMade.self,
        WealthEntryReversed.self, DepositSplitReversed.self, RoundUpIncrementSet.self, RoundUpNotDefined.self,
    ]
}

/// The wealth account (docs/domain.md §1): deposits split into Spend and Invest, round-ups,
/// purchases and withdrawals, automation and the card.
public struct WealthFeature: LedgerFeature {
    /// The feature, to register in ``Ledger/Options/features`` (``standardFeatures`` holds one).
    public init() {}
    public var name: String { "wealth" }
    public var eventTypes: [any EventPayload.Type] { EventCatalog.wealthTypes }
    public var projectors: [any Projector] { [WealthProjector()] }
}
