import Hummingbird
import Tally

/// The reads the CLI has beyond the first queries (``QueryRoutes``): a month's budgets,
/// recurring items and their status, a wealth account's history and round-ups, the rates and
/// prices, the challenges. Each answers from the same library query as its `tally` command,
/// with the fields its `--json` names, amounts as decimal strings beside their `currency`.
enum ReadRoutes {
    static let all: [QueryRoutes.Definition] = [
        // `tally budget show`: a month's budgets with spent, remaining and the latest transactions.
        QueryRoutes.Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/budgets", operationId: "listBudgets", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let calendar = ledger.calendar
            let today = calendar.date(of: ledger.now)
            let month = try call.query("month").map { _ in try QueryRoutes.month(call, "month") } ?? calendar.date(of: asOf).month
            let end = calendar.endOfDay(month.lastDay)
            // One "today", as the CLI's: an as_of given is the point; else a past month is read
            // at its end, this month at the end of today, a later month (planned) with what it schedules.
            let point: Instant? = call.query("as_of") != nil ? asOf
                : month < today.month ? end : month == today.month ? calendar.endOfDay(today) : nil
            let budgets = try ledger.budgets(month: month, asOf: point, knownAt: knownAt)
            let conversion = try ledger.budgetBaseConversion(at: min(point ?? end, end, ledger.now), knownAt: knownAt)
            return .object([
                ("month", .string(month.description)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("currency", .string(conversion.budgetCurrency.code)), ("base_currency", .string(conversion.baseCurrency.code)),
                ("budgets", .array(try budgets.map { try budgetJSON($0, conversion) })),
                ("not_converted", .array(conversion.notConverted.map { .string($0.code) })),
            ])
        },
        // `tally recurring list`: every recurring item defined and not removed.
        QueryRoutes.Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/recurring", operationId: "listRecurring", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let items = try recurringQuery(call).map { try ledger.recurringItems($0, today: ledger.calendar.date(of: asOf), asOf: asOf, knownAt: knownAt) }
                ?? ledger.recurringItems(asOf: asOf, knownAt: knownAt)
            return .object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("items", .array(items.map(recurringJSON))),
            ])
        },
        // `tally recurring status`: each item of a month paid, due soon or upcoming, with totals per state.
        QueryRoutes.Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/recurring-status", operationId: "getRecurringStatus", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let today = ledger.calendar.date(of: asOf)
            let month = try call.query("month").map { _ in try QueryRoutes.month(call, "month") } ?? today.month
            let dueSoonDays = try call.query("due_soon_days").map { _ in try Cursor.integer(call, "due_soon_days", in: 0...3_650, fallback: 0) }
            let report = try recurringQuery(call).map { try ledger.recurringStatus($0, month: month, today: today, dueSoonDays: dueSoonDays, knownAt: knownAt) }
                ?? ledger.recurringStatus(month: month, today: today, dueSoonDays: dueSoonDays, knownAt: knownAt)
            let conversion = try ledger.budgetBaseConversion(at: ledger.calendar.endOfDay(today), knownAt: knownAt)
            func totalsInBase(_ totals: RecurringTotals) throws -> JSONValue {
                .object([("income", try converted(totals.income, conversion)), ("bills", try converted(totals.bills, conversion))])
            }
            let otherBase = conversion.baseCurrency != conversion.budgetCurrency
            return .object([
                ("month", .string(month.description)), ("today", .string(today.description)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("items", .array(report.items.map(recurringStatusJSON))),
                ("paid", recurringTotalsJSON(report.paid)), ("due_soon", recurringTotalsJSON(report.dueSoon)),
                ("upcoming", recurringTotalsJSON(report.upcoming)), ("overdue", recurringTotalsJSON(report.overdue)),
                ("currency", .string(conversion.budgetCurrency.code)), ("base_currency", .string(conversion.baseCurrency.code)),
                ("in_base", otherBase && conversion.isConverted ? .object([
                    ("paid", try totalsInBase(report.paid)), ("due_soon", try totalsInBase(report.dueSoon)), ("upcoming", try totalsInBase(report.upcoming)),
                    ("overdue", try totalsInBase(report.overdue)),
                ]) : .null),
            ])
        },
        // `tally recurring bills`: one entry per vendor, paid, due soon, upcoming or overdue.
        QueryRoutes.Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/recurring-bills", operationId: "listRecurringBills", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let today = ledger.calendar.date(of: asOf)
            let bills = try ledger.recurringBills(try recurringQuery(call) ?? RecurringBillQuery(), today: today, knownAt: knownAt)
            return .object([
                ("today", .string(today.description)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("items", .array(bills.map { bill in
                    .object([
                        ("vendor", .string(bill.vendor)), ("category", .string(bill.category.rawValue)), ("amount", .amount(bill.amount)),
                        ("currency", .string(bill.amount.commodity.code)), ("state", .string(bill.state.rawValue)),
                        ("next_due", .string(bill.nextDue.description)), ("last_paid", .optional(bill.lastPaid?.description)),
                        ("source", .string(bill.source.rawValue)), ("recurring_id", .optional(bill.recurringId)),
                    ])
                })),
            ])
        },
        // `tally wealth history`: the account's money events, newest first, a page at a time.
        QueryRoutes.Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/wealth/{account}/history", operationId: "getWealthHistory", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let filter = try call.query("filter").map { text in
                guard let filter = WealthHistoryFilter(rawValue: text) else {
                    throw Problem.invalidParameter("filter", "'filter' is '\(text)'; use all, spend, invest or deposits")
                }
                return filter
            } ?? .all
            let page = try Cursor.integer(call, "page", in: 1...Int(Int32.max), fallback: 1)
            // Without page_size, the page_size setting in force at as_of (issue 32, rule 7).
            let pageSize = try Cursor.integer(call, "page_size", in: 1...ListPage.pageSizeLimit)
            let account = try call.parameter("account")
            let history = try ledger.wealthHistory(account: account, filter: filter, page: page, pageSize: pageSize, asOf: asOf, knownAt: knownAt)
            return .object([
                ("account", .string(account)), ("filter", .string(filter.rawValue)),
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("page", .integer(Int64(history.page))), ("page_size", .integer(Int64(history.pageSize))),
                ("page_count", .integer(Int64(history.pageCount))), ("total_count", .integer(Int64(history.totalCount))),
                ("entries", .array(history.entries.map { entry in
                    .object([
                        ("seq", .integer(Int64(entry.sequence))), ("effective_at", .instant(entry.effectiveAt)), ("recorded_at", .instant(entry.recordedAt)),
                        ("kind", .string(entry.kind.rawValue)), ("currency", .string(entry.amount.commodity.code)), ("amount", .amount(entry.amount)),
                        ("spend_change", .amount(entry.spendChange)), ("invest_change", .amount(entry.investChange)),
                        ("cause", entry.cause.map { .integer(Int64($0)) } ?? .null), ("detail", .optional(entry.detail)),
                        ("reverses", entry.reverses.map { .integer(Int64($0)) } ?? .null),
                        ("reversed_by", entry.reversedBy.map { .integer(Int64($0)) } ?? .null),
                    ])
                })),
            ])
        },
        // `tally wealth round-ups-total`: the round-ups moved to Invest in a month, per currency.
        QueryRoutes.Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/wealth/{account}/round-ups", operationId: "getRoundUpTotals", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let month = try call.query("month").map { _ in try QueryRoutes.month(call, "month") } ?? ledger.calendar.date(of: asOf).month
            let account = try call.parameter("account")
            let totals = try ledger.roundUpTotal(account: account, month: month, asOf: asOf, knownAt: knownAt)
            return .object([
                ("account", .string(account)), ("month", .string(month.description)),
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("totals", .array(totals.map { total in .object([("currency", .string(total.commodity.code)), ("amount", .amount(total))]) })),
            ])
        },
        // `tally rates`: the FX rates and prices in force (or every one, newest first, with history=true).
        QueryRoutes.Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/rates", operationId: "listRates", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let kind: MarketQuote.Kind? = try call.query("kind").map { text in
                switch text {
                case "fx": return .rate
                case "price": return .price
                default: throw Problem.invalidParameter("kind", "'kind' is '\(text)'; use fx or price")
                }
            }
            let history = try call.query("history").map { text in
                guard let value = Bool(text) else { throw Problem.invalidParameter("history", "'history' is '\(text)'; use true or false") }
                return value
            } ?? false
            let quotes = try ledger.marketQuoteList(kind: kind, asOf: asOf, knownAt: knownAt, history: history)
            return .object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("rates", .array(quotes.map { listing in
                    let quote = listing.quote
                    return .object([
                        ("kind", .string(quote.kind == .rate ? "fx" : "price")), ("pair", .string("\(quote.base.code)/\(quote.quote.code)")),
                        ("base", .string(quote.base.code)), ("quote", .string(quote.quote.code)), ("rate", .string(quote.value.description)),
                        ("date", .string(ledger.calendar.date(of: quote.effectiveAt).description)), ("effective_at", .instant(quote.effectiveAt)),
                        ("source", .string(listing.source.rawValue)), ("seq", .integer(Int64(quote.sequence))),
                    ])
                })),
            ])
        },
        // `tally challenge list`: every challenge with its steps done, saved and target.
        QueryRoutes.Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/challenges", operationId: "listChallenges", security: .ledger(.read))) { ledger, _, asOf, knownAt in
            let progresses = try ledger.challengeProgresses(asOf: asOf, knownAt: knownAt)
            return .object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("challenges", .array(progresses.map(challengeJSON))),
            ])
        },
        // One resource each, as its list gives it (where a creation's `Location` points).
        single("/ledgers/{ledger}/pots/{pot}", "getPot", "pot") { ledger, id, asOf, knownAt in
            try ledger.pots(asOf: asOf, knownAt: knownAt).first { $0.id == id }.map(QueryRoutes.potJSON)
        },
        single("/ledgers/{ledger}/envelopes/{envelope}", "getEnvelope", "envelope") { ledger, id, asOf, knownAt in
            try ledger.envelopeStatuses(asOf: asOf, knownAt: knownAt).first { $0.envelopeId == id }.map(QueryRoutes.envelopeJSON)
        },
        single("/ledgers/{ledger}/challenges/{challenge}", "getChallenge", "challenge") { ledger, id, asOf, knownAt in
            try ledger.challengeProgresses(asOf: asOf, knownAt: knownAt).first { $0.challengeId == id }.map(challengeJSON)
        },
        single("/ledgers/{ledger}/assets/{asset}", "getAsset", "asset") { ledger, id, asOf, knownAt in
            try ledger.netWorthItems(kind: .asset, asOf: asOf, knownAt: knownAt).items.first { $0.itemId == id }.map { QueryRoutes.itemJSON($0, ledger) }
        },
        single("/ledgers/{ledger}/liabilities/{liability}", "getLiability", "liability") { ledger, id, asOf, knownAt in
            try ledger.netWorthItems(kind: .liability, asOf: asOf, knownAt: knownAt).items.first { $0.itemId == id }.map { QueryRoutes.itemJSON($0, ledger) }
        },
        single("/ledgers/{ledger}/recurring/{recurring}", "getRecurring", "recurring") { ledger, id, asOf, knownAt in
            try ledger.recurringItems(asOf: asOf, knownAt: knownAt).first { $0.id == id }.map(recurringJSON)
        },
    ]

    /// A `GET` of one resource by the id in the path (`parameter`): 404 naming it when there
    /// is none at that point.
    private static func single(
        _ path: String, _ operationId: String, _ parameter: String,
        _ read: @escaping @Sendable (_ ledger: Ledger, _ id: String, _ asOf: Instant, _ knownAt: Instant?) throws -> JSONValue?
    ) -> QueryRoutes.Definition {
        QueryRoutes.Definition(route: ServiceRoute(method: .get, path: path, operationId: operationId, security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let id = try call.parameter(parameter)
            guard let value = try read(ledger, id, asOf, knownAt) else {
                throw Problem(.notFound, "not_found", "there is no \(parameter) '\(id)' at that point", field: parameter)
            }
            return value
        }
    }

    /// `search` and `sort` of the recurring reads, as `tally recurring bills --search --sort` take
    /// them (``RecurringBillQuery``); nil when neither is given (the answer's own order).
    /// - Throws: ``Problem`` (400) for a sort that is not one of the six.
    static func recurringQuery(_ call: Call) throws -> RecurringBillQuery? {
        let search = call.query("search"), sortText = call.query("sort")
        guard search != nil || sortText != nil else { return nil }
        var sort = RecurringBillQuery.Sort.dueSoonest
        if let sortText {
            guard let named = RecurringBillQuery.Sort(rawValue: sortText) else {
                throw Problem.invalidParameter("sort", "'sort' is '\(sortText)'; use one of \(RecurringBillQuery.Sort.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            sort = named
        }
        return RecurringBillQuery(search: search, sort: sort)
    }

    /// A month's budget of one category as `tally budget show --json` gives it: `in_base` holds
    /// its amounts in the base currency when that is another and a rate is known, else null.
    static func budgetJSON(_ budget: BudgetStatus, _ conversion: BudgetBaseConversion) throws -> JSONValue {
        let otherBase = conversion.baseCurrency != conversion.budgetCurrency
        let inBase: JSONValue = otherBase && conversion.isConverted ? .object([
            ("maximum", try converted(budget.maximum, conversion)), ("spent", try converted(budget.spent, conversion)),
            ("remaining", try converted(budget.remaining, conversion)),
        ]) : .null
        return .object([
            ("category", .string(budget.category.rawValue)), ("month", .string(budget.month.description)),
            ("currency", .string(budget.maximum.commodity.code)), ("maximum", .amount(budget.maximum)),
            ("spent", .amount(budget.spent)), ("remaining", .amount(budget.remaining)), ("over_budget", .bool(budget.isOverBudget)),
            ("latest", .array(budget.latestTransactions.map(QueryRoutes.transactionJSON))),
            ("in_base", inBase),
        ])
    }

    /// One item of a month's recurring status as `GET recurring-status` lists it.
    static func recurringStatusJSON(_ status: RecurringItemStatus) -> JSONValue {
        .object([
            ("id", .string(status.item.id)), ("payee", .string(status.item.payee)), ("amount", .amount(status.item.amount)),
            ("currency", .string(status.item.amount.commodity.code)), ("due", .string(status.dueDate.description)),
            ("state", .string(status.state.rawValue)), ("transaction_id", .optional(status.matchingTransactionId)),
        ])
    }

    /// A state's recurring totals: income and bills apart, both positive.
    static func recurringTotalsJSON(_ totals: RecurringTotals) -> JSONValue {
        .object([("income", .amount(totals.income)), ("bills", .amount(totals.bills))])
    }

    /// A recurring item as `tally recurring list --json` gives it.
    static func recurringJSON(_ item: RecurringItem) -> JSONValue {
        .object([
            ("id", .string(item.id)), ("payee", .string(item.payee)), ("category", .string(item.category.rawValue)),
            ("amount", .amount(item.amount)), ("currency", .string(item.amount.commodity.code)),
            ("frequency", .string(item.frequency.rawValue)), ("day_of_month", .integer(Int64(item.dayOfMonth))),
            ("start_month", .string(item.startMonth.description)), ("end_month", .optional(item.endMonth?.description)),
        ])
    }

    /// A challenge's progress as `tally challenge list` gives it.
    static func challengeJSON(_ progress: ChallengeProgress) -> JSONValue {
        .object([
            ("challenge", .string(progress.challengeId)), ("name", .string(progress.name)), ("template", .string(progress.template)),
            ("currency", .string(progress.unit.commodity.code)), ("unit", .amount(progress.unit)), ("account", .optional(progress.account)),
            ("steps_done", .integer(Int64(progress.completedSteps.count))), ("steps", .integer(Int64(progress.stepCount))),
            ("completed_steps", .array(progress.completedSteps.map { .integer(Int64($0)) })),
            ("saved", .amount(progress.saved)), ("target", progress.target.map(JSONValue.amount) ?? .null),
            ("complete", .bool(progress.isComplete)),
        ])
    }

    /// An amount in the base currency by the budget's conversion (nil-safe: the caller checks `isConverted`).
    private static func converted(_ money: Money, _ conversion: BudgetBaseConversion) throws -> JSONValue {
        try conversion.convert(money).map(JSONValue.amount) ?? .null
    }
}
