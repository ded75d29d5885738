import ArgumentParser
import Foundation
import Tally

struct AssertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assert",
        abstract: "Record that an account's balance at the end of a day is an amount; `tally verify` checks it from then on."
    )
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The account, e.g. Assets:Bank.") var account: String
    @Argument(help: "The expected balance, signed as `tally balances` signs it: debits positive, so a liability owing 300.00 is -300.00.") var amount: String
    @Option(help: "The currency.") var currency: String
    @Option(help: "The day (YYYY-MM-DD) whose end in the ledger's time zone the balance is about.") var date: String
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        let day = try CLIParse.date(date, option: "--date")
        try storeOptions.withLedger { ledger in
            let money = try CLIParse.money(amount, currency: currency, ledger)
            RepeatReport.printRecorded(try ledger.assertBalance(account: account, amount: money, on: day, idempotencyKey: idempotency.idempotencyKey)) }
    }
}
