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
            BudgetCLI.report(try ledger.createPot(id: id, name: name, target: target, idempotencyKey: idempotency.idempotencyKey), json: json, "Created pot \(id)")
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
            BudgetCLI.report(try ledger.addToPot(id: id, amount: amount, idempotencyKey: idempotency.idempotencyKey), json: json, "Added \(amount) to pot \(id)")
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
            BudgetCLI.report(try ledger.withdrawFromPot(id: id, amount: amount, idempotencyKey: idempotency.idempotencyKey), json: json, "Withdrew \(amount) from pot \(id)")
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
            BudgetCLI.report(try ledger.deletePot(id: id, idempotencyKey: idempotency.idempotencyKey), json: json, "Deleted pot \(id)")
        }
    }
}

struct PotListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every pot with its total, target and progress.",
                                                    discussion: ListHelp.days)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ListFormatOptions

    /// Basis points as a percentage with two decimals, rounded down: 3333 → "33.33%".
    static func percent(_ basisPoints: Int64) -> String {
        let fraction = basisPoints % 100
        return "\(basisPoints / 100).\(fraction < 10 ? "0" : "")\(fraction)%"
    }

    func run() throws {
        let pots = try storeOptions.withReadingLedger { ledger in try ledger.pots(asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger)) }
        guard output.chosen == .csv else { return Self.print(pots, json: output.chosen == .json) }
        var table = ListTable([ListColumn("pot"), ListColumn("name"), ListColumn("total", numeric: true), ListColumn("target", numeric: true),
                               ListColumn("currency"), ListColumn("progress_basis_points", numeric: true)])
        for pot in pots {
            table.append([.text(pot.id), .text(pot.name), .amount(pot.total), .amount(pot.target), .text(pot.target.commodity.code),
                          .integer(pot.progressBasisPoints)])
        }
        table.print(.csv, empty: "")
    }

    /// Prints pots as one JSON object each, or a table.
    static func print(_ pots: [Pot], json: Bool) {
        if json {
            for pot in pots {
                Swift.print(Output.jsonObject([
                    ("id", EventJSON.quoted(pot.id)), ("name", EventJSON.quoted(pot.name)),
                    ("total", BudgetCLI.json(pot.total)), ("target", BudgetCLI.json(pot.target)),
                    ("currency", EventJSON.quoted(pot.target.commodity.code)),
                    ("progress_basis_points", String(pot.progressBasisPoints)),
                ]))
            }
            return
        }
        Swift.print(Output.table(
            ["POT", "NAME", "TOTAL", "TARGET", "PROGRESS"],
            pots.map { [$0.id, $0.name, $0.total.decimalString, $0.target.decimalString, percent($0.progressBasisPoints)] },
            rightAligned: [2, 3, 4]
        ))
    }
}

struct PotShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "One pot with its total, target and progress.")

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The pot's id.") var id: String
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "One JSON object.") var json = false

    func run() throws {
        let found = try storeOptions.withReadingLedger { ledger in try ledger.pot(id: id, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger)) }
        guard let pot = found else { throw LedgerError(.notFound, "there is no pot '\(id)' at that point; list them with `tally pot list`") }
        PotListCommand.print([pot], json: json)
    }
}
