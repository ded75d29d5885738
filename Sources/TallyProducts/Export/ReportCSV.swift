public import TallyEngine

// The budget and envelope reports as CSV (`--format csv` of `tx list`, `budget show`,
// `overview`, `envelope status`, `recurring status`, and the export's `budgets.csv`, `pots.csv`
// and `recurring-items.csv`): the conventions of ProductCSV.swift, one header naming every
// column, amounts as plain decimals (never grouped, never signed with an arrow) with their
// currency in a column of their own, RFC 4180 quoting (``CSVWriter``).

/// Budgets (docs/domain.md §2): one row per category and month with its maximum, what is spent
/// and what remains, and the same in the base currency when a conversion is given.
///
/// ```swift
/// let may = try Month(parsing: "2026-05")
/// print(BudgetsCSV.render(try ledger.budgets(month: may)), terminator: "")
/// ```
public enum BudgetsCSV {
    /// The file's name in an export directory.
    public static let fileName = "budgets.csv"
    /// Exactly this header, then one row per budget.
    public static let header = "month,category,maximum,spent,remaining,currency,over_budget,base_currency,maximum_in_base,spent_in_base,remaining_in_base"

    /// The header and a row per budget; the category as a person reads it (`Dining Out`),
    /// `over_budget` as `true` or `false`. The last four cells are the base currency and the
    /// amounts in it at the conversion given; empty without one, or with no rate.
    ///
    /// - Throws: ``MoneyError`` when a conversion overflows.
    public static func render(_ budgets: [BudgetStatus], conversion: BudgetBaseConversion? = nil) throws -> String {
        document(header, try budgets.map { budget in
            [
                budget.month.description, budget.category.displayName, budget.maximum.decimalString, budget.spent.decimalString,
                budget.remaining.decimalString, budget.maximum.commodity.code, String(budget.isOverBudget),
                conversion?.baseCurrency.code ?? "",
            ] + (try [budget.maximum, budget.spent, budget.remaining].map { try conversion?.convert($0)?.decimalString ?? "" })
        })
    }
}

/// Pots (docs/domain.md §2): one row per pot with its total and target, and its progress in
/// basis points (the total over the target, rounded down, at most 10,000).
///
/// ```swift
/// print(PotsCSV.render(try ledger.pots()), terminator: "")
/// ```
public enum PotsCSV {
    /// The file's name in an export directory.
    public static let fileName = "pots.csv"
    /// Exactly this header, then one row per pot.
    public static let header = "id,name,total,target,currency,progress_basis_points"

    /// The header and a row per pot, in the order given (by id from ``Ledger/pots(asOf:knownAt:)``).
    public static func render(_ pots: [Pot]) -> String {
        document(header, pots.map { pot in
            [pot.id, pot.name, pot.total.decimalString, pot.target.decimalString, pot.target.commodity.code, String(pot.progressBasisPoints)]
        })
    }
}

/// Recurring items (docs/domain.md §2): one row per item defined and not removed, its amount
/// signed (positive income, negative a bill), its schedule and the months it runs.
///
/// ```swift
/// print(RecurringItemsCSV.render(try ledger.recurringItems()), terminator: "")
/// ```
public enum RecurringItemsCSV {
    /// The file's name in an export directory.
    public static let fileName = "recurring-items.csv"
    /// Exactly this header, then one row per item.
    public static let header = "id,payee,category,amount,currency,frequency,day_of_month,start_month,end_month"

    /// The header and a row per item; an item without an end has an empty `end_month`.
    public static func render(_ items: [RecurringItem]) -> String {
        document(header, items.map { item in
            [
                item.id, item.payee, item.category.displayName, item.amount.decimalString, item.amount.commodity.code,
                item.frequency.rawValue, String(item.dayOfMonth), item.startMonth.description, item.endMonth?.description ?? "",
            ]
        })
    }
}

/// A month's recurring status (``Ledger/recurringStatus(month:today:dueSoonDays:knownAt:)``):
/// one row per item due in the month, with its due day, its state judged from the report's
/// today and the transaction that paid it. The totals per state are the sums of `amount` by
/// `state`, income (positive) and bills (negative) apart.
///
/// ```swift
/// let report = try ledger.recurringStatus(month: try Month(parsing: "2026-05"), today: try LocalDate(parsing: "2026-05-20"))
/// print(RecurringStatusCSV.render(report), terminator: "")
/// ```
public enum RecurringStatusCSV {
    /// Exactly this header, then one row per item due in the month.
    public static let header = "month,today,due,id,payee,category,amount,currency,state,transaction_id"

    /// The header and a row per item, in the report's order (by due day).
    public static func render(_ report: RecurringStatusReport) -> String {
        document(header, report.items.map { status in
            [
                report.month.description, report.today.description, status.dueDate.description, status.item.id, status.item.payee,
                status.item.category.displayName, status.item.amount.decimalString, status.item.amount.commodity.code,
                status.state.rawValue, status.matchingTransactionId ?? "",
            ]
        })
    }
}

/// Envelope statuses (docs/domain.md §3): one row per envelope for the interval containing
/// the day asked about, every amount in the envelope's own currency. The board's totals are
/// the sums in the base currency (``EnvelopeBoard``); a row with `unconverted` above zero left
/// that many transactions out of `spent` for want of a rate.
///
/// ```swift
/// print(EnvelopeStatusCSV.render(try ledger.envelopeBoard().statuses), terminator: "")
/// ```
public enum EnvelopeStatusCSV {
    /// Exactly this header, then one row per envelope.
    public static let header = """
        envelope,name,interval,rollover,first_day,last_day,budgeted,funded,carried_in,taken_from_to_assign,\
        available,spent,remaining,currency,over_budget,unconverted
        """

    /// The header and a row per envelope, in the order given.
    public static func render(_ statuses: [EnvelopeStatus]) -> String {
        document(header, statuses.map { status in
            [status.envelopeId, status.name, status.interval.rawValue, status.policy.rawValue,
             status.period.first.description, status.period.last?.description ?? ""]
                + [status.budgeted, status.funded, status.carriedIn, status.takenFromToAssign, status.available, status.spent, status.remaining]
                .map(\.decimalString)
                + [status.budgeted.commodity.code, String(status.isOverBudget), String(status.unconvertedCount)]
        })
    }
}

/// The budget overview screen (``BudgetScreen``) as one long table a spreadsheet pivots: a
/// row per figure the screen shows, named by its `section` and `measure`.
///
/// - `overview`: `current_balance`, `held_in_pots`, `income`, `expenses`, `net` in the budget
///   currency, with the same in the base currency when it is another (empty when no rate).
/// - `pot`: each pot's `total` and `target` (id and name).
/// - `pots`: the pots' `total` and `target` added up.
/// - `transaction`: the latest transactions' `amount` (id, payee, date, category in `note`).
/// - `budget`: each budget's `maximum`, `spent`, `remaining` (category id and name; `over` in
///   `note` when over budget), and `budgets`: their totals.
/// - `recurring`: each item's `amount` (id, payee, due date, state in `note`), and
///   `recurring_total`: `income` and `bills` per state (the state as `id`).
///
/// ```swift
/// print(try BudgetScreenCSV.render(try ledger.budgetScreen(month: try Month(parsing: "2026-05"))), terminator: "")
/// ```
public enum BudgetScreenCSV {
    /// Exactly this header, then one row per figure.
    public static let header = "month,section,id,name,measure,amount,currency,amount_in_base,base_currency,date,note"

    /// The header and a row per figure, sections in the screen's order.
    ///
    /// - Throws: ``MoneyError`` on overflow while adding up.
    public static func render(_ screen: BudgetScreen) throws -> String {
        var rows: [[String]] = []
        func row(_ section: String, _ id: String, _ name: String, _ measure: String, _ amount: Money, inBase: Money? = nil,
                 date: LocalDate? = nil, note: String = "") {
            let base = screen.overview.baseCurrency == amount.commodity ? nil : screen.overview.baseCurrency
            rows.append([screen.month.description, section, id, name, measure, amount.decimalString, amount.commodity.code,
                         base == nil ? amount.decimalString : inBase?.decimalString ?? "", (base ?? amount.commodity).code,
                         date?.description ?? "", note])
        }
        let overview = screen.overview.overview, converted = screen.overview.converted
        row("overview", "", "", "current_balance", overview.currentBalance, inBase: converted?.currentBalance)
        row("overview", "", "", "held_in_pots", overview.heldInPots, inBase: converted?.heldInPots)
        row("overview", "", "", "income", overview.income, inBase: converted?.income)
        row("overview", "", "", "expenses", overview.expenses, inBase: converted?.expenses)
        row("overview", "", "", "net", try overview.net(), inBase: try converted?.net())
        for pot in screen.pots {
            row("pot", pot.id, pot.name, "total", pot.total)
            row("pot", pot.id, pot.name, "target", pot.target)
        }
        row("pots", "", "", "total", overview.heldInPots, inBase: converted?.heldInPots)
        row("pots", "", "", "target", screen.potsTarget)
        for transaction in screen.latestTransactions {
            row("transaction", transaction.id, transaction.payee, "amount", transaction.amount, date: transaction.date,
                note: transaction.category.displayName)
        }
        for budget in screen.budgets {
            let over = budget.isOverBudget ? "over" : ""
            row("budget", budget.category.rawValue, budget.category.displayName, "maximum", budget.maximum, note: over)
            row("budget", budget.category.rawValue, budget.category.displayName, "spent", budget.spent, note: over)
            row("budget", budget.category.rawValue, budget.category.displayName, "remaining", budget.remaining, note: over)
        }
        let totals = try screen.budgetTotals()
        row("budgets", "", "", "maximum", totals.maximum)
        row("budgets", "", "", "spent", totals.spent)
        row("budgets", "", "", "remaining", totals.remaining)
        for status in screen.recurring.items {
            row("recurring", status.item.id, status.item.payee, "amount", status.item.amount, date: status.dueDate, note: status.state.rawValue)
        }
        let recurring = screen.recurring
        for state in RecurringState.allCases {
            row("recurring_total", state.rawValue, "", "income", recurring.totals(state).income, date: recurring.today)
            row("recurring_total", state.rawValue, "", "bills", recurring.totals(state).bills, date: recurring.today)
        }
        return document(header, rows)
    }
}

/// The change in net worth over a period (``Ledger/netWorthChange(asOf:days:knownAt:)``,
/// `tally networth change --format csv`): one row with the period's bounds (RFC 3339 UTC
/// instants), its length in days, net worth at its start and end, and end minus start, all
/// in the base currency in force at the end (the start converted into it by the one
/// conversion rule); `complete` is false when either report left an item out of its total.
///
/// ```swift
/// let month = try ledger.netWorthChange(days: 30)
/// print(NetWorthChangeCSV.render(start: month.start, end: month.end, change: month.change, days: 30), terminator: "")
/// ```
public enum NetWorthChangeCSV {
    /// Exactly this header, then one row.
    public static let header = "start_at,end_at,days,start,end,change,currency,complete"

    /// The header and the period's one row.
    ///
    /// - Parameters:
    ///   - start: net worth at the start of the period, in the end's base currency.
    ///   - end: net worth at the end of the period.
    ///   - change: `end` minus `start`.
    ///   - days: the period's length in days of 24 hours.
    public static func render(start: NetWorthReport, end: NetWorthReport, change: Money, days: Int) -> String {
        document(header, [[
            start.point.asOf.description, end.point.asOf.description, String(days), start.netWorth.decimalString,
            end.netWorth.decimalString, change.decimalString, change.commodity.code, String(start.isComplete && end.isComplete),
        ]])
    }
}
