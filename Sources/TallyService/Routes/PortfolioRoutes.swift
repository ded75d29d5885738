import Hummingbird
import Tally

/// The portfolio X-ray and the what-if projection as `GET` routes, on the library queries
/// `tally xray` and `tally what-if` use, with the fields their `--json` names. Amounts of the
/// base currency are decimal strings beside one `base_currency`; an amount in another currency
/// carries its own.
enum PortfolioRoutes {
    static let all: [QueryRoutes.Definition] = [
        QueryRoutes.Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/xray", operationId: "getXRay", security: .ledger(.read))) { ledger, _, asOf, knownAt in
            xrayJSON(try ledger.xray(asOf: asOf, knownAt: knownAt), knownAt: knownAt)
        },
        QueryRoutes.Definition(route: ServiceRoute(method: .get, path: "/ledgers/{ledger}/what-if", operationId: "getWhatIf", security: .ledger(.read))) { ledger, call, asOf, knownAt in
            // Amounts are in the base currency in force on the start day (the one rule every product asks).
            let day = ledger.calendar.date(of: asOf)
            let base = try ledger.baseCurrency(asOf: ledger.calendar.endOfDay(day), knownAt: knownAt)
            func money(_ name: String) throws -> Money? {
                try call.query(name).map { text in
                    do { return try Money(parsing: text, commodity: base) } catch {
                        throw Problem.invalidParameter(name, "'\(name)' is '\(text)', not an amount in \(base.code) (a decimal such as 250.00)")
                    }
                }
            }
            guard let goal = try money("goal") else { throw Problem.invalidParameter("goal", "'goal' is required: the balance to reach, in \(base.code)") }
            let projection = try ledger.whatIf(
                goal: goal, account: call.query("account"), extraMonthly: try money("extra_monthly"), oneTime: try money("one_time"),
                monthlySaving: try money("monthly"), horizonMonths: try Cursor.integer(call, "horizon", in: 1...1_200, fallback: 120),
                on: day, knownAt: knownAt)
            let plan = projection.plan
            return .object([
                ("known_at", knownAt.map(JSONValue.instant) ?? .null), ("currency", .string(plan.goal.commodity.code)),
                ("start_date", .string(plan.startDate.description)), ("start_balance", .amount(plan.startBalance)),
                ("monthly_saving", .amount(plan.monthlySaving)), ("extra_monthly", .amount(plan.extraMonthly)), ("one_time", .amount(plan.oneTime)),
                ("goal", .amount(plan.goal)), ("horizon_months", .integer(Int64(plan.horizonMonths))),
                ("reached_month", projection.reachedMonth.map { .integer(Int64($0)) } ?? .null),
                ("reached_date", .optional(projection.reachedDate?.description)),
                ("series", .array(projection.series.map { point in
                    .object([("month", .integer(Int64(point.month))), ("date", .string(point.date.description)), ("balance", .amount(point.balance))])
                })),
                ("complete", .bool(projection.isComplete)),
                ("not_converted", .array(projection.notConverted.map { line in
                    .object([
                        ("account", .string(line.account)), ("currency", .string(line.balance.commodity.code)), ("balance", .amount(line.balance)),
                        ("date", .string(line.date.description)),
                    ])
                })),
            ])
        },
    ]

    /// The X-ray as `tally xray --json` gives it; shares in basis points, concentration in hundredths.
    static func xrayJSON(_ xray: XRaySnapshot, knownAt: Instant?) -> JSONValue {
        func groups(_ shares: [GroupShare]) -> JSONValue {
            .array(shares.map { .object([("group", .string($0.group)), ("total", .amount($0.total)), ("basis_points", .integer($0.basisPoints))]) })
        }
        func metric(_ metric: XRayMetric) -> JSONValue {
            .object([("value", .integer(metric.value)), ("severity", .string(metric.severity.rawValue))])
        }
        func excluded(_ items: [ExcludedItem]) -> JSONValue {
            .array(items.map { .object([("id", .string($0.itemId)), ("name", .string($0.name)), ("reason", .string($0.reason))]) })
        }
        return .object([
            ("as_of", .instant(xray.point.asOf)), ("known_at", knownAt.map(JSONValue.instant) ?? .null),
            ("base_currency", .string(xray.baseCurrency.code)), ("total", .amount(xray.total)),
            ("coverage_basis_points", .integer(xray.coverageBasisPoints)),
            ("holdings", .array(xray.holdings.map { holding in
                .object([
                    ("id", .string(holding.assetId)), ("name", .string(holding.name)), ("type", .string(holding.type.rawValue)),
                    ("country", .optional(holding.country)), ("sector", .optional(holding.sector)),
                    ("converted", .amount(holding.converted)), ("weight_basis_points", .integer(holding.weightBasisPoints)),
                    ("source", .string(holding.value.source.rawValue)), ("stale", .bool(holding.isStale)), ("freshness", .string(holding.freshness.rawValue)),
                ])
            })),
            ("by_type", groups(xray.allocationByType)), ("by_country", groups(xray.exposureByCountry)), ("by_sector", groups(xray.exposureBySector)),
            ("concentration_hundredths", metric(xray.concentration)), ("home_bias_basis_points", metric(xray.homeBias)),
            ("illiquidity_basis_points", metric(xray.illiquidity)), ("data_confidence_basis_points", metric(xray.dataConfidence)),
            ("exposure_basis_points", metric(xray.exposure)),
            ("largest_exposure", xray.largestExposure.map { exposure in
                .object([("dimension", .string(exposure.dimension.rawValue)), ("group", .string(exposure.group)),
                         ("basis_points", .integer(exposure.basisPoints))])
            } ?? .null),
            ("empty", .bool(xray.isEmpty)),
            ("excluded", excluded(xray.excluded)),
            ("reminders_due", .array(xray.remindersDue.map { reminder in
                .object([("id", .string(reminder.reminderId)), ("asset", .string(reminder.assetId)), ("due", .string(reminder.dueDate.description)),
                         ("note", .optional(reminder.note))])
            })),
            ("cards", .array(xray.cards.map { card in
                .object([
                    ("kind", .string(card.kind.rawValue)), ("value", .integer(card.metric.value)),
                    ("unit", .string(card.kind == .concentration ? "hundredths" : "basis_points")),
                    ("severity", .string(card.severity.rawValue)), ("explanation", .string(card.explanation)),
                    ("why_it_matters", .string(card.whyItMatters)), ("next_step", .string(card.nextStep)),
                    ("item_count", .integer(Int64(card.itemCount))),
                    ("items", .array(card.items.map { item in
                        .object([("id", .string(item.assetId)), ("name", .string(item.name)), ("weight_basis_points", .integer(item.weightBasisPoints)),
                                 ("reason", .optional(item.reason))])
                    })),
                ])
            })),
            ("unrealised_gains", .array(xray.unrealisedGains.map { gain in
                .object([
                    ("id", .string(gain.assetId)), ("name", .string(gain.name)), ("cost_basis_currency", .string(gain.costBasis.commodity.code)),
                    ("cost_basis", .amount(gain.costBasis)), ("cost_converted", .amount(gain.costConverted)), ("value", .amount(gain.value)),
                    ("gain", .amount(gain.gain)),
                ])
            })),
            ("unrealised_gain_total", .amount(xray.unrealisedGainTotal)),
            ("unrealised_gains_excluded", excluded(xray.unrealisedGainsExcluded)),
        ])
    }
}
