public import GRDB
internal import Synchronization
import TallyLog

/// A journal CSV that passed the validating pass: every row is well formed.
public struct ValidatedJournal: Hashable, Sendable {
    /// The file, as given.
    public let path: String
    /// Its data rows.
    public let rows: Int
    /// The SHA-256 of its bytes, in hex: the appending pass refuses a file whose bytes
    /// changed after they were validated.
    public let sha256: String
    /// The SHA-256 of the file's first bytes after each read of the validating pass, by how
    /// many bytes had been read: the appending pass, which reads the file in the same
    /// chunks, knows a batch's rows are the bytes validated when its own digest at the same
    /// point is the same, and then need not check their records a second time.
    var readDigests: [Int64: [UInt8]] = [:]
    /// The data rows (0-based, in file order) whose key another row of the file may also
    /// have: a row repeating an earlier row's external id, and a row whose external id is
    /// spelled like a content key (`row:…`), which a content-keyed row's key could equal.
    /// Every other row's key is new to the import when its batch comes, so that a batch
    /// without such rows is not looked up in a store holding only the import's keys
    /// (``ImportOwnKeys``). Ascending.
    var rowsWhoseKeyMayRepeat: [Int] = []
    /// How many rows have no external id (keyed by their content): the appending pass makes
    /// room for their digests ahead.
    var contentKeyedRows = 0
}

/// Importing a journal CSV (``JournalCSV``) in two streaming passes: validate the whole
/// file, appending nothing; then append in batches, one durable commit per batch, skipping
/// rows whose key was used before (``JournalCSV`` says which rows count as imported).
///
/// Both passes build each row's event the same way (`JournalEvents`), and the validating
/// pass runs every one through the record check the log applies, so a file the first pass
/// accepts is not refused halfway through the second for a limit or a text rule.
///
/// ```swift
/// let journal = try JournalImport.validate(csvAt: "bank.csv", calendar: ledger.calendar)
/// let summary = try ledger.importJournal(journal)
/// print(summary.imported, summary.duplicatesSkipped)
/// ```
///
/// Memory: one read chunk, at most three batches of rows (one committing, one waiting, one
/// being read); in the validating pass each distinct external id with a hash of its row
/// (``ExternalIdRows``), and in the appending pass a 16-byte digest with a count per
/// distinct row without an external id (to number identical rows; `JournalCSV.RowKeys`).
///
/// Cores: each pass reads and parses the file on a second thread (`Handoff`) while the
/// calling thread checks each row's record (first pass) or commits (second pass).
/// Duplicates are found through the idempotency read model (earlier imports and earlier
/// batches of this file, already committed) and a set of the current batch's keys; while
/// the store holds no journal key but this import's own, a batch that holds none of the rows
/// the validating pass found may repeat a key (``ValidatedJournal/rowsWhoseKeyMayRepeat``)
/// is not looked up at all (``ImportOwnKeys``): a fresh store's import costs the committing
/// thread no key look-up.
public enum JournalImport {
    /// The validating pass: reads the whole file and checks the header and every row,
    /// running each row's event, idempotency key included, through the record check the
    /// log applies (``EventCatalog/record(for:)``): every limit and text rule. A row keyed by
    /// its content is checked with its key's longest form, without its digest
    /// (``JournalCSV/RowKeys/Scheme/shapeOnly``).
    ///
    /// - Parameters:
    ///   - path: the CSV file.
    ///   - calendar: the ledger's calendar (dates become the start of that day in it).
    ///   - progress: called now and then with bytes read; throwing from it stops the import.
    /// - Throws: ``ImportError`` naming the line (and column or field) of the first problem.
    public static func validate(
        csvAt path: String, calendar: LedgerCalendar, progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> ValidatedJournal {
        // Two cores: a second thread parses rows and builds their events, a chunk of rows
        // ahead (`Handoff`), while this one checks each row's external id and record;
        // problems are met in file order. (The external ids on the parsing side left that
        // side the bound: 2.6 s for a million rows, this one half idle.)
        var rows = 0
        var digest: String?
        var readDigests: [Int64: [UInt8]] = [:]
        var contentKeyedRows = 0
        var externalIds = ExternalIdRows()
        try Handoff<RowChunk>.run(queuedItemsMax: 4, produce: { put in
            // Keys are checked for their length and characters only: no digest is computed.
            var events = try JournalEvents(path: path, calendar: calendar, keys: .shapeOnly)
            events.keepReadDigests()
            try events.readHeader()
            var chunk: [(line: Int, event: NewEvent, keyedByExternalId: Bool)] = []
            chunk.reserveCapacity(RowChunk.rowsMax)
            do {
                while let next = try events.next() {
                    chunk.append((next.line, next.event, events.lastRowHasExternalId))
                    if chunk.count == RowChunk.rowsMax {
                        try put(RowChunk(rows: chunk, bytesRead: events.bytesRead, fileBytes: events.fileBytes))
                        chunk.removeAll(keepingCapacity: true)
                    }
                }
            } catch {
                // The rows before the bad one are checked first: an earlier problem is reported first.
                if !chunk.isEmpty { try put(RowChunk(rows: chunk, bytesRead: events.bytesRead, fileBytes: events.fileBytes)) }
                throw error
            }
            try put(RowChunk(rows: chunk, bytesRead: events.bytesRead, fileBytes: events.fileBytes, digest: events.hexDigest(),
                             readDigests: events.readDigests ?? [:], contentKeyedRows: events.contentKeyedRows))
        }, consume: { chunk in
            if rows == 0 { externalIds.expect(rowsOf: chunk) }
            for (line, event, keyedByExternalId) in chunk.rows {
                if keyedByExternalId { try externalIds.check(event, line: line, row: rows, file: path) }
                try JournalCSV.checkRecord(event, line: line, file: path)
                rows += 1
            }
            if let last = chunk.digest {
                digest = last
                readDigests = chunk.readDigests
                contentKeyedRows = chunk.contentKeyedRows
                try progress?(ImportProgress(phase: .validating, completed: chunk.bytesRead, total: chunk.fileBytes, committedSequence: nil))
            } else if rows % 65_536 == 0 {
                try progress?(ImportProgress(phase: .validating, completed: chunk.bytesRead, total: chunk.fileBytes, committedSequence: nil))
            }
        })
        guard let digest else {
            preconditionFailure("the validating pass ended without reading the file to its end")
        }
        return ValidatedJournal(
            path: path, rows: rows, sha256: digest, readDigests: readDigests, rowsWhoseKeyMayRepeat: externalIds.rowsWhoseKeyMayRepeat,
            contentKeyedRows: contentKeyedRows)
    }

    /// The rows of one file keyed by an external id, as the validating pass reads them: a
    /// second row under an id must be the first again (a repeat, skipped when appended), never
    /// another transaction, which would be refused only when its batch came, after the
    /// batches before it were committed. Holds one entry per distinct external id: a 128-bit
    /// digest of the id (``IdDigest``) and a hash of its row's event (its body and effective
    /// time, what makes a repeat the same). It also lists the rows the appending pass must
    /// look up (``ValidatedJournal/rowsWhoseKeyMayRepeat``).
    struct ExternalIdRows {
        private var first: [IdDigest: (content: Int, line: Int)] = [:]
        private(set) var rowsWhoseKeyMayRepeat: [Int] = []
        /// The most ids room is made for ahead (``expect(rowsOf:)``): 4 million, a table of
        /// 8 million buckets of 32 bytes (about 270 MB); a longer file grows it as it goes.
        static let expectedIdsMax = 1 << 22

        /// An external id as two 64-bit hashes of it under different salts (SipHash, under the
        /// process's random seed): two ids that differ meet with odds of about n²/2¹²⁹ among
        /// n ids. Keyed by the ids' strings, the table kept every row's id alive past its
        /// event: a million strings (about 48 MB) that took 0.2 s to free when the pass
        /// ended, with the appending pass waiting.
        struct IdDigest: Hashable {
            let first: UInt64
            let second: UInt64

            init(_ id: String) {
                var first = Hasher()
                first.combine(0 as UInt8)
                first.combine(id)
                var second = Hasher()
                second.combine(1 as UInt8)
                second.combine(id)
                self.first = UInt64(bitPattern: Int64(first.finalize()))
                self.second = UInt64(bitPattern: Int64(second.finalize()))
            }

            /// Either half is a uniform hash already.
            func hash(into hasher: inout Hasher) { hasher.combine(first) }
        }

        /// Makes room ahead for as many ids as the file has rows, judged from its first
        /// chunk (its rows for its bytes): growing the table step by step to a million ids
        /// rehashed every id about twice, a sixth of the validating pass.
        mutating func expect(rowsOf firstChunk: RowChunk) {
            let keyed = firstChunk.rows.count { $0.keyedByExternalId }
            guard keyed > 0, firstChunk.bytesRead > 0 else { return }
            let (scaled, overflow) = Int64(keyed).multipliedReportingOverflow(by: firstChunk.fileBytes)
            let expected = overflow ? Int64(Self.expectedIdsMax) : scaled / firstChunk.bytesRead
            first.reserveCapacity(Int(min(expected, Int64(Self.expectedIdsMax))))
        }

        /// Refuses `event`, data row `row` (0-based) keyed by its external id on `line` of
        /// `file`, when an earlier row used that id for another event. (Whether a row has an
        /// external id is the reader's to say, ``JournalEvents/lastRowHasExternalId``: an id may
        /// be spelled like a content key.)
        /// - Throws: ``ImportError`` (`conflict`) naming both lines.
        mutating func check(_ event: NewEvent, line: Int, row: Int, file: String) throws {
            guard let key = event.idempotencyKey else { return }
            if key.hasPrefix(JournalCSV.contentKeyPrefix) { rowsWhoseKeyMayRepeat.append(row) }
            var hasher = Hasher()
            hasher.combine(event.body)
            hasher.combine(event.effectiveAt)
            let content = hasher.finalize()
            // One look-up for a new id (almost every row): insert, and put the earlier row back
            // in the rare case the id was used before.
            let id = IdDigest(key)
            guard let earlier = first.updateValue((content, line), forKey: id) else { return }
            first[id] = earlier
            guard earlier.content != content else {
                if rowsWhoseKeyMayRepeat.last != row { rowsWhoseKeyMayRepeat.append(row) }
                return
            }
            throw ImportError(.conflict, file: file, line: line, field: "external_id", """
                the external id of line \(earlier.line) ('\(key.dropFirst(JournalCSV.keyPrefix.count))') is given again for \
                another transaction (another date, account, amount, payee or category); a bank sends one transaction \
                under one id: give this row its own id, or make it the same as line \(earlier.line); nothing was appended
                """)
        }
    }

    /// Rows handed from the parsing thread to the checking one.
    struct RowChunk: Sendable {
        /// Rows per chunk: a divisor of the 65,536 rows between progress reports.
        static let rowsMax = 1_024
        /// Each row's line, event, and whether it is keyed by its external id
        /// (``JournalEvents/lastRowHasExternalId``).
        var rows: [(line: Int, event: NewEvent, keyedByExternalId: Bool)]
        var bytesRead: Int64
        var fileBytes: Int64
        /// The file's SHA-256, on the last chunk.
        var digest: String?
        /// The digests after each read (``ValidatedJournal/readDigests``), on the last chunk.
        var readDigests: [Int64: [UInt8]] = [:]
        /// The rows without an external id (``ValidatedJournal/contentKeyedRows``), on the last chunk.
        var contentKeyedRows = 0
    }
}

/// The events a journal CSV appends, row by row in file order, each with its idempotency
/// key: the one path both passes of an import take, so that the validating pass checks
/// exactly the events the appending pass appends.
struct JournalEvents {
    private let reader: CSVReader
    private var days: DayStarts
    private var cache = JournalCSV.Cache()
    private var keys: JournalCSV.RowKeys
    /// Whether the row ``next()`` returned last is keyed by its external id (else by its content).
    private(set) var lastRowHasExternalId = false

    /// Opens a file whose rows are keyed by `keys` (``JournalCSV/RowKeys/Scheme``), content
    /// keys of the form `form`.
    /// - Throws: ``ImportError`` (`unreadable`).
    init(path: String, calendar: LedgerCalendar, keys: JournalCSV.RowKeys.Scheme = .plain, form: JournalCSV.RowKeys.Form = .dated) throws {
        reader = try CSVReader(path: path)
        days = DayStarts(calendar: calendar)
        self.keys = JournalCSV.RowKeys(scheme: keys, form: form)
    }

    var path: String { reader.path }
    var bytesRead: Int64 { reader.bytesRead }
    var fileBytes: Int64 { reader.fileBytes }
    /// The SHA-256 of the file in hex; valid once ``next()`` returned nil.
    func hexDigest() -> String { reader.hexDigest() }
    /// See ``FileBytes/keepReadDigests()``.
    func keepReadDigests() { reader.keepReadDigests() }
    var readDigests: [Int64: [UInt8]]? { reader.readDigests }
    func digestOfBytesRead() -> (bytes: Int64, digest: [UInt8]) { reader.digestOfBytesRead() }
    /// How many rows were keyed by their content so far, under ``JournalCSV/RowKeys/Scheme/shapeOnly``.
    var contentKeyedRows: Int { keys.contentRowsKeyed }
    /// See ``JournalCSV/RowKeys/expect(contentRows:)``.
    mutating func expect(contentKeyedRows count: Int) { keys.expect(contentRows: count) }
    /// See ``JournalCSV/RowKeys/forgetSeals()``.
    mutating func forgetSeals() { keys.forgetSeals() }

    /// Reads the header record and checks it.
    /// - Throws: ``ImportError`` (`header`, `syntax`).
    func readHeader() throws {
        try JournalCSV.checkHeader(try reader.next(), file: reader.path)
    }

    /// The next row's line and event, or nil at the end of the file.
    /// - Throws: ``ImportError`` naming the line (and column or field) of a bad row.
    mutating func next() throws -> (line: Int, event: NewEvent)? {
        guard let record = try reader.next() else { return nil }
        let row = try JournalCSV.row(record, file: reader.path, cache: &cache)
        let dayStart = days.start(of: row.date)
        guard dayStart.isInCalendarRange else {
            throw ImportError(.invalidRow, file: reader.path, line: row.line, field: "date", "lies outside years 0001-9999 in the ledger's time zone")
        }
        lastRowHasExternalId = row.entry.externalId != nil
        var event = NewEvent(effectiveAt: dayStart, idempotencyKey: keys.key(for: row), body: EventBody(row.entry))
        event.setOrigin(file: reader.path, line: row.line)
        if keys.lastDatedCount != 0 { event.vouchContentKey(count: keys.lastDatedCount) }
        return (row.line, event)
    }
}

/// The start of each day in the ledger's time zone, remembering the last few days asked
/// for (journal rows come mostly in date order).
package struct DayStarts {
    let calendar: LedgerCalendar
    private var cache: [Int: Instant] = [:]

    package init(calendar: LedgerCalendar) { self.calendar = calendar }

    package mutating func start(of date: LocalDate) -> Instant {
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
        try LedgerError.boundary {
            try importJournal(try JournalImport.validate(csvAt: path, calendar: calendar, progress: progress), batchSize: batchSize, progress: progress)
        }
    }

    /// The appending pass of a validated journal: reads the file again and appends one
    /// `journal_entry_posted` per row in batches of `batchSize` rows, each one durable commit
    /// folded into the read models. A row whose key (`journal:<external_id>`, else
    /// `journal:row:~<content digest>:<n>`; see ``JournalCSV``) was used before is skipped
    /// and counted.
    ///
    /// - Parameters:
    ///   - journal: the result of the validating pass.
    ///   - batchSize: rows per commit, `1...100_000` (the first commit at most
    ///     ``ImportBatch/firstJournalBatchMax``).
    ///   - progress: called after every commit with the rows handled and the last sequence;
    ///     throwing from it stops the import (what was committed stays; re-running resumes).
    /// - Throws: ``ImportError`` (`changedDuringImport`) when the file no longer matches what
    ///   was validated (the message says how much was appended); `stoppedPartway` when
    ///   anything else stops it after a commit (a full disk: its ``ImportError/cause``); the
    ///   error itself when it stops before the first commit, which leaves the store as it was.
    public func importJournal(
        _ journal: ValidatedJournal, batchSize: Int = ImportBatch.defaultSize, progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> ImportSummary {
        try LedgerError.boundary {
            try ImportBatch.check(batchSize)
            let path = journal.path
            var summary = ImportSummary()
            func changed(_ detail: String) -> ImportError {
                let appended = summary.sequences.map { "; rows were appended as seq \($0.lowerBound)-\($0.upperBound), re-run the import to finish" } ?? "; nothing was appended"
                return ImportError(.changedDuringImport, file: path, "the file changed after it was validated (\(detail))\(appended)")
            }
            // The keys recorded through this sequence number were compared with the file's rows
            // before the first batch: the batches need not read their events back again.
            let comparedThrough: UInt64?
            do {
                let precheck = try requireNoKeyConflicts(journal, batchSize: batchSize)
                if let digest = precheck?.digest, digest != journal.sha256 { throw changed("its SHA-256 differs") }
                comparedThrough = precheck?.comparedThrough
            } catch let error as ImportError where error.code != .changedDuringImport && error.code != .unreadable {
                throw changed(error.description)
            }
            let ownKeys = ImportOwnKeys(nextSequence: { [pipeline] in pipeline.sequenceBeingPlanned })
            /// The rows of the batches committed so far.
            var rowsCommitted = 0
            func commit(_ batch: [NewEvent], keysNew: Bool) throws {
                let outcome = try appendSkippingUsedKeys(batch, ownKeys: (ownKeys, keysNew), comparedThrough: comparedThrough)
                summary.duplicatesSkipped += outcome.skipped
                summary.imported += outcome.result.events.count
                summary.record(outcome.result)
                rowsCommitted = summary.rows
                try progress?(ImportProgress(
                    phase: .appending, completed: Int64(summary.rows), total: Int64(journal.rows),
                    committedSequence: outcome.result.events.last?.sequence))
            }
            // Two cores: a second thread parses rows and builds their events and log records
            // (`EventCatalog.prepare`) a batch ahead, while this one commits. At most three
            // batches are in memory: one committing, one waiting, one being built.
            let calendar = calendar
            let catalog = catalog
            let (scheme, form) = try contentKeyScheme()
            do {
                try Handoff<AppendBatch>.run(queuedItemsMax: 1, produce: { put in
                    try Self.readBatches(of: journal, batchSize: batchSize, calendar: calendar, catalog: catalog, keys: scheme, form: form, put)
                }, consume: { batch in
                    if let bytes = batch.changedWithin {
                        throw changed("its first \(bytes) bytes differ from those validated")
                    }
                    summary.rows += batch.events.count
                    if let end = batch.end {
                        guard end.digest == journal.sha256, end.rows == journal.rows else {
                            throw changed("its SHA-256 differs")
                        }
                    }
                    if !batch.events.isEmpty { try commit(batch.events, keysNew: batch.keysNew) }
                })
            } catch let error as ImportError where error.code != .changedDuringImport && error.code != .unreadable {
                throw changed(error.description)
            } catch {
                throw ImportError.stopped(error, file: path, committed: summary.sequences, rowsCommitted: rowsCommitted)
            }
            readModels.packLooseKeys()
            try readModels.shrinkAfterBulkWrite()
            return summary
        }
    }

    /// The import's reading side (on the second thread): parses the validated file's rows
    /// and builds their events and log records, `batchSize` rows a batch, handing each batch
    /// to `put`; the last batch carries the file's digest and row count, for the committing
    /// side to compare with what was validated.
    private static func readBatches(
        of journal: ValidatedJournal, batchSize: Int, calendar: LedgerCalendar, catalog: EventCatalog,
        keys scheme: JournalCSV.RowKeys.Scheme, form: JournalCSV.RowKeys.Form, _ put: (AppendBatch) throws -> Void
    ) throws {
        let path = journal.path
        var events = try JournalEvents(path: path, calendar: calendar, keys: scheme, form: form)
        events.expect(contentKeyedRows: journal.contentKeyedRows)
        try events.readHeader()
        var batch: [NewEvent] = []
        batch.reserveCapacity(batchSize)
        var lines: [Int] = []
        var rows = 0
        // The next of the rows whose key may repeat (``ValidatedJournal/rowsWhoseKeyMayRepeat``).
        var mayRepeat = journal.rowsWhoseKeyMayRepeat[...]
        // Records are made without reading each payload back; before a batch is
        // handed over, its bytes are shown to be those validated (where that
        // pass checked every record), or its records are read back now. A batch's keys are
        // new to the import when its rows are those validated and none of them may repeat a key.
        func vouched() throws -> AppendBatch {
            let read = events.digestOfBytesRead()
            let start = rows - batch.count
            while let next = mayRepeat.first, next < start { mayRepeat.removeFirst() }
            var keysNew = mayRepeat.first.map { $0 >= rows } ?? true
            switch journal.readDigests[read.bytes] {
            case read.digest?:
                break
            case _?:
                return AppendBatch(events: [], changedWithin: read.bytes)
            case nil:
                keysNew = false
                for index in batch.indices {
                    try JournalCSV.prepare(&batch[index], catalog: catalog, line: lines[index], file: path)
                }
            }
            return AppendBatch(events: batch, keysNew: keysNew)
        }
        // The committing side has nothing to do until the first batch comes: it is cut short.
        var cut = min(batchSize, ImportBatch.firstJournalBatchMax)
        while let (line, row) = try events.next() {
            var event = row
            try JournalCSV.prepare(&event, catalog: catalog, line: line, file: path, readingBack: false)
            batch.append(event)
            lines.append(line)
            rows += 1
            if batch.count == cut {
                events.forgetSeals()
                try put(try vouched())
                batch = []
                batch.reserveCapacity(batchSize)
                lines.removeAll(keepingCapacity: true)
                cut = batchSize
            }
        }
        var last = try vouched()
        last.end = (events.hexDigest(), rows)
        try put(last)
    }

    /// Appends events in one commit, leaving out those whose idempotency key was used in an
    /// earlier commit or earlier in `events` for the same event; a key used for a different
    /// event (a bank row re-imported with the same external id and another amount, payee or
    /// date) refuses the whole commit as an idempotency conflict naming the key. With `admitting`, each event kept passes the
    /// ``Admissibility`` checks of events that arrive already decided (an NDJSON import);
    /// a journal's rows are admissible by construction and are folded as one batch.
    ///
    /// `ownKeys`: a journal import's knowledge of the store's journal keys, with whether no
    /// key of `events` can occur twice in them or in an earlier batch of the import
    /// (``AppendBatch/keysNew``): when both say so, no key is looked up.
    ///
    /// `comparedThrough`: the keys recorded at or before this sequence number were compared
    /// with these very events already (a journal's rows before its first batch,
    /// ``requireNoKeyConflicts(_:batchSize:)``); only later ones are read back and compared.
    func appendSkippingUsedKeys(
        _ events: [NewEvent], admitting: Bool = false, ownKeys: (known: ImportOwnKeys, keysNew: Bool)? = nil,
        comparedThrough: UInt64? = nil
    ) throws -> (result: CommandResult, skipped: Int) {
        let skipped = SkipCount()
        let batch = ownKeys.map { ImportOwnKeys.Batch(known: $0.known, keysNew: $0.keysNew) }
        let result = try run(Self.skippingUsedKeys(
            events, admitting: admitting, root: layout.root, catalog: catalog, keys: options.logKeys, skipped: skipped, ownKeys: batch,
            comparedThrough: comparedThrough))
        batch?.committed(result)
        return (result, skipped.value.withLock { $0 })
    }

    /// The command ``appendSkippingUsedKeys(_:admitting:)`` runs; `skipped` counts the
    /// events it leaves out.
    static func skippingUsedKeys(
        _ events: [NewEvent], admitting: Bool, root: String, catalog: EventCatalog, keys: LogKeys?, skipped: SkipCount,
        ownKeys: ImportOwnKeys.Batch? = nil, comparedThrough: UInt64? = nil
    ) -> LedgerCommand {
        var command = LedgerCommand { db in
            // A batch of keys new to the import, planned while the store holds no journal key
            // but the import's own: none of its keys can be used.
            if let ownKeys, try ownKeys.allKeysUnused(db) { return events }
            // Events are read where they lie and named by index: a copy of an event retains
            // every string in it, and a batch of rows none of which was recorded before (the
            // common case) is planned as it came, with no array built.
            var seen: [String: Int] = [:]
            seen.reserveCapacity(events.count)
            var recorded: [(event: NewEvent, key: String, sequence: UInt64)] = []
            var left: [Int] = []
            // A key's first use in `events`, by index; later uses are repeats within them.
            var firstUses: [Int] = []
            var firstKeys: [String] = []
            for index in events.indices {
                guard let key = events[index].idempotencyKey else { continue }
                if let earlier = seen[key] {
                    guard Self.isSame(events[earlier], events[index]) else {
                        throw keyConflict(events[index], key: key, usedBy: events[earlier].origin ?? "an earlier event of the same input")
                    }
                    left.append(index)
                    continue
                }
                seen[key] = index
                firstUses.append(index)
                firstKeys.append(key)
            }
            let used = try IdempotencyProjector.UsedKeys(db).firstSequences(of: firstKeys)
            for (position, first) in used.enumerated() {
                guard let first else { continue }
                // Compared before the first batch: the keys recorded through `comparedThrough` that
                // the comparison took (not content keys, ``requireNoKeyConflicts(_:batchSize:)``).
                let compared = first <= comparedThrough ?? 0 && !firstKeys[position].hasPrefix(JournalCSV.contentKeyPrefix)
                if !compared { recorded.append((events[firstUses[position]], firstKeys[position], first)) }
                left.append(firstUses[position])
            }
            left.sort()
            skipped.value.withLock { $0 += left.count }
            if !recorded.isEmpty { try requireSameAsRecorded(recorded, root: root, catalog: catalog, keys: keys) }
            guard !left.isEmpty else { return events }
            var kept: [NewEvent] = []
            kept.reserveCapacity(events.count - left.count)
            var skip = left.startIndex  // `left` is in ascending order
            for index in events.indices {
                if skip < left.endIndex, left[skip] == index {
                    skip += 1
                } else {
                    kept.append(events[index])
                }
            }
            return kept
        }
        command.admitsEvents = admitting
        command.isBulk = true
        return command
    }

    /// How this store keys rows without an external id: as it did before when it holds keys
    /// with the payee in clear or keys of the undated form (so that its files are still
    /// recognised), else with personal text sealed, in the dated form (``JournalCSV``).
    private func contentKeyScheme() throws -> (JournalCSV.RowKeys.Scheme, JournalCSV.RowKeys.Form) {
        let (legacy, undated) = try read { db in
            (try IdempotencyProjector.hasLegacyContentKeys(db), try IdempotencyProjector.hasUndatedContentKeys(db))
        }
        if legacy { return (.legacy, .undated) }
        return (catalog.subjectKeys.map { .sealed($0) } ?? .plain, undated ? .undated : .dated)
    }

    /// Before a journal's first batch is appended: when the store holds rows imported with an
    /// external id, every row of the file whose external id was imported before is compared
    /// with what that id recorded, so that a conflict refuses the file before anything is
    /// appended. (Rows keyed by their content cannot conflict: the key is the content.)
    ///
    /// Returns nil when the store holds no such row; else the idempotency read model's
    /// checkpoint before the first comparison (every key recorded through it was seen, and
    /// each of the file's rows under it compared) and the SHA-256 of the file as read here
    /// (the rows compared are those validated when it is the validated file's).
    private func requireNoKeyConflicts(_ journal: ValidatedJournal, batchSize: Int) throws -> (comparedThrough: UInt64, digest: String)? {
        let (hasExternalIds, checkpoint) = try read { db in
            (try IdempotencyProjector.hasJournalExternalIds(db), try ReadModelStore.checkpoints(db)[IdempotencyProjector().name] ?? 0)
        }
        guard hasExternalIds else { return nil }
        // Two cores, as in the import's passes: a second thread parses the rows a batch ahead
        // while this one looks up their keys and compares what they recorded. Content keys
        // are passed by: their digests are not computed.
        let path = journal.path
        let calendar = calendar
        var digest: String?
        try Handoff<KeyedRows>.run(queuedItemsMax: 1, produce: { put in
            var events = try JournalEvents(path: path, calendar: calendar, keys: .shapeOnly)
            try events.readHeader()
            var batch: [NewEvent] = []
            batch.reserveCapacity(batchSize)
            while let (_, event) = try events.next() {
                guard let key = event.idempotencyKey, !key.hasPrefix(JournalCSV.contentKeyPrefix) else { continue }
                batch.append(event)
                if batch.count == batchSize {
                    try put(KeyedRows(events: batch))
                    batch.removeAll(keepingCapacity: true)
                }
            }
            try put(KeyedRows(events: batch, digest: events.hexDigest()))
        }, consume: { rows in
            if !rows.events.isEmpty {
                let command = Self.skippingUsedKeys(rows.events, admitting: false, root: layout.root, catalog: catalog, keys: options.logKeys, skipped: SkipCount())
                _ = try read { db in try command.plan(db) }
            }
            if let last = rows.digest { digest = last }
        })
        guard let digest else { preconditionFailure("the comparison of a journal's keys ended without reading the file to its end") }
        return (checkpoint, digest)
    }

    /// A batch of a journal's rows keyed by their external id, handed from the parsing
    /// thread to the comparing one; the last carries the file's SHA-256.
    private struct KeyedRows: Sendable {
        var events: [NewEvent]
        var digest: String?
    }

    /// Whether a repeat of a key is the event the key recorded: the same body at the same
    /// effective time.
    static func isSame(_ recorded: NewEvent, _ repeated: NewEvent) -> Bool {
        recorded.body == repeated.body && recorded.effectiveAt == repeated.effectiveAt
    }

    /// Reads the events repeated keys recorded back from the log, with one reader and each
    /// frame decoded once, and refuses the first repeat (in input order) that is not the
    /// same event. A key whose event is not in the log yet (a rehearsal's earlier batch) is
    /// left to the append, which checks it again.
    private static func requireSameAsRecorded(
        _ repeats: [(event: NewEvent, key: String, sequence: UInt64)], root: String, catalog: EventCatalog, keys: LogKeys?
    ) throws {
        let reader = try EventStoreReader.open(at: root, catalog: catalog, keys: keys)
        var recorded: [UInt64: NewEvent] = [:]
        recorded.reserveCapacity(repeats.count)
        try reader.forEach(at: repeats.map(\.sequence).sorted()) { first in
            recorded[first.sequence] = NewEvent(effectiveAt: first.effectiveAt, body: first.body)
        }
        for (event, key, sequence) in repeats {
            guard let first = recorded[sequence] else { continue }
            guard isSame(first, event) else { throw keyConflict(event, key: key, usedBy: "event \(sequence)") }
        }
    }

    private static func keyConflict(_ event: NewEvent, key: String, usedBy: String) -> LedgerError {
        LedgerError(.idempotencyConflict, """
            \(event.origin.map { "\($0): " } ?? "")the idempotency key '\(key)' was used by \(usedBy) for a different \(event.type.name) \
            (another amount, account, payee, date or detail); a repeat must be the same, and a different one needs another key \
            (external id); nothing was appended
            """)
    }

    /// Runs a plan as a command and waits for it; when `admitting`, its events arrive already
    /// decided (an import) and each is checked at its position by the admission checks its type
    /// declares (``AdmissionChecked``) instead of being planned by rules.
    ///
    /// ```swift
    /// let result = try ledger.perform(admitting: true) { db in rowsNotYetRecorded(db) }
    /// ```
    @discardableResult
    public func perform(admitting: Bool, _ plan: (Database) throws -> [NewEvent]) throws -> CommandResult {
        guard admitting else { return try perform(plan) }
        return try withoutActuallyEscaping(plan) { plan in
            let sendable = unsafeBitCast(plan, to: (@Sendable (Database) throws -> [NewEvent]).self)
            var command = LedgerCommand(plan: sendable)
            command.admitsEvents = true
            return try run(command)
        }
    }
}

/// One commit's rows, handed from the parsing thread to the committing one; the last
/// carries the file's SHA-256 and row count, checked before it is committed.
struct AppendBatch: Sendable {
    var events: [NewEvent]
    /// Whether no idempotency key of ``events`` can occur twice in them or in an earlier
    /// batch of the import: the batch's rows are those validated and none of them is among
    /// ``ValidatedJournal/rowsWhoseKeyMayRepeat``.
    var keysNew: Bool
    var end: (digest: String, rows: Int)?
    /// Set instead of events when the file's first bytes, through this many, are not those
    /// the validating pass read: nothing of the batch may be appended.
    var changedWithin: Int64?

    init(events: [NewEvent], keysNew: Bool = false, end: (digest: String, rows: Int)? = nil, changedWithin: Int64? = nil) {
        self.events = events
        self.keysNew = keysNew
        self.end = end
        self.changedWithin = changedWithin
    }
}

/// How many events an import's command left out as already recorded.
final class SkipCount: Sendable {
    let value = Mutex(0)
}

/// What a journal import knows of the store's journal keys (every key `journal:…`, the
/// range of the idempotency read model its rows' keys fall in): whether they are exactly the
/// keys of its own batches. That holds when the store held none as the import began, and
/// stays true while each batch's events follow the last one's with no other event between
/// (any other command may have used a journal key; the import then looks its keys up).
final class ImportOwnKeys: Sendable {
    private enum Known {
        /// Not asked yet (or no batch committed since it was asked).
        case unknown
        /// The store's journal keys are the import's own, through this sequence number.
        case ownThrough(UInt64)
        /// The store held journal keys that are not the import's.
        case others
    }

    private let known = Mutex(Known.unknown)
    /// The sequence number the first event of the command being planned gets (the write
    /// pipeline's ``WritePipeline/sequenceBeingPlanned``).
    private let nextSequence: @Sendable () -> UInt64?

    init(nextSequence: @escaping @Sendable () -> UInt64?) {
        self.nextSequence = nextSequence
    }

    /// Whether the store holds no journal key but the import's own, asked in the plan of a
    /// batch (inside the pipeline's transaction): one seek the first time, then a comparison
    /// of sequence numbers.
    fileprivate func holdsOnlyOwnKeys(next: UInt64, _ db: Database) throws -> Bool {
        switch known.withLock({ $0 }) {
        case .ownThrough(let through): return through + 1 == next
        case .others: return false
        case .unknown: return try !IdempotencyProjector.hasJournalKeys(db)
        }
    }

    /// One batch's view: whether its keys are new to the import, and what its plan found.
    final class Batch: Sendable {
        let known: ImportOwnKeys
        let keysNew: Bool
        /// Set by the plan: the sequence number the batch's first event gets, and whether the
        /// store held only the import's journal keys before it. A group that fails and is
        /// planned again sets it again.
        private let planned = Mutex<(next: UInt64, onlyOwn: Bool)?>(nil)

        init(known: ImportOwnKeys, keysNew: Bool) {
            self.known = known
            self.keysNew = keysNew
        }

        /// Whether none of the batch's keys can have been used: they are new to the import
        /// and the store holds no journal key but the import's. Asked in the batch's plan.
        func allKeysUnused(_ db: Database) throws -> Bool {
            guard let next = known.nextSequence() else {
                planned.withLock { $0 = nil }
                return false
            }
            let onlyOwn = try known.holdsOnlyOwnKeys(next: next, db)
            planned.withLock { $0 = (next, onlyOwn) }
            return onlyOwn && keysNew
        }

        /// After the batch committed: the store's journal keys are the import's own through
        /// its last event when they were before it (else they are not).
        func committed(_ result: Ledger.CommandResult) {
            guard let planned = planned.withLock({ $0 }) else { return }
            let last = result.events.last?.sequence ?? planned.next - 1
            known.known.withLock { $0 = planned.onlyOwn ? .ownThrough(last) : .others }
        }
    }
}
