public import TallyEngine
// The double-entry meaning of the wealth account's events (docs/domain.md §1): a deposit lands in
// the wallet, a split moves it to Spend and Invest, purchases and withdrawals leave Spend,
// a round-up moves from Spend to Invest. Settings and card states move nothing.

extension DepositReceived: MovesMoney {
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        try PostingRules.move(amount, from: LedgerAccounts.deposits, to: LedgerAccounts.wallet(account), at: effectiveAt)
    }
}

extension DepositSplit: MovesMoney {
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        let wallet = LedgerAccounts.wallet(account)
        return try PostingRules.move(spend, from: wallet, to: LedgerAccounts.spend(account), at: effectiveAt)
            + PostingRules.move(invest, from: wallet, to: LedgerAccounts.invest(account), at: effectiveAt)
    }
}

extension PurchaseMade: MovesMoney {
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        try PostingRules.move(amount, from: LedgerAccounts.spend(account), to: LedgerAccounts.purchases, at: effectiveAt)
    }
}

extension RoundUpApplied: MovesMoney {
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        try PostingRules.move(amount, from: LedgerAccounts.spend(account), to: LedgerAccounts.invest(account), at: effectiveAt)
    }
}

extension WithdrawalMade: MovesMoney {
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        try PostingRules.move(amount, from: LedgerAccounts.spend(account), to: LedgerAccounts.withdrawals, at: effectiveAt)
    }
}

extension SplitRuleSet: MovesNoMoney {}
extension RoundUpsSwitched: MovesNoMoney {}
extension AutomationPaused: MovesNoMoney {}
extension AutomationResumed: MovesNoMoney {}
extension CardFrozen: MovesNoMoney {}
extension CardUnfrozen: MovesNoMoney {}
extension RoundUpSkipped: MovesNoMoney {}
extension RoundUpIncrementSet: MovesNoMoney {}
extension RoundUpNotDefined: MovesNoMoney {}
