import ArgumentParser
import Foundation
import Tally

struct ReferenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reference",
        abstract: "The budget's reference balance: the bank balance, pots included.",
        subcommands: [ReferenceSetCommand.self]
    )
}

struct ReferenceSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set or reset the reference balance now; the difference is an untracked transfer."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The balance, e.g. 2500.00 (a negative one after --: -- -50.00).") var amount: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let amount = try BudgetCLI.amount(amount, "amount", ledger)
            try BudgetCLI.report(try ledger.setReferenceBalance(amount: amount, idempotencyKey: idempotency.idempotencyKey), json: json, "Reference balance set to \(amount)")
        }
    }
}
