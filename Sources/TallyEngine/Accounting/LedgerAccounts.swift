/// The names of the accounts the engine and the products keep, in one place each (the
/// products' in extensions beside them), so that a posting rule, a validation and a query
/// always mean the same account.
///
/// General accounts are named by the user (`Assets:Bank:Checking`); their kind comes
/// from the first name segment, as in ledger-cli.
public enum LedgerAccounts {
    // MARK: General

    /// The counterpart of opening balances.
    public static let openingBalances = "Equity:Opening Balances"
    /// The trading account that balances a cross-currency transfer per currency.
    public static let conversion = "Equity:Conversion"

    /// The outside world that deposits come from (the wallet's and the wealth account's).
    public static let deposits = "External:Deposits"
    /// The outside world that purchases pay.
    public static let purchases = "External:Purchases"
    /// The outside world that withdrawals go to.
    public static let withdrawals = "External:Withdrawals"

    /// The kind of an account from its name: the first segment for user accounts
    /// (`Assets`, `Liabilities`, `Income`, `Expenses`, `Equity`), the product's kind for
    /// product accounts; nil for a name no rule covers.
    public static func kind(of name: String) -> AccountKind? {
        let first = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? name
        switch first {
        case "Assets", "Asset": return .asset
        case "Liabilities", "Liability": return .liability
        case "Income", "Revenue", "Revenues": return .income
        case "Expenses", "Expense": return .expense
        case "Equity": return .equity
        case "External": return .external
        case "Budget":
            return name.hasPrefix("Budget:Pots:") ? .pot : .asset
        case "Wealth":
            if name.hasSuffix(":Spend") { return .spend }
            if name.hasSuffix(":Invest") { return .invest }
            return .wallet
        case "Envelopes": return .envelope
        default: return nil
        }
    }
}
