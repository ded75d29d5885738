public import TallyEngine
import GRDB

/// A prices CSV that passed the validating pass: every row is well formed and no two rows
/// give one symbol two prices on one day.
public struct ValidatedPrices: Hashable, Sendable {
    /// The file, as given.
    public let path: String
    /// Its data rows.
    public let rows: Int
    /// The SHA-256 of its bytes, in hex: the appending pass refuses a file whose bytes
    /// changed after they were validated.
    public let sha256: String
}

/// Importing a prices CSV (``PricesCSV``), all or nothing:
/// 1. the validating pass reads the whole file before the store is opened for writing:
///    every row well formed, every event within the log's limits, and no symbol given two
///    different prices on one day (a repeated row is fine and skipped);
/// 2. with the writer lock held, every row is compared with the prices the store holds: a
///    different price already recorded for that symbol at the start of that day refuses the
///    file, naming its line, before anything is appended;
/// 3. the rows are appended in batches, one durable commit each, leaving out those already
///    recorded (so re-running a file after a crash adds only what is missing).
///
/// Each row's `price_quoted` passes the admissibility checks of events that arrive already
/// decided (a price more than zero, a symbol not priced in itself).
///
/// ```swift
/// let prices = try PricesImport.validate(csvAt: "prices.csv", calendar: ledger.calendar)
/// let summary = try ledger.importPrices(prices)
/// ```
///
/// Memory: one read chunk, one batch, and one entry per distinct (symbol, day) of the file.
public enum PricesImport {
    /// The validating pass.
    ///
    /// - Parameters:
    ///   - path: the CSV file.
    ///   - calendar: the ledger's calendar (a date becomes the start of that day in it).
    ///   - progress: called now and then with bytes read; throwing from it stops the import.
    /// - Throws: ``ImportError`` naming the line (and field) of the first problem; `conflict`
    ///   for a second, different price of a symbol on a day, naming both lines.
    public static func validate(
        csvAt path: String, calendar: LedgerCalendar, progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> ValidatedPrices {
        var rows = try PriceRows(path: path, calendar: calendar)
        var seen: [PricesCSV.Slot: (price: ExactDecimal, currency: Commodity, line: Int)] = [:]
        var count = 0
        while let (row, event) = try rows.next() {
            try JournalCSV.checkRecord(event, line: row.line, file: path)
            if let earlier = seen[row.slot] {
                guard earlier.price == row.quote.price && earlier.currency == row.quote.currency else {
                    throw ImportError(.conflict, file: path, line: row.line, field: "price", """
                        \(row.quote.symbol.code) on \(row.date) has a different price on line \(earlier.line); a symbol has one price per day
                        """)
                }
            } else {
                seen[row.slot] = (row.quote.price, row.quote.currency, row.line)
            }
            count += 1
            if count % 65_536 == 0 {
                try progress?(ImportProgress(phase: .validating, completed: rows.bytesRead, total: rows.fileBytes, committedSequence: nil))
            }
        }
        try progress?(ImportProgress(phase: .validating, completed: rows.bytesRead, total: rows.fileBytes, committedSequence: nil))
        return ValidatedPrices(path: path, rows: count, sha256: rows.hexDigest())
    }
}

/// A prices CSV's rows in file order, each with the event it records.
struct PriceRows {
    private let reader: CSVReader
    private var days: DayStarts

    init(path: String, calendar: LedgerCalendar) throws {
        reader = try CSVReader(path: path)
        days = DayStarts(calendar: calendar)
        guard PricesCSV.isHeader(try reader.next()) else {
            throw ImportError(.header, file: path, line: 1, "the first line must be exactly the header \(PricesCSV.header)")
        }
    }

    var bytesRead: Int64 { reader.bytesRead }
    var fileBytes: Int64 { reader.fileBytes }
    func hexDigest() -> String { reader.hexDigest() }

    /// The next row and its event, or nil at the end of the file.
    mutating func next() throws -> (row: PricesCSV.Row, event: NewEvent)? {
        guard let record = try reader.next() else { return nil }
        let row = try PricesCSV.row(record, file: reader.path)
        let dayStart = days.start(of: row.date)
        guard dayStart.isInCalendarRange else {
            throw ImportError(.invalidRow, file: reader.path, line: row.line, field: "date", "lies outside years 0001-9999 in the ledger's time zone")
        }
        return (row, NewEvent(effectiveAt: dayStart, body: EventBody(row.quote)))
    }
}

extension Ledger {
    /// Validates and imports a prices CSV (``PricesImport``).
    ///
    /// ```swift
    /// let summary = try ledger.importPrices(csvAt: "prices.csv")
    /// print(summary.imported, summary.duplicatesSkipped)
    /// ```
    ///
    /// - Throws: ``ImportError`` for a bad file or a conflicting price (nothing appended);
    ///   `LogError` for I/O failures.
    public func importPrices(
        csvAt path: String, batchSize: Int = ImportBatch.defaultSize, progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> ImportSummary {
        try LedgerError.boundary {
            try importPrices(try PricesImport.validate(csvAt: path, calendar: calendar, progress: progress), batchSize: batchSize, progress: progress)
        }
    }

    /// Compares every row of a validated prices CSV with the prices the store holds, then
    /// appends those not recorded yet in batches of `batchSize` rows, one durable commit each.
    ///
    /// ```swift
    /// let prices = try PricesImport.validate(csvAt: "prices.csv", calendar: ledger.calendar)
    /// let summary = try ledger.importPrices(prices, batchSize: 1_000)
    /// ```
    ///
    /// - Throws: ``ImportError`` `conflict` naming the line of a row whose symbol already has
    ///   a different price at the start of that day (nothing appended); `changedDuringImport`
    ///   when the file no longer matches what was validated; `stoppedPartway` when anything
    ///   else stops it after a commit (running it again finishes it); the error itself when it
    ///   stops before the first commit, which leaves the store as it was.
    public func importPrices(
        _ prices: ValidatedPrices, batchSize: Int = ImportBatch.defaultSize, progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> ImportSummary {
        try LedgerError.boundary {
            try ImportBatch.check(batchSize)
            let path = prices.path
            func changed(_ detail: String, _ summary: ImportSummary) -> ImportError {
                let appended = summary.sequences.map { "; rows were appended as seq \($0.lowerBound)-\($0.upperBound), re-run the import to finish" } ?? "; nothing was appended"
                return ImportError(.changedDuringImport, file: path, "the file changed after it was validated (\(detail))\(appended)")
            }
            // Every row against the store first: a conflict refuses the file before any append.
            var rows = try PriceRows(path: path, calendar: calendar)
            try read { db in
                while let (row, event) = try rows.next() {
                    _ = try Self.isRecorded(row, at: event.effectiveAt, db, file: path)
                }
            }
            guard rows.hexDigest() == prices.sha256 else { throw changed("its SHA-256 differs", ImportSummary()) }

            var summary = ImportSummary()
            rows = try PriceRows(path: path, calendar: calendar)
            var batch: [(row: PricesCSV.Row, event: NewEvent)] = []
            batch.reserveCapacity(batchSize)
            /// The rows of the batches committed so far.
            var rowsCommitted = 0
            func commit() throws {
                var skipped = 0
                let result = try perform(admitting: true) { db in
                    var slots = Set<PricesCSV.Slot>(minimumCapacity: batch.count)
                    var kept: [NewEvent] = []
                    for (row, event) in batch {
                        guard slots.insert(row.slot).inserted, try !Self.isRecorded(row, at: event.effectiveAt, db, file: path) else {
                            skipped += 1
                            continue
                        }
                        kept.append(event)
                    }
                    return kept
                }
                summary.duplicatesSkipped += skipped
                summary.imported += result.events.count
                summary.record(result)
                rowsCommitted = summary.rows
                batch.removeAll(keepingCapacity: true)
                try progress?(ImportProgress(
                    phase: .appending, completed: Int64(summary.rows), total: Int64(prices.rows), committedSequence: result.events.last?.sequence))
            }
            do {
                do {
                    while let next = try rows.next() {
                        summary.rows += 1
                        batch.append(next)
                        if batch.count == batchSize { try commit() }
                    }
                } catch let error as ImportError where error.code != .changedDuringImport && error.code != .unreadable {
                    throw changed(error.description, summary)
                }
                guard rows.hexDigest() == prices.sha256, summary.rows == prices.rows else { throw changed("its SHA-256 differs", summary) }
                if !batch.isEmpty { try commit() }
            } catch {
                throw ImportError.stopped(error, file: path, committed: summary.sequences, rowsCommitted: rowsCommitted)
            }
            return summary
        }
    }

    /// Whether the store already records this row's price for its symbol at the start of
    /// its day (the latest such price counts).
    /// - Throws: ``ImportError`` `conflict` when it records a different one.
    private static func isRecorded(_ row: PricesCSV.Row, at instant: Instant, _ db: Database, file: String) throws -> Bool {
        guard let recorded = try MarketQuotes.prices(of: row.quote.symbol, effectiveAt: instant, db).last else { return false }
        guard recorded.price == row.quote.price && recorded.currency == row.quote.currency else {
            throw ImportError(.conflict, file: file, line: row.line, field: "price", """
                \(row.quote.symbol.code) on \(row.date) already has a different price in the store; a symbol has one price per day
                """)
        }
        return true
    }
}
