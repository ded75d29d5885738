import ArgumentParser
import Foundation
import Tally

struct EnvelopeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "envelope",
        abstract: "Envelope budgeting: accounts, envelopes, transactions, and what is left in each envelope.",
        discussion: """
            Dates are YYYY-MM-DD in the ledger's time zone; commands default to today. Unspent and \
            overspent amounts carry into an envelope's next interval unless `envelope rollover` says \
            otherwise (reset, carry_forward, take_from_to_assign).
            """,
        subcommands: [
            EnvelopeAccountOpenCommand.self, EnvelopeAccountCloseCommand.self, EnvelopeCreateCommand.self, EnvelopeBudgetCommand.self, EnvelopeFundCommand.self,
            EnvelopeRolloverCommand.self, EnvelopeDeleteCommand.self, EnvelopeRecordCommand.self, EnvelopeTransferCommand.self,
            EnvelopeAmendCommand.self, EnvelopeReverseCommand.self,
            EnvelopeStatusCommand.self, EnvelopeSpendingCommand.self, EnvelopeTotalCommand.self, EnvelopeListCommand.self,
        ]
    )
}

struct EnvelopeAccountOpenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "account-open", abstract: "Open an account (Assets:… or Liabilities:…) with an opening balance.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The account, e.g. Assets:Cash.") var account: String
    @Option(help: "The account's currency (default: the base currency in force on its opening day).") var currency: String?
    @Option(help: "The opening balance, in the account's currency; for a Liabilities: account, what is owed (300 on a card: 300 owed, lowering every total by 300).") var opening: String?
    @Option(help: CLITime.writeOption("The day it opens")) var date: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let effectiveAt = try CLITime.effective(date, ledger: ledger)
            let commodity = try currency.map { try EnvelopeCLI.commodity($0, ledger) } ?? ledger.baseCurrency(asOf: effectiveAt)
            let result = try ledger.openEnvelopeAccount(account, commodity: commodity, openingBalance: try opening.map { try EnvelopeCLI.money($0, commodity, "--opening") },
                                                        effectiveAt: effectiveAt, idempotencyKey: idempotency.idempotencyKey)
            EnvelopeCLI.report(result, "Opened \(account) in \(commodity.code)")
        }
    }
}

struct EnvelopeAccountCloseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account-close",
        abstract: "Close an account at zero: from its closing day on it takes no transaction or transfer.",
        discussion: """
            Refused, recording nothing, when the account does not hold zero on that day (the \
            message names the balance: move it out with `tally envelope transfer` first) or \
            has a transaction dated after it. Its history stays in every answer and the audit.
            """
    )
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The account, e.g. Assets:Old bank.") var account: String
    @Option(help: CLITime.writeOption("The day it closes")) var date: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let result = try ledger.closeEnvelopeAccount(account, effectiveAt: try CLITime.effective(date, ledger: ledger),
                                                         idempotencyKey: idempotency.idempotencyKey)
            EnvelopeCLI.report(result, "Closed \(account)")
        }
    }
}

struct EnvelopeCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Create an envelope with a budgeted amount per interval.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The envelope's id, e.g. groceries.") var id: String
    @Option(help: "Its display name (default: the id).") var name: String?
    @Option(help: "weekly, biweekly, monthly or one_time.") var interval = "monthly"
    @Option(help: "The budgeted amount per interval, above zero, in the base currency in force on its start day.") var budget: String
    @Option(help: "The first day of the first interval, YYYY-MM-DD in the ledger's time zone (default: today).") var start: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let startDate = try EnvelopeCLI.date(start, "--start")
            // The envelope's amounts are in the base currency in force on its first day.
            let amount = try EnvelopeCLI.money(budget, try ledger.baseCurrency(asOf: startDate.map { min(ledger.now, ledger.calendar.startOfDay($0)) }), "--budget")
            let interval = try EnvelopeCLI.interval(interval)
            CLIParse.noteName(name, "the envelope name")
            let result = try ledger.createEnvelope(id, name: name ?? id, interval: interval, budgeted: amount, startDate: startDate,
                                                 idempotencyKey: idempotency.idempotencyKey)
            EnvelopeCLI.report(result, "Created envelope \(id): \(EnvelopeCLI.text(amount)) \(interval.rawValue)")
        }
    }
}

struct EnvelopeBudgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "budget", abstract: "Change an envelope's budgeted amount (and interval) from a day on.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The envelope's id.") var id: String
    @Option(help: "The new budgeted amount per interval, above zero, in the envelope's currency.") var budget: String
    @Option(help: "A new interval; it re-anchors the intervals on the day of the change.") var interval: String?
    @Option(help: CLITime.writeOption("The first day it applies")) var from: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            _ = try CLIParse.decimal(budget, option: "--budget")   // a malformed amount is named before the envelope is looked up
            let amount = try EnvelopeCLI.money(budget, try ledger.envelopeCurrency(id), "--budget")
            let result = try ledger.changeEnvelopeBudget(id, budgeted: amount, interval: try interval.map(EnvelopeCLI.interval),
                                                               effectiveAt: try CLITime.effective(from, option: "--from", ledger: ledger), idempotencyKey: idempotency.idempotencyKey)
            if NothingToDo.report(result, "envelope \(id) budgets \(EnvelopeCLI.text(amount))\(interval.map { " \($0)" } ?? "") from that day already") { return }
            EnvelopeCLI.report(result, "Envelope \(id) budgets \(EnvelopeCLI.text(amount))")
        }
    }
}

struct EnvelopeFundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fund", abstract: "Assign money to an envelope beyond its budget (negative takes it back).")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The envelope's id.") var id: String
    @Option(help: "The amount, in the envelope's currency (the base currency on its first day): positive assigns money to the envelope, negative takes it back.") var amount: String
    @Option(help: CLITime.writeOption("The day")) var date: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            _ = try CLIParse.decimal(amount, option: "--amount")   // a malformed amount is named before the envelope is looked up
            let money = try EnvelopeCLI.money(amount, try ledger.envelopeCurrency(id), "--amount")
            EnvelopeCLI.report(try ledger.fundEnvelope(id, amount: money, effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotency.idempotencyKey), "Funded \(id) with \(EnvelopeCLI.text(money))")
        }
    }
}

struct EnvelopeRolloverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollover", abstract: "Choose what an envelope's unspent and overspent amounts do next interval.",
        discussion: "reset: nothing carries; carry_forward (the default): both carry; take_from_to_assign: unspent carries, overspending is taken from what is left to assign."
    )
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The envelope's id.") var id: String
    @Option(help: "reset, carry_forward or take_from_to_assign.") var policy: String
    @Option(help: CLITime.writeOption("The first day it applies")) var from: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let policy = try EnvelopeCLI.policy(policy)
            let result = try ledger.setEnvelopeRollover(id, policy: policy, effectiveAt: try CLITime.effective(from, option: "--from", ledger: ledger), idempotencyKey: idempotency.idempotencyKey)
            if NothingToDo.report(result, "envelope \(id) rolls over \(policy.rawValue) from that day already") { return }
            EnvelopeCLI.report(result, "Envelope \(id) rolls over: \(policy.rawValue)")
        }
    }
}

struct EnvelopeDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an envelope from a day on; its transactions stay.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The envelope's id.") var id: String
    @Option(help: CLITime.writeOption("The day")) var date: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            EnvelopeCLI.report(try ledger.deleteEnvelope(id, effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotency.idempotencyKey), "Deleted envelope \(id)")
        }
    }
}

struct EnvelopeRecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record", abstract: "Record income (positive) or an expense (negative) on an account, assigned to an envelope.",
        discussion: "In a currency other than the base, --rate gives 1 unit of it in the base currency, e.g. --rate 0.0067 for JPY in a USD ledger. Without --rate the transaction is kept in its own currency and converted, as every answer converts, at the ledger's rate on its day (`tally fx`, directly or through one other currency); with no such rate it is refused."
    )
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The transaction's id.") var id: String
    @Option(help: "The account it moves.") var account: String
    @Option(help: "Signed amount in the account's currency: -12.50 is an expense (on a Liabilities: account it adds 12.50 to what is owed).") var amount: String
    @Option(help: "1 unit of the amount's currency in the base currency, above zero (default: the ledger's rate on its day).") var rate: String?
    @Option(help: "The envelope it is assigned to.") var envelope: String?
    @Option(help: "The payee or a name.") var payee = ""
    @Option(help: CLITime.writeOption("The day")) var date: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let money = try EnvelopeCLI.money(amount, try EnvelopeCLI.currency(of: account, ledger), "--amount")
            let rateToBase = try rate.map { text in
                do { return try ExactDecimal(parsing: text) } catch { throw ValidationError("--rate '\(text)' is not a decimal number, e.g. 0.0067") }
            }
            let result = try ledger.recordEnvelopeTransaction(id, account: account, amount: money, rateToBase: rateToBase, envelope: envelope,
                                                              payee: payee, effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotency.idempotencyKey)
            EnvelopeCLI.report(result, "Recorded \(id): \(EnvelopeCLI.text(money)) on \(account)\(envelope.map { " from envelope \($0)" } ?? "")")
        }
    }
}

struct EnvelopeTransferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "transfer", abstract: "Move money between two accounts, optionally assigned to an envelope.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The transfer's id.") var id: String
    @Option(help: "The account the money leaves.") var from: String
    @Option(help: "The account it reaches.") var to: String
    @Option(help: "The amount, in the source account's currency, above zero (to a Liabilities: account it pays off that much of what is owed; from one it adds to it).") var amount: String
    @Option(help: "Across currencies: what the target received, in its currency, above zero.") var received: String?
    @Option(help: "The envelope it is spent from.") var envelope: String?
    @Option(help: CLITime.writeOption("The day")) var date: String?
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let money = try EnvelopeCLI.money(amount, try EnvelopeCLI.currency(of: from, ledger), "--amount")
            let got = try received.map { try EnvelopeCLI.money($0, try EnvelopeCLI.currency(of: to, ledger), "--received") }
            let result = try ledger.transferBetweenAccounts(id, from: from, to: to, amount: money, received: got, envelope: envelope,
                                                            effectiveAt: try CLITime.effective(date, ledger: ledger), idempotencyKey: idempotency.idempotencyKey)
            EnvelopeCLI.report(result, "Transferred \(EnvelopeCLI.text(money)) from \(from) to \(to)")
        }
    }
}

struct EnvelopeStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Budgeted, spent and remaining per envelope in the interval containing a date, with totals and the latest activity.",
        discussion: """
            Without ID, every envelope, then their budgeted, spent and remaining added up in the \
            base currency in force that day (an envelope whose currency has no rate into it is \
            named and left out of the totals), and the latest \(EnvelopeBoard.recentActivityCount) \
            transactions and transfers assigned to envelopes. --json prints one object: \
            `items` (one per envelope), the totals, `not_converted` and `recent`; with ID, that \
            envelope's object. --format csv: one row per envelope, every amount in its own \
            currency (the totals are in the table and the JSON).
            """)
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "One envelope's id (default: every envelope).") var id: String?
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ReportFormatOptions

    func run() throws {
        try storeOptions.withReadingLedger { ledger in
            let date = try time.asOfDateOrToday(ledger)
            let asOf = ledger.calendar.endOfDay(date)
            let knownAt = try time.knownAtInstant(ledger)
            if let id {
                let status = try ledger.envelopeStatus(id, asOf: asOf, knownAt: knownAt)
                switch output.chosen {
                case .csv: return print(EnvelopeStatusCSV.render([status]), terminator: "")
                case .json: return print(Self.json(status))
                case .table: return Self.printTable([status], board: nil, ledger.calendar)
                }
            }
            let board = try ledger.envelopeBoard(asOf: asOf, knownAt: knownAt)
            if output.chosen == .csv { return print(EnvelopeStatusCSV.render(board.statuses), terminator: "") }
            if output.chosen == .json { return print(Self.json(board, ledger.calendar)) }
            guard !board.statuses.isEmpty else { return print("No envelopes on \(date).") }
            Self.printTable(board.statuses, board: board, ledger.calendar)
        }
    }

    static func json(_ status: EnvelopeStatus) -> String {
        Output.jsonObject([
            ("envelope", EnvelopeCLI.json(status.envelopeId)), ("name", EnvelopeCLI.json(status.name)),
            ("interval", EnvelopeCLI.json(status.interval.rawValue)), ("rollover", EnvelopeCLI.json(status.policy.rawValue)),
            ("first_day", EnvelopeCLI.json(status.period.first)), ("last_day", EnvelopeCLI.json(status.period.last)),
            ("budgeted", EnvelopeCLI.json(status.budgeted)), ("funded", EnvelopeCLI.json(status.funded)),
            ("carried_in", EnvelopeCLI.json(status.carriedIn)), ("taken_from_to_assign", EnvelopeCLI.json(status.takenFromToAssign)),
            ("available", EnvelopeCLI.json(status.available)), ("spent", EnvelopeCLI.json(status.spent)),
            ("remaining", EnvelopeCLI.json(status.remaining)), ("over_budget", String(status.isOverBudget)),
            ("unconverted", String(status.unconvertedCount)),
        ])
    }

    static func json(_ board: EnvelopeBoard, _ calendar: LedgerCalendar) -> String {
        JSONText.list(board.statuses.map { json($0) }, context: [
            ("date", EnvelopeCLI.json(board.date)), ("currency", EventJSON.quoted(board.currency.code)),
            ("budgeted", EnvelopeCLI.json(board.budgeted)), ("spent", EnvelopeCLI.json(board.spent)), ("remaining", EnvelopeCLI.json(board.remaining)),
            ("not_converted", JSONText.array(board.notConverted.map(EventJSON.quoted))),
            ("recent", JSONText.array(board.recentActivity.map { entry in
                Output.jsonObject([("seq", String(entry.sequence)), ("envelope", EnvelopeCLI.json(entry.envelopeId)),
                                   ("date", EnvelopeCLI.json(calendar.date(of: entry.effectiveAt))), ("event", EventJSON.quoted(entry.eventType)),
                                   ("amount", EnvelopeCLI.json(entry.amount))])
            })),
        ])
    }

    /// The statuses as a table (with the board's totals row and latest activity when given),
    /// then what was not converted.
    static func printTable(_ statuses: [EnvelopeStatus], board: EnvelopeBoard?, _ calendar: LedgerCalendar) {
        var rows = statuses.map { status in
            [status.name, status.period.description, EnvelopeCLI.text(status.budgeted), EnvelopeCLI.text(status.carriedIn),
             EnvelopeCLI.text(status.spent), EnvelopeCLI.text(status.remaining), status.isOverBudget ? "OVER" : ""]
        }
        if let board, statuses.count > 1 || !board.notConverted.isEmpty {
            rows.append(["TOTAL", "", EnvelopeCLI.text(board.budgeted), "", EnvelopeCLI.text(board.spent), EnvelopeCLI.text(board.remaining),
                         board.remaining.isNegative ? "OVER" : ""])
        }
        print(Output.table(["ENVELOPE", "INTERVAL", "BUDGETED", "CARRIED IN", "SPENT", "REMAINING", "STATUS"], rows, rightAligned: [2, 3, 4, 5]))
        for status in statuses where status.unconvertedCount > 0 {
            print("not converted (no rate into \(status.spent.commodity.code)): \(status.unconvertedCount) transaction(s) of \(Output.visible(status.name)), left out of spent")
        }
        guard let board else { return }
        if !board.notConverted.isEmpty {
            print("not in the totals (no rate into \(board.currency.code)): \(board.notConverted.map(Output.visible).joined(separator: ", "))")
        }
        print("\nRecent activity" + (board.recentActivity.isEmpty ? ": none" : ""))
        if !board.recentActivity.isEmpty {
            print(Output.table(["DATE", "SEQ", "ENVELOPE", "EVENT", "AMOUNT"], board.recentActivity.map { entry in
                [calendar.date(of: entry.effectiveAt).description, String(entry.sequence), entry.envelopeId, entry.eventType, EnvelopeCLI.text(entry.amount)]
            }, rightAligned: [1, 4]))
        }
    }
}

struct EnvelopeSpendingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "spending", abstract: "Spending by envelope for a period.")
    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The first day, YYYY-MM-DD: from its start in the ledger's time zone.") var from: String
    @Option(help: "The last day, YYYY-MM-DD: to its end in the ledger's time zone (default: today); --as-of is the same.") var to: String?
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "Print one JSON object: the envelopes as its items.") var json = false

    func validate() throws { _ = try time.day(to, option: "--to", calendar: .utc) }

    func run() throws {
        try storeOptions.withReadingLedger { ledger in
            let first = try EnvelopeCLI.date(from, "--from")!
            let last = try time.day(to, option: "--to", calendar: ledger.calendar) ?? ledger.calendar.date(of: ledger.now)
            let spending = try ledger.envelopeSpending(from: first, through: last, knownAt: try time.knownAtInstant(ledger))
            if json {
                return print(JSONText.list(spending.map { line in
                    Output.jsonObject([
                        ("envelope", EnvelopeCLI.json(line.envelopeId)), ("name", EnvelopeCLI.json(line.name)), ("spent", EnvelopeCLI.json(line.spent)),
                        ("transactions", String(line.transactionCount)), ("unconverted", String(line.unconvertedCount)),
                    ])
                }, context: [("from", EnvelopeCLI.json(first)), ("through", EnvelopeCLI.json(last))]))
            }
            print(Output.table(["ENVELOPE \(first)..\(last)", "SPENT", "TRANSACTIONS"],
                               spending.map { [$0.name, EnvelopeCLI.text($0.spent), String($0.transactionCount)] }, rightAligned: [1, 2]))
            for line in spending where line.unconvertedCount > 0 {
                print("not converted (no rate into \(line.spent.commodity.code)): \(line.unconvertedCount) transaction(s) of \(Output.visible(line.name)), left out of spent")
            }
        }
    }
}

struct EnvelopeTotalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "total", abstract: "The total balance across accounts in the base currency.",
        discussion: "Each balance converts at the latest fx_rate_set at the date, else the latest rate a transaction in that currency carried; a balance with no rate is listed as not converted and left out of the total. What a liability owes lowers the total."
    )
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "Print one JSON object.") var json = false

    func run() throws {
        try storeOptions.withReadingLedger { ledger in
            let total = try ledger.envelopeAccountsTotal(asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
            if json {
                let lines = try total.lines.map { line in
                    Output.jsonObject([("account", EnvelopeCLI.json(line.account)), ("kind", EnvelopeCLI.json(line.kind.rawValue)),
                                       ("balance", EnvelopeCLI.json(line.amount)), ("owed", EnvelopeCLI.json(try line.owed)),
                                       ("in_base", EnvelopeCLI.json(line.inBase))])
                }
                let notConverted = total.unconverted.map { line in
                    Output.jsonObject([("account", EnvelopeCLI.json(line.account)), ("balance", EnvelopeCLI.json(line.amount))])
                }
                return print(JSONText.list(lines, context: [
                    ("total", EnvelopeCLI.json(total.total)), ("complete", String(total.isComplete)),
                    ("not_converted", JSONText.array(notConverted)),
                ]))
            }
            var rows = try total.lines.map { line in
                [line.account, try line.owed.map { "\(EnvelopeCLI.text($0)) owed" } ?? EnvelopeCLI.text(line.amount), line.inBase.map(EnvelopeCLI.text) ?? "no rate"]
            }
            rows.append([total.isComplete ? "TOTAL" : "TOTAL (incomplete)", "", EnvelopeCLI.text(total.total)])
            print(Output.table(["ACCOUNT", "BALANCE", "IN \(total.total.commodity.code)"], rows, rightAligned: [1, 2]))
            for line in total.unconverted {
                print("not converted (no rate into \(total.total.commodity.code)): \(Output.visible(line.account)) \(EnvelopeCLI.text(line.amount))")
            }
        }
    }
}

