import ArgumentParser
import Foundation
import Tally

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a journal CSV, a prices CSV or an export's budgets, pots, recurring-items or budget-transactions CSV (.csv), or events in their JSON form (.ndjson).",
        discussion: """
            A journal CSV starts with the header \(JournalCSV.header); each row moves the \
            signed amount into account out of counter_account at the start of date in the \
            ledger's time zone. The whole file is checked first: a bad row stops the import \
            with its line number and nothing is appended. Rows are then appended in batches, \
            one durable commit each. A row whose external_id (or an event whose \
            idempotency_key) was imported before is skipped and counted. A row without an \
            external_id is recognised by its content (date, accounts, amount, currency, \
            payee, category) and how many identical rows precede it in the file, so \
            re-running a file after a crash, or a corrected or longer file after a refused \
            or partial import, adds only the rows not yet there. Text fields may not hold \
            control characters (NUL, ESC, tab, line breaks). A prices CSV starts with the \
            header \(PricesCSV.header); each row records the price of one unit of symbol in \
            currency at the start of date. A row repeating a price already recorded for that \
            symbol and day is skipped; a different price for the same symbol and day refuses \
            the whole file, naming the line. An export's budgets.csv, pots.csv, \
            recurring-items.csv or budget-transactions.csv (known by its header) is read back \
            through budget set, pot create and pot add (the budget's balance must cover a \
            pot's total), recurring define, and tx add --id, tx import-bank (connect the bank \
            first) or the occurrence recurring generate records (a numbered id manual:N comes \
            back as manual-N): checked and rehearsed whole, then one commit; a row the ledger \
            holds already is skipped, a pot, recurring item or transaction held with something \
            else refuses the file, naming its line and column.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The file: FILE.csv (journal, prices, or an export's budgets, pots, recurring-items or budget-transactions CSV) or FILE.ndjson / FILE.jsonl (events).", valueName: "file"))
    var file: String

    @Option(help: "bar (on a terminal), json (one {\"committed_seq\": N} line per commit on standard output) or none.")
    var progress: ProgressMode = .bar

    @Option(name: .customLong("batch-size"), help: "Rows per commit (1-\(ImportBatch.sizeMax)).")
    var batchSize = ImportBatch.defaultSize

    func validate() throws {
        guard (1...ImportBatch.sizeMax).contains(batchSize) else {
            throw ValidationError("--batch-size must be between 1 and \(ImportBatch.sizeMax)")
        }
    }

    private enum Format { case journal, events }

    func run() throws {
        let lowercased = file.lowercased()
        let format: Format
        if lowercased.hasSuffix(".csv") {
            format = .journal
        } else if lowercased.hasSuffix(".ndjson") || lowercased.hasSuffix(".jsonl") {
            format = .events
        } else {
            throw ValidationError("'\(file)' must end in .csv (journal) or .ndjson / .jsonl (events)")
        }
        let stopwatch = Stopwatch()
        let bar = ProgressBar(label: "import", enabled: progress == .bar)
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
        defer { bar.finish() }

        // The validating pass runs before the store is opened for writing: a refused file
        // leaves every byte of the store as it was.
        let reader = try EventStoreReader.open(at: storeOptions.path, options: try storeOptions.ledgerOptions())
        let summary: ImportSummary
        switch format {
        case .journal where try ProductCSVKind.of(csvAt: file) != nil:
            // An export's budgets, pots, recurring-items or budget-transactions CSV: read back through the
            // products' commands, checked and rehearsed whole, then one commit.
            let ledger = CommittedWrites.track(try Ledger.open(at: storeOptions.path, options: try storeOptions.ledgerOptions()))
            defer { try? ledger.close() }
            summary = try ledger.importProductCSV(at: file)
        case .journal where try CSVImportKind.of(csvAt: file) == .prices:
            let prices = try PricesImport.validate(csvAt: file, calendar: try reader.ledgerCalendar(), progress: report)
            let ledger = CommittedWrites.track(try Ledger.open(at: storeOptions.path, options: try storeOptions.ledgerOptions()))
            defer { try? ledger.close() }
            summary = try ledger.importPrices(prices, batchSize: batchSize, progress: report)
        case .journal:
            let journal = try JournalImport.validate(csvAt: file, calendar: try reader.ledgerCalendar(), progress: report)
            let ledger = CommittedWrites.track(try Ledger.open(at: storeOptions.path, options: try storeOptions.ledgerOptions()))
            defer { try? ledger.close() }
            summary = try ledger.importJournal(journal, batchSize: batchSize, progress: report)
        case .events:
            let events = try EventImport.validate(ndjsonAt: file, head: reader.head.sequence, catalog: .standard, progress: report)
            let ledger = CommittedWrites.track(try Ledger.open(at: storeOptions.path, options: try storeOptions.ledgerOptions()))
            defer { try? ledger.close() }
            summary = try ledger.importEvents(events, batchSize: batchSize, progress: report)
        }
        bar.finish()
        let elapsed = stopwatch.elapsedMicroseconds
        let lines = [
            "Imported \(file)",
            "rows imported: \(summary.imported)",
            "skipped as duplicates: \(summary.duplicatesSkipped)",
            "events appended: \(summary.eventsAppended) in \(summary.commits) commit\(summary.commits == 1 ? "" : "s")",
            "seq range: \(summary.sequences.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "none")",
            "elapsed: \(Stopwatch.seconds(elapsed)) (\(Stopwatch.rate(Int64(summary.rows), elapsed)) rows/s)",
        ]
        // With --progress json, standard output is for machines: the summary goes to standard error.
        if progress == .json {
            Output.note(lines.joined(separator: "\n") + "\n")
        } else {
            print(lines.joined(separator: "\n"))
        }
    }
}
