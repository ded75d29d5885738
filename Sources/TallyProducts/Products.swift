public import TallyEngine
extension EventCatalog {
    /// The wealth account's event types.
    public static let wealthTypes: [any EventPayload.Type] = [
        DepositReceived.self, DepositSplit.self, SplitRuleSet.self, RoundUpsSwitched.self,
        AutomationPaused.self, AutomationResumed.self, CardFrozen.self, CardUnfrozen.self,
        PurchaseMade.self, RoundUpApplied.self, RoundUpSkipped.self, WithdrawalMade.self,
        WealthEntryReversed.self, DepositSplitReversed.self, RoundUpIncrementSet.self, RoundUpNotDefined.self,
    ]

    /// The monthly budget's event types: transactions, bank links, the reference balance,
    /// budgets, pots and recurring items.
    public static let budgetingTypes: [any EventPayload.Type] = [
        TransactionRecorded.self, TransactionAmended.self, TransactionDeleted.self, TransactionRecategorised.self,
        BankConnected.self, BankConsentGranted.self, BankDisconnected.self, ReferenceBalanceSet.self, ReferenceBalanceReconciled.self, BudgetSet.self, BudgetDeleted.self,
        PotCreated.self, PotFunded.self, PotWithdrawn.self, PotDeleted.self,
        RecurringDefined.self, RecurringRemoved.self, RecurringOccurrenceGenerated.self,
    ]

    /// The envelope budget's event types.
    public static let envelopeTypes: [any EventPayload.Type] = [
        EnvelopeCreated.self, EnvelopeBudgetChanged.self, EnvelopeFunded.self, EnvelopeRolloverSet.self, EnvelopeDeleted.self,
    ]

    /// The challenges' event types.
    public static let challengeTypes: [any EventPayload.Type] = [ChallengeStarted.self, ChallengeStepCompleted.self]

    /// The net worth tracker's and portfolio X-ray's event types.
    public static let netWorthTypes: [any EventPayload.Type] = [
        AssetAdded.self, AssetTagged.self, AssetRemoved.self, LiabilityAdded.self, LiabilityRemoved.self,
        ValuationRecorded.self, ValuationOverrideCleared.self, PositionSet.self,
        ReminderSet.self, ReminderCompleted.self, AssetRenamed.self,
    ]

    /// The engine's and every product's event types.
    // swiftlint:disable:next force_try
    public static let standard = try! EventCatalog(engineTypes + standardFeatures.flatMap(\.eventTypes))
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

/// The net worth tracker and the portfolio X-ray (docs/domain.md §4 and §5): assets, liabilities,
/// valuations, positions, reminders.
public struct NetWorthFeature: LedgerFeature {
    /// The feature, to register in ``Ledger/Options/features`` (``standardFeatures`` holds one).
    public init() {}
    public var name: String { "net-worth" }
    public var eventTypes: [any EventPayload.Type] { EventCatalog.netWorthTypes }
    public var projectors: [any Projector] { [NetWorthProjector()] }
}

/// Envelope budgeting (docs/domain.md §3): envelopes, their intervals and rollovers.
public struct EnvelopesFeature: LedgerFeature {
    /// The feature, to register in ``Ledger/Options/features`` (``standardFeatures`` holds one).
    public init() {}
    public var name: String { "envelopes" }
    public var eventTypes: [any EventPayload.Type] { EventCatalog.envelopeTypes }
    public var projectors: [any Projector] { [EnvelopesProjector()] }
}

/// Savings challenges (docs/domain.md §3): the 52-week challenge and its kin.
public struct ChallengesFeature: LedgerFeature {
    /// The feature, to register in ``Ledger/Options/features`` (``standardFeatures`` holds one).
    public init() {}
    public var name: String { "challenges" }
    public var eventTypes: [any EventPayload.Type] { EventCatalog.challengeTypes }
    public var projectors: [any Projector] { [ChallengesProjector()] }
}

/// Tally's five products, in the order their read models fold, and the notifications read
/// model over them.
public let standardFeatures: [any LedgerFeature] = [
    BudgetingFeature(), NetWorthFeature(), EnvelopesFeature(), ChallengesFeature(), WealthFeature(), NotificationsFeature(),
]

extension Ledger.Options {
    /// Options with every product registered (``standardFeatures``), as the `tally` command
    /// opens a store.
    ///
    /// ```swift
    /// let ledger = try Ledger.open(at: "books", options: .standard)
    /// ```
    public static var standard: Ledger.Options { Ledger.Options(features: standardFeatures) }
}
