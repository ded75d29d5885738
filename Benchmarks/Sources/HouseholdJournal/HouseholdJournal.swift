public import Tally
import TallyLog

/// A deterministic synthetic household: `transactions` two-legged entries spread evenly over
/// twenty years (2006-01-01 through 2025-12-31), the same for a given seed on every machine.
///
/// The household has a checking and a savings account, a credit card, a salary, interest,
/// ten spending categories and a euro wallet with its own income and travel spending. Every
/// account holds one currency, and no account is the parent of another, so that every tool's
/// "balance of every account" means the same thing.
///
/// ```swift
/// let journal = HouseholdJournal(transactions: 100_000, seed: 42)
/// try journal.write(.tallyCSV, to: "/tmp/household.csv")
/// let expected = journal.balances(through: try LocalDate(parsing: "2016-06-30"))
/// ```
public struct HouseholdJournal: Sendable {
    /// How many entries the journal has (the first two are opening balances).
    public let transactions: Int
    /// The seed of the generator.
    public let seed: UInt64

    /// The first day of the journal.
    public static let firstDate = LocalDate(daysSinceEpoch: 13_149)  // 2006-01-01
    /// How many days the journal spans.
    public static let dayCount = 7_305  // 2006-01-01 through 2025-12-31

    /// Creates a journal description; nothing is generated until it is written or summed.
    /// - Parameters:
    ///   - transactions: the number of entries, at least 2.
    ///   - seed: the generator's seed.
    public init(transactions: Int, seed: UInt64 = 42) {
        precondition(transactions >= 2, "a household journal has at least its two opening balances")
        self.transactions = transactions
        self.seed = seed
    }

    /// One entry: `amountMinorUnits` of `currency` move into `account` out of `counterAccount`.
    public struct Entry: Hashable, Sendable {
        /// The entry's 1-based position in the journal.
        public let number: Int
        /// The day it happened.
        public let date: LocalDate
        /// The account that receives the amount.
        public let account: String
        /// The account the amount comes from.
        public let counterAccount: String
        /// The amount in hundredths (both currencies have two decimals); positive.
        public let amountMinorUnits: Int64
        /// `USD` or `EUR`.
        public let currency: String
        /// Who was paid or who paid.
        public let payee: String
        /// A free-text category.
        public let category: String
        /// The bank's transaction id, for entries that came from a bank.
        public let externalId: String?

        /// The amount as a plain decimal with two places: `42.10`, `-42.10` when `negated`.
        public func amountText(negated: Bool = false) -> String {
            HouseholdJournal.decimalText(negated ? -amountMinorUnits : amountMinorUnits)
        }
    }

    /// Calls `body` with every entry, in date order.
    public func forEach(_ body: (Entry) throws -> Void) rethrows {
        var random = SplitMix64(seed: seed)
        try body(Entry(
            number: 1, date: Self.firstDate, account: "Assets:Checking", counterAccount: "Equity:OpeningBalances",
            amountMinorUnits: 500_000, currency: "USD", payee: "Opening balance", category: "Opening", externalId: nil))
        try body(Entry(
            number: 2, date: Self.firstDate, account: "Assets:WalletEUR", counterAccount: "Equity:OpeningBalancesEUR",
            amountMinorUnits: 50_000, currency: "EUR", payee: "Opening balance", category: "Opening", externalId: nil))
        let remaining = transactions - 2
        guard remaining > 0 else { return }
        for index in 0..<remaining {
            let day = index * Self.dayCount / remaining
            let date = Self.firstDate.adding(days: day)
            let pick = Int(random.next() % UInt64(Self.totalWeight))
            let kind = Self.kind(at: pick)
            let span = UInt64(kind.maximumMinorUnits - kind.minimumMinorUnits + 1)
            let amount = kind.minimumMinorUnits + Int64(random.next() % span)
            let payee = kind.payees[Int(random.next() % UInt64(kind.payees.count))]
            let number = index + 3
            try body(Entry(
                number: number, date: date, account: kind.account, counterAccount: kind.counterAccount,
                amountMinorUnits: amount, currency: kind.currency, payee: payee, category: kind.category,
                externalId: kind.fromBank ? "bank-\(seed)-\(number)" : nil))
        }
    }

    /// Every account's balance at the end of `date` (entries on that day included), sorted by
    /// account then currency, zero balances left out: the answer every tool must print.
    public func balances(through date: LocalDate) -> [(account: String, currency: String, minorUnits: Int64)] {
        var totals: [String: [String: Int64]] = [:]
        forEach { entry in
            guard entry.date <= date else { return }
            totals[entry.account, default: [:]][entry.currency, default: 0] += entry.amountMinorUnits
            totals[entry.counterAccount, default: [:]][entry.currency, default: 0] -= entry.amountMinorUnits
        }
        var rows: [(account: String, currency: String, minorUnits: Int64)] = []
        for account in totals.keys.sorted(by: Self.byteOrder) {
            for (currency, amount) in totals[account]!.sorted(by: { Self.byteOrder($0.key, $1.key) }) where amount != 0 {
                rows.append((account, currency, amount))
            }
        }
        return rows
    }

    /// Every account the journal can name, with its currency, sorted.
    public static var accounts: [(name: String, currency: String)] {
        var seen: [String: String] = [
            "Equity:OpeningBalances": "USD", "Assets:Checking": "USD",
            "Equity:OpeningBalancesEUR": "EUR", "Assets:WalletEUR": "EUR",
        ]
        for kind in kinds {
            seen[kind.account] = kind.currency
            seen[kind.counterAccount] = kind.currency
        }
        return seen.sorted { byteOrder($0.key, $1.key) }.map { ($0.key, $0.value) }
    }

    /// Sorts as SQLite's and C's byte-wise collation do.
    static func byteOrder(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// `1234` → `12.34`, `-5` → `-0.05`.
    static func decimalText(_ minorUnits: Int64) -> String {
        let magnitude = minorUnits.magnitude
        let cents = magnitude % 100
        return (minorUnits < 0 ? "-" : "") + String(magnitude / 100) + (cents < 10 ? ".0" : ".") + String(cents)
    }

    // MARK: The household's habits

    struct Kind: Sendable {
        let weight: Int
        let account: String
        let counterAccount: String
        let currency: String
        let minimumMinorUnits: Int64
        let maximumMinorUnits: Int64
        let category: String
        let fromBank: Bool
        let payees: [String]
    }

    static let kinds: [Kind] = [
        Kind(weight: 4, account: "Assets:Checking", counterAccount: "Income:Salary", currency: "USD",
             minimumMinorUnits: 250_000, maximumMinorUnits: 450_000, category: "Salary", fromBank: true,
             payees: ["ACME, Inc.", "Globex Corporation"]),
        Kind(weight: 1, account: "Assets:Savings", counterAccount: "Income:Interest", currency: "USD",
             minimumMinorUnits: 1, maximumMinorUnits: 2_000, category: "Interest", fromBank: true,
             payees: ["First Savings Bank"]),
        Kind(weight: 24, account: "Expenses:Groceries", counterAccount: "Liabilities:CreditCard", currency: "USD",
             minimumMinorUnits: 250, maximumMinorUnits: 18_000, category: "Groceries", fromBank: true,
             payees: ["Fresh Market", "Corner Grocer", "Whole Foods", "Farmers Market"]),
        Kind(weight: 10, account: "Expenses:DiningOut", counterAccount: "Liabilities:CreditCard", currency: "USD",
             minimumMinorUnits: 350, maximumMinorUnits: 12_000, category: "Dining Out", fromBank: true,
             payees: ["Joe's Diner", "Pizza Palace", "Noodle Bar", "Cafe Luna"]),
        Kind(weight: 8, account: "Expenses:Transportation", counterAccount: "Assets:Checking", currency: "USD",
             minimumMinorUnits: 200, maximumMinorUnits: 9_000, category: "Transportation", fromBank: true,
             payees: ["City Transit", "Fuel Stop", "RideShare"]),
        Kind(weight: 5, account: "Expenses:Bills", counterAccount: "Assets:Checking", currency: "USD",
             minimumMinorUnits: 4_000, maximumMinorUnits: 30_000, category: "Bills", fromBank: true,
             payees: ["Power & Light", "Water Works", "Fiber Internet", "Mobile Co"]),
        Kind(weight: 5, account: "Expenses:Entertainment", counterAccount: "Liabilities:CreditCard", currency: "USD",
             minimumMinorUnits: 500, maximumMinorUnits: 8_000, category: "Entertainment", fromBank: true,
             payees: ["Cinema City", "Streamflix", "Concert Hall"]),
        Kind(weight: 5, account: "Expenses:Shopping", counterAccount: "Liabilities:CreditCard", currency: "USD",
             minimumMinorUnits: 500, maximumMinorUnits: 25_000, category: "Shopping", fromBank: true,
             payees: ["Department Store", "Online Shop", "Book Nook"]),
        Kind(weight: 2, account: "Expenses:PersonalCare", counterAccount: "Assets:Cash", currency: "USD",
             minimumMinorUnits: 1_000, maximumMinorUnits: 6_000, category: "Personal Care", fromBank: false,
             payees: ["Barber", "Pharmacy"]),
        Kind(weight: 1, account: "Expenses:Education", counterAccount: "Assets:Checking", currency: "USD",
             minimumMinorUnits: 2_000, maximumMinorUnits: 50_000, category: "Education", fromBank: true,
             payees: ["Community College", "Online Course"]),
        Kind(weight: 2, account: "Expenses:Lifestyle", counterAccount: "Assets:Cash", currency: "USD",
             minimumMinorUnits: 500, maximumMinorUnits: 9_000, category: "Lifestyle", fromBank: false,
             payees: ["Gym", "Yoga Studio"]),
        Kind(weight: 2, account: "Expenses:General", counterAccount: "Assets:Cash", currency: "USD",
             minimumMinorUnits: 100, maximumMinorUnits: 4_000, category: "General", fromBank: false,
             payees: ["Hardware Store", "Post Office"]),
        Kind(weight: 3, account: "Assets:Cash", counterAccount: "Assets:Checking", currency: "USD",
             minimumMinorUnits: 2_000, maximumMinorUnits: 20_000, category: "Cash withdrawal", fromBank: true,
             payees: ["ATM"]),
        Kind(weight: 6, account: "Liabilities:CreditCard", counterAccount: "Assets:Checking", currency: "USD",
             minimumMinorUnits: 5_000, maximumMinorUnits: 120_000, category: "Card payment", fromBank: true,
             payees: ["Card payment"]),
        Kind(weight: 8, account: "Assets:Savings", counterAccount: "Assets:Checking", currency: "USD",
             minimumMinorUnits: 5_000, maximumMinorUnits: 100_000, category: "Savings", fromBank: true,
             payees: ["Transfer to savings"]),
        Kind(weight: 3, account: "Assets:WalletEUR", counterAccount: "Income:FreelanceEUR", currency: "EUR",
             minimumMinorUnits: 5_000, maximumMinorUnits: 80_000, category: "Freelance", fromBank: true,
             payees: ["Studio Berlin", "Agence Paris"]),
        Kind(weight: 8, account: "Expenses:TravelEUR", counterAccount: "Assets:WalletEUR", currency: "EUR",
             minimumMinorUnits: 300, maximumMinorUnits: 20_000, category: "Travel", fromBank: true,
             payees: ["Hotel Lisboa", "Rail Europe", "Trattoria Roma"]),
    ]

    static let totalWeight = kinds.reduce(0) { $0 + $1.weight }

    static func kind(at pick: Int) -> Kind {
        var rest = pick
        for kind in kinds {
            if rest < kind.weight { return kind }
            rest -= kind.weight
        }
        preconditionFailure("pick \(pick) is past the total weight \(totalWeight)")
    }
}
