public import TallyEngine
import GRDB

extension Ledger {
    /// The most months a month-by-month chart draws.
    public static let chartMonthsLimit = 240

    /// A chart's series from the products' answers at `request.asOf` (now by default), as
    /// known at `request.knownAt`: exact amounts, the same the products' own answers give.
    ///
    /// ```swift
    /// let chart = try ledger.chart(.networth, ChartRequest(from: try LocalDate(parsing: "2026-01-01")))
    /// print(chart.json)
    /// print(TerminalChart.render(chart, width: 80))
    /// ```
    ///
    /// - `networth`: net worth at the end of each month from `from`'s month (default: eleven
    ///   months before) through `to`'s (default: the day of `asOf`), the last at `asOf` when
    ///   the month is not over.
    /// - `spending`: the budget's expenses by category from `from` (default: the first of
    ///   `to`'s month) through `to`, largest first.
    /// - `budget`: `to`'s month's budgets, spent through `to` beside the maximum.
    /// - `what-if`: the projection of ``whatIf(goal:account:extraMonthly:oneTime:monthlySaving:horizonMonths:on:knownAt:)``
    ///   from the day of `to` toward `request.goal`, beside the goal.
    /// - `allocation`: the X-ray's allocation by asset type at `asOf`.
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` when `from` is after `to`, a period
    ///   longer than ``chartMonthsLimit`` months, or a what-if without a goal.
    public func chart(_ name: ChartName, _ request: ChartRequest = ChartRequest()) throws -> Chart {
        let asOf = request.asOf ?? now
        let last = request.to ?? calendar.date(of: asOf)
        if let from = request.from, from > last {
            throw LedgerError(.invalidArgument, "the chart's first day (\(from)) is after its last (\(last))")
        }
        let end = min(calendar.endOfDay(last), asOf)
        switch name {
        case .networth: return try netWorthChart(from: request.from?.month ?? last.month.adding(months: -11), through: last.month, end: end, knownAt: request.knownAt)
        case .spending: return try spendingChart(from: request.from ?? last.month.firstDay, through: last, end: end, knownAt: request.knownAt)
        case .budget: return try budgetChart(month: last.month, end: end, knownAt: request.knownAt)
        case .whatIf:
            guard let goal = request.goal else { throw LedgerError(.invalidArgument, "the what-if chart needs a goal (an amount in the base currency)") }
            let projection = try whatIf(goal: goal, on: last, knownAt: request.knownAt)
            let notes = projection.notConverted.map { "\($0.account): \($0.balance) on \($0.date) has no rate into \(goal.commodity.code); left out" }
                + [projection.reachedDate.map { "the goal of \(goal) is reached on \($0)" } ?? "the goal of \(goal) is not reached within \(projection.plan.horizonMonths) months"]
            return Chart(name: .whatIf, title: "Savings projected from \(last) toward \(goal)", currency: goal.commodity, style: .line,
                         labels: projection.series.map { $0.date.month.description },
                         series: [ChartSeries(name: "Projected savings", values: projection.series.map(\.balance)),
                                  ChartSeries(name: "Goal", values: projection.series.map { _ in goal })], notes: notes)
        case .allocation:
            let xray = try self.xray(asOf: asOf, knownAt: request.knownAt)
            let notes = xray.excluded.map { "\($0.name): left out, \($0.reason)" }
            return Chart(name: .allocation, title: "Allocation by asset type on \(calendar.date(of: asOf))", currency: xray.baseCurrency, style: .bars,
                         labels: xray.allocationByType.map(\.group),
                         series: [ChartSeries(name: "Value", values: xray.allocationByType.map(\.total))], notes: notes)
        }
    }

    private func netWorthChart(from first: Month, through last: Month, end: Instant, knownAt: Instant?) throws -> Chart {
        guard first <= last else { throw LedgerError(.invalidArgument, "the chart's first month (\(first)) is after its last (\(last))") }
        guard last.ordinal - first.ordinal < Self.chartMonthsLimit else {
            throw LedgerError(.invalidArgument, "a chart draws at most \(Self.chartMonthsLimit) months; \(first) to \(last) is longer")
        }
        let months = (first.ordinal...last.ordinal).map(Month.init(ordinal:))
        let reports = try months.map { month in try netWorth(asOf: min(calendar.endOfDay(month.lastDay), end), knownAt: knownAt) }
        let currency = reports.last?.baseCurrency ?? .usd
        var notes: [String] = []
        let values: [Money?] = zip(months, reports).map { month, report in
            guard report.baseCurrency == currency else {
                notes.append("\(month): net worth is in \(report.baseCurrency.code), the base currency then; not drawn")
                return nil
            }
            if !report.excluded.isEmpty { notes.append("\(month): \(report.excluded.count) item(s) not counted (no value or no rate)") }
            return report.netWorth
        }
        return Chart(name: .networth, title: "Net worth at each month's end, \(first) to \(last)", currency: currency, style: .line,
                     labels: months.map(\.description), series: [ChartSeries(name: "Net worth", values: values)], notes: notes)
    }

    private func spendingChart(from first: LocalDate, through last: LocalDate, end: Instant, knownAt: Instant?) throws -> Chart {
        let range = calendar.startOfDay(first).microsecondsSinceEpoch...end.microsecondsSinceEpoch
        let (currency, spent) = try read { db in
            let currency = try BudgetSettings.currency(db)
            let spent = try BudgetCategory.allCases.map { category in
                (category, try BudgetQueries.expenses(db, category: category, range: range, commodity: currency, knownAt: knownAt))
            }
            return (currency, spent)
        }
        let shown = spent.filter { !$0.1.isZero }.sorted { ($1.1.minorUnits, $0.0.displayName) < ($0.1.minorUnits, $1.0.displayName) }
        return Chart(name: .spending, title: "Spending by category, \(first) to \(last)", currency: currency, style: .bars,
                     labels: shown.map(\.0.displayName), series: [ChartSeries(name: "Spent", values: shown.map(\.1))])
    }

    private func budgetChart(month: Month, end: Instant, knownAt: Instant?) throws -> Chart {
        let range = BudgetQueries.range(of: month, calendar)
        let upper = min(range.upperBound, end.microsecondsSinceEpoch)
        let (currency, rows) = try read { db in
            let currency = try BudgetSettings.currency(db)
            let rows = try BudgetQueries.statuses(db, month: month, knownAt: knownAt, calendar: calendar).map { status in
                (status, try BudgetQueries.expenses(db, category: status.category, range: range.lowerBound...max(range.lowerBound, upper),
                                                    commodity: status.maximum.commodity, knownAt: knownAt))
            }
            return (currency, rows)
        }
        let notes = rows.filter { $0.0.maximum.commodity != currency }.map { "\($0.0.category.displayName): in \($0.0.maximum.commodity.code); not drawn" }
        let drawn = rows.filter { $0.0.maximum.commodity == currency }
        return Chart(name: .budget, title: "Budgets of \(month), spent through \(calendar.date(of: Instant(microsecondsSinceEpoch: upper)))",
                     currency: currency, style: .bars, labels: drawn.map(\.0.category.displayName),
                     series: [ChartSeries(name: "Spent", values: drawn.map(\.1)), ChartSeries(name: "Maximum", values: drawn.map(\.0.maximum))],
                     notes: notes)
    }
}
