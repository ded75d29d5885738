import ArgumentParser
import Tally

/// `tally settings [show|set]`: the ledger's settings as events set them.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "The ledger's settings: each value in force, since when, and whether it is the default.",
        discussion: """
            Settings are events: a change is in force from its --date (now by default) until the \
            next change by date, so answers about a day use the value in force then. The time \
            zone is fixed at `init`. The split rule and round-ups belong to each wealth account \
            (`tally wealth split-rule`, `tally wealth round-ups`); give --wealth-account to show them.
            """,
        subcommands: [Show.self, Set.self],
        defaultSubcommand: Show.self
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every setting in force (the default).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var time: TimeTravelOptions
        @Option(name: .customLong("wealth-account"), help: "Also show this wealth account's split rule and round-ups (repeatable).")
        var wealthAccounts: [String] = []
        @Flag(help: "One JSON object.") var json = false

        func run() throws {
            try storeOptions.withReadingLedger { ledger in
                let asOf = try time.asOfInstant(ledger)
                let knownAt = try time.knownAtInstant(ledger)
                let settings = try ledger.settings(asOf: asOf ?? ledger.now, knownAt: knownAt)
                let wealth = try wealthAccounts.map { ($0, try ledger.wealthSummary(account: $0, asOf: asOf, knownAt: knownAt)) }
                let commodities = try ledger.declaredCommodities()
                if json {
                    print(Output.jsonObject([
                        ("settings", JSONText.array(settings.values.map { value in
                            Output.jsonObject([
                                ("setting", EventJSON.quoted(value.setting.rawValue)), ("value", EventJSON.quoted(value.value)),
                                ("since", JSONText.string(value.since?.description)), ("recorded_at", JSONText.string(value.recordedAt?.description)),
                                ("default", value.isDefault ? "true" : "false"),
                            ])
                        })),
                        ("wealth_accounts", JSONText.array(wealth.map { account, summary in
                            Output.jsonObject([
                                ("account", EventJSON.quoted(account)),
                                ("split_rule", EventJSON.quoted("\(summary.splitRule.spendWeight)/\(summary.splitRule.investWeight)")),
                                ("round_ups", summary.roundUpsEnabled ? "true" : "false"),
                            ])
                        })),
                        ("declared_commodities", JSONText.array(commodities.map {
                            Output.jsonObject([("code", EventJSON.quoted($0.code)), ("scale", String($0.scale))])
                        })),
                        ("created_at", JSONText.string(settings.createdAt?.description)),
                    ]))
                    return
                }
                let rows = settings.values.map { value in
                    [value.setting.rawValue, Output.visible(value.value), value.since?.description ?? "-", value.isDefault ? "default" : "set"]
                } + wealth.flatMap { account, summary in [
                    ["wealth \(Output.visible(account)) split rule", "\(summary.splitRule.spendWeight)/\(summary.splitRule.investWeight)", "-", "wealth"],
                    ["wealth \(Output.visible(account)) round-ups", summary.roundUpsEnabled ? "on" : "off", "-", "wealth"],
                ] } + commodities.map { ["commodity \($0.code)", "scale \($0.scale)", "-", "declared"] }
                print(Output.table(["SETTING", "VALUE", "SINCE", "STATE"], rows))
                if let createdAt = settings.createdAt, let asOf, asOf < createdAt {
                    Output.note("note: the ledger was created at \(createdAt), after \(asOf): what it was created with is in force before then too (no SINCE), as every answer about that time takes it\n")
                }
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a setting from --date (now by default): due-soon-days, page-size, price-staleness-seconds or base-currency."
        )

        enum Name: String, ExpressibleByArgument, CaseIterable {
            case dueSoonDays = "due-soon-days", pageSize = "page-size"
            case priceStalenessSeconds = "price-staleness-seconds", baseCurrency = "base-currency"
            case timeZone = "time-zone", name, splitRule = "split-rule", roundUps = "round-ups"
        }

        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The setting: \(Name.allCases.prefix(4).map(\.rawValue).joined(separator: ", ")).") var setting: Name
        @Argument(help: "Its new value: days, rows, seconds or an ISO 4217 code.") var value: String
        @Option(help: CLITime.writeOption("From which day")) var date: String?
        @OptionGroup var idempotency: IdempotencyOptions
        @Flag(help: "One JSON object.") var json = false

        func number(_ unit: String) throws -> Int64 {
            guard let number = Int64(value) else { throw ValidationError("\(setting.rawValue): '\(value)' is not a whole number of \(unit)") }
            return number
        }

        func run() throws {
            switch setting {
            case .timeZone, .name: throw ValidationError("\(setting.rawValue) is fixed when the ledger is created (`tally init`); it never changes")
            case .splitRule: throw ValidationError("the split rule belongs to each wealth account: `tally wealth split-rule SPEND INVEST --account ID`")
            case .roundUps: throw ValidationError("round-ups belong to each wealth account: `tally wealth round-ups on --account ID` (or off)")
            default: break
            }
            try storeOptions.withLedger { ledger in
                let effectiveAt = try CLITime.effective(date, ledger: ledger)
                let key = idempotency.idempotencyKey
                let result: Ledger.CommandResult
                switch setting {
                case .dueSoonDays: result = try ledger.setDueSoonDays(try number("days"), effectiveAt: effectiveAt, idempotencyKey: key)
                case .pageSize: result = try ledger.setPageSize(try number("rows"), effectiveAt: effectiveAt, idempotencyKey: key)
                case .priceStalenessSeconds: result = try ledger.setPriceStaleness(seconds: try number("seconds"), effectiveAt: effectiveAt, idempotencyKey: key)
                case .baseCurrency:
                    let currency = try CLIParse.currencyArgument(value, ledger, argument: "<value>", usage: "tally settings set base-currency <currency code> [--date D]")
                    result = try ledger.setBaseCurrency(currency, effectiveAt: effectiveAt, idempotencyKey: key)
                case .timeZone, .name, .splitRule, .roundUps: return
                }
                if NothingToDo.report(result, json: json, "\(setting.rawValue) is \(value) already then") { return }
                if json { print(try CommandOutput.json(result)) } else { RepeatReport.printRecorded(result) }
            }
        }
    }
}

/// `tally commodity declare SYMBOL --scale N`: a currency code beyond ISO 4217 and the built-in list.
struct CommodityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commodity",
        abstract: "Declare a currency code that is not ISO 4217 nor built in (USDC, USDT, EURC, PYUSD, BTC, ETH).",
        discussion: "Every command that takes a currency accepts ISO 4217 codes, the built-in ones and declared ones, and refuses any other. A position's symbol (a ticker) is not a currency and needs no declaration.",
        subcommands: [Declare.self]
    )

    struct Declare: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Declare a code with the decimal places its amounts carry.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The code, e.g. GBX.") var code: String
        @Option(help: "Decimal places, 0 to 8.") var scale: Int64
        @OptionGroup var idempotency: IdempotencyOptions
        @Flag(help: "One JSON object.") var json = false

        func run() throws {
            try storeOptions.withLedger { ledger in
                let result = try ledger.declareCommodity(code: code, scale: scale, idempotencyKey: idempotency.idempotencyKey)
                if NothingToDo.report(result, json: json, "\(code) is declared with scale \(scale) already") { return }
                if json { print(try CommandOutput.json(result)) } else { RepeatReport.printRecorded(result) }
            }
        }
    }
}
