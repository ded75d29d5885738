// The double-entry meaning of the engine's own events: opening balances, journal entries
// and transfers move money; the ledger's creation, its settings, closing an account, a
// balance assertion, prices and FX rates do not.

extension AccountOpened: MovesMoney {
    /// An opening balance moves from Equity:Opening-Balances into the account.
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        guard let opening = openingBalance, !opening.isZero else { return [] }
        return try PostingRules.move(opening, from: LedgerAccounts.openingBalances, to: account, at: effectiveAt)
    }
}

extension JournalEntryPosted: MovesMoney {
    /// The amount moves from the counter account into the account.
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        try PostingRules.move(amount, from: counterAccount, to: account, at: effectiveAt)
    }
}

extension TransferMade: MovesMoney {
    /// The amount moves from source to target; across currencies, through the conversion
    /// account, so each currency balances on its own.
    public func postings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] {
        guard let received, received.commodity != amount.commodity else {
            return try PostingRules.move(amount, from: source, to: target, at: effectiveAt)
        }
        return try PostingRules.move(amount, from: source, to: LedgerAccounts.conversion, at: effectiveAt)
            + PostingRules.move(received, from: LedgerAccounts.conversion, to: target, at: effectiveAt)
    }
}

extension LedgerCreated: MovesNoMoney {}
extension BaseCurrencySet: MovesNoMoney {}
extension AccountClosed: MovesNoMoney {}
extension BalanceAsserted: MovesNoMoney {}
extension PriceQuoted: MovesNoMoney {}
extension FXRateSet: MovesNoMoney {}
extension PriceStalenessSet: MovesNoMoney {}
extension DueSoonWindowSet: MovesNoMoney {}
extension PageSizeSet: MovesNoMoney {}
extension CommodityDeclared: MovesNoMoney {}
