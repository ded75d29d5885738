extension EventCatalog {
    /// The engine's own event types: the ledger, its accounts and their movements, prices and
    /// FX rates.
    public static let engineTypes: [any EventPayload.Type] = [
        LedgerCreated.self, BaseCurrencySet.self, AccountOpened.self, AccountClosed.self,
        JournalEntryPosted.self, TransferMade.self, BalanceAsserted.self,
        PriceQuoted.self, FXRateSet.self,
    ]

    /// The wealth account's event types.
    public static let wealthTypes: [any EventPayload.Type] = [
        DepositReceived.self, DepositSplit.self, SplitRuleSet.self, RoundUpsSwitched.self,
        AutomationPaused.self, AutomationResumed.self, CardFrozen.self, CardUnfrozen.self,
        PurchaseMade.self, RoundUpApplied.self, RoundUpSkipped.self, WithdrawalMade.self,
    ]

    /// The monthly budget's event types: transactions, bank links, the reference balance,
    /// budgets, pots and recurring items.
    public static let budgetingTypes: [any EventPayload.Type] = [
        TransactionRecorded.self, TransactionAmended.self, TransactionDeleted.self, TransactionRecategorised.self,
        BankConnected.self, BankDisconnected.self, ReferenceBalanceSet.self, BudgetSet.self, BudgetDeleted.self,
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
        ReminderSet.self, ReminderCompleted.self, PriceStalenessSet.self,
    ]

    /// The engine's and every product's event types.
    // swiftlint:disable:next force_try
    public static let standard = try! EventCatalog(engineTypes + wealthTypes + budgetingTypes + envelopeTypes + challengeTypes + netWorthTypes)
}
