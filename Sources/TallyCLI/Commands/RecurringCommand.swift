import ArgumentParser
import Foundation
import Tally

struct RecurringCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recurring",
        abstract: "Recurring income and bills: define, remove, generate a month, status, list, the bills list.",
        subcommands: [
            RecurringDefineCommand.self, RecurringRemoveCommand.self, RecurringGenerateCommand.self,
            RecurringStatusCommand.self, RecurringListCommand.self, RecurringBillsCommand.self,
        ]
    )
}

struct RecurringDefineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "define", abstract: "Define a recurring income (positive) or bill (negative).")

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The item's id, e.g. rent.") var id: String
    @Option(help: "Who is paid, or who pays.") var payee: String
    @Option(help: "The category.") var category: String
    @Option(parsing: .unconditional, help: "Signed amount, e.g. -1200.00.") var amount: String
    @Option(help: "Day of the month it falls due, 1-31 (shorter months: their last day).") var day: Int
    @Option(help: "First month, YYYY-MM (in the ledger's time zone).") var start: String
    @Option(help: "Last month, YYYY-MM (in the ledger's time zone; default: no end).") var end: String?
    @Option(help: "monthly (default), quarterly or yearly.") var frequency = "monthly"
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        guard let frequency = RecurringFrequency(rawValue: frequency) else {
            throw ValidationError("--frequency must be monthly, quarterly or yearly")
        }
        try storeOptions.withLedger { ledger in
            let result = try ledger.defineRecurring(
                id: id, payee: payee, category: try BudgetCLI.category(category, "--category"),
                amount: try BudgetCLI.amount(amount, "--amount", ledger), dayOfMonth: day,
                startMonth: try CLIParse.month(start, option: "--start"), endMonth: try end.map { try CLIParse.month($0, option: "--end") },
                frequency: frequency, idempotencyKey: idempotency.idempotencyKey
            )
            try BudgetCLI.report(result, json: json, "Defined recurring item \(id)")
        }
    }
}

struct RecurringRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a recurring item; generated transactions stay.")

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The item's id.") var id: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            try BudgetCLI.report(try ledger.removeRecurring(id: id, idempotencyKey: idempotency.idempotencyKey), json: json, "Removed recurring item \(id)")
        }
    }
}

struct RecurringGenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Create a month's transactions for every recurring item; asking twice generates nothing."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The month, YYYY-MM (in the ledger's time zone).") var month: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        let month = try CLIParse.month(month, option: "--month")
        try storeOptions.withLedger { ledger in
            let result = try ledger.generateRecurring(month: month, idempotencyKey: idempotency.idempotencyKey)
            if NothingToDo.report(result, json: json, "every recurring item due in \(month) is generated already") { return }
            try BudgetCLI.report(result, json: json, "Generated \(result.events.count) transaction\(result.events.count == 1 ? "" : "s") for \(month)")
        }
    }
}

struct RecurringStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Each recurring item in a month: paid, due soon (within the due-soon window, 5 days unless set), upcoming, or overdue (due date passed, not paid).",
        discussion: """
            Totals per state give income and bills apart (bills as the positive amount to pay), never netted. \
            Amounts are in the budget currency; when the base currency is another, the totals are given in it \
            too at the FX rate in force on that day, or the budget currency is listed as not converted. \
            --format csv: one row per item due in the month (month, today, due, id, payee, category, amount, \
            currency, state, transaction_id); the totals are its amounts added up by state. --search and \
            --sort order the items as `recurring bills` does (by due: the month's due day); the totals stay the month's.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The month, YYYY-MM (in the ledger's time zone; default: today's month).") var month: String?
    @Option(help: "Today, YYYY-MM-DD: a day in the ledger's time zone (or give --as-of). Default: today there.") var today: String?
    @Option(name: .customLong("due-soon-days"), help: "The due-soon window in days (default: the setting in force on that day, `tally settings`).") var dueSoonDays: Int?
    @OptionGroup var order: RecurringOrderOptions
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ReportFormatOptions

    func run() throws {
        let (today, month, report, conversion) = try storeOptions.withReadingLedger { ledger in
            // One "today": the current day in the ledger's time zone unless --today or --as-of.
            let today = try time.day(self.today, option: "--today", calendar: ledger.calendar) { ledger.calendar.date(of: ledger.now) } ?? ledger.calendar.date(of: ledger.now)
            let month = try self.month.map { try CLIParse.month($0, option: "--month") } ?? today.month
            let knownAt = try time.knownAtInstant(ledger)
            let report = try order.query.map { try ledger.recurringStatus($0, month: month, today: today, dueSoonDays: dueSoonDays, knownAt: knownAt) }
                ?? ledger.recurringStatus(month: month, today: today, dueSoonDays: dueSoonDays, knownAt: knownAt)
            return (today, month, report,
                    try ledger.budgetBaseConversion(at: ledger.calendar.endOfDay(today), knownAt: knownAt))
        }
        // In another base currency, the totals in it too (issue 15, wrong today 9).
        let otherBase = conversion.baseCurrency != conversion.budgetCurrency
        if output.chosen == .csv { return print(RecurringStatusCSV.render(report), terminator: "") }
        if output.chosen == .json {
            let items = report.items.map { status in
                Output.jsonObject([
                    ("id", EventJSON.quoted(status.item.id)), ("payee", EventJSON.quoted(status.item.payee)),
                    ("amount", BudgetCLI.json(status.item.amount)), ("due", EventJSON.quoted(status.dueDate.description)),
                    ("state", EventJSON.quoted(status.state.rawValue)),
                    ("transaction_id", status.matchingTransactionId.map(EventJSON.quoted) ?? "null"),
                ])
            }
            print(JSONText.list(items, context: [
                ("month", EventJSON.quoted(month.description)), ("today", EventJSON.quoted(today.description)),
                ("paid", RecurringCLI.json(report.paid)), ("due_soon", RecurringCLI.json(report.dueSoon)),
                ("upcoming", RecurringCLI.json(report.upcoming)), ("overdue", RecurringCLI.json(report.overdue)), ("currency", EventJSON.quoted(report.paid.income.commodity.code)),
            ] + (otherBase ? [
                ("base_currency", EventJSON.quoted(conversion.baseCurrency.code)),
                ("in_base", conversion.isConverted ? Output.jsonObject([
                    ("paid", try RecurringCLI.json(report.paid, conversion)), ("due_soon", try RecurringCLI.json(report.dueSoon, conversion)),
                    ("upcoming", try RecurringCLI.json(report.upcoming, conversion)), ("overdue", try RecurringCLI.json(report.overdue, conversion)),
                ]) : "null"),
            ] : [])))
            return
        }
        print(Output.table(
            ["DUE", "ID", "PAYEE", "AMOUNT", "STATE"],
            report.items.map { [$0.dueDate.description, $0.item.id, $0.item.payee, MoneyDisplay.amount($0.item.amount), $0.state.rawValue] },
            rightAligned: [3]
        ))
        print("")
        print(RecurringCLI.totalsTable(report))
        if otherBase {
            if conversion.isConverted {
                print("")
                print(try RecurringCLI.totalsTable(report, in: conversion))
            } else {
                print("not converted (no rate into \(conversion.baseCurrency.code)): \(conversion.notConverted.map(\.code).joined(separator: ", "))")
            }
        }
    }
}

/// The totals of a recurring status, income and bills apart in each state.
enum RecurringCLI {
    /// `{"income":{"amount":"3000.00","currency":"USD"},"bills":{…}}`.
    static func json(_ totals: RecurringTotals) -> String {
        Output.jsonObject([("income", BudgetCLI.json(totals.income)), ("bills", BudgetCLI.json(totals.bills))])
    }

    /// The totals in the base currency, each `{amount, currency}` (null with no rate).
    static func json(_ totals: RecurringTotals, _ conversion: BudgetBaseConversion) throws -> String {
        Output.jsonObject([("income", BudgetCLI.json(try conversion.convert(totals.income))),
                           ("bills", BudgetCLI.json(try conversion.convert(totals.bills)))])
    }

    /// The totals table in the base currency, converted at the rate in force.
    static func totalsTable(_ report: RecurringStatusReport, in conversion: BudgetBaseConversion) throws -> String {
        let base = conversion.baseCurrency.code
        return Output.table(
            ["STATE", "INCOME \(base)", "BILLS \(base)"],
            try [("paid", report.paid), ("due soon", report.dueSoon), ("upcoming", report.upcoming), ("overdue", report.overdue)].map { name, totals in
                [name, try conversion.convert(totals.income).map(MoneyDisplay.amount) ?? "", try conversion.convert(totals.bills).map(MoneyDisplay.amount) ?? ""]
            },
            rightAligned: [1, 2]
        )
    }

    /// One row per state: what comes in and what is paid out, never netted.
    static func totalsTable(_ report: RecurringStatusReport) -> String {
        Output.table(
            ["STATE", "INCOME", "BILLS"],
            [("paid", report.paid), ("due soon", report.dueSoon), ("upcoming", report.upcoming), ("overdue", report.overdue)].map { name, totals in
                [name, MoneyDisplay.amount(totals.income), MoneyDisplay.amount(totals.bills)]
            },
            rightAligned: [1, 2]
        )
    }
}

struct RecurringListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every recurring item defined and not removed.",
                                                    discussion: ListHelp.days + " AMOUNT is signed: positive income, negative a bill. --search and --sort as `recurring bills` (by due: the next due date from the day of --as-of).")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var order: RecurringOrderOptions
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ListFormatOptions

    func run() throws {
        let (allItems, page) = try storeOptions.withReadingLedger { ledger in
            let asOf = try time.asOfInstant(ledger)
            let knownAt = try time.knownAtInstant(ledger)
            let items = try order.query.map { try ledger.recurringItems($0, today: ledger.calendar.date(of: asOf ?? ledger.now), asOf: asOf, knownAt: knownAt) }
                ?? ledger.recurringItems(asOf: asOf, knownAt: knownAt)
            return (items, try output.page(of: items.count, ledger, asOf: asOf, knownAt: knownAt))
        }
        let items = Array(page.slice(allItems))
        if output.chosen == .csv {
            print(RecurringItemsCSV.render(items), terminator: "")
            return ListFooter.noteCSV(page)
        }
        if output.chosen == .json {
            return print(JSONText.list(items.map { item in
                Output.jsonObject([
                    ("id", EventJSON.quoted(item.id)), ("payee", EventJSON.quoted(item.payee)),
                    ("category", EventJSON.quoted(item.category.rawValue)), ("amount", BudgetCLI.json(item.amount)),
                    ("currency", EventJSON.quoted(item.amount.commodity.code)), ("frequency", EventJSON.quoted(item.frequency.rawValue)),
                    ("day_of_month", String(item.dayOfMonth)), ("start_month", EventJSON.quoted(item.startMonth.description)),
                    ("end_month", JSONText.string(item.endMonth?.description)),
                ])
            }, paging: JSONPaging(page)))
        }
        print(Output.table(
            ["ID", "PAYEE", "CATEGORY", "AMOUNT", "FREQUENCY", "DAY", "FROM", "TO"],
            items.map { [$0.id, $0.payee, $0.category.displayName, MoneyDisplay.amount($0.amount), $0.frequency.rawValue,
                         String($0.dayOfMonth), $0.startMonth.description, $0.endMonth?.description ?? ""] },
            rightAligned: [3, 5]
        ))
        print(ListFooter.table(page))
    }
}

/// `--search` and `--sort`, the same on `recurring bills`, `status` and `list`: the library's
/// one rule of the recurring screen (``RecurringBillQuery``).
struct RecurringOrderOptions: ParsableArguments {
    @Option(help: "Only entries whose vendor (payee) contains this text, ignoring case.") var search: String?
    @Option(help: "name-az, name-za, amount-high, amount-low (by size), due-soonest or due-latest (default: due-soonest; `list` by id).") var sort: String?

    func validate() throws {
        if let sort, RecurringBillQuery.Sort(rawValue: sort) == nil {
            throw ValidationError("--sort must be one of \(RecurringBillQuery.Sort.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// The query the options ask for; nil when neither is given (the answer's own order).
    var query: RecurringBillQuery? {
        guard search != nil || sort != nil else { return nil }
        return RecurringBillQuery(search: search, sort: sort.flatMap(RecurringBillQuery.Sort.init(rawValue:)) ?? .dueSoonest)
    }
}

struct RecurringBillsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bills",
        abstract: "The recurring bills list: one entry per vendor (defined items and transactions flagged --recurring), paid, due soon, upcoming or overdue.",
        discussion: """
            A vendor with only flagged transactions is due a month after its latest one, on its day; a defined item by \
            its schedule (an unpaid occurrence of the last twelve months makes it overdue). Due soon is within the \
            due-soon window (the due_soon_days setting, 5 days unless set); overdue is after the due date, unpaid. \
            AMOUNT is signed: negative a bill, positive income.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var order: RecurringOrderOptions
    @Option(help: "Today, YYYY-MM-DD: a day in the ledger's time zone (or give --as-of). Default: today there.") var today: String?
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ListFormatOptions

    func run() throws {
        try storeOptions.withReadingLedger { ledger in
            let today = try time.day(self.today, option: "--today", calendar: ledger.calendar) ?? ledger.calendar.date(of: ledger.now)
            let knownAt = try time.knownAtInstant(ledger)
            let bills = try ledger.recurringBills(order.query ?? RecurringBillQuery(), today: today, knownAt: knownAt)
            try Self.print(bills, output: output, search: order.search, ledger, asOf: ledger.calendar.endOfDay(today), knownAt: knownAt)
        }
    }

    private static func print(_ bills: [RecurringBill], output: ListFormatOptions, search: String?, _ ledger: Ledger, asOf: Instant, knownAt: Instant?) throws {
        var table = ListTable([ListColumn("vendor"), ListColumn("category"), ListColumn("amount", numeric: true), ListColumn("currency"),
                               ListColumn("state"), ListColumn("next_due"), ListColumn("last_paid"), ListColumn("source"), ListColumn("recurring_id")])
        for bill in bills {
            table.append([.text(bill.vendor), .text(bill.category.displayName), .amount(bill.amount), .text(bill.amount.commodity.code),
                          .text(bill.state.rawValue), .day(bill.nextDue), .day(bill.lastPaid), .text(bill.source.rawValue), .text(bill.recurringId)])
        }
        try table.print(output, ledger, asOf: asOf, knownAt: knownAt, empty: "no recurring bills" + (search.map { " matching '\($0)'" } ?? ""))
    }
}
