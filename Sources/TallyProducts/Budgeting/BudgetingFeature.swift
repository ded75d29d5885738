public import TallyEngine
// The monthly budget and savings pots as a feature of a ledger: the event types it records and the read models
// it keeps, registered through `LedgerFeature` as an embedder's feature is. A new event type
// or read model of this feature is listed here (docs/conventions.md, "Adding an event
// type" and "Adding a read model"); `standardFeatures` (Products.swift) lists the feature.

extension EventCatalog {
    /// The monthly budget's event types: transactions, bank links, the reference balance,
    /// budgets, pots and recurring items.
    public static let budgetingTypes: [any EventPayload.Type] = [
        TransactionRecorded.self, TransactionAmended.self, TransactionDeleted.self, TransactionRecategorised.self,
        BankConnected.self, BankConsentGranted.self, BankDisconnected.self, ReferenceBalanceSet.self, ReferenceBalanceReconciled.self, BudgetSet.self, BudgetDeleted.self,
        PotCreated.self, PotFunded.self, PotWithdrawn.self, PotDeleted.self,
        RecurringDefined.self, RecurringRemoved.self, RecurringOccurrenceGenerated.self,
    ]
}

/// The monthly budget and savings pots (docs/domain.md §2): transactions, bank imports, the
/// reference balance, budgets, pots and recurring items.
public struct BudgetingFeature: LedgerFeature {
    /// The feature, to register in ``Ledger/Options/features`` (``standardFeatures`` holds one).
    public init() {}
    public var name: String { "budgeting" }
    public var eventTypes: [any EventPayload.Type] { EventCatalog.budgetingTypes }
    public var projectors: [any Projector] {
        [BudgetSettingsProjector(), TransactionsProjector(), PotsProjector(), BudgetsProjector(), RecurringProjector()]
    }
}
