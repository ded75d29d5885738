import Hummingbird
import Tally

/// Queries as `GET` routes. Every one takes `as_of` (a day: its end in the ledger's time
/// zone, or an RFC 3339 instant; default the end of today) and `known_at` (what the ledger
/// had recorded by then; default everything), as the CLI's `--as-of` and `--known-at` do,
/// and answers what the library's query answers, amounts as decimal strings.
enum QueryRoutes {
    /// A query route: how it reads the ledger at a point in time.
    struct Definition: Sendable {
        let route: ServiceRoute
        let answer: @Sendable (_ ledger: Ledger, _ call: Call, _ asOf: Instant, _ knownAt: Instant?) throws -> JSONValue
    }

    static let all: [Definition] = [
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}", operationId: "getLedger", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            settingsJSON(try call.ledger, ledger, try ledger.settings(asOf: asOf, knownAt: knownAt))
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/balances", operationId: "getBalances", security: .ledger(.read))) { ledger, _, asOf, knownAt in
            let balances = try ledger.balances(asOf: asOf, knownAt: knownAt).filter { !$0.amount.isZero }
            return .object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("balances", .array(balances.map { balance in
                    .object([("account", .string(balance.account)), ("currency", .string(balance.amount.commodity.code)), ("balance", .amount(balance.amount))])
                })),
            ])
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/wealth/{account}", operationId: "getWealthSummary", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            wealthJSON(try ledger.wealthSummary(account: try call.parameter("account"), asOf: asOf, knownAt: knownAt), asOf: asOf, knownAt: knownAt)
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/pots", operationId: "listPots", security: .ledger(.read))) { ledger, _, asOf, knownAt in
            let pots = try ledger.pots(asOf: asOf, knownAt: knownAt)
            return .object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("pots", .array(pots.map(potJSON))),
            ])
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/budgets/overview", operationId: "getBudgetOverview", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let month: Month
            if let text = call.query("month") {
                guard let parsed = try? Month(parsing: text) else { throw Problem.invalidParameter("month", "'month' is '\(text)', not a month (YYYY-MM)") }
                month = parsed
            } else {
                month = ledger.calendar.date(of: asOf).month
            }
            // The budget app's overview screen, the library query `tally overview` prints.
            let screen = try ledger.budgetScreen(month: month, asOf: asOf, knownAt: knownAt)
            return .object([
                ("month", .string(screen.month.description)),
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
            ] + (try budgetScreenJSON(screen, ledger, knownAt: knownAt)))
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/envelopes", operationId: "listEnvelopes", security: .ledger(.read))) { ledger, _, asOf, knownAt in
            let statuses = try ledger.envelopeStatuses(asOf: asOf, knownAt: knownAt)
            // The totals and latest activity `tally envelope status` shows (``EnvelopeBoard``).
            let board = try ledger.envelopeBoard(asOf: asOf, knownAt: knownAt)
            return .object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("envelopes", .array(statuses.map(envelopeJSON))),
                ("currency", .string(board.currency.code)), ("budgeted", .amount(board.budgeted)), ("spent", .amount(board.spent)),
                ("remaining", .amount(board.remaining)), ("not_converted", .array(board.notConverted.map(JSONValue.string))),
                ("recent", .array(board.recentActivity.map { entry in
                    .object([
                        ("seq", .integer(Int64(entry.sequence))), ("envelope", .string(entry.envelopeId)),
                        ("date", .string(ledger.calendar.date(of: entry.effectiveAt).description)), ("event", .string(entry.eventType)),
                        ("amount", .amount(entry.amount)), ("currency", .string(entry.amount.commodity.code)),
                    ])
                })),
            ])
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/envelope-accounts/total", operationId: "getEnvelopeAccountsTotal", security: .ledger(.read))) { ledger, _, asOf, knownAt in
            let total = try ledger.envelopeAccountsTotal(asOf: asOf, knownAt: knownAt)
            return .object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("currency", .string(total.total.commodity.code)), ("total", .amount(total.total)), ("complete", .bool(total.isComplete)),
                ("lines", .array(total.lines.map { line in
                    .object([
                        ("account", .string(line.account)), ("currency", .string(line.amount.commodity.code)), ("amount", .amount(line.amount)),
                        ("in_base", line.inBase.map(JSONValue.amount) ?? .null),
                    ])
                })),
            ])
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/net-worth", operationId: "getNetWorth", security: .ledger(.read))) { ledger, _, asOf, knownAt in
            let report = try ledger.netWorth(asOf: asOf, knownAt: knownAt)
            return .object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("base_currency", .string(report.baseCurrency.code)),
                ("assets", .amount(report.assets)), ("liabilities", .amount(report.liabilities)), ("net_worth", .amount(report.netWorth)),
                ("complete", .bool(report.isComplete)),
                ("lines", .array(report.lines.map { line in
                    .object([
                        ("kind", .string(line.kind.rawValue)), ("id", .string(line.itemId)), ("name", .string(line.name)),
                        ("origin", .string(line.origin.rawValue)),
                        ("category", .string(line.category)), ("value", .amount(line.converted)), ("stale", .bool(line.isStale)),
                    ])
                })),
                // What `complete: false` leaves out, each item named with the reason, as the CLI prints them.
                ("excluded", .array(report.excluded.map { item in
                    .object([
                        ("kind", .string(item.kind.rawValue)), ("id", .string(item.itemId)), ("name", .string(item.name)),
                        ("origin", .string(item.origin.rawValue)), ("currency", .optional(item.value?.commodity.code)), ("value", item.value.map(JSONValue.amount) ?? .null),
                        ("reason", .string(item.reason)),
                    ])
                })),
            ])
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/transactions", operationId: "listTransactions", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let page = try ledger.transactions(try transactionQuery(call), asOf: asOf, knownAt: knownAt)
            return .object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("page", .integer(Int64(page.page))), ("page_size", .integer(Int64(page.pageSize))),
                ("page_count", .integer(Int64(page.pageCount))), ("total_count", .integer(Int64(page.totalCount))),
                ("transactions", .array(page.transactions.map(transactionJSON))),
            ])
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/transactions/{transaction}", operationId: "getTransaction", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let id = try call.parameter("transaction")
            guard let transaction = try ledger.transaction(id: id, asOf: asOf, knownAt: knownAt) else {
                throw Problem(.notFound, "not_found", "there is no budget transaction '\(id)' at that point", field: "transaction")
            }
            return transactionJSON(transaction)
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/net-worth/change", operationId: "getNetWorthChange", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            let days = try Cursor.integer(call, "days", in: 1...36_500, fallback: 30)
            let change = try ledger.netWorthChange(asOf: asOf, days: days, knownAt: knownAt)
            return .object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null), ("days", .integer(Int64(days))),
                ("base_currency", .string(change.end.baseCurrency.code)),
                ("start", .amount(change.start.netWorth)), ("end", .amount(change.end.netWorth)), ("change", .amount(change.change)),
                ("complete", .bool(change.start.isComplete && change.end.isComplete)),
            ])
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/net-worth/series", operationId: "getNetWorthSeries", security: .ledger(.read))) { ledger, call, _, knownAt in
            let first = try month(call, "from")
            let last = try month(call, "through")
            guard first <= last else { throw Problem.invalidParameter("through", "'through' \(last) is before 'from' \(first)") }
            guard last.ordinal - first.ordinal < 1_200 else { throw Problem.invalidParameter("through", "a series covers at most 100 years") }
            let series = try ledger.netWorthSeries(from: first, through: last, knownAt: knownAt)
            return .object([
                ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("months", .array(series.map { point in
                    .object([
                        ("month", .string(point.month.description)), ("base_currency", .string(point.report.baseCurrency.code)),
                        ("net_worth", .amount(point.report.netWorth)), ("assets", .amount(point.report.assets)),
                        ("liabilities", .amount(point.report.liabilities)), ("complete", .bool(point.report.isComplete)),
                    ])
                })),
            ])
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/accounts", operationId: "listAccounts", security: .ledger(.read))) { ledger, _, asOf, knownAt in
            let accounts = try ledger.accountList(asOf: asOf, knownAt: knownAt)
            return .object([
                ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
                ("accounts", .array(accounts.map { account in
                    .object([
                        ("account", .string(account.name)), ("kind", .string(account.kind.rawValue)),
                        ("currency", .optional(account.currency?.code)),
                        ("opened", .string(ledger.calendar.date(of: account.openedAt).description)),
                        ("closed", .optional(account.closedAt.map { ledger.calendar.date(of: $0).description })),
                        ("balances", .array(account.balances.map { balance in
                            .object([("currency", .string(balance.commodity.code)), ("balance", .amount(balance))])
                        })),
                    ])
                })),
            ])
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/assets", operationId: "listAssets", security: .ledger(.read))) { ledger, _, asOf, knownAt in
            itemsJSON(try ledger.netWorthItems(kind: .asset, asOf: asOf, knownAt: knownAt), ledger, key: "assets")
        },
        Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/liabilities", operationId: "listLiabilities", security: .ledger(.read))) { ledger, _, asOf, knownAt in
            itemsJSON(try ledger.netWorthItems(kind: .liability, asOf: asOf, knownAt: knownAt), ledger, key: "liabilities")
        },
    ]

    /// Assets or liabilities as `tally asset list` / `tally liability list --json` give them.
    static func itemsJSON(_ list: NetWorthItemList, _ ledger: Ledger, key: String) -> JSONValue {
        .object([
            ("as_of", .instant(list.point.asOf)), ("known_at", list.point.knownAt.map(JSONValue.instant) ?? .null),
            ("base_currency", .string(list.baseCurrency.code)),
            (key, .array(list.items.map { itemJSON($0, ledger) })),
        ])
    }

    /// A ledger's settings and head as `GET /ledgers/{id}` gives them.
    static func settingsJSON(_ id: String, _ ledger: Ledger, _ settings: LedgerSettings) -> JSONValue {
        .object([
            ("id", .string(id)),
            ("name", .string(settings.name)),
            ("base_currency", .string(settings.baseCurrency.code)),
            ("time_zone", .string(settings.timeZone)),
            ("page_size", .integer(settings.pageSize)),
            ("due_soon_days", .integer(settings.dueSoonDays)),
            ("price_staleness_seconds", .integer(settings.priceStalenessSeconds)),
            ("head", .object([("sequence", .integer(Int64(ledger.head.sequence))), ("digest", .string(ledger.head.description))])),
        ])
    }

    /// One asset or liability as the lists give it.
    static func itemJSON(_ item: NetWorthItemListing, _ ledger: Ledger) -> JSONValue {
        .object([
            ("id", .string(item.itemId)), ("name", .string(item.name)), ("category", .string(item.category)),
            ("type", .optional(item.type?.rawValue)), ("currency", .string(item.currency.code)),
            ("value", item.value.map { JSONValue.amount($0.value) } ?? .null), ("source", .optional(item.value?.source.rawValue)),
            ("valued_on", .optional(item.value.map { ledger.calendar.date(of: $0.valuedAt).description })),
            ("priced_symbol", .optional(item.value?.pricedSymbol)), ("in_base", item.inBase.map(JSONValue.amount) ?? .null),
        ])
    }

    /// A wealth account's summary as `GET wealth/{account}` gives it.
    static func wealthJSON(_ summary: WealthSummary, asOf: Instant, knownAt: Instant?) -> JSONValue {
        .object([
            ("account", .string(summary.account)),
            ("as_of", .instant(asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
            ("status", .string(summary.status.rawValue)),
            ("split_rule", .string(summary.splitRule.description)),
            ("round_ups_enabled", .bool(summary.roundUpsEnabled)),
            ("card_frozen", .bool(summary.cardFrozen)),
            ("unsplit_deposit_count", .integer(Int64(summary.unsplitDepositCount))),
            ("balances", .array(summary.balances.map { balance in
                .object([
                    ("currency", .string(balance.commodity.code)), ("wallet", .amount(balance.wallet)), ("spend", .amount(balance.spend)),
                    ("invest", .amount(balance.invest)), ("total", .amount(balance.total)),
                    ("round_up_increment", balance.roundUpIncrement.map(JSONValue.amount) ?? .null),
                    ("round_ups_skipped", .bool(summary.roundUpsEnabled && balance.roundUpIncrement == nil)),
                ])
            })),
        ])
    }

    /// The overview screen's fields after `month`, `as_of` and `known_at`: the month's figures
    /// in the budget currency (and in the base currency in `in_base`, null when it is the same
    /// or has no rate, `not_converted` naming the budget currency then), then `pots`,
    /// `latest_transactions`, `budgets` (each an object with its `items` and totals) and
    /// `recurring` (the totals per state and the items), as `tally overview --json` gives them.
    static func budgetScreenJSON(_ screen: BudgetScreen, _ ledger: Ledger, knownAt: Instant?) throws -> [(String, JSONValue)] {
        let overview = screen.overview.overview
        let otherBase = screen.overview.baseCurrency != overview.income.commodity
        func figures(_ overview: BudgetOverview) throws -> [(String, JSONValue)] {
            [("current_balance", .amount(overview.currentBalance)), ("held_in_pots", .amount(overview.heldInPots)),
             ("income", .amount(overview.income)), ("expenses", .amount(overview.expenses)), ("net", .amount(try overview.net()))]
        }
        let conversion = try ledger.budgetBaseConversion(at: screen.asOf, knownAt: knownAt)
        let totals = try screen.budgetTotals()
        let recurring = screen.recurring
        let recurringFields: [(String, JSONValue)] = [("today", JSONValue.string(recurring.today.description))]
            + RecurringState.allCases.map { state -> (String, JSONValue) in (state.rawValue, ReadRoutes.recurringTotalsJSON(recurring.totals(state))) }
            + [("items", JSONValue.array(recurring.items.map(ReadRoutes.recurringStatusJSON)))]
        let parts: [(String, JSONValue)] = [
            ("currency", .string(overview.income.commodity.code)), ("base_currency", .string(screen.overview.baseCurrency.code)),
            ("in_base", try screen.overview.converted.map { otherBase ? JSONValue.object(try figures($0)) : JSONValue.null } ?? JSONValue.null),
            ("not_converted", .array(screen.overview.notConverted.map { .string($0.code) })),
            ("pots", .object([("items", .array(screen.pots.map(potJSON))), ("total", .amount(overview.heldInPots)), ("target", .amount(screen.potsTarget))])),
            ("latest_transactions", .object([("items", .array(screen.latestTransactions.map(transactionJSON))),
                                             ("limit", .integer(Int64(BudgetScreen.latestTransactionsCount)))])),
            ("budgets", .object([("items", .array(try screen.budgets.map { try ReadRoutes.budgetJSON($0, conversion) })),
                                 ("maximum", .amount(totals.maximum)), ("spent", .amount(totals.spent)), ("remaining", .amount(totals.remaining))])),
            ("recurring", .object(recurringFields)),
        ]
        return try figures(overview) + parts
    }

    /// A pot as `GET pots` lists it.
    static func potJSON(_ pot: Pot) -> JSONValue {
        .object([
            ("id", .string(pot.id)), ("name", .string(pot.name)), ("currency", .string(pot.total.commodity.code)),
            ("target", .amount(pot.target)), ("total", .amount(pot.total)), ("progress_basis_points", .integer(pot.progressBasisPoints)),
        ])
    }

    /// An envelope's status as `GET envelopes` lists it.
    static func envelopeJSON(_ status: EnvelopeStatus) -> JSONValue {
        .object([
            ("id", .string(status.envelopeId)), ("name", .string(status.name)), ("interval", .string(status.interval.rawValue)),
            ("rollover", .string(status.policy.rawValue)), ("period_start", .string(status.period.first.description)),
            ("period_end", .optional(status.period.last?.description)), ("currency", .string(status.budgeted.commodity.code)),
            ("budgeted", .amount(status.budgeted)), ("funded", .amount(status.funded)), ("carried_in", .amount(status.carriedIn)),
            ("available", .amount(status.available)), ("spent", .amount(status.spent)), ("remaining", .amount(status.remaining)),
            ("over_budget", .bool(status.isOverBudget)),
        ])
    }

    /// A transaction as the CLI's `--json` writes it.
    static func transactionJSON(_ transaction: BudgetTransaction) -> JSONValue {
        .object([
            ("id", .string(transaction.id)), ("date", .string(transaction.date.description)), ("payee", .string(transaction.payee)),
            ("category", .string(transaction.category.rawValue)), ("amount", .amount(transaction.amount)),
            ("currency", .string(transaction.amount.commodity.code)), ("source", .string(transaction.source.rawValue)),
            ("recurring", .bool(transaction.recurring)), ("changed", .bool(transaction.isChanged)),
            ("bank_id", .optional(transaction.bankId)), ("external_id", .optional(transaction.externalId)),
            ("recurring_id", .optional(transaction.recurringId)), ("bank_category", .optional(transaction.bankCategory?.rawValue)),
        ])
    }

    /// The transaction list's query from `month` or `from`/`through`, `search`, `category`
    /// (the CLI's spelling rule), `sort` (`date`, `name`, `amount`), `order` (`desc`, the
    /// default, or `asc`), `page` and `page_size`, as `tally tx list` reads its options.
    static func transactionQuery(_ call: Call) throws -> TransactionQuery {
        var query = TransactionQuery()
        if call.query("month") != nil {
            guard call.query("from") == nil, call.query("through") == nil else {
                throw Problem.invalidParameter("month", "give either 'month' or 'from'/'through', not both")
            }
            query = TransactionQuery(month: try month(call, "month"))
        }
        query.from = try TimeParameters.day(call.query("from"), field: "from") ?? query.from
        query.through = try TimeParameters.day(call.query("through"), field: "through") ?? query.through
        query.search = call.query("search")
        if let text = call.query("category") {
            do { query.category = try BudgetCategory(parsing: text) } catch let error as LedgerError {
                throw Problem.invalidParameter("category", error.message)
            }
        }
        if let text = call.query("sort") {
            guard let sort = TransactionQuery.Sort(rawValue: text) else { throw Problem.invalidParameter("sort", "'sort' is '\(text)'; use date, name or amount") }
            query.sort = sort
        }
        if let text = call.query("order") {
            guard ["asc", "desc"].contains(text) else { throw Problem.invalidParameter("order", "'order' is '\(text)'; use asc or desc") }
            query.descending = text == "desc"
        }
        query.page = try Cursor.integer(call, "page", in: 1...Int(Int32.max), fallback: 1)
        // Absent: the page_size setting in force (issue 32, rule 7).
        query.pageSize = try Cursor.integer(call, "page_size", in: 1...BudgetSettings.pageSizeLimit)
        return query
    }

    /// A month query parameter (YYYY-MM), required.
    static func month(_ call: Call, _ name: String) throws -> Month {
        guard let text = call.query(name) else { throw Problem.invalidParameter(name, "'\(name)' is required: a month (YYYY-MM)") }
        guard let month = try? Month(parsing: text) else { throw Problem.invalidParameter(name, "'\(name)' is '\(text)', not a month (YYYY-MM)") }
        return month
    }

    /// Answers a query route.
    static func handle(_ definition: Definition, _ call: Call) async throws -> Response {
        try await call.state.pool.with(try call.ledger) { ledger in
            let asOf = try TimeParameters.asOf(call.query("as_of"), ledger)
            let knownAt = try TimeParameters.knownAt(call.query("known_at"), ledger)
            let answer = try await call.state.blocking { try definition.answer(ledger, call, asOf, knownAt) }
            return Call.json(answer)
        }
    }
}
