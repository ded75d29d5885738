/// Every kind of event in the catalog, one case per type, each wrapping its payload.
///
/// Projectors switch over this enum, so adding a type makes the compiler point at every
/// fold that must decide what it means.
public indirect enum EventBody: Hashable, Sendable {
    case ledgerCreated(LedgerCreated)
    case baseCurrencySet(BaseCurrencySet)
    case accountOpened(AccountOpened)
    case accountClosed(AccountClosed)
    case journalEntryPosted(JournalEntryPosted)
    case transferMade(TransferMade)
    case balanceAsserted(BalanceAsserted)
    case depositReceived(DepositReceived)
    case depositSplit(DepositSplit)
    case splitRuleSet(SplitRuleSet)
    case roundUpsSwitched(RoundUpsSwitched)
    case automationPaused(AutomationPaused)
    case automationResumed(AutomationResumed)
    case cardFrozen(CardFrozen)
    case cardUnfrozen(CardUnfrozen)
    case purchaseMade(PurchaseMade)
    case roundUpApplied(RoundUpApplied)
    case roundUpSkipped(RoundUpSkipped)
    case withdrawalMade(WithdrawalMade)
    case transactionRecorded(TransactionRecorded)
    case transactionAmended(TransactionAmended)
    case transactionDeleted(TransactionDeleted)
    case transactionRecategorised(TransactionRecategorised)
    case bankConnected(BankConnected)
    case bankDisconnected(BankDisconnected)
    case referenceBalanceSet(ReferenceBalanceSet)
    case budgetSet(BudgetSet)
    case budgetDeleted(BudgetDeleted)
    case potCreated(PotCreated)
    case potFunded(PotFunded)
    case potWithdrawn(PotWithdrawn)
    case potDeleted(PotDeleted)
    case recurringDefined(RecurringDefined)
    case recurringRemoved(RecurringRemoved)
    case recurringOccurrenceGenerated(RecurringOccurrenceGenerated)
    case envelopeCreated(EnvelopeCreated)
    case envelopeBudgetChanged(EnvelopeBudgetChanged)
    case envelopeFunded(EnvelopeFunded)
    case envelopeRolloverSet(EnvelopeRolloverSet)
    case envelopeDeleted(EnvelopeDeleted)
    case challengeStarted(ChallengeStarted)
    case challengeStepCompleted(ChallengeStepCompleted)
    case assetAdded(AssetAdded)
    case assetTagged(AssetTagged)
    case assetRemoved(AssetRemoved)
    case liabilityAdded(LiabilityAdded)
    case liabilityRemoved(LiabilityRemoved)
    case valuationRecorded(ValuationRecorded)
    case valuationOverrideCleared(ValuationOverrideCleared)
    case positionSet(PositionSet)
    case priceQuoted(PriceQuoted)
    case fxRateSet(FXRateSet)
    case reminderSet(ReminderSet)
    case reminderCompleted(ReminderCompleted)
    case priceStalenessSet(PriceStalenessSet)
}

extension EventBody {
    /// The payload inside, as the protocol every payload conforms to.
    public var payload: any EventPayload {
        switch self {
        case .ledgerCreated(let payload): payload
        case .baseCurrencySet(let payload): payload
        case .accountOpened(let payload): payload
        case .accountClosed(let payload): payload
        case .journalEntryPosted(let payload): payload
        case .transferMade(let payload): payload
        case .balanceAsserted(let payload): payload
        case .depositReceived(let payload): payload
        case .depositSplit(let payload): payload
        case .splitRuleSet(let payload): payload
        case .roundUpsSwitched(let payload): payload
        case .automationPaused(let payload): payload
        case .automationResumed(let payload): payload
        case .cardFrozen(let payload): payload
        case .cardUnfrozen(let payload): payload
        case .purchaseMade(let payload): payload
        case .roundUpApplied(let payload): payload
        case .roundUpSkipped(let payload): payload
        case .withdrawalMade(let payload): payload
        case .transactionRecorded(let payload): payload
        case .transactionAmended(let payload): payload
        case .transactionDeleted(let payload): payload
        case .transactionRecategorised(let payload): payload
        case .bankConnected(let payload): payload
        case .bankDisconnected(let payload): payload
        case .referenceBalanceSet(let payload): payload
        case .budgetSet(let payload): payload
        case .budgetDeleted(let payload): payload
        case .potCreated(let payload): payload
        case .potFunded(let payload): payload
        case .potWithdrawn(let payload): payload
        case .potDeleted(let payload): payload
        case .recurringDefined(let payload): payload
        case .recurringRemoved(let payload): payload
        case .recurringOccurrenceGenerated(let payload): payload
        case .envelopeCreated(let payload): payload
        case .envelopeBudgetChanged(let payload): payload
        case .envelopeFunded(let payload): payload
        case .envelopeRolloverSet(let payload): payload
        case .envelopeDeleted(let payload): payload
        case .challengeStarted(let payload): payload
        case .challengeStepCompleted(let payload): payload
        case .assetAdded(let payload): payload
        case .assetTagged(let payload): payload
        case .assetRemoved(let payload): payload
        case .liabilityAdded(let payload): payload
        case .liabilityRemoved(let payload): payload
        case .valuationRecorded(let payload): payload
        case .valuationOverrideCleared(let payload): payload
        case .positionSet(let payload): payload
        case .priceQuoted(let payload): payload
        case .fxRateSet(let payload): payload
        case .reminderSet(let payload): payload
        case .reminderCompleted(let payload): payload
        case .priceStalenessSet(let payload): payload
        }
    }

    /// The payload's type, without boxing the payload in an existential (a hot path of
    /// every fold: ``type``).
    var payloadType: any EventPayload.Type {
        switch self {
        case .ledgerCreated: LedgerCreated.self
        case .baseCurrencySet: BaseCurrencySet.self
        case .accountOpened: AccountOpened.self
        case .accountClosed: AccountClosed.self
        case .journalEntryPosted: JournalEntryPosted.self
        case .transferMade: TransferMade.self
        case .balanceAsserted: BalanceAsserted.self
        case .depositReceived: DepositReceived.self
        case .depositSplit: DepositSplit.self
        case .splitRuleSet: SplitRuleSet.self
        case .roundUpsSwitched: RoundUpsSwitched.self
        case .automationPaused: AutomationPaused.self
        case .automationResumed: AutomationResumed.self
        case .cardFrozen: CardFrozen.self
        case .cardUnfrozen: CardUnfrozen.self
        case .purchaseMade: PurchaseMade.self
        case .roundUpApplied: RoundUpApplied.self
        case .roundUpSkipped: RoundUpSkipped.self
        case .withdrawalMade: WithdrawalMade.self
        case .transactionRecorded: TransactionRecorded.self
        case .transactionAmended: TransactionAmended.self
        case .transactionDeleted: TransactionDeleted.self
        case .transactionRecategorised: TransactionRecategorised.self
        case .bankConnected: BankConnected.self
        case .bankDisconnected: BankDisconnected.self
        case .referenceBalanceSet: ReferenceBalanceSet.self
        case .budgetSet: BudgetSet.self
        case .budgetDeleted: BudgetDeleted.self
        case .potCreated: PotCreated.self
        case .potFunded: PotFunded.self
        case .potWithdrawn: PotWithdrawn.self
        case .potDeleted: PotDeleted.self
        case .recurringDefined: RecurringDefined.self
        case .recurringRemoved: RecurringRemoved.self
        case .recurringOccurrenceGenerated: RecurringOccurrenceGenerated.self
        case .envelopeCreated: EnvelopeCreated.self
        case .envelopeBudgetChanged: EnvelopeBudgetChanged.self
        case .envelopeFunded: EnvelopeFunded.self
        case .envelopeRolloverSet: EnvelopeRolloverSet.self
        case .envelopeDeleted: EnvelopeDeleted.self
        case .challengeStarted: ChallengeStarted.self
        case .challengeStepCompleted: ChallengeStepCompleted.self
        case .assetAdded: AssetAdded.self
        case .assetTagged: AssetTagged.self
        case .assetRemoved: AssetRemoved.self
        case .liabilityAdded: LiabilityAdded.self
        case .liabilityRemoved: LiabilityRemoved.self
        case .valuationRecorded: ValuationRecorded.self
        case .valuationOverrideCleared: ValuationOverrideCleared.self
        case .positionSet: PositionSet.self
        case .priceQuoted: PriceQuoted.self
        case .fxRateSet: FXRateSet.self
        case .reminderSet: ReminderSet.self
        case .reminderCompleted: ReminderCompleted.self
        case .priceStalenessSet: PriceStalenessSet.self
        }
    }

    /// Every current payload type, in log-code order: the catalog's single list.
    public static let payloadTypes: [any EventPayload.Type] = [
        LedgerCreated.self,
        BaseCurrencySet.self,
        AccountOpened.self,
        AccountClosed.self,
        JournalEntryPosted.self,
        TransferMade.self,
        BalanceAsserted.self,
        DepositReceived.self,
        DepositSplit.self,
        SplitRuleSet.self,
        RoundUpsSwitched.self,
        AutomationPaused.self,
        AutomationResumed.self,
        CardFrozen.self,
        CardUnfrozen.self,
        PurchaseMade.self,
        RoundUpApplied.self,
        RoundUpSkipped.self,
        WithdrawalMade.self,
        TransactionRecorded.self,
        TransactionAmended.self,
        TransactionDeleted.self,
        TransactionRecategorised.self,
        BankConnected.self,
        BankDisconnected.self,
        ReferenceBalanceSet.self,
        BudgetSet.self,
        BudgetDeleted.self,
        PotCreated.self,
        PotFunded.self,
        PotWithdrawn.self,
        PotDeleted.self,
        RecurringDefined.self,
        RecurringRemoved.self,
        RecurringOccurrenceGenerated.self,
        EnvelopeCreated.self,
        EnvelopeBudgetChanged.self,
        EnvelopeFunded.self,
        EnvelopeRolloverSet.self,
        EnvelopeDeleted.self,
        ChallengeStarted.self,
        ChallengeStepCompleted.self,
        AssetAdded.self,
        AssetTagged.self,
        AssetRemoved.self,
        LiabilityAdded.self,
        LiabilityRemoved.self,
        ValuationRecorded.self,
        ValuationOverrideCleared.self,
        PositionSet.self,
        PriceQuoted.self,
        FXRateSet.self,
        ReminderSet.self,
        ReminderCompleted.self,
        PriceStalenessSet.self,
    ]
}
