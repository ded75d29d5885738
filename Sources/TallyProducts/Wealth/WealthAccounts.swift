public import TallyEngine

/// The wealth account's accounts.
extension LedgerAccounts {
    // MARK: Wealth account (docs/domain.md §1)

    /// Where deposits land before they are split.
    public static func wallet(_ account: String) -> String { "Wealth:\(account):Wallet" }
    /// What card purchases and withdrawals are paid from.
    public static func spend(_ account: String) -> String { "Wealth:\(account):Spend" }
    /// What splits and round-ups invest.
    public static func invest(_ account: String) -> String { "Wealth:\(account):Invest" }
}
