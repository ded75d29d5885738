public import TallyEngine

/// The budget product's accounts.
extension LedgerAccounts {
    // MARK: Budget product (docs/domain.md §2)

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

    /// Where a transaction of `amount` in `category` is counted: the category's expense
    /// account for a negative amount, its income account otherwise.
    public static func counter(of category: BudgetCategory, for amount: Money) -> String {
        amount.isNegative ? expense(category) : income(category)
    }
}
