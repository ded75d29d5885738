import ArgumentParser
import Foundation
import Tally

struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Every change to an account, pot, envelope, asset or liability, with the event that caused it and the running balance.",
        discussion: """
            TARGET is an account name (Assets:Bank:Checking, Wealth:main:Spend, Budget:Current) \
            pot:ID for a savings pot, envelope:ID for what an envelope has left (each interval's budget, fundings, transactions, \
            rollovers), asset:ID or liability:ID for an item's value. Changes are in effective-time order; --from and --to \
            (or --as-of) are days in the ledger's time zone (earlier changes make up the opening balance); \
            --known-at lists only what the ledger had recorded by then. \
            --format csv prints exactly the header seq,recorded_at,effective_date,event,amount,currency,balance.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, json }

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "An account name, pot:ID, envelope:ID, asset:ID or liability:ID.") var target: String
    @Option(help: "First day, YYYY-MM-DD: from the start of that day in the ledger's time zone.") var from: String?
    @Option(help: "Last day, YYYY-MM-DD: to the end of that day in the ledger's time zone; --as-of is the same.") var to: String?
    @OptionGroup var time: TimeTravelOptions
    @Option(help: "table, csv or json.") var format: Format = .table

    func validate() throws { _ = try time.day(to, option: "--to", calendar: .utc) }

    func run() throws {
        let first = try from.map { try CLIParse.date($0, option: "--from") }
        let entries = try storeOptions.withReadingLedger { ledger in
            let last = try time.day(to, option: "--to", calendar: ledger.calendar)
            if let first, let last, first > last { throw ValidationError("--from \(first) is after the last day \(last)") }
            return try ledger.audit(try AuditTarget(parsing: target), from: first, through: last, knownAt: try time.knownAtInstant(ledger))
        }
        switch format {
        case .csv:
            print(AuditCSV.render(entries), terminator: "")
        case .json:
            print(JSONText.list(entries.map { entry in
                Output.jsonObject([
                    ("seq", String(entry.sequence)), ("recorded_at", EventJSON.quoted(entry.recordedAt.description)),
                    ("effective_date", EventJSON.quoted(entry.effectiveDate.description)), ("event", EventJSON.quoted(entry.eventType)),
                    ("cause", entry.cause.map(String.init) ?? "null"), ("amount", JSONText.money(entry.amount)), ("balance", JSONText.money(entry.balance)),
                ])
            }, context: [("target", EventJSON.quoted(target))]))
        case .table:
            print(Output.table(
                ["SEQ", "RECORDED", "EFFECTIVE", "EVENT", "CAUSE", "AMOUNT", "CUR", "BALANCE"],
                entries.map { [String($0.sequence), $0.recordedAt.description, $0.effectiveDate.description, $0.eventType,
                               $0.cause.map(String.init) ?? "", MoneyDisplay.amount($0.amount), $0.amount.commodity.code, MoneyDisplay.amount($0.balance)] },
                rightAligned: [0, 4, 5, 7]))
        }
    }
}
