import Tally
/// What each product shows the demo household at the end of its tour, a point-in-time
/// answer about the corrected month (now, and as the ledger knew it before the correction),
/// and an audit excerpt: every answer read through the ``Ledger``'s public queries.
///
/// ```swift
/// let dashboard = try DemoDashboard(ledger: ledger, household: household, activity: activity)
/// print(dashboard.netWorth.netWorth, dashboard.pastNetWorthKnownBefore.netWorth)
/// ```
struct DemoDashboard: Hashable, Sendable {
    /// One value of a monthly series.
    struct MonthValue: Hashable, Sendable {
        /// The month.
        let month: Month
        /// Its value at the end of the month.
        let value: Money
    }

    /// The tour's last day: "today" for every answer below.
    let today: LocalDate

    /// The wealth account now.
    let wealth: WealthSummary
    /// Round-ups moved to Invest this month and last month, per currency.
    let roundUpsThisMonth: [Money]
    /// Round-ups moved to Invest last month, per currency.
    let roundUpsLastMonth: [Money]
    /// The wealth account's latest history rows, newest first.
    let wealthHistory: [WealthHistoryEntry]

    /// The budget overview of last month (complete) and this month (in progress).
    let budgetOverviews: [BudgetOverview]
    /// Last month's budgets: spent and remaining per category.
    let budgets: [BudgetStatus]
    /// This month's recurring items: paid, due soon, upcoming.
    let recurring: RecurringStatusReport
    /// The savings pots.
    let pots: [Pot]

    /// Every envelope in the interval containing today.
    let envelopes: [EnvelopeStatus]
    /// The envelope accounts' total in the base currency.
    let envelopeAccounts: EnvelopeAccountsTotal
    /// The savings challenges' progress.
    let challenges: [ChallengeProgress]

    /// Net worth now, with its lines and breakdown.
    let netWorth: NetWorthReport
    /// Net worth 30 days ago.
    let netWorthMonthAgo: NetWorthReport
    /// The change over those 30 days.
    let netWorthChange: Money
    /// Net worth at the end of each of the last six complete months of the tour (a chart's series).
    let netWorthSeries: [MonthValue]
    /// The portfolio X-ray now.
    let xray: XRaySnapshot

    /// The past date asked about: the last day of the corrected month.
    let pastDate: LocalDate
    /// The instant "as known at" looks from: the end of the day before the correction.
    let knownBefore: Instant
    /// When the backdated correction was recorded.
    let correctionRecordedAt: Instant
    /// Net worth at the end of the past date, as the ledger knows it now.
    let pastNetWorth: NetWorthReport
    /// The same, as the ledger knew it before the correction.
    let pastNetWorthKnownBefore: NetWorthReport
    /// Every balance at the end of the past date, as known now.
    let pastBalances: [AccountBalance]
    /// The same, as known before the correction.
    let pastBalancesKnownBefore: [AccountBalance]
    /// The wealth account at the end of the past date.
    let pastWealth: WealthSummary

    /// The account the amended transaction moved (its category's expense account).
    let amendmentAccount: String
    /// The amended transaction's changes to that account: first version, reversal, new version.
    let amendmentAudit: [AuditEntry]
    /// The wealth Invest account.
    let investAccount: String
    /// Invest's changes over the last week, with their causes.
    let investAudit: [AuditEntry]
    /// The envelope whose changes are shown: the first by name.
    let auditedEnvelope: String?
    /// Its changes since the start of last month: budgets, spending, rollovers.
    let envelopeAudit: [AuditEntry]

    /// Reads every answer from `ledger`, which `household` has lived in.
    ///
    /// - Throws: ``LedgerError`` when an answer is missing (the tour did not reach it).
    init(ledger: Ledger, household: DemoHousehold, activity: DemoActivity) throws {
        let calendar = ledger.calendar
        let today = household.lastDay
        let thisMonth = today.month
        let lastMonth = thisMonth.adding(months: -1)
        let account = DemoHousehold.wealthAccount
        self.today = today

        wealth = try ledger.wealthSummary(account: account)
        roundUpsThisMonth = try ledger.roundUpTotal(account: account, month: thisMonth)
        roundUpsLastMonth = try ledger.roundUpTotal(account: account, month: lastMonth)
        wealthHistory = try ledger.wealthHistory(account: account, page: 1, pageSize: 6).entries

        budgetOverviews = [try ledger.budgetOverview(month: lastMonth), try ledger.budgetOverview(month: thisMonth)]
        budgets = try ledger.budgets(month: lastMonth)
        recurring = try ledger.recurringStatus(month: thisMonth, today: today)
        pots = try ledger.pots()

        envelopes = try ledger.envelopeStatuses(asOf: ledger.calendar.endOfDay(today))
        envelopeAccounts = try ledger.envelopeAccountsTotal(asOf: ledger.calendar.endOfDay(today))
        challenges = try ledger.challengeProgresses(asOf: ledger.calendar.endOfDay(today))

        let change = try ledger.netWorthChange(days: 30)
        netWorth = change.end
        netWorthMonthAgo = change.start
        netWorthChange = change.change
        netWorthSeries = try ledger.netWorthSeries(from: max(thisMonth.adding(months: -6), household.firstMonth), through: lastMonth)
            .map { MonthValue(month: $0.month, value: $0.report.netWorth) }
        xray = try ledger.xray()

        pastDate = household.correctedMonth.lastDay
        correctionRecordedAt = household.correctionRecordedAt(calendar)
        knownBefore = calendar.endOfDay(calendar.date(of: correctionRecordedAt).adding(days: -1))
        let pastEnd = calendar.endOfDay(pastDate)
        pastNetWorth = try ledger.netWorth(asOf: pastEnd)
        pastNetWorthKnownBefore = try ledger.netWorth(asOf: pastEnd, knownAt: knownBefore)
        pastBalances = try ledger.balances(asOf: pastEnd)
        pastBalancesKnownBefore = try ledger.balances(asOf: pastEnd, knownAt: knownBefore)
        pastWealth = try ledger.wealthSummary(account: account, asOf: pastEnd)

        amendmentAccount = LedgerAccounts.expense(.diningOut)
        let amendment = Set(activity.amendmentSequences)
        amendmentAudit = try ledger.audit(account: amendmentAccount, from: household.correctedMonth.firstDay, through: pastDate)
            .filter { amendment.contains($0.sequence) }
        investAccount = LedgerAccounts.invest(account)
        investAudit = try ledger.audit(account: investAccount, from: today.adding(days: -6), through: today)
        auditedEnvelope = envelopes.first?.envelopeId
        envelopeAudit = try auditedEnvelope.map { try ledger.envelopeAudit($0, from: lastMonth.firstDay, through: today) } ?? []
    }
}
