import ArgumentParser
import Tally

// The lists of issue 15 (missing today 1), each with the same flags: --as-of D and
// --known-at D (ListFormatOptions' neighbour TimeTravelOptions), --json and --format csv.

/// The discussion every list command shares: what its day options mean.
enum ListHelp {
    static let days = """
        --as-of D lists what stood at the end of day D in the ledger's time zone (default: \
        today; --include-future counts what is dated later too); --known-at D lists it as \
        the ledger knew it at the end of D. --format csv prints a header line and one row per \
        item; --json (--format json) one object: the items and their paging. Every form holds \
        one page: --page N of --page-size items (default: the page_size setting in force at \
        the --as-of day); a table ends with "page X of Y (N items)", a CSV that is not the \
        whole list says which page it is on standard error.
        """
}

/// `tally account …`: the ledger's accounts.
struct AccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account", abstract: "The ledger's accounts.", subcommands: [AccountListCommand.self])
}

/// `tally account list`.
struct AccountListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Every account with its kind, currency, opening and closing day, and balance.",
        discussion: ListHelp.days + " " + """
            BALANCE is signed as `tally balances` signs it: debits positive, so a liability \
            owing 300.00 reads -300.00 and OWED reads 300.00. An account holding several \
            currencies has one row per currency; one holding nothing has one row with an \
            empty balance.
            """)
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ListFormatOptions

    func run() throws {
        try storeOptions.withReadingLedger { ledger in
            let accounts = try ledger.accountList(asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
            var table = ListTable([ListColumn("account"), ListColumn("kind"), ListColumn("currency"), ListColumn("opened"), ListColumn("closed"),
                                   ListColumn("balance", numeric: true), ListColumn("balance_currency"), ListColumn("owed", numeric: true)])
            for account in accounts {
                let opened = ListCell.day(ledger.calendar.date(of: account.openedAt))
                let closed = ListCell.day(account.closedAt.map(ledger.calendar.date(of:)))
                let balances: [Money?] = account.balances.isEmpty ? [nil] : account.balances
                for balance in balances {
                    let owed = account.kind == .liability ? try balance.map { try $0.negated() } : nil
                    table.append([.text(account.name), .text(account.kind.rawValue), .text(account.currency?.code), opened, closed,
                                  .amount(balance), .text(balance?.commodity.code), .amount(owed)])
                }
            }
            try table.print(output, ledger, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger), empty: "no accounts")
        }
    }
}

/// `tally rates`: the "FX Rates" screen.
struct RatesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rates", abstract: "The FX rates and prices in force: pair, rate, day and source.",
        discussion: ListHelp.days + " " + """
            A row reads 1 BASE = RATE QUOTE; a price's base is the symbol. Without --history, \
            the latest of each pair by then. An FX rate is typed in (`tally fx`), so its source \
            is manual; a price is live or manual (`tally price --source`).
            """)
    enum Kind: String, ExpressibleByArgument, CaseIterable { case fx, price }

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "Only fx rates or only prices (default: both).") var kind: Kind?
    @Flag(help: "Every rate and price effective by then, newest first in each pair.") var history = false
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ListFormatOptions

    func run() throws {
        try storeOptions.withReadingLedger { ledger in
            let quotes = try ledger.marketQuoteList(kind: kind.map { $0 == .fx ? .rate : .price },
                                                    asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger), history: history)
            var table = ListTable([ListColumn("kind"), ListColumn("pair"), ListColumn("base"), ListColumn("quote"), ListColumn("rate", numeric: true),
                                   ListColumn("date"), ListColumn("effective_at"), ListColumn("source"), ListColumn("seq", numeric: true)])
            for listing in quotes {
                let quote = listing.quote
                table.append([.text(quote.kind == .rate ? "fx" : "price"), .text("\(quote.base.code)/\(quote.quote.code)"),
                              .text(quote.base.code), .text(quote.quote.code), .decimal(quote.value.description),
                              .day(ledger.calendar.date(of: quote.effectiveAt)), .text(quote.effectiveAt.description),
                              .text(listing.source.rawValue), .integer(Int64(quote.sequence))])
            }
            try table.print(output, ledger, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger), empty: "no rates or prices")
        }
    }
}

/// `tally asset list` and `tally liability list`.
enum NetWorthItemListPrinter {
    static let discussion = ListHelp.days + " " + """
        VALUE is the active value in the item's own currency (an override, else the latest \
        live value, else the latest manual one; SOURCE says which) and is positive: for a \
        liability, what is owed. IN BASE is it in the base currency at the rate in force; an \
        item with no rate into it is listed as not converted (on standard error, and in JSON \
        with "in_base": null).
        """

    static func run(_ kind: ItemKind, storeOptions: StoreOptions, time: TimeTravelOptions, output: ListFormatOptions) throws {
        try storeOptions.withReadingLedger { ledger in
            let list = try ledger.netWorthItems(kind: kind, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
            var table = ListTable([ListColumn(kind.rawValue), ListColumn("name"), ListColumn("category"), ListColumn("type"), ListColumn("currency"),
                                   ListColumn("value", numeric: true), ListColumn("source"), ListColumn("valued_on"), ListColumn("priced_symbol"),
                                   ListColumn("in_base", numeric: true), ListColumn("base_currency")])
            for item in list.items {
                table.append([.text(item.itemId), .text(item.name), .text(item.category), .text(item.type?.rawValue), .text(item.currency.code),
                              .amount(item.value?.value), .text(item.value?.source.rawValue), .day(item.value.map { ledger.calendar.date(of: $0.valuedAt) }),
                              .text(item.value?.pricedSymbol), .amount(item.inBase), .text(list.baseCurrency.code)])
            }
            try table.print(output, ledger, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger), empty: "no \(kind == .asset ? "assets" : "liabilities")")
            if output.chosen != .json, !list.notConverted.isEmpty {
                Output.note("not converted (no rate into \(list.baseCurrency.code)): \(list.notConverted.map { "\($0.itemId) (\($0.currency.code))" }.joined(separator: ", "))\n")
            }
        }
    }
}

extension AssetCommand {
    /// `tally asset list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every asset held with its active value and its source.",
                                                        discussion: NetWorthItemListPrinter.discussion)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var time: TimeTravelOptions
        @OptionGroup var output: ListFormatOptions

        func run() throws { try NetWorthItemListPrinter.run(.asset, storeOptions: storeOptions, time: time, output: output) }
    }
}

extension LiabilityCommand {
    /// `tally liability list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every liability held with what it owes and its source.",
                                                        discussion: NetWorthItemListPrinter.discussion)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var time: TimeTravelOptions
        @OptionGroup var output: ListFormatOptions

        func run() throws { try NetWorthItemListPrinter.run(.liability, storeOptions: storeOptions, time: time, output: output) }
    }
}

/// `tally envelope list`.
struct EnvelopeListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Every envelope with its interval, budget, rollover and what is left in its current interval.",
        discussion: ListHelp.days + " The current interval is the one containing the --as-of day.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ListFormatOptions

    func run() throws {
        try storeOptions.withReadingLedger { ledger in
            let date = try time.asOfDateOrToday(ledger)
            let statuses = try ledger.envelopeStatuses(asOf: ledger.calendar.endOfDay(date), knownAt: try time.knownAtInstant(ledger))
            var table = ListTable([ListColumn("envelope"), ListColumn("name"), ListColumn("interval"), ListColumn("budgeted", numeric: true),
                                   ListColumn("currency"), ListColumn("rollover"), ListColumn("first_day"), ListColumn("last_day"),
                                   ListColumn("spent", numeric: true), ListColumn("remaining", numeric: true), ListColumn("over_budget")])
            for status in statuses {
                table.append([.text(status.envelopeId), .text(status.name), .text(status.interval.rawValue), .amount(status.budgeted),
                              .text(status.budgeted.commodity.code), .text(status.policy.rawValue), .day(status.period.first),
                              .day(status.period.last), .amount(status.spent), .amount(status.remaining), .bool(status.isOverBudget)])
            }
            try table.print(output, ledger, asOf: ledger.calendar.endOfDay(date), knownAt: try time.knownAtInstant(ledger), empty: "no envelopes on \(date)")
        }
    }
}

/// `tally challenge list`.
struct ChallengeListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Every challenge with its template, steps done, saved and target.", discussion: ListHelp.days)
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ListFormatOptions

    func run() throws {
        try storeOptions.withReadingLedger { ledger in
            let progresses = try ledger.challengeProgresses(asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
            var table = ListTable([ListColumn("challenge"), ListColumn("name"), ListColumn("template"), ListColumn("unit", numeric: true),
                                   ListColumn("currency"), ListColumn("account"), ListColumn("steps_done", numeric: true), ListColumn("steps", numeric: true),
                                   ListColumn("saved", numeric: true), ListColumn("target", numeric: true), ListColumn("complete")])
            for progress in progresses {
                table.append([.text(progress.challengeId), .text(progress.name), .text(progress.template), .amount(progress.unit),
                              .text(progress.unit.commodity.code), .text(progress.account), .integer(Int64(progress.completedSteps.count)),
                              .integer(Int64(progress.stepCount)), .amount(progress.saved), .amount(progress.target), .bool(progress.isComplete)])
            }
            try table.print(output, ledger, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger), empty: "no challenges")
        }
    }
}

extension AssetCommand {
    /// `tally asset rename ID`.
    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename an asset or change its category from a day on.",
            discussion: """
                --date D: \(CLITime.writeHelp). Answers about days before D keep the old name and \
                category; the change is an asset_renamed event (`tally log --type asset_renamed`). \
                A rename to what is in force already records nothing ("nothing to do", exit 0).
                """)
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The asset's id.") var id: String
        @Option(help: "The new name.") var name: String?
        @Option(help: "The new category: cash, property, investments or other.") var category: String?
        @Option(help: CLITime.writeOption) var date: String?
        @OptionGroup var idempotency: IdempotencyOptions

        func run() throws {
            let category = try category.map { text in
                guard let category = AssetCategory(rawValue: text) else { throw ValidationError("--category must be one of cash, property, investments, other") }
                return category
            }
            try storeOptions.withLedger { ledger in
                CLIParse.noteName(name, "the asset name")
                let result = try ledger.renameAsset(assetId: id, name: name, category: category, effectiveAt: try CLITime.effective(date, ledger: ledger),
                                                    idempotencyKey: idempotency.idempotencyKey)
                if NothingToDo.report(result, "asset '\(id)' has that name and category already") { return }
                RepeatReport.printRecorded(result)
            }
        }
    }
}
