import ArgumentParser
import Foundation
import Tally

struct BankCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bank",
        abstract: "Connect and disconnect banks and record their consents; disconnecting keeps every imported transaction.",
        subcommands: [BankConnectCommand.self, BankConsentCommand.self, BankDisconnectCommand.self, BankListCommand.self]
    )
}

struct BankConnectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "connect", abstract: "Connect a bank so its transactions can be imported.")

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The bank's id, e.g. chase.") var id: String
    @Option(help: "Its display name (default: the id).") var name: String?
    @Option(help: "The last day (YYYY-MM-DD) of the consent given to the bank; bank_consent_expiring tells 7 days before.")
    var consentExpires: String?
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        let consent = try EnvelopeCLI.date(consentExpires, "--consent-expires")
        try storeOptions.withLedger { ledger in
            try BudgetCLI.report(try ledger.connectBank(id: id, name: name, consentExpires: consent, idempotencyKey: idempotency.idempotencyKey),
                                 json: json, "Connected bank \(id)" + (consent.map { " (consent until \($0))" } ?? ""))
        }
    }
}

struct BankConsentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consent", abstract: "Record a connected bank's renewed consent: the last day it covers.")

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The bank's id.") var id: String
    @Option(help: "The consent's last day (YYYY-MM-DD).") var expires: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        guard let day = try EnvelopeCLI.date(expires, "--expires") else { return }
        try storeOptions.withLedger { ledger in
            try BudgetCLI.report(try ledger.renewBankConsent(id: id, expiresOn: day, idempotencyKey: idempotency.idempotencyKey),
                                 json: json, "Consent for bank \(id) until \(day)")
        }
    }
}

struct BankDisconnectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "disconnect", abstract: "Disconnect a bank; its transactions stay.")

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The bank's id.") var id: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            try BudgetCLI.report(try ledger.disconnectBank(id: id, idempotencyKey: idempotency.idempotencyKey), json: json, "Disconnected bank \(id)")
        }
    }
}

struct BankListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every bank ever connected.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: ListFormatOptions

    func run() throws {
        let (allBanks, page) = try storeOptions.withReadingLedger { ledger in
            let banks = try ledger.banks()
            return (banks, try output.page(of: banks.count, ledger, asOf: nil, knownAt: nil))
        }
        if output.chosen == .csv {
            var table = ListTable([ListColumn("bank"), ListColumn("name"), ListColumn("connected"), ListColumn("consent_expires")])
            for bank in allBanks { table.append([.text(bank.bankId), .text(bank.name), .bool(bank.isConnected), .text(bank.consentExpires?.description ?? "")]) }
            return table.print(.csv, page: page, empty: "")
        }
        let banks = page.slice(allBanks)
        if output.chosen == .json {
            return print(JSONText.list(banks.map { bank in
                Output.jsonObject([("id", EventJSON.quoted(bank.bankId)), ("name", EventJSON.quoted(bank.name)),
                                   ("connected", String(bank.isConnected)), ("consent_expires", EnvelopeCLI.json(bank.consentExpires))])
            }, paging: JSONPaging(page)))
        }
        print(Output.table(["BANK", "NAME", "STATUS", "CONSENT UNTIL"],
                           banks.map { [$0.bankId, $0.name, $0.isConnected ? "connected" : "disconnected", $0.consentExpires?.description ?? "-"] }))
        print(ListFooter.table(page))
    }
}
