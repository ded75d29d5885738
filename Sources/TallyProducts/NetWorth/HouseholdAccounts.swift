import TallyEngine

/// Where a net worth line comes from (its source): an item added with the net-worth
/// commands, or one of the ledger's own accounts that holds the household's money
/// (docs/domain.md §4, "Household").
public enum NetWorthOrigin: String, Hashable, Sendable, CaseIterable {
    /// An asset or liability added by hand (`asset add`, `liability add`): `item`.
    case item
    /// The wealth account's wallet (deposits not split yet), Spend or Invest:
    /// `wealth_account`.
    case wealthAccount = "wealth_account"
    /// A user account of the ledger, `Assets:…` or `Liabilities:…`: the envelope product's
    /// accounts and cards, and the plain wallet's accounts: `account`.
    case account
}

/// Which of the ledger's accounts count in the household's net worth, and how: the one
/// place that decides it (docs/domain.md §4, "Household").
///
/// Counted, each account once per commodity it holds, at its balance at the point:
/// - the wealth account's wallet, Spend and Invest (assets; Invest in `investments`, the
///   others in `cash`);
/// - every `Assets:…` account (an asset in `cash`) and every `Liabilities:…` account (a
///   liability in `other`, what it owes as a positive amount: a card's balance).
///
/// Not counted: envelopes (`Envelopes:…`) and savings pots (`Budget:Pots:…`) only earmark
/// money already held in an account; the budget's current balance (`Budget:Current`) is a
/// reference copy of a bank balance the household records as an account or an item, so
/// counting it would count that money twice; income, expense, equity and external
/// accounts hold nobody's money.
enum HouseholdAccounts {
    /// The holdings the accounts among `balances` give, by account name then commodity code
    /// (the order of the balance queries). The value of each is its balance at `asOf`
    /// (source ``ValueSource/balance``), positive for what a liability owes.
    ///
    /// - Throws: ``MoneyError`` when a liability's balance cannot be negated (never, for a
    ///   balance the journal holds).
    static func holdings(from balances: [AccountBalance], asOf: Instant) throws -> [NetWorthHolding] {
        try balances.compactMap { balance in
            guard !balance.amount.isZero, let counted = counted(balance) else { return nil }
            let owed = counted.kind == .liability ? try balance.amount.negated() : balance.amount
            return NetWorthHolding(
                kind: counted.kind, itemId: balance.account, name: balance.account, category: counted.category,
                value: ActiveValue(value: owed, source: .balance, valuedAt: asOf, pricedSymbol: nil), origin: counted.origin)
        }
    }

    /// How one balance counts; nil when its account does not count.
    private static func counted(_ balance: AccountBalance) -> (kind: ItemKind, origin: NetWorthOrigin, category: String)? {
        switch balance.kind {
        case .wallet, .spend:
            return (ItemKind.asset, NetWorthOrigin.wealthAccount, AssetCategory.cash.rawValue)
        case .invest:
            return (ItemKind.asset, NetWorthOrigin.wealthAccount, AssetCategory.investments.rawValue)
        case .asset where isUserAccount(balance.account, first: ["Assets", "Asset"]):
            return (ItemKind.asset, NetWorthOrigin.account, AssetCategory.cash.rawValue)
        case .liability where isUserAccount(balance.account, first: ["Liabilities", "Liability"]):
            return (ItemKind.liability, NetWorthOrigin.account, LiabilityCategory.other.rawValue)
        default:
            return nil
        }
    }

    /// Whether the account's first segment is one of `first` (a user account, not a
    /// product's, e.g. `Budget:Current`, which also reads as an asset).
    private static func isUserAccount(_ account: String, first: [String]) -> Bool {
        guard let segment = account.split(separator: ":", maxSplits: 1).first else { return false }
        return first.contains(String(segment))
    }
}
