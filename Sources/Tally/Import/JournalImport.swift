import GRDB
import TallyLog

/// A journal CSV that passed the validating pass: every row is well formed.
public struct ValidatedJournal: Hashable, Sendable {
    /// The file, as given.
    public let path: String
    /// Its data rows.
    public let rows: Int
    /// The SHA-256 of its bytes, in hex: part of the idempotency key of rows without an
    /// external id, so that re-running the same file after a crash resumes exactly.
    public let sha256: String
}

/// Importing a journal CSV (``JournalCSV``) in two streaming passes: validate the whole
/// file, appending nothing; then append in batches, one durable commit per batch, skipping
/// rows whose key was used before.
///
/// ```swift
/// let journal = try JournalImport.validate(csvAt: "bank.csv", calendar: ledger.calendar)
/// let summary = try ledger.importJournal(journal)
/// print(summary.imported, summary.duplicatesSkipped)
/// ```
///
/// Memory stays bounded whatever the file's size: one read chunk and one batch of rows.
/// Duplicates are found through the idempotency read model (earlier imports and earlier
/// batches of this file, already committed) and a set of the current batch's keys.
public enum JournalImport {
    /// The validating pass: reads the whole file and checks the header and every row.
    ///
    /// - Parameters:
    ///   - path: the CSV file.
    ///   - calendar: the ledger's calendar (dates become the start of that day in it).
    ///   - progress: called now and then with bytes read; throwing from it stops the import.
    /// - Throws: ``ImportError`` naming the line (and column or field) of the first problem.
    public static func validate(
        csvAt path: String, calendar: LedgerCalendar, progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> ValidatedJournal {
        let reader = try CSVReader(path: path)
        try JournalCSV.checkHeader(try reader.next(), file: path)
        var rows = 0
        var days = DayStarts(calendar: calendar)
        var cache = JournalCSV.Cache()
        while let record = try reader.next() {
            let row = try JournalCSV.row(record, file: path, cache: &cache)
            guard days.start(of: row.date).isInCalendarRange else {
                throw ImportError(.invalidRow, file: path, line: row.line, field: "date", "lies outside years 0001-9999 in the ledger's time zone")
            }
            rows += 1
            if rows % 65_536 == 0 {
                try progress?(ImportProgress(phase: .validating, completed: reader.bytesRead, total: reader.fileBytes, committedSequence: nil))
            }
        }
        try progress?(ImportProgress(phase: .validating, completed: reader.bytesRead, total: reader.fileBytes, committedSequence: nil))
        return ValidatedJournal(path: path, rows: rows, sha256: reader.hexDigest())
    }
}

/// The start of each day in the ledger's time zone, remembering the last few days asked
/// for (journal rows come mostly in date order).
struct DayStarts {
    let calendar: LedgerCalendar
    private var cache: [Int: Instant] = [:]

    init(calendar: LedgerCalendar) { self.calendar = calendar }

    mutating func start(of date: LocalDate) -> Instant {
        if let instant = cache[date.daysSinceEpoch] { return instant }
        if cache.count >= 4096 { cache.removeAll(keepingCapacity: true) }
        let instant = calendar.startOfDay(date)
        cache[date.daysSinceEpoch] = instant
        return instant
    }
}

extension Ledger {
    /// Validates and imports a journal CSV: ``JournalImport/validate(csvAt:calendar:progress:)``
    /// then ``importJournal(_:batchSize:progress:)``.
    ///
    /// - Throws: ``ImportError`` for a bad file (nothing appended); `LogError` for I/O failures.
    public func importJournal(
        csvAt path: String, batchSize: Int = ImportBatch.defaultSize, progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> ImportSummary {
        try importJournal(try JournalImport.validate(csvAt: path, calendar: calendar, progress: progress), batchSize: batchSize, progress: progress)
    }

    /// The appending pass of a validated journal: reads the file again and appends one
    /// `journal_entry_posted` per row in batches of `batchSize` rows, each one durable commit
    /// folded into the read models. A row whose key (`journal:<external_id>`, else
    /// `journal:<sha256>:<line>`) was used before is skipped and counted.
    ///
    /// - Parameters:
    ///   - journal: the result of the validating pass.
    ///   - batchSize: rows per commit, `1...100_000`.
    ///   - progress: called after every commit with the rows handled and the last sequence;
    ///     throwing from it stops the import (what was committed stays; re-running resumes).
    /// - Throws: ``ImportError`` (`changedDuringImport`) when the file no longer matches what
    ///   was validated (the message says how much was appended); `LogError` for I/O failures.
    public func importJournal(
        _ journal: ValidatedJournal, batchSize: Int = ImportBatch.defaultSize, progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> ImportSummary {
        try ImportBatch.check(batchSize)
        let path = journal.path
        var summary = ImportSummary()
        func changed(_ detail: String) -> ImportError {
            let appended = summary.sequences.map { "; rows were appended as seq \($0.lowerBound)-\($0.upperBound), re-run the import to finish" } ?? "; nothing was appended"
            return ImportError(.changedDuringImport, file: path, "the file changed after it was validated (\(detail))\(appended)")
        }
        let reader = try CSVReader(path: path)
        var days = DayStarts(calendar: calendar)
        var batch: [NewEvent] = []
        batch.reserveCapacity(batchSize)
        func commit() throws {
            let outcome = try appendSkippingUsedKeys(batch)
            summary.duplicatesSkipped += outcome.skipped
            summary.imported += outcome.result.events.count
            summary.record(outcome.result)
            batch.removeAll(keepingCapacity: true)
            try progress?(ImportProgress(
                phase: .appending, completed: Int64(summary.rows), total: Int64(journal.rows),
                committedSequence: outcome.result.events.last?.sequence))
        }
        var cache = JournalCSV.Cache()
        do {
            try JournalCSV.checkHeader(try reader.next(), file: path)
            while let record = try reader.next() {
                let row = try JournalCSV.row(record, file: path, cache: &cache)
                summary.rows += 1
                batch.append(NewEvent(
                    effectiveAt: days.start(of: row.date), idempotencyKey: row.idempotencyKey(fileDigest: journal.sha256),
                    body: .journalEntryPosted(row.entry)))
                if batch.count == batchSize { try commit() }
            }
        } catch let error as ImportError where error.code != .changedDuringImport && error.code != .unreadable {
            throw changed(error.description)
        }
        guard reader.hexDigest() == journal.sha256, summary.rows == journal.rows else {
            throw changed("its SHA-256 differs")
        }
        if !batch.isEmpty { try commit() }
        return summary
    }

    /// Appends events in one commit, leaving out those whose idempotency key was used in an
    /// earlier commit or earlier in `events`.
    func appendSkippingUsedKeys(_ events: [NewEvent]) throws -> (result: CommandResult, skipped: Int) {
        var skipped = 0
        let result = try perform { db in
            let lookup = try db.cachedStatement(sql: "SELECT 1 FROM idempotency_keys WHERE key = ?")
            var keys = Set<String>(minimumCapacity: events.count)
            var kept: [NewEvent] = []
            kept.reserveCapacity(events.count)
            for event in events {
                if let key = event.idempotencyKey {
                    guard keys.insert(key).inserted, try Int64.fetchOne(lookup, arguments: [key]) == nil else {
                        skipped += 1
                        continue
                    }
                }
                kept.append(event)
            }
            return kept
        }
        return (result, skipped)
    }
}
