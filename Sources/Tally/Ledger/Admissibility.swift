import GRDB

/// The invariants an event must keep where it lands in the log, for events that arrive
/// already decided (an NDJSON import, `tally append`, ``Ledger/appendEvents(_:)``): what
/// the commands would never record. The decisions such an event carries (a split's parts,
/// a round-up's amount) are not made again; only what no decision may break is checked:
///
/// - one `ledger_created`, the first event of the log;
/// - amounts that are positive by meaning (deposits, purchases, withdrawals, round-ups,
///   pot targets and moves, prices and FX rates), and split parts that are not negative;
/// - a price names a symbol other than its currency, a rate two different currencies;
/// - the pots a pot event names exist (and are not deleted);
/// - no wealth balance (Wallet, Spend, Invest) and no pot goes below zero.
///
/// Causes must name an earlier event (the pipeline checks that for every command).
enum Admissibility {
    /// A balance that must stay at or above zero once the event is folded.
    struct ProtectedBalance {
        let account: String
        let commodity: Commodity
    }

    /// Checks `event` (named `label` in messages: its place in the command or in a file)
    /// against the state before it, and returns the balances it moves that must not go below
    /// zero (``checkAfter(_:label:_:_:)``).
    static func checkBefore(_ event: NewEvent, label: String, _ db: Database) throws -> [ProtectedBalance] {
        func refuse(_ code: LedgerError.Code, _ reason: String) -> LedgerError {
            LedgerError(code, "\(label) (\(event.type.name)): \(reason); nothing was appended")
        }
        func positive(_ amount: Money, _ field: String) throws {
            guard amount.isPositive else { throw refuse(.invalidArgument, "'\(field)' must be more than zero") }
        }
        func notNegative(_ amount: Money, _ field: String) throws {
            guard !amount.isNegative else { throw refuse(.invalidArgument, "'\(field)' must not be negative") }
        }
        func potExists(_ id: String) throws {
            guard try PotRules.existing(id, db) != nil else { throw refuse(.notFound, "no pot '\(id)' exists at this point of the log") }
        }
        func protected(_ accounts: [String], _ commodity: Commodity) -> [ProtectedBalance] {
            accounts.map { ProtectedBalance(account: $0, commodity: commodity) }
        }
        switch event.body {
        case .ledgerCreated:
            throw refuse(.notAllowed, "a ledger is created once, by the first event of its log")
        case .depositReceived(let deposit):
            try positive(deposit.amount, "amount")
            return protected([LedgerAccounts.wallet(deposit.account)], deposit.amount.commodity)
        case .depositSplit(let split):
            try notNegative(split.spend, "spend")
            try notNegative(split.invest, "invest")
            return protected([LedgerAccounts.wallet(split.account), LedgerAccounts.spend(split.account), LedgerAccounts.invest(split.account)], split.spend.commodity)
        case .purchaseMade(let purchase):
            try positive(purchase.amount, "amount")
            return protected([LedgerAccounts.spend(purchase.account)], purchase.amount.commodity)
        case .roundUpApplied(let roundUp):
            try positive(roundUp.amount, "amount")
            return protected([LedgerAccounts.spend(roundUp.account)], roundUp.amount.commodity)
        case .withdrawalMade(let withdrawal):
            try positive(withdrawal.amount, "amount")
            return protected([LedgerAccounts.spend(withdrawal.account)], withdrawal.amount.commodity)
        case .potCreated(let pot):
            try positive(pot.target, "target")
            return []
        case .potFunded(let funded):
            try potExists(funded.potId)
            try positive(funded.amount, "amount")
            return []
        case .potWithdrawn(let withdrawn):
            try potExists(withdrawn.potId)
            try positive(withdrawn.amount, "amount")
            return protected([LedgerAccounts.pot(withdrawn.potId)], withdrawn.amount.commodity)
        case .potDeleted(let deleted):
            try potExists(deleted.potId)
            return []
        case .priceQuoted(let quote):
            try positive(quote.price, "price")
            guard quote.symbol != quote.price.commodity else { throw refuse(.invalidArgument, "a symbol cannot be priced in itself") }
            return []
        case .fxRateSet(let rate):
            guard rate.rate.significand > 0 else { throw refuse(.invalidArgument, "'rate' must be more than zero") }
            guard rate.base != rate.quote else { throw refuse(.invalidArgument, "a rate needs two different currencies") }
            return []
        // Signed by meaning, settings, or facts whose own fields the catalog checks.
        case .baseCurrencySet, .accountOpened, .accountClosed, .journalEntryPosted, .transferMade, .balanceAsserted,
             .splitRuleSet, .roundUpsSwitched, .automationPaused, .automationResumed, .cardFrozen, .cardUnfrozen,
             .roundUpSkipped, .transactionRecorded, .transactionAmended, .transactionDeleted, .transactionRecategorised,
             .bankConnected, .bankDisconnected, .referenceBalanceSet, .budgetSet, .budgetDeleted,
             .recurringDefined, .recurringRemoved, .recurringOccurrenceGenerated,
             .envelopeCreated, .envelopeBudgetChanged, .envelopeFunded, .envelopeRolloverSet, .envelopeDeleted,
             .challengeStarted, .challengeStepCompleted, .assetAdded, .assetTagged, .assetRemoved,
             .liabilityAdded, .liabilityRemoved, .valuationRecorded, .valuationOverrideCleared, .positionSet,
             .reminderSet, .reminderCompleted, .priceStalenessSet:
            return []
        }
    }

    /// Checks, once `event` is folded, that none of the balances ``checkBefore(_:label:_:)``
    /// named is below zero.
    static func checkAfter(_ event: Event, label: String, _ balances: [ProtectedBalance], _ db: Database) throws {
        let context = DatabasePostingContext(db: db)
        for balance in balances where try context.balance(of: balance.account, in: balance.commodity) < 0 {
            throw LedgerError(.insufficientFunds, """
                \(label) (\(event.type.name)): it would take \(balance.account) below zero in \(balance.commodity.code); nothing was appended
                """)
        }
    }
}
