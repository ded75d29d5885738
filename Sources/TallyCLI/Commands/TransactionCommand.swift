import ArgumentParser
import Foundation
import Tally

struct TransactionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tx",
        abstract: "Budget transactions: record, import from a bank, amend, delete, re-categorise, list.",
        discussion: """
            Amounts are signed in the budget currency (positive income, negative expense); dates \
            are YYYY-MM-DD in the ledger's time zone. Categories: \
            \(BudgetCategory.allCases.map(\.displayName).joined(separator: ", ")).
            """,
        subcommands: [
            TransactionAddCommand.self, TransactionImportCommand.self, TransactionAmendCommand.self,
            TransactionDeleteCommand.self, TransactionRecategoriseCommand.self, TransactionListCommand.self,
            TransactionShowCommand.self, TransactionHistoryCommand.self,
        ]
    )
}

struct TransactionAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Record a transaction by hand.")

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "Who was paid, or who paid.") var payee: String
    @Option(help: "The category.") var category: String
    @Option(parsing: .unconditional, help: "Signed amount, e.g. -12.40.") var amount: String
    @Option(help: "The day, YYYY-MM-DD: it takes effect at the start of that day in the ledger's time zone.") var date: String
    @Flag(help: "Mark it as recurring.") var recurring = false
    @Option(help: "An id of your choosing (default: manual:<sequence>).") var id: String?
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let result = try ledger.recordTransaction(
                payee: payee, category: try BudgetCLI.category(category, "--category"),
                amount: try BudgetCLI.amount(amount, "--amount", ledger), date: try CLIParse.date(date, option: "--date"),
                recurring: recurring, id: id, idempotencyKey: idempotency.idempotencyKey
            )
            try BudgetCLI.report(result, json: json, "Recorded \(result.transactionId ?? "")")
        }
    }
}

struct TransactionImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-bank",
        abstract: "Import bank transactions: one by its options, or a whole bank CSV; the same bank id twice records it once.",
        discussion: """
            One transaction: --bank, --external-id, --payee, --category, --amount, --date. The \
            idempotency key is bank:<bank>:<external id> unless --idempotency-key gives another: \
            the same transaction imported again records nothing (a re-categorisation made since \
            stays); the same id with another payee, amount, category or date is refused as a \
            conflict.

            A file: tally tx import-bank FILE.csv --bank ID. The header is \(BankCSV.header) \
            (category may be left out, or empty on a row: \(BankCSV.defaultCategory.displayName)). \
            Each row is imported as one transaction is, all rows or none: the whole file is \
            checked first (a bad row is named by file, line and field), then rehearsed (a row \
            already imported with the same data is already present; with other data it is a \
            conflict, and any conflict refuses the file, listing the lines), then appended in \
            batches, one durable commit each. Prints rows imported, already present and conflicts.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: ArgumentHelp("A bank CSV to import whole (leave out to import one transaction).", valueName: "file"))
    var file: String?
    @Option(help: "The connected bank's id.") var bank: String
    @Option(name: .customLong("external-id"), help: "The bank's transaction id.") var externalId: String?
    @Option(help: "Who was paid, or who paid.") var payee: String?
    @Option(help: "The category.") var category: String?
    @Option(parsing: .unconditional, help: "Signed amount, e.g. -12.40.") var amount: String?
    @Option(help: "The day, YYYY-MM-DD: it takes effect at the start of that day in the ledger's time zone.") var date: String?
    @Option(help: "With a file: bar (on a terminal), json (one {\"committed_seq\": N} line per commit on standard output) or none.")
    var progress: ProgressMode = .bar
    @Option(name: .customLong("batch-size"), help: "With a file: rows per commit (1-\(ImportBatch.sizeMax)).")
    var batchSize = BankImport.defaultBatchSize
    @Flag(help: "Print the appended events (one transaction) or the summary (a file) as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func validate() throws {
        let single: [(String, String?)] = [("--external-id", externalId), ("--payee", payee), ("--category", category), ("--amount", amount), ("--date", date)]
        if file != nil {
            if let given = single.first(where: { $0.1 != nil }) {
                throw ValidationError("\(given.0) is for one transaction; a file gives it on every row")
            }
            if idempotency.idempotencyKey != nil {
                throw ValidationError("--idempotency-key is for one transaction; each row of a file is keyed by its bank id")
            }
            guard (1...ImportBatch.sizeMax).contains(batchSize) else {
                throw ValidationError("--batch-size must be between 1 and \(ImportBatch.sizeMax)")
            }
        } else if let missing = single.first(where: { $0.1 == nil }) {
            throw ValidationError("missing \(missing.0): give a bank CSV file, or every one of --external-id, --payee, --category, --amount and --date")
        }
    }

    func run() throws {
        if let file {
            try importFile(file)
            return
        }
        try storeOptions.withLedger { ledger in
            let result = try ledger.importBankTransaction(
                bankId: bank, externalId: externalId!, payee: payee!, category: try BudgetCLI.category(category!, "--category"),
                amount: try BudgetCLI.amount(amount!, "--amount", ledger), date: try CLIParse.date(date!, option: "--date"),
                idempotencyKey: idempotency.idempotencyKey
            )
            try BudgetCLI.report(result, json: json, "Imported \(result.transactionId ?? "")")
        }
    }

    private func importFile(_ file: String) throws {
        let bar = ProgressBar(label: "import-bank", enabled: progress == .bar)
        defer { bar.finish() }
        // The engine may report from a thread of its own: the lines go to this command's console.
        let console = Console.current
        let report: (ImportProgress) -> Void = { step in
            switch step.phase {
            case .validating:
                bar.update(completed: step.completed, total: step.total, detail: "checking")
            case .appending:
                bar.update(completed: step.completed, total: step.total, detail: "\(step.completed)/\(step.total) rows")
                if progress == .json, let sequence = step.committedSequence {
                    console.writeOutput("{\"committed_seq\": \(sequence)}\n")
                    fflush(nil)
                }
            }
        }
        let summary: BankImportSummary
        do {
            summary = try storeOptions.withLedger { ledger in
                try ledger.importBankCSV(at: file, bankId: bank, batchSize: batchSize, progress: report)
            }
        } catch let error as LedgerError {
            bar.finish()
            if json, let refusal = error.underlying as? BankImportConflicts {
                print(BankImportOutput.json(file: file, bank: bank, refusal.summary, errors: refusal.conflicts))
            }
            throw error
        }
        bar.finish()
        if json {
            print(BankImportOutput.json(file: file, bank: bank, summary, errors: nil))
            return
        }
        let lines = [
            "Imported \(Output.visible(file)) from bank \(Output.visible(bank))",
            "rows imported: \(summary.imported)",
            "already present: \(summary.alreadyPresent)",
            "conflicts: \(summary.conflicts)",
            "events appended: \(summary.eventsAppended) in \(summary.commits) commit\(summary.commits == 1 ? "" : "s")",
            "seq range: \(summary.sequences.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "none")",
        ]
        // With --progress json, standard output is for machines: the summary goes to standard error.
        if progress == .json {
            Output.note(lines.joined(separator: "\n") + "\n")
        } else {
            print(lines.joined(separator: "\n"))
        }
    }
}

/// The summary of a bulk bank import as JSON.
enum BankImportOutput {
    /// `errors`: the conflicting rows of a refused import (nil: it was not refused).
    static func json(file: String, bank: String, _ summary: BankImportSummary, errors: [ImportError]?) -> String {
        var fields: [(String, String)] = [
            ("file", EventJSON.quoted(file)), ("bank", EventJSON.quoted(bank)), ("refused", String(errors != nil)),
            ("rows", String(summary.rows)), ("imported", String(summary.imported)),
            ("already_present", String(summary.alreadyPresent)), ("conflicts", String(summary.conflicts)),
            ("events_appended", String(summary.eventsAppended)), ("commits", String(summary.commits)),
            ("first_seq", summary.sequences.map { String($0.lowerBound) } ?? "null"),
            ("last_seq", summary.sequences.map { String($0.upperBound) } ?? "null"),
        ]
        if let errors {
            fields.append(("errors", JSONText.array(errors.map { error in
                Output.jsonObject([("line", error.line.map(String.init) ?? "null"), ("field", JSONText.string(error.field)),
                                   ("message", EventJSON.quoted(error.description))])
            })))
        }
        return Output.jsonObject(fields)
    }
}

struct TransactionAmendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "amend",
        abstract: "Amend a manual transaction (a new version; the log keeps the old one)."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The transaction id.") var id: String
    @Option(help: "New payee.") var payee: String?
    @Option(help: "New category.") var category: String?
    @Option(parsing: .unconditional, help: "New signed amount.") var amount: String?
    @Option(help: "New day, YYYY-MM-DD: the start of that day in the ledger's time zone.") var date: String?
    @Option(help: "Whether it is recurring: true or false.") var recurring: Bool?
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let result = try ledger.amendTransaction(
                id: id, payee: payee, category: try category.map { try BudgetCLI.category($0, "--category") },
                amount: try amount.map { try BudgetCLI.amount($0, "--amount", ledger) },
                date: try date.map { try CLIParse.date($0, option: "--date") }, recurring: recurring,
                idempotencyKey: idempotency.idempotencyKey
            )
            if NothingToDo.report(result, json: json, "\(id) is already as given; the amendment would change nothing") { return }
            try BudgetCLI.report(result, json: json, "Amended \(id)")
        }
    }
}

struct TransactionDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a manual transaction (it stays in the log and the audit)."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The transaction id.") var id: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            try BudgetCLI.report(try ledger.deleteTransaction(id: id, idempotencyKey: idempotency.idempotencyKey), json: json, "Deleted \(id)")
        }
    }
}

struct TransactionRecategoriseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recategorise",
        abstract: "Move any transaction, manual or imported, to another category."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The transaction id.") var id: String
    @Option(help: "The new category.") var category: String
    @Flag(help: "Print the appended events as JSON.") var json = false
    @OptionGroup var idempotency: IdempotencyOptions

    func run() throws {
        try storeOptions.withLedger { ledger in
            let category = try BudgetCLI.category(category, "--category")
            let result = try ledger.recategorise(id: id, category: category, idempotencyKey: idempotency.idempotencyKey)
            if NothingToDo.report(result, json: json, "\(id) is in \(category.displayName) already") { return }
            try BudgetCLI.report(result, json: json, "Moved \(id) to \(category.displayName)")
        }
    }
}

struct TransactionListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List transactions in their current version; deleted ones are hidden.",
        discussion: """
            Newest first unless --ascending. --month or --from/--to choose the days (default: all). \
            --format csv prints the page as the export's budget-transactions.csv: its header, then one row per transaction.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "A month, YYYY-MM: its days in the ledger's time zone.") var month: String?
    @Option(help: "The first day, YYYY-MM-DD, in the ledger's time zone.") var from: String?
    @Option(help: "The last day, YYYY-MM-DD, in the ledger's time zone (to its end).") var to: String?
    @Option(help: "Only payees containing this text, ignoring case.") var search: String?
    @Option(help: "Only this category.") var category: String?
    @Option(help: "date, name or amount.") var sort = "date"
    @Flag(help: "Oldest, smallest or A first.") var ascending = false
    @Option(help: "The page, from 1.") var page = 1
    @Option(name: .customLong("page-size"), help: "Transactions per page (1-500). Default: the page_size setting in force (`tally settings`).") var pageSize: Int?
    @OptionGroup var time: TimeTravelOptions
    @OptionGroup var output: ReportFormatOptions

    func validate() throws {
        if month != nil && (from != nil || to != nil) { throw ValidationError("give either --month or --from/--to, not both") }
        guard TransactionQuery.Sort(rawValue: sort) != nil else { throw ValidationError("--sort must be date, name or amount") }
    }

    func run() throws {
        var query = TransactionQuery()
        if let month { query = TransactionQuery(month: try CLIParse.month(month, option: "--month")) }
        query.from = try from.map { try CLIParse.date($0, option: "--from") } ?? query.from
        query.through = try to.map { try CLIParse.date($0, option: "--to") } ?? query.through
        query.search = search
        query.category = try category.map { try BudgetCLI.category($0, "--category") }
        query.sort = TransactionQuery.Sort(rawValue: sort) ?? .date
        query.descending = !ascending
        query.page = page
        query.pageSize = pageSize
        let result = try storeOptions.withReadingLedger { ledger in
            try ledger.transactions(query, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
        }
        let listPage = try ListPage(page: result.page, pageSize: result.pageSize, totalCount: result.totalCount)
        if output.chosen == .csv {
            // The page asked for, as the export's budget-transactions.csv (its header, then one row each).
            ListFooter.noteCSV(listPage)
            return print(BudgetTransactionsCSV.render(result.transactions), terminator: "")
        }
        if output.chosen == .json {
            return print(JSONText.list(result.transactions.map(BudgetCLI.json),
                                       paging: JSONPaging(listPage)))
        }
        print(Output.table(BudgetCLI.transactionHeader, result.transactions.map(BudgetCLI.row), rightAligned: [4]))
        print(ListFooter.table(listPage))
    }
}

struct TransactionShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "One transaction in its current version, or as the ledger knew it (--known-at)."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The transaction id.") var id: String
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "One JSON object.") var json = false

    func run() throws {
        let found = try storeOptions.withReadingLedger { ledger in
            try ledger.transaction(id: id, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
        }
        guard let transaction = found else {
            throw LedgerError(.notFound, "there is no budget transaction '\(id)' at that point; list them with `tally tx list`")
        }
        if json {
            print(BudgetCLI.json(transaction))
            return
        }
        print(Output.table(BudgetCLI.transactionHeader, [BudgetCLI.row(transaction)], rightAligned: [4]))
        if let bankCategory = transaction.bankCategory, bankCategory != transaction.category {
            print("the bank sent it as \(bankCategory.displayName)")
        }
    }
}

struct TransactionHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Every version of a transaction, with the event that made it (the audit trail)."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The transaction id.") var id: String
    @OptionGroup var time: TimeTravelOptions
    @Flag(help: "One JSON object: the versions as its items.") var json = false

    func run() throws {
        let versions = try storeOptions.withReadingLedger { ledger in
            try ledger.transactionHistory(id: id, asOf: try time.asOfInstant(ledger), knownAt: try time.knownAtInstant(ledger))
        }
        guard !versions.isEmpty else { throw LedgerError(.notFound, "there is no budget transaction '\(id)'; list them with `tally tx list`") }
        if json {
            return print(JSONText.list(versions.map { version in
                Output.jsonObject([
                    ("seq", String(version.sequence)), ("change", EventJSON.quoted(version.kind.rawValue)),
                    ("date", EventJSON.quoted(version.date.description)), ("payee", EventJSON.quoted(version.payee)),
                    ("category", EventJSON.quoted(version.category.rawValue)), ("amount", BudgetCLI.json(version.amount)),
                    ("recorded_at", EventJSON.quoted(version.recordedAt.description)),
                ])
            }, context: [("id", EventJSON.quoted(id))]))
        }
        print(Output.table(
            ["SEQ", "CHANGE", "DATE", "PAYEE", "CATEGORY", "AMOUNT", "RECORDED"],
            versions.map { [String($0.sequence), $0.kind.rawValue, $0.date.description, $0.payee, $0.category.displayName,
                            MoneyDisplay.amount($0.amount), $0.recordedAt.description] },
            rightAligned: [0, 5]
        ))
    }
}
