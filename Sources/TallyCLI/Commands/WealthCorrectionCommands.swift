import ArgumentParser
import Foundation
import Tally

struct WealthAmendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "amend",
        abstract: "Correct a deposit, purchase or withdrawal: its reversal and a new version, in one commit.",
        discussion: """
            ENTRY is the entry's SEQ in `tally wealth history`. Options left out keep the \
            entry's value. The log keeps the original: the history and the audit show it, its \
            reversal and the new version. A deposit's split and a purchase's round-up are \
            reversed with it; the new version is decided again by the rules in force on its \
            date (split rule and pause, card and round-ups). Refused, recording nothing, when \
            with the correction Spend (or Invest, or the wallet) would go below zero on its \
            date or a later one; the message names that day.
            """
    )

    @OptionGroup var options: WealthOptions

    @Argument(help: "The entry's sequence number (SEQ in `tally wealth history`).")
    var entry: UInt64

    @Option(help: "The new amount, above zero, e.g. 4.40.")
    var amount: String?

    @Option(help: "The new amount's currency; default: the entry's.")
    var currency: String?

    @Option(help: ArgumentHelp("The new day it happened: the start of D in the ledger's time zone (YYYY-MM-DD), or an RFC 3339 instant; the entry's own time when absent.", valueName: "D"))
    var date: String?

    @Option(help: "A purchase's new merchant.")
    var merchant: String?

    @Option(help: "A withdrawal's new destination.")
    var destination: String?

    @OptionGroup var idempotency: IdempotencyOptions

    func validate() throws {
        guard amount != nil || date != nil || merchant != nil || destination != nil else {
            throw ValidationError("give what changes: --amount, --date, --merchant or --destination")
        }
    }

    func run() throws {
        try options.withLedger { ledger in
            let money = try amount.map { text in
                let entryCurrency = try currency ?? ledger.wealthEntry(account: options.account, sequence: entry).amount.commodity.code
                return try WealthCLI.money(text, currency: entryCurrency, at: nil, ledger)
            }
            let result = try ledger.amendWealthEntry(
                account: options.account, entry: entry, amount: money, effectiveAt: try WealthRecordingOptions.effectiveAt(date, ledger),
                merchant: merchant, destination: destination, idempotencyKey: idempotency.idempotencyKey)
            try WealthCLI.report(result, nothingToDo: "entry \(entry) is already so", json: options.json)
        }
    }
}

struct WealthReverseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse",
        abstract: "Reverse a deposit, purchase or withdrawal recorded by mistake: it no longer counts, at any date.",
        discussion: """
            ENTRY is the entry's SEQ in `tally wealth history`. The log keeps the entry: the \
            history and the audit show it and its reversal, and answers as known before the \
            reversal still count it. A deposit's split and a purchase's round-up are reversed \
            with it. Refused, recording nothing, when what the entry brought was spent since \
            (the message names the day the balance would go below zero), or when it was \
            reversed already.
            """
    )

    @OptionGroup var options: WealthOptions

    @Argument(help: "The entry's sequence number (SEQ in `tally wealth history`).")
    var entry: UInt64

    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try options.withLedger { ledger in
            let result = try ledger.reverseWealthEntry(account: options.account, entry: entry, idempotencyKey: idempotency.idempotencyKey)
            try WealthCLI.report(result, nothingToDo: "", json: options.json)
        }
    }
}
