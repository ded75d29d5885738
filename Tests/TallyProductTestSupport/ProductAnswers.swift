public import TallyEngine
import TallyProducts

/// Every product's answers at one (as of, known at) point, each by name, as text: balances,
/// audits of accounts, wealth summaries and histories, the budget overview, budgets,
/// transactions and pots, envelope statuses and the accounts' total, net worth, the X-ray,
/// challenges and recurring items. An answer that throws is its error's text, so that two
/// ledgers refusing alike compare equal. Two ledgers with the same events give equal answers.
public struct ProductAnswers: Equatable, Sendable {
    /// Each answer's text by its name (`balances`, `audit Assets:Bank`, `wealth summary main` …).
    public let answers: [String: String]

    /// Asks `ledger` everything at `asOf` as known at `knownAt`; `accounts` are the accounts
    /// to audit and `wealthAccounts` the wealth accounts to ask about.
    public init(_ ledger: Ledger, asOf: Instant, knownAt: Instant?, accounts: [String], wealthAccounts: [String]) {
        var answers: [String: String] = [:]
        func ask(_ name: String, _ body: () throws -> Any) {
            do { answers[name] = String(describing: try body()) } catch { answers[name] = "error: \(error)" }
        }
        let date = ledger.calendar.date(of: asOf)
        let month = ledger.calendar.month(of: asOf)
        ask("balances") { try ledger.balances(asOf: asOf, knownAt: knownAt) }
        for account in accounts {
            ask("audit \(account)") { try ledger.audit(account: account, through: date, knownAt: knownAt) }
        }
        for account in wealthAccounts {
            ask("wealth summary \(account)") { try ledger.wealthSummary(account: account, asOf: asOf, knownAt: knownAt) }
            ask("wealth history \(account)") {
                try ledger.wealthHistory(account: account, pageSize: Ledger.wealthHistoryPageSizeLimit, asOf: asOf, knownAt: knownAt)
            }
        }
        ask("budget overview") { try ledger.budgetOverview(month: month, asOf: asOf, knownAt: knownAt) }
        ask("budgets") { try ledger.budgets(month: month, knownAt: knownAt) }
        ask("transactions") {
            var query = TransactionQuery()
            query.pageSize = BudgetSettings.pageSizeLimit
            return try ledger.transactions(query, asOf: asOf, knownAt: knownAt)
        }
        ask("pots") { try ledger.pots(asOf: asOf, knownAt: knownAt) }
        ask("envelope statuses") { try ledger.envelopeStatuses(asOf: asOf, knownAt: knownAt) }
        ask("envelope total") { try ledger.envelopeAccountsTotal(asOf: asOf, knownAt: knownAt) }
        ask("net worth") { try ledger.netWorth(asOf: asOf, knownAt: knownAt) }
        ask("x-ray") { try ledger.xray(asOf: asOf, knownAt: knownAt) }
        ask("challenges") { try ledger.challengeProgresses(asOf: asOf, knownAt: knownAt) }
        ask("recurring items") { try ledger.recurringItems(asOf: asOf, knownAt: knownAt) }
        self.answers = answers
    }

    /// Every account that ever moved, by name, and every wealth account: what to ask about.
    public static func subjects(of ledger: Ledger) throws -> (accounts: [String], wealthAccounts: [String]) {
        (try ledger.read { db in try AccountRecords.names(startingWith: "", db) }, try ledger.wealthHistories().map(\.account))
    }

    /// The names of the answers that differ from `other`'s.
    public func differences(from other: ProductAnswers) -> [String] {
        Set(answers.keys).union(other.answers.keys).sorted().filter { answers[$0] != other.answers[$0] }
    }
}

