import TallyLog

/// An NDJSON file of events that passed the validating pass.
public struct ValidatedEvents: Hashable, Sendable {
    /// The file, as given.
    public let path: String
    /// Its events (non-blank lines).
    public let events: Int
    /// The SHA-256 of its bytes, in hex.
    public let sha256: String
}

/// Importing events in their JSON form (``EventJSON``), one per line, in two streaming
/// passes: validate every line, appending nothing; then append in batches through the
/// ledger, skipping events whose idempotency key was used before (in the store or earlier
/// in the file). Blank lines are ignored; `seq` and `recorded_at` are assigned by the log.
///
/// ```swift
/// let file = try EventImport.validate(ndjsonAt: "events.ndjson", head: ledger.head.sequence, catalog: ledger.catalog)
/// let summary = try ledger.importEvents(file)
/// ```
public enum EventImport {
    /// The longest line, in bytes.
    static let lineBytesLimit = 8 << 20

    /// The validating pass: decodes every line and checks that it can be appended: the
    /// record check every event passes before the log (``event(fromLine:line:file:catalog:)``: every
    /// limit, times, no control characters in text) and a cause naming an earlier event.
    ///
    /// - Parameters:
    ///   - path: the NDJSON file.
    ///   - head: the store's last sequence number, to check `cause` references.
    ///   - catalog: the event types the file may hold (the store's ``Ledger/catalog``).
    ///   - progress: called now and then with bytes read; throwing from it stops the import.
    /// - Throws: ``ImportError`` naming the line (and field, as its JSON path) of the first
    ///   bad event.
    public static func validate(
        ndjsonAt path: String, head: UInt64, catalog: EventCatalog = .engine, progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> ValidatedEvents {
        let lines = try LineReader(path: path)
        var count = 0
        while let (line, bytes) = try lines.next() {
            let decoded = try Self.event(fromLine: bytes, line: line, file: path, catalog: catalog)
            let sequence = head + UInt64(count) + 1
            if case .sequence(let cause)? = decoded.cause, cause >= sequence {
                throw ImportError(.invalidRow, file: path, line: line, field: "cause",
                                  "names sequence \(cause), which is not an earlier event (this event would be \(sequence))")
            }
            count += 1
            if count % 16_384 == 0 {
                try progress?(ImportProgress(phase: .validating, completed: lines.bytesRead, total: lines.fileBytes, committedSequence: nil))
            }
        }
        try progress?(ImportProgress(phase: .validating, completed: lines.bytesRead, total: lines.fileBytes, committedSequence: nil))
        return ValidatedEvents(path: path, events: count, sha256: lines.hexDigest())
    }

    /// One line of an NDJSON file as the event it appends, through the record check every
    /// event passes before the log (``EventCatalog/record(for:)``): every limit and text rule
    /// the log will apply is applied here, so the appending pass cannot be refused for them.
    ///
    /// ```swift
    /// let event = try EventImport.event(fromLine: Array(text.utf8), line: 3, file: "events.ndjson", catalog: ledger.catalog)
    /// ```
    /// - Parameters:
    ///   - bytes: the line, without its line feed.
    ///   - line: its line number, for messages.
    ///   - file: the file's path, for messages.
    ///   - catalog: the event types the line may hold (the engine's by default).
    /// - Throws: ``ImportError`` (`invalidRow`) naming the file, the line and, when known,
    ///   the field as its path in the event's JSON form (`data.payee`, `idempotency_key`).
    public static func event(fromLine bytes: some Collection<UInt8>, line: Int, file: String, catalog: EventCatalog = .engine) throws -> NewEvent {
        do {
            var event = try EventJSON.decode(bytes, catalog: catalog).event
            _ = try catalog.record(for: event)
            event.setOrigin(file: file, line: line)
            return event
        } catch let error as EventCodingError {
            if let field = error.field, let reason = error.reason {
                throw ImportError(.invalidRow, file: file, line: line, field: field, "\(error.code): \(reason)")
            }
            throw ImportError(.invalidRow, file: file, line: line, "\(error)")
        }
    }
}

/// The lines of a file, streamed; blank lines (spaces and tabs only) are skipped.
final class LineReader {
    private let source: FileBytes
    private var line = 0
    private var buffer: [UInt8] = []

    init(path: String) throws { source = try FileBytes(path: path) }

    var bytesRead: Int64 { source.consumed }
    var fileBytes: Int64 { source.size }
    func hexDigest() -> String { source.hexDigest() }

    /// The next non-blank line with its 1-based number, without its line ending.
    func next() throws -> (Int, [UInt8])? {
        while true {
            buffer.removeAll(keepingCapacity: true)
            var sawByte = false
            while let byte = try source.next() {
                sawByte = true
                if byte == UInt8(ascii: "\n") { break }
                guard buffer.count < EventImport.lineBytesLimit else {
                    throw ImportError(.invalidRow, file: source.path, line: line + 1, "the line is longer than \(EventImport.lineBytesLimit) bytes")
                }
                buffer.append(byte)
            }
            guard sawByte else { return nil }
            line += 1
            if buffer.last == UInt8(ascii: "\r") { buffer.removeLast() }
            if buffer.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            return (line, buffer)
        }
    }
}

extension Ledger {
    /// The appending pass of a validated NDJSON file: reads it again and appends its events
    /// in batches of `batchSize`, each one durable commit folded into the read models; an
    /// event whose idempotency key was used before is skipped and counted. Business rules
    /// are not re-made: these are facts already decided, but each must be admissible where
    /// it lands (``AdmissionChecked``, as ``appendEvents(_:)``); a refused batch appends nothing.
    ///
    /// - Throws: ``ImportError`` (`changedDuringImport`) when the file no longer matches what
    ///   was validated; `stoppedPartway` when anything else stops it after a commit (its
    ///   message says whether running it again is safe: events without a key would be
    ///   recorded twice); the error itself when it stops before the first commit, which
    ///   leaves the store as it was.
    public func importEvents(
        _ file: ValidatedEvents, batchSize: Int = ImportBatch.defaultSize, progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> ImportSummary {
        try LedgerError.boundary {
            try ImportBatch.check(batchSize)
            let path = file.path
            var summary = ImportSummary()
            let lines = try LineReader(path: path)
            var batch: [NewEvent] = []
            batch.reserveCapacity(batchSize)
            /// The file's events in batches committed, and those of them without a key.
            var rowsCommitted = 0, unkeyedCommitted = 0
            func commit() throws {
                let outcome = try appendSkippingUsedKeys(batch, admitting: true)
                summary.duplicatesSkipped += outcome.skipped
                summary.imported += outcome.result.events.count
                summary.record(outcome.result)
                rowsCommitted = summary.rows
                unkeyedCommitted += batch.count { $0.idempotencyKey == nil }
                batch.removeAll(keepingCapacity: true)
                try progress?(ImportProgress(
                    phase: .appending, completed: Int64(summary.rows), total: Int64(file.events),
                    committedSequence: outcome.result.events.last?.sequence))
            }
            func changed(_ detail: String) -> ImportError {
                let appended = summary.sequences.map { "; events were appended as seq \($0.lowerBound)-\($0.upperBound)" } ?? "; nothing was appended"
                return ImportError(.changedDuringImport, file: path, "the file changed after it was validated (\(detail))\(appended)")
            }
            // The whole file is rehearsed first, batch by batch as it will be appended: an event
            // that is not admissible anywhere in it refuses the file before the first append.
            do {
                try rehearse { plan in
                    let rehearsal = try LineReader(path: path)
                    var events: [NewEvent] = []
                    events.reserveCapacity(batchSize)
                    while let (line, bytes) = try rehearsal.next() {
                        events.append(try EventImport.event(fromLine: bytes, line: line, file: path, catalog: catalog))
                        if events.count == batchSize {
                            try plan(Self.skippingUsedKeys(events, admitting: true, root: layout.root, catalog: catalog, keys: options.logKeys, skipped: SkipCount()))
                            events.removeAll(keepingCapacity: true)
                        }
                    }
                    if !events.isEmpty { try plan(Self.skippingUsedKeys(events, admitting: true, root: layout.root, catalog: catalog, keys: options.logKeys, skipped: SkipCount())) }
                }
            } catch let error as ImportError where error.code == .invalidRow {
                throw changed(error.description)
            }
            do {
                do {
                    while let (line, bytes) = try lines.next() {
                        batch.append(try EventImport.event(fromLine: bytes, line: line, file: path, catalog: catalog))
                        summary.rows += 1
                        if batch.count == batchSize { try commit() }
                    }
                } catch let error as ImportError where error.code == .invalidRow {
                    throw changed(error.description)
                }
                guard lines.hexDigest() == file.sha256, summary.rows == file.events else {
                    throw changed("its SHA-256 differs")
                }
                if !batch.isEmpty { try commit() }
            } catch {
                throw ImportError.stopped(error, file: path, committed: summary.sequences, rowsCommitted: rowsCommitted, unkeyedCommitted: unkeyedCommitted)
            }
            readModels.packLooseKeys()
            try readModels.shrinkAfterBulkWrite()
            return summary
        }
    }

    /// Validates and imports an NDJSON file of events.
    public func importEvents(
        ndjsonAt path: String, batchSize: Int = ImportBatch.defaultSize, progress: ((ImportProgress) throws -> Void)? = nil
    ) throws -> ImportSummary {
        try LedgerError.boundary {
            try refuseExport(at: path)
            return try importEvents(try EventImport.validate(ndjsonAt: path, head: head.sequence, catalog: catalog, progress: progress), batchSize: batchSize, progress: progress)
        }
    }

    /// Refuses a whole export (``export(to:)``, its first line `ledger_created`) as the
    /// import it is not: a ledger is created once, so that line could never be appended, and
    /// the export of a ledger kept in another base currency would leave every amount outside
    /// this ledger's books (a budget kept in USD counts no EUR transaction). Named for what
    /// it is, with what to do: restore it as a new ledger.
    private func refuseExport(at path: String) throws {
        let lines = try LineReader(path: path)
        guard let (line, bytes) = try lines.next(),
              let event = try? EventImport.event(fromLine: bytes, line: line, file: path, catalog: catalog),
              let created = event.body.as(LedgerCreated.self)
        else { return }
        let base = try settings().baseCurrency
        guard created.baseCurrency == base else {
            throw ImportError(.invalidRow, file: path, line: line, field: "data.base_currency", """
                is the export of a ledger kept in \(created.baseCurrency.code); this ledger is kept in \(base.code), so none of \
                its amounts would count here: restore the export as a new ledger (`tally restore`) instead; nothing was imported
                """)
        }
        throw ImportError(.invalidRow, file: path, line: line, field: "type", """
            is ledger_created, and a ledger is created once: the file is a whole export, which restores as a new ledger (`tally restore`); \
            to add its events to this ledger, import them without that first line; nothing was imported
            """)
    }
}

extension EventStoreReader {
    /// The ledger's calendar, from the time zone its first event (`ledger_created`) names;
    /// read without opening the store for writing, so a refused import touches nothing.
    public func ledgerCalendar() throws -> LedgerCalendar {
        var timeZone = "UTC"
        try forEach(from: 1, through: 1) { event in
            if let created = event.body.as(LedgerCreated.self) { timeZone = created.timeZone }
        }
        return try LedgerCalendar(timeZoneIdentifier: timeZone)
    }
}
