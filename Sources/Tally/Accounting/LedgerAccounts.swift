/// The names of the accounts the products keep, in one place, so that a posting rule, a
/// validation and a query always mean the same account.
///
/// General accounts are named by the user (`Assets:Bank:Checking`); their kind comes
/// from the first name segment, as in ledger-cli.
public enum LedgerAccounts {
    // MARK: Wealth account (DOMAIN.md §1)

    /// Where deposits land before they are split.
    public static func wallet(_ account: String) -> String { "Wealth:\(account):Wallet" }
    /// What card purchases and withdrawals are paid from.
    public static func spend(_ account: String) -> String { "Wealth:\(account):Spend" }
    /// What splits and round-ups invest.
    public static func invest(_ account: String) -> String { "Wealth:\(account):Invest" }

    /// The outside world that deposits come from.
    public static let deposits = "External:Deposits"
    /// The outside world that card purchases pay.
    public static let purchases = "External:Purchases"
    /// The outside world that withdrawals go to.
    public static let withdrawals = "External:Withdrawals"

    // MARK: Budget product (DOMAIN.md §2)

    /// The budget's current account: reference balance plus transactions, less pots.
    public static let current = "Budget:Current"
    /// A savings pot.
    public static func pot(_ potId: String) -> String { "Budget:Pots:\(potId)" }
    /// Where a category's income comes from.
    public static func income(_ category: BudgetCategory) -> String { "Income:\(category.displayName)" }
    /// Where a category's expenses go.
    public static func expense(_ category: BudgetCategory) -> String { "Expenses:\(category.displayName)" }
    /// The counterpart of reference-balance resets: money that moved untracked.
    public static let untracked = "Equity:Untracked"

    // MARK: General

    /// The counterpart of opening balances.
    public static let openingBalances = "Equity:Opening Balances"
    /// The trading account that balances a cross-currency transfer per currency.
    public static let conversion = "Equity:Conversion"

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
