import ArgumentParser
import Foundation
import Tally

struct WealthDepositCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deposit",
        abstract: "Record a deposit and split it between Spend and Invest (unless automation is paused).",
        discussion: """
            With --external-id and no --idempotency-key, the key is the account and the \
            external id, so the same bank or chain transaction is recorded once. \
            --dry-run shows the deposit and the split the rule in force on its day would \
            make (or its wait in the wallet while automation is paused), and records nothing.
            """
    )

    @OptionGroup var options: WealthOptions
    @OptionGroup var recording: WealthRecordingOptions

    @Argument(help: "The amount received, above zero, e.g. 100.00.")
    var amount: String

    @Option(help: "The currency or token (USD, GBP, USDC …); default: the base currency in force on its day.")
    var currency: String?

    @Option(help: "Where the money came from: bank_transfer or chain.")
    var source = "bank_transfer"

    @Option(name: .customLong("external-id"), help: "The bank's or the chain's transaction id.")
    var externalId: String?

    @Flag(name: .customLong("dry-run"), help: "Show the deposit and its split as they would be recorded; record nothing.")
    var dryRun = false

    func validate() throws {
        guard DepositSource(rawValue: source) != nil else {
            throw ValidationError("--source '\(source)' is not a deposit source; use bank_transfer or chain")
        }
    }

    func run() throws {
        try options.withLedger { ledger in
            let effectiveAt = try recording.effectiveAt(ledger)
            let money = try WealthCLI.money(amount, currency: currency, at: effectiveAt, ledger)
            let key = recording.idempotencyKey ?? externalId.map { "wealth:\(options.account):deposit:\($0)" }
            if dryRun {
                let preview = try ledger.previewDeposit(
                    account: options.account, amount: money, source: DepositSource(rawValue: source) ?? .bankTransfer,
                    externalId: externalId, effectiveAt: effectiveAt, idempotencyKey: key)
                try WealthCLI.report(preview, json: options.json)
                if !options.json, preview.deposit != nil, preview.split == nil, !preview.wasAlreadyApplied {
                    print("Automation is paused: the deposit would wait in the wallet until `tally wealth resume`.")
                }
                return
            }
            let result = try ledger.deposit(
                account: options.account, amount: money, source: DepositSource(rawValue: source) ?? .bankTransfer,
                externalId: externalId, effectiveAt: effectiveAt, idempotencyKey: key
            )
            try WealthCLI.report(result, nothingToDo: "", json: options.json)
            if !options.json {
                if result.events.count == 1 && !result.wasAlreadyApplied {
                    print("Automation is paused: the deposit waits in the wallet until `tally wealth resume`.")
                }
                try WealthCLI.printBalance(ledger, account: options.account, commodity: money.commodity)
            }
        }
    }
}

struct WealthPurchaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purchase",
        abstract: "Record a card purchase paid from Spend, with its round-up when round-ups are on.",
        discussion: """
            Refused when the card is frozen or Spend in that currency is less than the amount. \
            --dry-run shows the purchase and its round-up (made, or skipped when Spend cannot \
            cover it) as they would be recorded, and records nothing.
            """
    )

    @OptionGroup var options: WealthOptions
    @OptionGroup var recording: WealthRecordingOptions

    @Argument(help: "The amount paid, above zero, e.g. 3.40.")
    var amount: String

    @Option(help: "The currency or token; default: the base currency in force on its day.")
    var currency: String?

    @Option(help: "Who was paid.")
    var merchant: String

    @Option(name: .customLong("external-id"), help: "The card network's transaction id.")
    var externalId: String?

    @Flag(name: .customLong("dry-run"), help: "Show the purchase and its round-up as they would be recorded; record nothing.")
    var dryRun = false

    func run() throws {
        try options.withLedger { ledger in
            let effectiveAt = try recording.effectiveAt(ledger)
            let money = try WealthCLI.money(amount, currency: currency, at: effectiveAt, ledger)
            let key = recording.idempotencyKey ?? externalId.map { "wealth:\(options.account):purchase:\($0)" }
            if dryRun {
                try WealthCLI.report(try ledger.previewPurchase(
                    account: options.account, amount: money, merchant: merchant, externalId: externalId,
                    effectiveAt: effectiveAt, idempotencyKey: key), json: options.json)
                return
            }
            let result = try ledger.purchase(
                account: options.account, amount: money, merchant: merchant, externalId: externalId,
                effectiveAt: effectiveAt, idempotencyKey: key
            )
            try WealthCLI.report(result, nothingToDo: "", json: options.json)
            if !options.json { try WealthCLI.printBalance(ledger, account: options.account, commodity: money.commodity) }
        }
    }
}

struct WealthWithdrawCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "withdraw",
        abstract: "Withdraw money from Spend.",
        discussion: "Refused when Spend in that currency is less than the amount."
    )

    @OptionGroup var options: WealthOptions
    @OptionGroup var recording: WealthRecordingOptions

    @Argument(help: "The amount withdrawn, above zero, e.g. 20.00.")
    var amount: String

    @Option(help: "The currency or token; default: the base currency in force on its day.")
    var currency: String?

    @Option(help: "Where the money went (a bank account, an address).")
    var destination: String?

    func run() throws {
        try options.withLedger { ledger in
            let effectiveAt = try recording.effectiveAt(ledger)
            let money = try WealthCLI.money(amount, currency: currency, at: effectiveAt, ledger)
            let result = try ledger.withdraw(
                account: options.account, amount: money, destination: destination,
                effectiveAt: effectiveAt, idempotencyKey: recording.idempotencyKey
            )
            try WealthCLI.report(result, nothingToDo: "", json: options.json)
            if !options.json { try WealthCLI.printBalance(ledger, account: options.account, commodity: money.commodity) }
        }
    }
}
