import ArgumentParser
import Foundation
import Tally

/// `tally asset …`: assets of the net worth tracker and the X-ray.
struct AssetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "asset", abstract: "Add, value, tag, rename, remove and list assets.",
        subcommands: [Add.self, Value.self, Position.self, Tag.self, ClearOverride.self, Remove.self, List.self, Rename.self]
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an asset.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The asset's id (no spaces).") var id: String
        @Option(help: "Display name.") var name: String
        @Option(help: "cash, property, investments or other.") var category: String
        @Option(help: "cash, stock_etf, fund, gold, fixed_income, real_estate or custom.") var type: String
        @Option(help: "The currency it is valued in.") var currency: String
        @Option(help: "Country of exposure (ISO 3166-1 alpha-2).") var country: String?
        @Option(help: "Sector.") var sector: String?
        @Option(help: "Ticker symbol.") var symbol: String?
        @Option(help: CLITime.writeOption) var date: String?
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            guard let category = AssetCategory(rawValue: category) else {
                throw ValidationError("--category must be one of \(AssetCategory.allRawValues)")
            }
            guard let type = AssetType(rawValue: type) else { throw ValidationError("--type must be one of \(AssetType.allRawValues)") }
            let ledger = try storeOptions.openLedger()
            defer { try? ledger.close() }
            CLIParse.noteName(name, "the asset name")
            let result = try ledger.addAsset(
                assetId: id, name: name, category: category, type: type, currency: try CLIParse.currency(currency, ledger),
                country: country, sector: sector, symbol: symbol,
                effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotency.idempotencyKey)
            RepeatReport.printRecorded(result)
        }
    }

    struct Value: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Record an asset's value (manual, bank_refresh, live or override).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The asset's id.") var id: String
        @Argument(help: "The value, a positive decimal in the asset's currency.") var amount: String
        @Option(help: "manual, bank_refresh, live or override.") var source = "manual"
        @Option(help: CLITime.writeOption) var date: String?
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            try ValueRecording.record(.asset, id: id, amount: amount, source: source, date: date, idempotencyKey: idempotency.idempotencyKey, storeOptions: storeOptions)
        }
    }

    struct Position: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set an asset's position: a quantity of a symbol, valued at its quoted price.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The asset's id.") var id: String
        @Argument(help: "The quantity (fractional allowed).") var quantity: String
        @Option(help: "The symbol held, e.g. VEA.") var symbol: String
        @Option(help: "Cost basis, a positive decimal in --cost-currency: what the whole position cost.") var cost: String?
        @Option(name: .customLong("cost-currency"), help: "Currency of the cost basis.") var costCurrency = "USD"
        @Option(help: CLITime.writeOption) var date: String?
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            let ledger = try storeOptions.openLedger()
            defer { try? ledger.close() }
            let result = try ledger.setPosition(
                assetId: id, quantity: try CLIParse.quantity(quantity, symbol: symbol),
                            costBasis: try cost.map { try CLIParse.money($0, currency: costCurrency, ledger, option: "--cost") },
                effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotency.idempotencyKey)
            if NothingToDo.report(result, "asset '\(id)' holds that position already") { return }
            RepeatReport.printRecorded(result)
        }
    }

    struct Tag: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace an asset's tags (absent means unknown).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The asset's id.") var id: String
        @Option(help: "Country of exposure.") var country: String?
        @Option(help: "Sector.") var sector: String?
        @Option(help: "Ticker symbol.") var symbol: String?
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            let ledger = try storeOptions.openLedger()
            defer { try? ledger.close() }
            let result = try ledger.tagAsset(assetId: id, country: country, sector: sector, symbol: symbol, idempotencyKey: idempotency.idempotencyKey)
            if NothingToDo.report(result, "asset '\(id)' has these tags already") { return }
            RepeatReport.printRecorded(result)
        }
    }

    struct ClearOverride: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear-override", abstract: "Clear an asset's manual override.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The asset's id.") var id: String
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            let ledger = try storeOptions.openLedger()
            defer { try? ledger.close() }
            let result = try ledger.clearValuationOverride(id, idempotencyKey: idempotency.idempotencyKey)
            if NothingToDo.report(result, "asset '\(id)' has no override in force") { return }
            RepeatReport.printRecorded(result)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an asset from the effective date on (history stays).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The asset's id.") var id: String
        @Option(help: CLITime.writeOption) var date: String?
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            let ledger = try storeOptions.openLedger()
            defer { try? ledger.close() }
            RepeatReport.printRecorded(try ledger.removeAsset(id, effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotency.idempotencyKey))
        }
    }
}

/// `tally liability …`.
struct LiabilityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "liability", abstract: "Add, value, remove and list liabilities, and their payment milestones.",
        subcommands: [Add.self, Value.self, Remove.self, List.self, Milestones.self]
    )

    struct Milestones: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "How much of each liability is paid off, the milestones reached (25%, 50%, 75%, paid off) and what the next one takes.",
            discussion: """
                A liability's starting amount is the first amount recorded as owed; a milestone is reached \
                by the first later value at or below that share of it (a removal is not a payment). Each \
                milestone is also a notification (`liability_milestone`).
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var time: TimeTravelOptions
        @OptionGroup var output: ListFormatOptions

        func run() throws {
            try storeOptions.withReadingLedger { ledger in
                let progresses = try ledger.liabilityMilestones(asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
                var table = ListTable([
                    ListColumn("liability"), ListColumn("name"), ListColumn("starting_amount", numeric: true), ListColumn("owed", numeric: true),
                    ListColumn("currency"), ListColumn("paid_basis_points", numeric: true), ListColumn("milestones"),
                    ListColumn("next_percent", numeric: true), ListColumn("next_left_to_pay", numeric: true),
                ])
                for progress in progresses {
                    table.append([
                        .text(progress.liabilityId), .text(progress.name), .amount(progress.startingAmount), .amount(progress.owed),
                        .text(progress.owed.commodity.code), .integer(progress.paidBasisPoints),
                        .text(progress.milestones.map { "\($0.percent)% on \(ledger.calendar.date(of: $0.reachedAt))" }.joined(separator: "; ")),
                        progress.next.map { ListCell.integer(Int64($0.percent)) } ?? ListCell.none,
                        progress.next.map { ListCell.amount($0.leftToPay) } ?? ListCell.none,
                    ])
                }
                try table.print(output, ledger, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger), empty: "no liabilities")
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a liability.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The liability's id (no spaces).") var id: String
        @Option(help: "Display name.") var name: String
        @Option(help: "mortgage, loan, credit_card or other.") var category: String
        @Option(help: "The currency it is owed in.") var currency: String
        @Option(name: .customLong("linked-asset"), help: "The asset it finances.") var linkedAsset: String?
        @Option(help: CLITime.writeOption) var date: String?
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            guard let category = LiabilityCategory(rawValue: category) else {
                throw ValidationError("--category must be one of \(LiabilityCategory.allRawValues)")
            }
            let ledger = try storeOptions.openLedger()
            defer { try? ledger.close() }
            CLIParse.noteName(name, "the liability name")
            RepeatReport.printRecorded(try ledger.addLiability(
                liabilityId: id, name: name, category: category, currency: try CLIParse.currency(currency, ledger), linkedAssetId: linkedAsset,
                effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotency.idempotencyKey))
        }
    }

    struct Value: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Record what a liability amounts to.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The liability's id.") var id: String
        @Argument(help: "The amount owed, a decimal in its currency: 0 when paid off, else positive.") var amount: String
        @Option(help: "manual or bank_refresh.") var source = "manual"
        @Option(help: CLITime.writeOption) var date: String?
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            try ValueRecording.record(.liability, id: id, amount: amount, source: source, date: date, idempotencyKey: idempotency.idempotencyKey, storeOptions: storeOptions)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a liability from the effective date on.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The liability's id.") var id: String
        @Option(help: CLITime.writeOption) var date: String?
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            let ledger = try storeOptions.openLedger()
            defer { try? ledger.close() }
            RepeatReport.printRecorded(try ledger.removeLiability(id, effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotency.idempotencyKey))
        }
    }
}

enum ValueRecording {
    static func record(
        _ kind: ItemKind, id: String, amount: String, source: String, date: String?, idempotencyKey: String?, storeOptions: StoreOptions
    ) throws {
        guard let source = ValuationSource(rawValue: source) else { throw ValidationError("--source must be one of \(ValuationSource.allRawValues)") }
        let ledger = try storeOptions.openLedger()
        defer { try? ledger.close() }
        guard let currency = try ledger.currency(of: kind, id) else { throw LedgerError(.notFound, "no \(kind.rawValue) '\(id)'; add it first") }
        RepeatReport.printRecorded(try ledger.recordValuation(
            itemKind: kind, itemId: id, value: try CLIParse.money(amount, currency: currency.code, ledger), source: source,
            effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotencyKey))
    }
}

/// `tally price SYMBOL AMOUNT`.
struct PriceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "price", abstract: "Record a quoted price for one unit of a symbol.",
        discussion: "--date D: \(CLITime.writeHelp); it is in force from then.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The symbol, e.g. VEA.") var symbol: String
    @Argument(help: "The price of one whole unit, above zero, with as many decimals as quoted (80.123 in GBP).") var amount: String
    @Option(help: "The price's currency.") var currency = "USD"
    @Option(help: "live or manual.") var source = "live"
    @Option(help: CLITime.writeOption) var date: String?
    @Option(name: .customLong("at"), help: ArgumentHelp("The old name of --date.", visibility: .hidden)) var at: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        guard let source = PriceSource(rawValue: source) else { throw ValidationError("--source must be one of \(PriceSource.allRawValues)") }
        let ledger = try storeOptions.openLedger()
        defer { try? ledger.close() }
        let usage = "tally price <symbol> <amount> [--currency C] records what one unit of SYMBOL is worth"
        if (try? ExactDecimal(parsing: symbol)) != nil {
            throw ValidationError("<symbol> '\(symbol)' is a number, but a ticker is expected there: \(usage)")
        }
        RepeatReport.printRecorded(try ledger.quotePrice(
            symbol: try CLIParse.symbol(symbol, option: "<symbol>"),
            price: try CLIParse.decimalArgument(amount, argument: "<amount>", expected: "a price (what one unit is worth)", usage: usage),
            currency: try CLIParse.currency(currency, ledger), source: source,
            effectiveAt: try CLITime.effective(CLITime.either(date, "--date", or: at, "--at"), ledger: ledger), idempotencyKey: idempotency.idempotencyKey))
    }
}

/// `tally fx BASE QUOTE RATE`.
struct FXCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fx", abstract: "Record an exchange rate: 1 BASE = RATE QUOTE.",
        discussion: "--date D: \(CLITime.writeHelp); the rate is in force from then.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The base currency.") var base: String
    @Argument(help: "The quote currency.") var quote: String
    @Argument(help: "Units of QUOTE for one BASE, an exact decimal above zero.") var rate: String
    @Option(help: CLITime.writeOption) var date: String?
    @Option(name: .customLong("at"), help: ArgumentHelp("The old name of --date.", visibility: .hidden)) var at: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        let ledger = try storeOptions.openLedger()
        defer { try? ledger.close() }
        // Two arguments swapped (`tally fx KWD 3.2512 USD`) are named, with the order meant.
        let swapped = (try? ExactDecimal(parsing: quote)) != nil && (try? Commodity.named(rate)) != nil
        let usage = "tally fx <base> <quote> <rate> records 1 BASE = RATE QUOTE" + (swapped ? "; did you mean `tally fx \(base) \(rate) \(quote)`?" : "")
        RepeatReport.printRecorded(try ledger.setFXRate(
            base: try CLIParse.currencyArgument(base, ledger, argument: "<base>", usage: usage),
            quote: try CLIParse.currencyArgument(quote, ledger, argument: "<quote>", usage: usage),
            rate: try CLIParse.decimalArgument(rate, argument: "<rate>", expected: "a rate (units of QUOTE for one BASE)", usage: usage),
            effectiveAt: try CLITime.effective(CLITime.either(date, "--date", or: at, "--at"), ledger: ledger), idempotencyKey: idempotency.idempotencyKey))
    }
}

/// `tally base-currency CODE`.
struct BaseCurrencyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "base-currency", abstract: "Change the currency answers are given in, from --date (now by default).",
        discussion: """
            The same as `tally settings set base-currency CODE`. A base currency is in force from \
            its date until the next change by date, for every product at once: answers about an \
            earlier day keep the one in force then, and a date in the future changes nothing before it.
            """
    )
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "An ISO 4217 currency.") var currency: String
    @Option(help: CLITime.writeOption("From which day")) var date: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        let ledger = try storeOptions.openLedger()
        defer { try? ledger.close() }
        let commodity = try CLIParse.currencyArgument(currency, ledger, argument: "<currency>", usage: "tally base-currency <currency> [--date D]")
        let result = try ledger.setBaseCurrency(commodity, effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotency.idempotencyKey)
        if NothingToDo.report(result, "the base currency is \(commodity.code) already\(date.map { " on \($0)" } ?? "")") { return }
        RepeatReport.printRecorded(result)
    }
}

/// `tally reminder set|done|list`.
struct ReminderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reminder", abstract: "Reminders to update an asset's value.", subcommands: [Set.self, Done.self, List.self])

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a reminder.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The reminder's id.") var id: String
        @Option(help: "The asset to update.") var asset: String
        @Option(help: "Due date, YYYY-MM-DD: a day in the ledger's time zone.") var due: String
        @Option(help: "A note.") var note: String?
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            let ledger = try storeOptions.openLedger()
            defer { try? ledger.close() }
            let result = try ledger.setReminder(
                reminderId: id, assetId: asset, dueDate: try CLIParse.date(due, option: "--due"), note: note, idempotencyKey: idempotency.idempotencyKey)
            if NothingToDo.report(result, "reminder '\(id)' is open with that asset, due date and note already") { return }
            RepeatReport.printRecorded(result)
        }
    }

    struct Done: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a reminder done.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The reminder's id.") var id: String
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            let ledger = try storeOptions.openLedger()
            defer { try? ledger.close() }
            let result = try ledger.completeReminder(id, idempotencyKey: idempotency.idempotencyKey)
            if NothingToDo.report(result, "reminder '\(id)' is done already") { return }
            RepeatReport.printRecorded(result)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The open reminders, by due date: due on or before the day asked about (default: today), or upcoming.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var time: TimeTravelOptions
        @Flag(help: "Only the reminders that are due.") var due = false
        @OptionGroup var output: ListFormatOptions

        func run() throws {
            try storeOptions.withReadingLedger { ledger in
                let (asOf, knownAt) = (try time.asOfInstant(ledger), try time.knownAtInstant(ledger))
                let reminders = try ledger.reminders(asOf: asOf, knownAt: knownAt).filter { !due || $0.isDue }
                let page = try output.page(of: reminders.count, ledger, asOf: asOf, knownAt: knownAt)
                if output.chosen == .csv {
                    var table = ListTable([ListColumn("reminder"), ListColumn("asset"), ListColumn("due_date"), ListColumn("is_due"), ListColumn("note")])
                    for reminder in reminders {
                        table.append([.text(reminder.reminderId), .text(reminder.assetId), .day(reminder.dueDate), .bool(reminder.isDue), .text(reminder.note)])
                    }
                    return table.print(.csv, page: page, empty: "")
                }
                if output.chosen == .json {
                    return print(JSONText.list(page.slice(reminders).map { reminder in
                        Output.jsonObject([
                            ("id", EventJSON.quoted(reminder.reminderId)), ("asset", EventJSON.quoted(reminder.assetId)),
                            ("due", EventJSON.quoted(reminder.dueDate.description)), ("note", JSONText.string(reminder.note)),
                            ("is_due", String(reminder.isDue)),
                        ])
                    }, paging: JSONPaging(page)))
                }
                guard !reminders.isEmpty else { return print("no open reminders") }
                if !page.range.isEmpty {
                    print(Output.table(["REMINDER", "ASSET", "DUE", "STATE", "NOTE"], page.slice(reminders).map { reminder in
                        [reminder.reminderId, reminder.assetId, reminder.dueDate.description, reminder.isDue ? "due" : "upcoming", reminder.note ?? ""]
                    }))
                }
                print(ListFooter.table(page))
            }
        }
    }
}
