import ArgumentParser
import Tally

/// `tally envelope amend ID`.
struct EnvelopeAmendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "amend", abstract: "Amend an envelope transaction: a new amount, payee or day.",
        discussion: """
            The amendment is a new event: the audit (`tally audit envelope:ID`, `tally audit ACCOUNT`) \
            shows the original, its reversal and the new version. The account, envelope and rate \
            stay. --date D: \(CLITime.writeHelp). An amendment that changes nothing records \
            nothing ("nothing to do", exit 0).
            """)
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The transaction's id.") var id: String
    @Option(help: "The new signed amount in the account's currency: -12.50 is an expense (on a Liabilities: account it adds 12.50 to what is owed).") var amount: String?
    @Option(help: "The new payee.") var payee: String?
    @Option(help: CLITime.writeOption("The new day")) var date: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let money = try amount.map { text -> Money in
                guard let account = try ledger.envelopeTransactionAccount(id) else {
                    throw LedgerError(.notFound, "there is no envelope transaction '\(id)'; record one with `tally envelope record`")
                }
                return try EnvelopeCLI.money(text, try EnvelopeCLI.currency(of: account, ledger), "--amount")
            }
            let result = try ledger.amendEnvelopeTransaction(id, amount: money, payee: payee, effectiveAt: try CLITime.effective(date, ledger: ledger),
                                                             idempotencyKey: idempotency.idempotencyKey)
            if NothingToDo.report(result, "envelope transaction '\(id)' is as given already") { return }
            EnvelopeCLI.report(result, "Amended \(id)")
        }
    }
}

/// `tally envelope reverse ID`.
struct EnvelopeReverseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse", abstract: "Reverse an envelope transaction: it leaves its account and envelope from its own day on.",
        discussion: "The reversal is a new event; the audit keeps the original and shows its reversal.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The transaction's id.") var id: String
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            EnvelopeCLI.report(try ledger.reverseEnvelopeTransaction(id, idempotencyKey: idempotency.idempotencyKey), "Reversed \(id)")
        }
    }
}
