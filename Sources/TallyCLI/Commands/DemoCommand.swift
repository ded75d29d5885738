import ArgumentParser
import Foundation
import Tally
import TallyLog

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A tour: a household lives a few years through the ledger's commands; then every product's dashboard, time travel, audit and verify.",
        discussion: """
            The household (wealth account, budget, envelopes, net worth and portfolio) runs \
            every act as a Ledger command on a simulated clock, so the same --seed gives the \
            same events, head digest and output. --replace removes a store that an earlier \
            `tally demo` made (never any other).
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Seed of the synthetic household.")
    var seed: UInt64 = 42

    @Option(help: "Months of activity to record (the last one stops on its 20th).")
    var months = 34

    @Option(name: .customLong("first-month"), help: "The first month recorded (YYYY-MM, in the ledger's time zone).")
    var firstMonth = "2024-01"

    @Flag(help: "Replace a store made by an earlier demo.")
    var replace = false

    @Option(help: ArgumentHelp("Also draw the household's five charts as SVG files in this directory (networth.svg, …).", valueName: "DIR"))
    var charts: String?

    func validate() throws {
        guard (DemoHousehold.monthCountMinimum...120).contains(months) else {
            throw ValidationError("--months must be \(DemoHousehold.monthCountMinimum) to 120")
        }
    }

    func run() throws {
        let path = storeOptions.path
        let first = try CLIParse.month(firstMonth, option: "--first-month")
        if replace {
            try DemoRunner.removeDemoStore(at: path)
        }
        let household = DemoHousehold(seed: seed, firstMonth: first, monthCount: months)
        let started = ContinuousClock.now
        let summary = try DemoRunner.run(at: path, household: household)
        let elapsed = ContinuousClock.now - started
        DemoReport(summary: summary, path: path).print()
        if let charts { try drawCharts(of: household, into: charts) }
        // Timing varies from run to run: standard error, so the output stays deterministic.
        Output.note("tally demo: lived, read, verified and measured in \(elapsed.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 2))))\n")
        if !summary.verification.isIntact { throw ExitCode.failure }
    }
}

extension DemoCommand {
    /// The five charts of the household at the tour's last day, as SVG files: the pictures
    /// of docs/notifications.md, "Charts". The what-if goal is twice the savings then.
    func drawCharts(of household: DemoHousehold, into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try storeOptions.withReadingLedger { ledger in
            let end = ledger.calendar.endOfDay(household.lastDay)
            let savings = try ledger.envelopeAccountsTotal(asOf: end).total
            let goal = savings.isPositive ? try savings.adding(savings) : try Money(parsing: "1000", commodity: savings.commodity)
            let requests: [(ChartName, ChartRequest)] = [
                (.networth, ChartRequest(from: household.firstMonth.firstDay, to: household.lastDay, asOf: end)),
                (.spending, ChartRequest(to: household.lastDay, asOf: end)),
                (.budget, ChartRequest(to: household.lastDay, asOf: end)),
                (.whatIf, ChartRequest(to: household.lastDay, asOf: end, goal: goal)),
                (.allocation, ChartRequest(asOf: end)),
            ]
            for (name, request) in requests {
                let file = directory + "/\(name.rawValue).svg"
                try Data(SVGChart.render(try ledger.chart(name, request)).utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
                TallyCLI.print("chart \(name.rawValue): \(file)")
            }
        }
    }
}

/// The demo's printout: what the household did, each product's dashboard, a past date now
/// and as known before a correction, an audit excerpt, verify's digest and the log's size.
struct DemoReport {
    let summary: DemoRunner.Summary
    let path: String
    var dashboard: DemoDashboard { summary.dashboard }

    func print() {
        overview()
        wealth()
        budget()
        envelopes()
        netWorth()
        xray()
        pastDate()
        audit()
        verify()
    }

    private func heading(_ title: String) {
        TallyCLI.print("")
        TallyCLI.print("== \(title)")
    }

    private func signed(_ money: Money) -> String {
        (money.isPositive ? "+" : "") + MoneyDisplay.amount(money)
    }

    private func overview() {
        let household = summary.household
        let activity = summary.activity
        TallyCLI.print("Tally demo: a household from \(household.firstMonth) to \(household.lastDay), seed \(household.seed), store \(path)")
        TallyCLI.print("Every act ran as a Ledger command on a simulated clock; today is \(dashboard.today) (\(DemoHousehold.timeZone)).")
        let refused = activity.refusalsByReason.map { "\($0.count) \($0.reason)" }.joined(separator: ", ")
        TallyCLI.print("\(activity.commands) commands appended \(summary.verification.log.events) events in \(summary.verification.log.frames) commits; "
                    + "refused \(activity.refusals.values.reduce(0, +))\(refused.isEmpty ? "" : " (\(refused))"), "
                    + "repeats ignored \(activity.repeatsIgnored), nothing to do \(activity.nothingToDo).")
        let counts = summary.countsByType
        let shown = counts.prefix(12)
        TallyCLI.print(Output.table(["EVENT TYPE", "COUNT"], shown.map { [$0.type, String($0.count)] }, rightAligned: [1]))
        if counts.count > shown.count {
            let rest = counts.dropFirst(shown.count)
            TallyCLI.print("… and \(rest.count) more types (\(rest.map(\.count).reduce(0, +)) events)")
        }
    }

    private func wealth() {
        let wealth = dashboard.wealth
        heading("Wealth account \(wealth.account): \(wealth.status.rawValue)")
        TallyCLI.print("split \(wealth.splitRule) (Spend/Invest), round-ups \(wealth.roundUpsEnabled ? "on" : "off"), card \(wealth.cardFrozen ? "frozen" : "active")")
        TallyCLI.print(Output.table(
            ["CURRENCY", "SPEND", "INVEST", "WALLET", "TOTAL"],
            wealth.balances.map { [$0.commodity.code, MoneyDisplay.amount($0.spend), MoneyDisplay.amount($0.invest), MoneyDisplay.amount($0.wallet), MoneyDisplay.amount($0.total)] },
            rightAligned: [1, 2, 3, 4]))
        func total(_ amounts: [Money]) -> String { amounts.isEmpty ? "none" : amounts.map(\.description).joined(separator: ", ") }
        TallyCLI.print("round-ups this month \(total(dashboard.roundUpsThisMonth)); last month \(total(dashboard.roundUpsLastMonth))")
        TallyCLI.print(Output.table(
            ["SEQ", "DATE", "KIND", "AMOUNT", "CUR", "SPEND", "INVEST", "CAUSE", "DETAIL"],
            dashboard.wealthHistory.map { entry in
                [String(entry.sequence), DemoDates.date(entry.effectiveAt), entry.kind.rawValue, MoneyDisplay.amount(entry.amount), entry.amount.commodity.code,
                 entry.spendChange.isZero ? "" : signed(entry.spendChange), entry.investChange.isZero ? "" : signed(entry.investChange),
                 entry.cause.map(String.init) ?? "", entry.detail ?? ""]
            }, rightAligned: [0, 3, 5, 6, 7]))
    }

    private func budget() {
        heading("Budget")
        let overviews = dashboard.budgetOverviews
        TallyCLI.print(Output.table(
            [overviews.first.map { "MEASURE (\($0.income.commodity.code))" } ?? "MEASURE"] + overviews.enumerated().map { index, overview in
                "\(overview.month)" + (index == overviews.count - 1 ? " (to \(dashboard.today.day))" : "")
            },
            [("current balance", \BudgetOverview.currentBalance), ("held in pots", \.heldInPots), ("income", \.income), ("expenses", \.expenses)]
                .map { label, path in [label] + overviews.map { MoneyDisplay.amount($0[keyPath: path]) } }
                + [["net"] + overviews.map { (try? $0.net()).map(MoneyDisplay.amount) ?? "" }],
            rightAligned: Set(1...overviews.count)))
        if let month = dashboard.budgets.first?.month {
            TallyCLI.print("")
            TallyCLI.print("Budgets of \(month):")
            TallyCLI.print(Output.table(
                ["CATEGORY", "MAXIMUM", "SPENT", "REMAINING", "STATUS"],
                dashboard.budgets.map { [$0.category.displayName, MoneyDisplay.amount($0.maximum), MoneyDisplay.amount($0.spent), MoneyDisplay.amount($0.remaining), $0.isOverBudget ? "OVER" : ""] },
                rightAligned: [1, 2, 3]))
        }
        let recurring = dashboard.recurring
        TallyCLI.print("")
        TallyCLI.print("Recurring in \(recurring.month), today \(recurring.today):")
        TallyCLI.print(Output.table(
            ["DUE", "ID", "PAYEE", "AMOUNT", "STATE"],
            recurring.items.map { [$0.dueDate.description, $0.item.id, $0.item.payee, MoneyDisplay.amount($0.item.amount), $0.state.rawValue] },
            rightAligned: [3]))
        TallyCLI.print(RecurringCLI.totalsTable(recurring))
        TallyCLI.print("")
        TallyCLI.print(Output.table(
            ["POT", "TARGET", "TOTAL", "PROGRESS"],
            dashboard.pots.map { [$0.name, MoneyDisplay.amount($0.target), MoneyDisplay.amount($0.total), Output.percent($0.progressBasisPoints)] },
            rightAligned: [1, 2, 3]))
    }

    private func envelopes() {
        heading("Envelopes on \(dashboard.today)")
        func text(_ money: Money) -> String { "\(MoneyDisplay.amount(money)) \(money.commodity.code)" }
        TallyCLI.print(Output.table(
            ["ENVELOPE", "INTERVAL", "BUDGETED", "CARRIED IN", "SPENT", "REMAINING", "STATUS"],
            dashboard.envelopes.map { [$0.name, $0.period.description, text($0.budgeted), text($0.carriedIn), text($0.spent), text($0.remaining), $0.isOverBudget ? "OVER" : ""] },
            rightAligned: [2, 3, 4, 5]))
        let accounts = dashboard.envelopeAccounts
        TallyCLI.print("")
        TallyCLI.print(Output.table(
            ["ACCOUNT", "BALANCE", "IN \(accounts.total.commodity.code)"],
            accounts.lines.map { [$0.account, text($0.amount), $0.inBase.map(MoneyDisplay.amount) ?? "no rate"] }
                + [["total", "", MoneyDisplay.amount(accounts.total)]],
            rightAligned: [1, 2]))
        TallyCLI.print("")
        TallyCLI.print(Output.table(
            ["CHALLENGE", "STEPS DONE", "SAVED", "TARGET"],
            dashboard.challenges.map { ["\($0.name) (\($0.challengeId))", "\($0.completedSteps.count)/\($0.stepCount)", text($0.saved), $0.target.map(text) ?? ""] },
            rightAligned: [1, 2, 3]))
    }

    private func netWorth() {
        let report = dashboard.netWorth
        let base = report.baseCurrency.code
        heading("Net worth on \(dashboard.today)")
        TallyCLI.print("\(MoneyDisplay.amount(report.netWorth)) \(base) = assets \(MoneyDisplay.amount(report.assets)) − liabilities \(MoneyDisplay.amount(report.liabilities))"
                    + (report.isComplete ? "" : " (incomplete: \(report.excluded.count) item(s) excluded)"))
        TallyCLI.print("30-day change \(signed(dashboard.netWorthChange)) \(base) (from \(MoneyDisplay.amount(dashboard.netWorthMonthAgo.netWorth)))")
        TallyCLI.print(NetWorthJSON.linesTable(report))
        TallyCLI.print("")
        TallyCLI.print(Output.table(
            ["KIND", "CATEGORY", base, "SHARE"],
            report.categories.map { [$0.kind.rawValue, $0.category, MoneyDisplay.amount($0.total), Output.percent($0.basisPoints)] },
            rightAligned: [2, 3]))
        for item in report.excluded { TallyCLI.print("excluded: \(item.kind.rawValue) \(item.itemId): \(item.reason)") }
        TallyCLI.print("")
        TallyCLI.print(Output.table(["MONTH END", "NET WORTH"], dashboard.netWorthSeries.map { [$0.month.description, $0.value.description] }, rightAligned: [1]))
    }

    private func xray() {
        let xray = dashboard.xray
        heading("Portfolio X-ray on \(dashboard.today)")
        TallyCLI.print("\(MoneyDisplay.amount(xray.total)) \(xray.baseCurrency.code) in \(xray.holdings.count) holdings; coverage \(Output.percent(xray.coverageBasisPoints))")
        for (title, groups) in [("by type", xray.allocationByType), ("by country", xray.exposureByCountry), ("by sector", xray.exposureBySector)] {
            TallyCLI.print("\(title): " + groups.map { "\($0.group) \(Output.percent($0.basisPoints))" }.joined(separator: " · "))
        }
        TallyCLI.print(Output.table(["METRIC", "VALUE", "SEVERITY"], [
            ["concentration (100×Σw²)", Output.hundredths(xray.concentration.value), xray.concentration.severity.rawValue],
            ["home bias", Output.percent(xray.homeBias.value), xray.homeBias.severity.rawValue],
            ["illiquidity", Output.percent(xray.illiquidity.value), xray.illiquidity.severity.rawValue],
            ["data confidence", Output.percent(xray.dataConfidence.value), xray.dataConfidence.severity.rawValue],
        ], rightAligned: [1]))
        for item in xray.excluded { TallyCLI.print("excluded: \(item.itemId): \(item.reason)") }
        for reminder in xray.remindersDue { TallyCLI.print("reminder due \(reminder.dueDate): update \(reminder.assetId)\(reminder.note.map { " (\($0))" } ?? "")") }
    }

    private func pastDate() {
        let known = DemoDates.local(dashboard.knownBefore)
        heading("As of \(dashboard.pastDate): now, and as known at \(known)")
        TallyCLI.print("On \(DemoDates.local(dashboard.correctionRecordedAt)) the household recorded backdated corrections: the anniversary dinner "
                    + "of \(dashboard.amendmentAudit.first?.effectiveDate.description ?? "last month") amended (184.00 → 148.00), "
                    + "a late home appraisal effective \(dashboard.pastDate), and a Style Hub purchase re-categorised.")
        let now = dashboard.pastNetWorth
        let before = dashboard.pastNetWorthKnownBefore
        TallyCLI.print(Output.table(
            ["FIGURE", "AS KNOWN NOW", "AS KNOWN AT \(known)"],
            [
                ["net worth (\(now.baseCurrency.code))", MoneyDisplay.amount(now.netWorth), MoneyDisplay.amount(before.netWorth)],
                ["assets", MoneyDisplay.amount(now.assets), MoneyDisplay.amount(before.assets)],
                ["liabilities", MoneyDisplay.amount(now.liabilities), MoneyDisplay.amount(before.liabilities)],
            ] + now.lines.filter { line in before.lines.first { $0.itemId == line.itemId }?.converted != line.converted }.map { line in
                ["  \(line.itemId)", MoneyDisplay.amount(line.converted), (before.lines.first { $0.itemId == line.itemId }?.converted).map(MoneyDisplay.amount) ?? "-"]
            }, rightAligned: [1, 2]))
        for item in now.excluded { TallyCLI.print("excluded then: \(item.kind.rawValue) \(item.itemId): \(item.reason)") }
        TallyCLI.print("")
        let keys = ["Budget:Current", LedgerAccounts.spend(DemoHousehold.wealthAccount), LedgerAccounts.invest(DemoHousehold.wealthAccount)]
        func key(_ balance: AccountBalance) -> String { "\(balance.account) \(balance.amount.commodity.code)" }
        let earlier = Dictionary(dashboard.pastBalancesKnownBefore.map { (key($0), $0.amount) }, uniquingKeysWith: { first, _ in first })
        let later = Dictionary(dashboard.pastBalances.map { (key($0), $0.amount) }, uniquingKeysWith: { first, _ in first })
        let shown = dashboard.pastBalances.filter { balance in
            (keys.contains(balance.account) && balance.amount.commodity == .usd) || earlier[key(balance)] != balance.amount
        }.map(key) + dashboard.pastBalancesKnownBefore.map(key).filter { later[$0] == nil }
        TallyCLI.print("Balances at the end of \(dashboard.pastDate) (\(dashboard.pastBalances.count) non-zero): those the corrections changed, and Budget:Current, Spend and Invest:")
        TallyCLI.print(Output.table(
            ["ACCOUNT", "AS KNOWN NOW", "AS KNOWN BEFORE"],
            shown.map { [$0, later[$0].map(MoneyDisplay.amount) ?? "0", earlier[$0].map(MoneyDisplay.amount) ?? "0"] },
            rightAligned: [1, 2]))
        let wealth = dashboard.pastWealth.balance(in: .usd)
        TallyCLI.print("Wealth account then: Spend \(MoneyDisplay.amount(wealth.spend)), Invest \(MoneyDisplay.amount(wealth.invest)) USD (split \(dashboard.pastWealth.splitRule))")
    }

    private func audit() {
        heading("Audit")
        func table(_ entries: [AuditEntry]) -> String {
            Output.table(
                ["SEQ", "RECORDED", "EFFECTIVE", "EVENT", "CAUSE", "AMOUNT", "BALANCE"],
                entries.map { [String($0.sequence), DemoDates.local($0.recordedAt), $0.effectiveDate.description, $0.eventType,
                               $0.cause.map(String.init) ?? "", MoneyDisplay.amount($0.amount), MoneyDisplay.money($0.balance)] },
                rightAligned: [0, 4, 5, 6])
        }
        TallyCLI.print("\(dashboard.amendmentAccount), the amended dinner: the first version, its reversal and the new version, all dated when it happened")
        TallyCLI.print(table(dashboard.amendmentAudit))
        TallyCLI.print("")
        TallyCLI.print("\(dashboard.investAccount), the last 7 days: each split names its deposit, each round-up its purchase")
        TallyCLI.print(table(dashboard.investAudit))
        if let envelope = dashboard.auditedEnvelope {
            TallyCLI.print("")
            TallyCLI.print("envelope:\(envelope) since last month: each interval's budget, what was spent, what the rollover did; the balance is what is left")
            TallyCLI.print(table(dashboard.envelopeAudit))
        }
    }

    private func verify() {
        let verification = summary.verification
        let log = verification.log
        let statistics = summary.statistics
        heading("Verify and log")
        TallyCLI.print("verify: \(verification.isIntact ? "ok" : "FAILED"): \(log.events) events, \(log.segments) segment(s), \(log.frames) frames; checksums, hash chain and payloads checked")
        if let readModels = verification.readModels {
            TallyCLI.print("read models at the log head; trial balance \(readModels.trialBalance.isEmpty ? "empty (books balance)" : "NOT empty"); \(readModels.assertionsChecked) balance assertion(s) hold")
        }
        for problem in log.problems.map(\.description) + verification.undecodableEvents + (verification.readModels?.problems ?? []) {
            TallyCLI.print("problem: \(problem)")
        }
        TallyCLI.print("head digest \(log.head)  (keep it; `tally verify --expect \(log.head)` checks it later)")
        TallyCLI.print("log on disk \(Output.bytes(statistics.bytesOnDisk)) (\(statistics.events > 0 ? statistics.bytesOnDisk / Int64(statistics.events) : 0) bytes/event); "
                    + "events encoded \(Output.bytes(statistics.uncompressedBytes)), LZ4 \(Output.ratio(statistics.uncompressedBytes, statistics.storedBytes)); "
                    + "as NDJSON \(Output.bytes(summary.ndjsonBytes)), \(Output.ratio(summary.ndjsonBytes, statistics.bytesOnDisk)) the log")
        TallyCLI.print("")
        let program = CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? "tally"
        TallyCLI.print("Next: \(program) wealth summary --store \(path)")
        TallyCLI.print("      \(program) networth show --store \(path) --as-of \(dashboard.pastDate)")
        TallyCLI.print("      \(program) audit \(dashboard.amendmentAccount.contains(" ") ? "'\(dashboard.amendmentAccount)'" : dashboard.amendmentAccount) --store \(path)")
        TallyCLI.print("      \(program) log --store \(path) --type deposit_split --limit 5")
    }
}

/// Instants in the demo's time zone, for reading.
enum DemoDates {
    static let calendar = try? LedgerCalendar(timeZoneIdentifier: DemoHousehold.timeZone)

    /// The local day of an instant.
    static func date(_ instant: Instant) -> String { calendar.map { $0.date(of: instant).description } ?? instant.description }

    /// The local day, hour and minute of an instant: `2025-04-08 10:00`.
    static func local(_ instant: Instant) -> String {
        guard let calendar else { return instant.description }
        let day = calendar.date(of: instant)
        let minutes = (instant.microsecondsSinceEpoch - calendar.startOfDay(day).microsecondsSinceEpoch) / 60_000_000
        return "\(day) \(minutes / 60 < 10 ? "0" : "")\(minutes / 60):\(minutes % 60 < 10 ? "0" : "")\(minutes % 60)"
    }
}
