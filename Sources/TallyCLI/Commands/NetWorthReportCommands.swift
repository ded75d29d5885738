import ArgumentParser
import Foundation
import Tally

/// `tally networth [series|change]`.
struct NetWorthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "networth", abstract: "Net worth at a date, its change, and a monthly series.",
        subcommands: [Show.self, Change.self, Series.self], defaultSubcommand: Show.self
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Net worth with its lines, breakdown and exclusions.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var time: TimeTravelOptions
        @Flag(help: "Print one JSON object (the same as --format json).") var json = false
        @Option(help: "table (default), csv (the export's net-worth-items.csv: a header, then one row per line and per exclusion) or json.")
        var format: ListFormatOptions.Format?

        func validate() throws {
            if json, let format, format != .json { throw ValidationError("give --json or --format \(format.rawValue), not both") }
        }

        func run() throws {
            let ledger = try storeOptions.openLedgerForReading()
            defer { try? ledger.close() }
            let report = try ledger.netWorth(asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
            if format == .csv {
                print(NetWorthItemsCSV.render(report), terminator: "")
                return
            }
            if json || format == .json {
                print(NetWorthJSON.report(report))
                return
            }
            print("Net worth \(MoneyDisplay.amount(report.netWorth)) \(report.baseCurrency.code) at \(report.point.asOf)\(report.isComplete ? "" : " (incomplete: \(report.excluded.count) item(s) excluded)")")
            print("assets \(MoneyDisplay.amount(report.assets)) · liabilities \(MoneyDisplay.amount(report.liabilities))")
            print("")
            print(NetWorthJSON.linesTable(report))
            if !report.categories.isEmpty {
                print("")
                print(Output.table(["KIND", "CATEGORY", report.baseCurrency.code, "SHARE"],
                                   report.categories.map { [$0.kind.rawValue, $0.category, MoneyDisplay.amount($0.total), Output.percent($0.basisPoints)] },
                                   rightAligned: [2, 3]))
            }
            for item in report.excluded {
                print("excluded: \(item.kind.rawValue) \(Output.visible(item.itemId)): \(Output.visible(item.reason))")
            }
        }
    }

    struct Change: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change in net worth over the last days (30 by default).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var time: TimeTravelOptions
        @Option(help: "Days to look back.") var days = 30
        @OptionGroup var output: ReportFormatOptions

        func run() throws {
            guard days > 0 else { throw ValidationError("--days must be positive") }
            let ledger = try storeOptions.openLedgerForReading()
            defer { try? ledger.close() }
            let change = try ledger.netWorthChange(asOf: try time.asOfInstant(ledger), days: days, knownAt: try time.knownAtInstant(ledger))
            switch output.chosen {
            case .csv:
                print(NetWorthChangeCSV.render(start: change.start, end: change.end, change: change.change, days: days), terminator: "")
            case .json:
                print(Output.jsonObject([("start", JSONText.money(change.start.netWorth)), ("end", JSONText.money(change.end.netWorth)),
                                         ("change", JSONText.money(change.change)), ("days", String(days)),
                                         ("start_at", EventJSON.quoted(change.start.point.asOf.description)),
                                         ("end_at", EventJSON.quoted(change.end.point.asOf.description)),
                                         ("complete", String(change.start.isComplete && change.end.isComplete))]))
            case .table:
                print("\(MoneyDisplay.money(change.start.netWorth)) to \(MoneyDisplay.money(change.end.netWorth)): \(MoneyDisplay.change(change.change, over: "\(days) days"))")
            }
        }
    }

    struct Series: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Net worth at the end of each month of a range.",
            discussion: """
                A list of months, oldest first, paged as every list is: --page N of --page-size months (default: the \
                page_size setting in force now); a table ends with "page X of Y (N items)"; --format csv prints \
                month,net_worth,currency,complete for the page, --json (--format json) the items and their paging.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "First month (YYYY-MM); each month ends at the end of its last day in the ledger's time zone.") var from: String
        @Option(help: "Last month (YYYY-MM), in the ledger's time zone.") var to: String
        @Option(name: .customLong("known-at"), help: ArgumentHelp("As the ledger knew it then; \(CLITime.readHelp).", valueName: "D")) var knownAt: String?
        @OptionGroup var output: ListFormatOptions

        func run() throws {
            let first = try CLIParse.month(from, option: "--from")
            let last = try CLIParse.month(to, option: "--to")
            guard first <= last else { throw ValidationError("--from \(from) is after --to \(to)") }
            guard last.ordinal - first.ordinal < 1_200 else { throw ValidationError("a series covers at most 100 years") }
            let ledger = try storeOptions.openLedgerForReading()
            defer { try? ledger.close() }
            let known = try knownAt.map { try CLITime.end($0, option: "--known-at", calendar: ledger.calendar) }
            let series = try ledger.netWorthSeries(from: first, through: last, knownAt: known)
            var table = ListTable([ListColumn("month"), ListColumn("net_worth", numeric: true), ListColumn("currency"), ListColumn("complete")])
            for (month, report) in series {
                table.append([.text(month.description), .money(report.netWorth), .text(report.baseCurrency.code), .bool(report.isComplete)])
            }
            try table.print(output, ledger, asOf: nil, knownAt: known, empty: "no months",
                            context: [("from", EventJSON.quoted(first.description)), ("to", EventJSON.quoted(last.description))])
        }
    }
}

/// `tally xray`.
struct XRayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "xray", abstract: "Portfolio X-ray: allocation, exposure, concentration and risks at a date.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "Print one JSON object.") var json = false

    func run() throws {
        let ledger = try storeOptions.openLedgerForReading()
        defer { try? ledger.close() }
        let xray = try ledger.xray(asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
        if json {
            print(NetWorthJSON.xray(xray))
            return
        }
        if xray.isEmpty {
            print("X-ray at \(xray.point.asOf): no holdings to analyse yet. Add an asset and its value (`tally asset add`, `tally asset value`) to see allocation, exposure and insights.")
            for item in xray.excluded { print("excluded: \(Output.visible(item.itemId)): \(Output.visible(item.reason))") }
            return
        }
        print("X-ray at \(xray.point.asOf): \(MoneyDisplay.amount(xray.total)) \(xray.baseCurrency.code) in \(xray.holdings.count) holdings; coverage \(Output.percent(xray.coverageBasisPoints))")
        print(Output.table(["ASSET", "TYPE", "COUNTRY", "SECTOR", xray.baseCurrency.code, "WEIGHT", "SOURCE", "FRESHNESS"],
                           xray.holdings.map { [$0.assetId, $0.type.rawValue, $0.country ?? "?", $0.sector ?? "?", MoneyDisplay.amount($0.converted),
                                                Output.percent($0.weightBasisPoints), $0.value.source.rawValue, NetWorthJSON.freshnessText($0.freshness)] },
                           rightAligned: [4, 5]))
        for (title, groups) in [("By type", xray.allocationByType), ("By country", xray.exposureByCountry), ("By sector", xray.exposureBySector)] {
            print("\n\(title): " + groups.map { "\($0.group) \(Output.percent($0.basisPoints))" }.joined(separator: " · "))
        }
        print("\nInsights")
        for card in xray.cards {
            let value = card.kind == .concentration ? Output.hundredths(card.metric.value) : Output.percent(card.metric.value)
            print("[\(card.severity.rawValue)] \(card.kind.title) \(value): \(Output.visible(card.explanation))")
            print("    why it matters: \(card.whyItMatters)")
            print("    next: \(card.nextStep)")
            if !card.items.isEmpty {
                let more = card.itemCount > card.items.count ? " · and \(card.itemCount - card.items.count) more" : ""
                print("    " + card.items.map { item in
                    "\(Output.visible(item.name)) \(Output.percent(item.weightBasisPoints))\(item.reason.map { " (\($0))" } ?? "")"
                }.joined(separator: " · ") + more)
            }
        }
        if !xray.unrealisedGains.isEmpty || !xray.unrealisedGainsExcluded.isEmpty {
            let code = xray.baseCurrency.code
            print("\nUnrealised gains (value − cost basis, in \(code))")
            print(Output.table(["ASSET", "COST BASIS", "COST \(code)", "VALUE \(code)", "GAIN \(code)"],
                               xray.unrealisedGains.map { [$0.assetId, "\(MoneyDisplay.amount($0.costBasis)) \($0.costBasis.commodity.code)",
                                                           MoneyDisplay.amount($0.costConverted), MoneyDisplay.amount($0.value), MoneyDisplay.amount($0.gain)] }
                                   + [["total", "", "", "", MoneyDisplay.amount(xray.unrealisedGainTotal)]],
                               rightAligned: [1, 2, 3, 4]))
            for item in xray.unrealisedGainsExcluded { print("gain not counted: \(Output.visible(item.itemId)): \(Output.visible(item.reason))") }
        }
        for item in xray.excluded { print("excluded: \(Output.visible(item.itemId)): \(Output.visible(item.reason))") }
        for reminder in xray.remindersDue { print("reminder due \(reminder.dueDate): update \(Output.visible(reminder.assetId))\(reminder.note.map { " (\(Output.visible($0)))" } ?? "")") }
    }
}

enum NetWorthJSON {
    /// How a table shows a value's freshness: `stale price`, `market closed`, or nothing.
    static func freshnessText(_ freshness: PriceFreshness) -> String {
        switch freshness {
        case .stale: "stale price"
        case .marketClosed: "market closed"
        case .fresh: ""
        }
    }

    /// The report's lines as a table: each with where it comes from (`FROM`: item,
    /// wealth_account or account), its value in its own currency and in the base currency.
    static func linesTable(_ report: NetWorthReport) -> String {
        Output.table(
            ["KIND", "ITEM", "FROM", "CATEGORY", "VALUE", "CUR", report.baseCurrency.code, "SOURCE", "FRESHNESS"],
            report.lines.map { line in
                [line.kind.rawValue, line.itemId, line.origin.rawValue, line.category, MoneyDisplay.amount(line.value.value), line.value.value.commodity.code,
                 MoneyDisplay.amount(line.converted), line.value.source.rawValue, freshnessText(line.freshness)]
            }, rightAligned: [4, 6])
    }

    static func report(_ report: NetWorthReport) -> String {
        Output.jsonObject([
            ("as_of", EventJSON.quoted(report.point.asOf.description)),
            ("base_currency", EventJSON.quoted(report.baseCurrency.code)),
            ("assets", JSONText.money(report.assets)), ("liabilities", JSONText.money(report.liabilities)),
            ("net_worth", JSONText.money(report.netWorth)), ("complete", report.isComplete ? "true" : "false"),
            ("lines", JSONText.array(report.lines.map { line in
                Output.jsonObject([("kind", EventJSON.quoted(line.kind.rawValue)), ("id", EventJSON.quoted(line.itemId)),
                                   ("origin", EventJSON.quoted(line.origin.rawValue)),
                                   ("category", EventJSON.quoted(line.category)), ("value", JSONText.money(line.value.value)),
                                   ("converted", JSONText.money(line.converted)), ("source", EventJSON.quoted(line.value.source.rawValue)),
                                   ("stale", line.isStale ? "true" : "false"), ("freshness", EventJSON.quoted(line.freshness.rawValue))])
            })),
            ("categories", JSONText.array(report.categories.map { share in
                Output.jsonObject([("kind", EventJSON.quoted(share.kind.rawValue)), ("category", EventJSON.quoted(share.category)),
                                   ("total", JSONText.money(share.total)), ("basis_points", String(share.basisPoints))])
            })),
            ("excluded", JSONText.array(report.excluded.map { item in
                Output.jsonObject([("kind", EventJSON.quoted(item.kind.rawValue)), ("id", EventJSON.quoted(item.itemId)),
                                   ("origin", EventJSON.quoted(item.origin.rawValue)),
                                   ("value", item.value.map(JSONText.money) ?? "null"), ("reason", EventJSON.quoted(item.reason))])
            })),
        ])
    }

    static func xray(_ xray: XRaySnapshot) -> String {
        func groups(_ shares: [GroupShare]) -> String {
            JSONText.array(shares.map { Output.jsonObject([("group", EventJSON.quoted($0.group)), ("total", JSONText.money($0.total)), ("basis_points", String($0.basisPoints))]) })
        }
        func metric(_ metric: XRayMetric) -> String {
            Output.jsonObject([("value", String(metric.value)), ("severity", EventJSON.quoted(metric.severity.rawValue))])
        }
        return Output.jsonObject([
            ("as_of", EventJSON.quoted(xray.point.asOf.description)), ("base_currency", EventJSON.quoted(xray.baseCurrency.code)),
            ("total", JSONText.money(xray.total)), ("coverage_basis_points", String(xray.coverageBasisPoints)),
            ("holdings", JSONText.array(xray.holdings.map { holding in
                Output.jsonObject([("id", EventJSON.quoted(holding.assetId)), ("type", EventJSON.quoted(holding.type.rawValue)),
                                   ("country", JSONText.string(holding.country)), ("sector", JSONText.string(holding.sector)),
                                   ("converted", JSONText.money(holding.converted)), ("weight_basis_points", String(holding.weightBasisPoints)),
                                   ("source", EventJSON.quoted(holding.value.source.rawValue)), ("stale", holding.isStale ? "true" : "false"), ("freshness", EventJSON.quoted(holding.freshness.rawValue))])
            })),
            ("by_type", groups(xray.allocationByType)), ("by_country", groups(xray.exposureByCountry)), ("by_sector", groups(xray.exposureBySector)),
            ("concentration_hundredths", metric(xray.concentration)), ("home_bias_basis_points", metric(xray.homeBias)),
            ("illiquidity_basis_points", metric(xray.illiquidity)), ("data_confidence_basis_points", metric(xray.dataConfidence)),
            ("exposure_basis_points", metric(xray.exposure)),
            ("largest_exposure", xray.largestExposure.map { exposure in
                Output.jsonObject([("dimension", EventJSON.quoted(exposure.dimension.rawValue)), ("group", EventJSON.quoted(exposure.group)),
                                   ("basis_points", String(exposure.basisPoints))])
            } ?? "null"),
            ("empty", xray.isEmpty ? "true" : "false"),
            ("excluded", JSONText.array(xray.excluded.map { Output.jsonObject([("id", EventJSON.quoted($0.itemId)), ("reason", EventJSON.quoted($0.reason))]) })),
            ("reminders_due", JSONText.array(xray.remindersDue.map { Output.jsonObject([("id", EventJSON.quoted($0.reminderId)), ("asset", EventJSON.quoted($0.assetId)), ("due", EventJSON.quoted($0.dueDate.description))]) })),
            ("cards", JSONText.array(xray.cards.map(card))),
            ("unrealised_gains", JSONText.array(xray.unrealisedGains.map { gain in
                Output.jsonObject([("id", EventJSON.quoted(gain.assetId)), ("cost_basis", JSONText.money(gain.costBasis)),
                                   ("cost_converted", JSONText.money(gain.costConverted)), ("value", JSONText.money(gain.value)),
                                   ("gain", JSONText.money(gain.gain))])
            })),
            ("unrealised_gain_total", JSONText.money(xray.unrealisedGainTotal)),
            ("unrealised_gains_excluded", JSONText.array(xray.unrealisedGainsExcluded.map { Output.jsonObject([("id", EventJSON.quoted($0.itemId)), ("reason", EventJSON.quoted($0.reason))]) })),
        ])
    }

    /// One insight card: `value` in hundredths (concentration) or basis points (the shares).
    static func card(_ card: XRayCard) -> String {
        // The items shown (the largest first) as one page of all `item_count`.
        JSONText.list(card.items.map { item in
            Output.jsonObject([("id", EventJSON.quoted(item.assetId)), ("name", EventJSON.quoted(item.name)),
                               ("weight_basis_points", String(item.weightBasisPoints)), ("reason", JSONText.string(item.reason))])
        }, paging: JSONPaging(page: 1, pageSize: max(card.items.count, 1), totalCount: max(card.itemCount, card.items.count)), context: [
            ("kind", EventJSON.quoted(card.kind.rawValue)), ("value", String(card.metric.value)),
            ("unit", EventJSON.quoted(card.kind == .concentration ? "hundredths" : "basis_points")),
            ("severity", EventJSON.quoted(card.severity.rawValue)), ("explanation", EventJSON.quoted(card.explanation)),
            ("why_it_matters", EventJSON.quoted(card.whyItMatters)), ("next_step", EventJSON.quoted(card.nextStep)),
            ("item_count", String(card.itemCount)),
        ])
    }
}

extension XRayCard.Kind {
    /// The card's title in text output.
    var title: String {
        switch self {
        case .concentration: "concentration"
        case .homeBias: "home bias"
        case .illiquidity: "illiquidity"
        case .dataConfidence: "data confidence"
        case .exposure: "exposure"
        }
    }
}
