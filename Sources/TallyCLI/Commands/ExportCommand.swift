import ArgumentParser
import Foundation
import Tally

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export the whole ledger: its events as NDJSON, and CSVs a spreadsheet opens.",
        discussion: """
            With no argument the events go to standard output, one JSON object a line in the \
            form of Schemas/ (seq, recorded_at, effective_at, type, version, entity, cause, \
            idempotency_key, data); with FILE they are written to FILE. `tally restore FILE` \
            makes a new store from them that gives every answer the exported one gives, at \
            every date and as known at every time. The head digest SEQ:HASH printed at the end \
            (on standard error) is the restored store's: check it with `tally verify --expect`.

            --dir DIR writes everything into DIR (created when missing): \
            \(Ledger.exportEventsFileName), \(BudgetTransactionsCSV.fileName) (\(BudgetTransactionsCSV.header)), \
            \(EnvelopeActivityCSV.fileName) (\(EnvelopeActivityCSV.header)), \
            \(NetWorthItemsCSV.fileName) (\(NetWorthItemsCSV.header)), \
            \(NetWorthValuationsCSV.fileName) (\(NetWorthValuationsCSV.header)), \
            \(WealthHistoryCSV.fileName) (\(WealthHistoryCSV.header)), \
            \(BudgetsCSV.fileName) (\(BudgetsCSV.header)), \(PotsCSV.fileName) (\(PotsCSV.header)) and \
            \(RecurringItemsCSV.fileName) (\(RecurringItemsCSV.header)). Every CSV is written, \
            with its header, even for a product the ledger does not use. --csv NAME prints one \
            of them. Files are replaced whole, in one step each; they are readable by their \
            owner only. `tally import` reads \(BudgetTransactionsCSV.fileName), \(BudgetsCSV.fileName), \
            \(PotsCSV.fileName) and \(RecurringItemsCSV.fileName) back into a ledger.
            """
    )


    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The NDJSON file to write (default: standard output).", valueName: "file"))
    var file: String?

    @Option(help: ArgumentHelp("Write the events and every product's CSV into this directory.", valueName: "dir"))
    var dir: String?

    @Option(help: ArgumentHelp("Print one product's CSV instead: \(ProductCSVName.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "name"),
            transform: { text in
                guard let name = ProductCSVName(rawValue: text) else {
                    throw ValidationError("--csv '\(text)' is not a product CSV; use \(ProductCSVName.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return name
            })
    var csv: ProductCSVName?

    func validate() throws {
        if dir != nil && (file != nil || csv != nil) {
            throw ValidationError("--dir writes every file itself; give either --dir DIR, or FILE and/or --csv NAME")
        }
    }

    func run() throws {
        let ledger = try Ledger.openForReading(at: storeOptions.path, options: try storeOptions.ledgerOptions())
        defer { try? ledger.close() }
        if let dir {
            let summary = try ledger.exportProducts(toDirectory: dir)
            print("Exported \(summary.events.events) events to \(dir)/\(Ledger.exportEventsFileName)")
            for name in summary.csvRows.keys.sorted() {
                print("\(name): \(summary.csvRows[name]!) rows")
            }
            print("head \(summary.events.head)")
            noteOlderVersions(summary.events)
            return
        }
        if let csv {
            let text = try ledger.productCSV(csv)
            if let file {
                try ExportFiles.write(text, to: file)
            } else {
                print(text, terminator: "")
            }
            return
        }
        let summary: ExportSummary
        if let file, file != "-" {
            summary = try ledger.export(to: file)
            print("Exported \(summary.events) events to \(file)")
            print("head \(summary.head)")
        } else {
            let console = Console.current
            summary = try ledger.export { console.writeOutput($0) }
            Output.note("exported \(summary.events) events; head \(summary.head)\n")
        }
        noteOlderVersions(summary)
    }

    private func noteOlderVersions(_ summary: ExportSummary) {
        guard summary.olderVersionEvents > 0 else { return }
        Output.note("""
            note: \(summary.olderVersionEvents) events are stored in an older schema version and were exported in the current one: \
            a restore gives the same answers, but its head digest differs from \(summary.head)\n
            """)
    }
}

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Make a new store from an export (tally export): the same ledger, the same answers.",
        discussion: """
            The store named by --store must not exist yet (or be an empty directory). It gets \
            the export's ledger_created (name, base currency, time zone) and then every event \
            with its original sequence number, recorded time, effective time, cause and \
            idempotency key, so every answer, at every date and as known at every time, is the \
            exported ledger's, and its head digest is the exported store's (unless the export \
            noted events of an older schema version). The file is checked whole first: \
            sequence numbers must run 1, 2, 3 … with none missing, recorded times must never go \
            backwards, and the first event must be ledger_created; a bad line is named and \
            nothing is created. The store is built in a hidden .NAME.tally-restore.* directory \
            beside it and renamed into place when complete. With --expect SEQ:HASH (the digest \
            `tally export` printed) a restore that ends at another digest is refused and leaves \
            nothing. `tally import` is for adding events to a store that exists: it stamps new \
            sequence numbers and recorded times. With --encrypt (and --key-file FILE or \
            TALLY_KEY_FILE, as for init) the new store is encrypted at rest.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Encrypt the new store at rest (as `tally init --encrypt`).")
    var encrypt = false

    @Argument(help: ArgumentHelp("The export: an NDJSON file written by tally export.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("The head digest the restore must end at (SEQ:HASH, as tally export prints it).", valueName: "digest"))
    var expect: String?

    @Option(help: "bar (on a terminal) or none.")
    var progress: ProgressMode = .bar

    func run() throws {
        let expected: LogDigest?
        do {
            expected = try expect.map { try LogDigest(parsing: $0) }
        } catch {
            throw ValidationError("--expect '\(expect ?? "")' is not a digest SEQ:HASH (64 hex digits): \(error)")
        }
        let bar = ProgressBar(label: "restore", enabled: progress == .bar)
        defer { bar.finish() }
        let (options, madeKeyFile) = try storeOptions.creationOptions(encrypt: encrypt)
        let summary: RestoreSummary
        do {
            summary = try Ledger.restore(from: file, into: storeOptions.path, options: options, expect: expected) { step in
                switch step.phase {
                case .validating: bar.update(completed: step.completed, total: step.total, detail: "checking")
                case .appending: bar.update(completed: step.completed, total: step.total, detail: "\(step.completed)/\(step.total) events")
                }
            }
        } catch {
            if let madeKeyFile { unlink(madeKeyFile) }
            throw error
        }
        if let madeKeyFile { print("Encrypted at rest; wrote a new key to \(madeKeyFile): keep a copy apart from the store") }
        bar.finish()
        print("Restored \(summary.events) events from \(file) into \(storeOptions.path)")
        print("head \(summary.head)")
        if let expected { print("expected digest \(expected) matches") }
    }
}
