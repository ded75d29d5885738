import ArgumentParser
import Foundation
import Tally

struct BudgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "budget",
        abstract: "Monthly budgets, one per category and month: set, delete, show.",
        subcommands: [BudgetSetCommand.self, BudgetDeleteCommand.self, BudgetShowCommand.self]
    )
}

struct BudgetSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set", abstract: "Set a category's maximum for a month.")

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The category.") var category: String
    @Option(help: "The month, YYYY-MM (in the ledger's time zone).") var month: String
    @Option(help: "The most to spend, above zero, e.g. 400.00.") var maximum: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let category = try BudgetCLI.category(category, "--category")
            let month = try CLIParse.month(month, option: "--month")
            let amount = try BudgetCLI.amount(maximum, "--maximum", ledger)
            let result = try ledger.setBudget(category: category, month: month, maximum: amount, idempotencyKey: idempotency.idempotencyKey)
            if NothingToDo.report(result, json: json, "the \(category.displayName) budget for \(month) is \(MoneyDisplay.amount(amount)) already") { return }
            try BudgetCLI.report(result, json: json, "Set the \(category.displayName) budget for \(month)")
        }
    }
}

struct BudgetDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a category's budget for a month; no transaction changes.")

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The category.") var category: String
    @Option(help: "The month, YYYY-MM (in the ledger's time zone).") var month: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let category = try BudgetCLI.category(category, "--category")
            let month = try CLIParse.month(month, option: "--month")
            try BudgetCLI.report(try ledger.deleteBudget(category: category, month: month, idempotencyKey: idempotency.idempotencyKey), json: json,
                             "Deleted the \(category.displayName) budget for \(month)")
        }
    }
}

struct BudgetShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "A month's budgets: maximum, spent, remaining and the three latest transactions.",
        discussion: """
            Amounts are in the budget currency (the one the ledger was created with); spent is \
            positive, remaining is maximum minus spent (negative: over budget). When the base \
            currency is another, each is given in it too at the FX rate in force at the end of \
            the month, or the budget currency is listed as not converted. --format csv: one row \
            per budget (month, category, maximum, spent, remaining, currency, over_budget, then the \
            base currency and the three amounts in it, empty when there is no rate).
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The month, YYYY-MM (in the ledger's time zone; default: the month of --as-of, else this month).") var month: String?
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ReportFormatOptions

    func run() throws {
        let (month, budgets, conversion) = try storeOptions.withReadingLedger { ledger in
            let month = try time.month(self.month, ledger)
            let knownAt = try time.knownAtInstant(ledger)
            // One "today": the month in progress counts what is dated up to today; a later
            // month (budgets planned ahead) counts its scheduled transactions.
            let asOf = try time.monthInstant(month, ledger, refusesFuture: false)
            let end = ledger.calendar.endOfDay(month.lastDay)
            return (month, try ledger.budgets(month: month, asOf: asOf, knownAt: knownAt),
                    try ledger.budgetBaseConversion(at: min(asOf ?? end, end, ledger.now), knownAt: knownAt))
        }
        // In another base currency, each amount in it too (issue 15, wrong today 9).
        let otherBase = conversion.baseCurrency != conversion.budgetCurrency
        func inBase(_ money: Money) throws -> String { try conversion.convert(money).map(MoneyDisplay.amount) ?? "" }
        if output.chosen == .csv { return print(try BudgetsCSV.render(budgets, conversion: conversion), terminator: "") }
        if output.chosen == .json {
            // One object: the month's budgets as `items` (money as {amount, currency} throughout).
            let items = try budgets.map { budget in
                var fields = [
                    ("category", EventJSON.quoted(budget.category.rawValue)), ("month", EventJSON.quoted(month.description)),
                    ("maximum", BudgetCLI.json(budget.maximum)), ("spent", BudgetCLI.json(budget.spent)),
                    ("remaining", BudgetCLI.json(budget.remaining)), ("over_budget", String(budget.isOverBudget)),
                    ("latest", JSONText.array(budget.latestTransactions.map(BudgetCLI.json))),
                ]
                if otherBase {
                    fields.append(("in_base", conversion.isConverted ? Output.jsonObject([
                        ("maximum", BudgetCLI.json(try conversion.convert(budget.maximum))), ("spent", BudgetCLI.json(try conversion.convert(budget.spent))),
                        ("remaining", BudgetCLI.json(try conversion.convert(budget.remaining))),
                    ]) : "null"))
                }
                return Output.jsonObject(fields)
            }
            print(JSONText.list(items, context: [
                ("month", EventJSON.quoted(month.description)), ("currency", EventJSON.quoted(conversion.budgetCurrency.code)),
                ("base_currency", EventJSON.quoted(conversion.baseCurrency.code)),
                ("not_converted", JSONText.array(conversion.notConverted.map { EventJSON.quoted($0.code) })),
            ]))
            return
        }
        let base = conversion.baseCurrency.code
        print(Output.table(
            ["CATEGORY", "MAXIMUM", "SPENT", "REMAINING"] + (otherBase && conversion.isConverted ? ["MAXIMUM \(base)", "SPENT \(base)", "REMAINING \(base)"] : []) + ["LATEST"],
            try budgets.map { budget in
                [budget.category.displayName, MoneyDisplay.amount(budget.maximum), MoneyDisplay.amount(budget.spent),
                 MoneyDisplay.amount(budget.remaining) + (budget.isOverBudget ? " (over)" : "")]
                    + (otherBase && conversion.isConverted ? [try inBase(budget.maximum), try inBase(budget.spent), try inBase(budget.remaining)] : [])
                    + [budget.latestTransactions.map { "\($0.date) \($0.payee) \(MoneyDisplay.amount($0.amount))" }.joined(separator: "; ")]
            },
            rightAligned: otherBase && conversion.isConverted ? [1, 2, 3, 4, 5, 6] : [1, 2, 3]
        ))
        if !conversion.notConverted.isEmpty {
            print("not converted (no rate into \(base)): \(conversion.notConverted.map(\.code).joined(separator: ", "))")
        }
    }
}
