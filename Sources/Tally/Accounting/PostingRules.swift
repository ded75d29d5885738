/// One leg of a double-entry movement: an amount into (positive) or out of (negative) an
/// account, effective at an instant. The legs of one event sum to zero per commodity.
public struct Posting: Hashable, Sendable {
    public let account: String
    public let amount: Money
    /// When the leg takes effect: the event's effective time, or for the reversal of an
    /// amended transaction, the effective time of the version it reverses.
    public let effectiveAt: Instant

    public init(account: String, amount: Money, effectiveAt: Instant) {
        self.account = account
        self.amount = amount
        self.effectiveAt = effectiveAt
    }
}

/// The version of a budget transaction in force, which amendments, deletions and
/// re-categorisations reverse.
public struct TransactionVersion: Hashable, Sendable {
    public let transactionId: String
    public let account: String
    public let category: BudgetCategory
    public let amount: Money
    public let effectiveAt: Instant
    public let source: TransactionSource

    public init(transactionId: String, account: String, category: BudgetCategory, amount: Money, effectiveAt: Instant, source: TransactionSource) {
        self.transactionId = transactionId
        self.account = account
        self.category = category
        self.amount = amount
        self.effectiveAt = effectiveAt
        self.source = source
    }

    /// The two legs of this version: the account moves by the signed amount, the
    /// category's income or expense account by its opposite.
    func postings() throws -> [Posting] {
        let counter = amount.isNegative ? LedgerAccounts.expense(category) : LedgerAccounts.income(category)
        return [
            Posting(account: account, amount: amount, effectiveAt: effectiveAt),
            Posting(account: counter, amount: try amount.negated(), effectiveAt: effectiveAt),
        ]
    }
}

/// How an event changes a transaction's current version (``PostingRules/versionChange(for:context:)``).
public enum TransactionVersionChange: Hashable, Sendable {
    /// The transaction's version from this event on.
    case set(TransactionVersion)
    /// The transaction is deleted.
    case delete(String)
}

/// What the posting rules may look up: state built by earlier events.
public protocol PostingContext {
    /// The version of a transaction in force before this event, if it exists and is not deleted.
    func currentVersion(of transactionId: String) throws -> TransactionVersion?
    /// An account's balance in a commodity, after every earlier event.
    func balance(of account: String, in commodity: Commodity) throws -> Int64
    /// Every account whose name starts with `prefix`, with its balances.
    func balances(withPrefix prefix: String) throws -> [(account: String, amount: Money)]
}

/// The double-entry meaning of every event that moves money: the one place that says
/// which accounts an event debits and credits. Pure given its context; replay, rebuild
/// and live projection all call it.
public enum PostingRules {
    /// The legs of an event (empty for events that move no money).
    ///
    /// - Throws: `MoneyError` on overflow — the log holds an amount no sum can carry.
    public static func postings(for event: Event, context: some PostingContext) throws -> [Posting] {
        let at = event.effectiveAt
        func leg(_ account: String, _ amount: Money) -> Posting { Posting(account: account, amount: amount, effectiveAt: at) }
        func move(_ amount: Money, from source: String, to target: String) throws -> [Posting] {
            [leg(target, amount), leg(source, try amount.negated())]
        }
        switch event.body {
        case .accountOpened(let opened):
            guard let opening = opened.openingBalance, !opening.isZero else { return [] }
            return try move(opening, from: LedgerAccounts.openingBalances, to: opened.account)
        case .journalEntryPosted(let entry):
            return try move(entry.amount, from: entry.counterAccount, to: entry.account)
        case .transferMade(let transfer):
            guard let received = transfer.received, received.commodity != transfer.amount.commodity else {
                return try move(transfer.amount, from: transfer.source, to: transfer.target)
            }
            return try move(transfer.amount, from: transfer.source, to: LedgerAccounts.conversion)
                + move(received, from: LedgerAccounts.conversion, to: transfer.target)

        case .depositReceived(let deposit):
            return try move(deposit.amount, from: LedgerAccounts.deposits, to: LedgerAccounts.wallet(deposit.account))
        case .depositSplit(let split):
            let wallet = LedgerAccounts.wallet(split.account)
            return try move(split.spend, from: wallet, to: LedgerAccounts.spend(split.account))
                + move(split.invest, from: wallet, to: LedgerAccounts.invest(split.account))
        case .purchaseMade(let purchase):
            return try move(purchase.amount, from: LedgerAccounts.spend(purchase.account), to: LedgerAccounts.purchases)
        case .roundUpApplied(let roundUp):
            return try move(roundUp.amount, from: LedgerAccounts.spend(roundUp.account), to: LedgerAccounts.invest(roundUp.account))
        case .withdrawalMade(let withdrawal):
            return try move(withdrawal.amount, from: LedgerAccounts.spend(withdrawal.account), to: LedgerAccounts.withdrawals)

        case .transactionRecorded, .recurringOccurrenceGenerated:
            guard case .set(let version)? = try versionChange(for: event, context: context) else { return [] }
            return try version.postings()
        case .transactionAmended(let amended):
            guard let previous = try context.currentVersion(of: amended.transactionId),
                  case .set(let next)? = try versionChange(for: event, context: context) else { return [] }
            return try reversal(of: previous) + next.postings()
        case .transactionRecategorised(let change):
            guard let previous = try context.currentVersion(of: change.transactionId), previous.category != change.category,
                  case .set(let next)? = try versionChange(for: event, context: context) else { return [] }
            return try reversal(of: previous) + next.postings()
        case .transactionDeleted(let deleted):
            guard let previous = try context.currentVersion(of: deleted.transactionId) else { return [] }
            return try reversal(of: previous)
        case .referenceBalanceSet(let reference):
            // The reference is the bank balance, pots included: adjust Current so that
            // Current + pots equals it; the difference moved untracked. Version 2 events
            // carry the difference the command measured as of their effective time.
            if let adjustment = reference.adjustment {
                guard !adjustment.isZero else { return [] }
                return try move(adjustment, from: LedgerAccounts.untracked, to: LedgerAccounts.current)
            }
            var held = try context.balance(of: LedgerAccounts.current, in: reference.amount.commodity)
            for pot in try context.balances(withPrefix: "Budget:Pots:") where pot.amount.commodity == reference.amount.commodity {
                held = try add(held, pot.amount.minorUnits)
            }
            let (delta, overflow) = reference.amount.minorUnits.subtractingReportingOverflow(held)
            guard !overflow else { throw MoneyError.overflowing("the reference balance adjustment") }
            guard delta != 0 else { return [] }
            return try move(Money(minorUnits: delta, commodity: reference.amount.commodity), from: LedgerAccounts.untracked, to: LedgerAccounts.current)
        case .potFunded(let funded):
            return try move(funded.amount, from: LedgerAccounts.current, to: LedgerAccounts.pot(funded.potId))
        case .potWithdrawn(let withdrawn):
            return try move(withdrawn.amount, from: LedgerAccounts.pot(withdrawn.potId), to: LedgerAccounts.current)
        case .potDeleted(let deleted):
            guard !deleted.returned.isZero else { return [] }
            return try move(deleted.returned, from: LedgerAccounts.pot(deleted.potId), to: LedgerAccounts.current)

        case .ledgerCreated, .baseCurrencySet, .accountClosed, .balanceAsserted,
             .splitRuleSet, .roundUpsSwitched, .automationPaused, .automationResumed, .cardFrozen, .cardUnfrozen,
             .roundUpSkipped, .bankConnected, .bankDisconnected, .budgetSet, .budgetDeleted, .potCreated,
             .recurringDefined, .recurringRemoved,
             .envelopeCreated, .envelopeBudgetChanged, .envelopeFunded, .envelopeRolloverSet, .envelopeDeleted,
             .challengeStarted, .challengeStepCompleted,
             .assetAdded, .assetTagged, .assetRemoved, .liabilityAdded, .liabilityRemoved, .valuationRecorded,
             .valuationOverrideCleared, .positionSet, .priceQuoted, .fxRateSet, .reminderSet, .reminderCompleted,
             .priceStalenessSet:
            return []
        }
    }

    /// Legs that undo a transaction version, at that version's effective time.
    /// How an event changes a transaction's current version, the one a later amendment or
    /// deletion reverses: recorded and generated transactions start one, an amendment moves
    /// it to its own date with the new amount, a re-categorisation keeps its date, a deletion
    /// ends it. Nil for every other event, and for a change to a transaction with no current
    /// version.
    public static func versionChange(for event: Event, context: some PostingContext) throws -> TransactionVersionChange? {
        switch event.body {
        case .transactionRecorded(let transaction):
            return .set(TransactionVersion(
                transactionId: transaction.transactionId, account: transaction.account ?? LedgerAccounts.current,
                category: transaction.category, amount: transaction.amount, effectiveAt: event.effectiveAt, source: transaction.source))
        case .recurringOccurrenceGenerated(let occurrence):
            return .set(TransactionVersion(
                transactionId: occurrence.transactionId, account: LedgerAccounts.current,
                category: occurrence.category, amount: occurrence.amount, effectiveAt: event.effectiveAt, source: .manual))
        case .transactionAmended(let amended):
            guard let previous = try context.currentVersion(of: amended.transactionId) else { return nil }
            return .set(TransactionVersion(
                transactionId: previous.transactionId, account: previous.account, category: amended.category,
                amount: amended.amount, effectiveAt: event.effectiveAt, source: previous.source))
        case .transactionRecategorised(let change):
            guard let previous = try context.currentVersion(of: change.transactionId) else { return nil }
            return .set(TransactionVersion(
                transactionId: previous.transactionId, account: previous.account, category: change.category,
                amount: previous.amount, effectiveAt: previous.effectiveAt, source: previous.source))
        case .transactionDeleted(let deleted):
            return .delete(deleted.transactionId)
        default:
            return nil
        }
    }

    private static func reversal(of version: TransactionVersion) throws -> [Posting] {
        try version.postings().map { Posting(account: $0.account, amount: try $0.amount.negated(), effectiveAt: $0.effectiveAt) }
    }

    private static func add(_ lhs: Int64, _ rhs: Int64) throws -> Int64 {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        guard !overflow else { throw MoneyError.overflowing("a balance") }
        return sum
    }
}

extension MoneyError {
    /// An overflow while summing, naming what was summed.
    static func overflowing(_ what: String) -> MoneyError {
        MoneyError(.overflow, "\(what) exceeds the largest amount an account can hold")
    }
}
