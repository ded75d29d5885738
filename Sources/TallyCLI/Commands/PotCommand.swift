import ArgumentParser
import Foundation
import Tally

struct PotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pot",
        abstract: "Savings pots: create, add to, withdraw from, delete, list.",
        subcommands: [PotCreateCommand.self, PotAddCommand.self, PotWithdrawCommand.self, PotDeleteCommand.self, PotListCommand.self, PotShowCommand.self]
    )
}

struct PotCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a pot with a target.")

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The pot's id, e.g. holiday.") var id: String
    @Option(help: "Its display name (default: the id).") var name: String?
    @Option(help: "The target, above zero, e.g. 500.00.") var target: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let target = try BudgetCLI.amount(target, "--target", ledger)
            CLIParse.noteName(name, "the pot name")
            try BudgetCLI.report(try ledger.createPot(id: id, name: name, target: target, idempotencyKey: idempotency.idempotencyKey), json: json, "Created pot \(id)")
        }
    }
}

struct PotAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Move money from the current balance into a pot.")

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The pot's id.") var id: String
    @Argument(help: "The amount moved into the pot, above zero, e.g. 50.00.") var amount: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let amount = try BudgetCLI.amount(amount, "amount", ledger)
            try BudgetCLI.report(try ledger.addToPot(id: id, amount: amount, idempotencyKey: idempotency.idempotencyKey), json: json, "Added \(amount) to pot \(id)")
        }
    }
}

struct PotWithdrawCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "withdraw", abstract: "Move money from a pot back to the current balance.")

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The pot's id.") var id: String
    @Argument(help: "The amount taken out of the pot, above zero, e.g. 20.00.") var amount: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let amount = try BudgetCLI.amount(amount, "amount", ledger)
            try BudgetCLI.report(try ledger.withdrawFromPot(id: id, amount: amount, idempotencyKey: idempotency.idempotencyKey), json: json, "Withdrew \(amount) from pot \(id)")
        }
    }
}

struct PotDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a pot; its total returns to the current balance.")

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The pot's id.") var id: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            try BudgetCLI.report(try ledger.deletePot(id: id, idempotencyKey: idempotency.idempotencyKey), json: json, "Deleted pot \(id)")
        }
    }
}

struct PotListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every pot with its total, target and progress.",
                                                    discussion: ListHelp.days + " Totals and targets are in the budget currency; when the base currency is another, in it too at the FX rate in force then.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ListFormatOptions

    /// Basis points as a percentage with two decimals, rounded down: 3333 → "33.33%".
    static func percent(_ basisPoints: Int64) -> String {
        let fraction = basisPoints % 100
        return "\(basisPoints / 100).\(fraction < 10 ? "0" : "")\(fraction)%"
    }

    func run() throws {
        let (pots, conversion, page) = try storeOptions.withReadingLedger { ledger in
            let asOf = try time.asOfInstant(ledger)
            let knownAt = try time.knownAtInstant(ledger)
            let pots = try ledger.pots(asOf: asOf, knownAt: knownAt)
            return (pots, try ledger.budgetBaseConversion(at: asOf ?? ledger.now, knownAt: knownAt),
                    try output.page(of: pots.count, ledger, asOf: asOf, knownAt: knownAt))
        }
        guard output.chosen == .csv else { return try Self.print(pots, json: output.chosen == .json, page: page, conversion: conversion) }
        var table = ListTable([ListColumn("pot"), ListColumn("name"), ListColumn("total", numeric: true), ListColumn("target", numeric: true),
                               ListColumn("currency"), ListColumn("progress_basis_points", numeric: true),
                               ListColumn("base_currency"), ListColumn("total_in_base", numeric: true), ListColumn("target_in_base", numeric: true)])
        for pot in pots {
            table.append([.text(pot.id), .text(pot.name), .amount(pot.total), .amount(pot.target), .text(pot.target.commodity.code),
                          .integer(pot.progressBasisPoints), .text(conversion.baseCurrency.code),
                          .amount(try conversion.convert(pot.total)), .amount(try conversion.convert(pot.target))])
        }
        table.print(.csv, page: page, empty: "")
    }

    /// Prints pots as one JSON list (``JSONText/list(_:paging:context:)``), or for `pot show`
    /// the one pot's object, or a table; when the base currency is not the budget's, each
    /// total and target in it too (issue 15, wrong today 9), or the budget currency named as
    /// not converted. With `page`, only its pots, its paging in JSON and its footer in a table.
    static func print(_ allPots: [Pot], json: Bool, single: Bool = false, page: ListPage? = nil, conversion: BudgetBaseConversion) throws {
        let pots = page.map { Array($0.slice(allPots)) } ?? allPots
        let otherBase = conversion.baseCurrency != conversion.budgetCurrency
        let base = conversion.baseCurrency.code
        func inBase(_ money: Money) throws -> String { try conversion.convert(money).map(MoneyDisplay.amount) ?? "" }
        if json {
            let objects = try pots.map { pot in
                var fields = [
                    ("id", EventJSON.quoted(pot.id)), ("name", EventJSON.quoted(pot.name)),
                    ("total", BudgetCLI.json(pot.total)), ("target", BudgetCLI.json(pot.target)),
                    ("currency", EventJSON.quoted(pot.target.commodity.code)),
                    ("progress_basis_points", String(pot.progressBasisPoints)),
                ]
                if otherBase {
                    fields += [("base_currency", EventJSON.quoted(base)),
                               ("in_base", conversion.isConverted
                                    ? Output.jsonObject([("total", BudgetCLI.json(try conversion.convert(pot.total))), ("target", BudgetCLI.json(try conversion.convert(pot.target)))])
                                    : "null")]
                }
                return Output.jsonObject(fields)
            }
            if single, let object = objects.first { return TallyCLI.print(object) }
            return TallyCLI.print(JSONText.list(objects, paging: page.map(JSONPaging.init)))
        }
        let converted = otherBase && conversion.isConverted
        TallyCLI.print(Output.table(
            ["POT", "NAME", "TOTAL", "TARGET", "PROGRESS"] + (converted ? ["TOTAL \(base)", "TARGET \(base)"] : []),
            try pots.map { [$0.id, $0.name, MoneyDisplay.amount($0.total), MoneyDisplay.amount($0.target), percent($0.progressBasisPoints)]
                + (converted ? [try inBase($0.total), try inBase($0.target)] : []) },
            rightAligned: converted ? [2, 3, 4, 5, 6] : [2, 3, 4]
        ))
        if !conversion.notConverted.isEmpty, !pots.isEmpty {
            TallyCLI.print("not converted (no rate into \(base)): \(conversion.notConverted.map(\.code).joined(separator: ", "))")
        }
        if let page { TallyCLI.print(ListFooter.table(page)) }
    }
}

struct PotShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "One pot with its total, target and progress.")

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The pot's id.") var id: String
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "One JSON object.") var json = false

    func run() throws {
        let (found, conversion) = try storeOptions.withReadingLedger { ledger in
            let asOf = try time.asOfInstant(ledger)
            let knownAt = try time.knownAtInstant(ledger)
            return (try ledger.pot(id: id, asOf: asOf, knownAt: knownAt), try ledger.budgetBaseConversion(at: asOf ?? ledger.now, knownAt: knownAt))
        }
        guard let pot = found else { throw LedgerError(.notFound, "there is no pot '\(id)' at that point; list them with `tally pot list`") }
        try PotListCommand.print([pot], json: json, single: true, conversion: conversion)
    }
}
