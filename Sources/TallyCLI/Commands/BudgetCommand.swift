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
            if NothingToDo.report(result, json: json, "the \(category.displayName) budget for \(month) is \(amount.decimalString) already") { return }
            BudgetCLI.report(result, json: json, "Set the \(category.displayName) budget for \(month)")
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
            BudgetCLI.report(try ledger.deleteBudget(category: category, month: month, idempotencyKey: idempotency.idempotencyKey), json: json,
                             "Deleted the \(category.displayName) budget for \(month)")
        }
    }
}

struct BudgetShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "A month's budgets: maximum, spent, remaining and the three latest transactions."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The month, YYYY-MM (in the ledger's time zone; default: the month of --as-of).") var month: String?
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "One JSON object per budget.") var json = false

    func run() throws {
        let month = try time.month(month)
        let budgets = try storeOptions.withReadingLedger { ledger in try ledger.budgets(month: month, knownAt: try time.knownAtInstant(ledger)) }
        if json {
            for budget in budgets {
                print(Output.jsonObject([
                    ("category", EventJSON.quoted(budget.category.rawValue)), ("month", EventJSON.quoted(month.description)),
                    ("maximum", BudgetCLI.json(budget.maximum)), ("spent", BudgetCLI.json(budget.spent)),
                    ("remaining", BudgetCLI.json(budget.remaining)), ("currency", EventJSON.quoted(budget.maximum.commodity.code)),
                    ("latest", "[" + budget.latestTransactions.map(BudgetCLI.json).joined(separator: ",") + "]"),
                ]))
            }
            return
        }
        print(Output.table(
            ["CATEGORY", "MAXIMUM", "SPENT", "REMAINING", "LATEST"],
            budgets.map { budget in
                [budget.category.displayName, budget.maximum.decimalString, budget.spent.decimalString,
                 budget.remaining.decimalString + (budget.isOverBudget ? " (over)" : ""),
                 budget.latestTransactions.map { "\($0.date) \($0.payee) \($0.amount.decimalString)" }.joined(separator: "; ")]
            },
            rightAligned: [1, 2, 3]
        ))
    }
}
