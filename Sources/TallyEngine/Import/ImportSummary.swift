/// How far an import has got, for a progress bar or a machine watching it.
public struct ImportProgress: Hashable, Sendable {
    /// The two passes of an import.
    public enum Phase: Hashable, Sendable {
        /// The first pass: reading the whole file and checking every row; nothing is appended.
        case validating
        /// The second pass: appending in batches, one durable commit each.
        case appending
    }

    /// Which pass.
    public let phase: Phase
    /// Work done: bytes read while validating, rows handled while appending.
    public let completed: Int64
    /// Work in all: the file's bytes while validating, its rows while appending.
    public let total: Int64
    /// After a durable commit, the last sequence number it appended; nil otherwise.
    public let committedSequence: UInt64?

    /// Creates a progress report; each parameter is the property of the same name.
    public init(phase: Phase, completed: Int64, total: Int64, committedSequence: UInt64?) {
        self.phase = phase
        self.completed = completed
        self.total = total
        self.committedSequence = committedSequence
    }
}

/// What an import did.
public struct ImportSummary: Hashable, Sendable {
    /// Data rows (CSV) or events (NDJSON) in the file.
    public var rows = 0
    /// Rows appended.
    public var imported = 0
    /// Rows skipped because their idempotency key (`journal:<external_id>`, for a row
    /// without one `journal:row:<content digest>:<n>` (``JournalCSV``), or an event's key)
    /// was used before: in an earlier import, or earlier in this file.
    public var duplicatesSkipped = 0
    /// Events appended (one per imported row for a journal CSV).
    public var eventsAppended = 0
    /// Durable commits made.
    public var commits = 0
    /// The sequence numbers appended, when any were.
    public var sequences: ClosedRange<UInt64>?

    /// An empty summary.
    public init() {}

    /// Counts a commit's events in the summary.
    public mutating func record(_ result: Ledger.CommandResult) {
        guard let first = result.events.first?.sequence, let last = result.events.last?.sequence else { return }
        eventsAppended += result.events.count
        commits += 1
        sequences = (sequences?.lowerBound ?? first)...last
    }
}

/// The size of an import's commits.
public enum ImportBatch {
    /// Rows per commit unless told otherwise. Each commit waits for one `fdatasync` of the
    /// log: a million journal rows imported in 6.3 s in batches of 40,000, 7.1 s of 10,000,
    /// 6.7 s of 20,000 and of 100,000 (a batch's events, records and read-model rows are
    /// held at once: 210 MB at the peak, 180 MB with 10,000, 417 MB with 100,000).
    public static let defaultSize = 40_000
    /// The most rows of a journal import's first commit, whatever the batch size: the
    /// committing thread waits for that batch to be parsed with nothing else to do (a
    /// batch of 40,000 rows kept it idle for about 0.2 s), and later batches are parsed
    /// while the one before them commits.
    public static let firstJournalBatchMax = 4_096
    /// The largest batch: the log's events-per-frame limit.
    public static let sizeMax = 100_000

    /// Refuses a batch size outside 1 through ``sizeMax``.
    ///
    /// - Throws: ``LedgerError`` (`invalidArgument`).
    public static func check(_ size: Int) throws {
        guard (1...sizeMax).contains(size) else {
            throw LedgerError(.invalidArgument, "the batch size must be between 1 and \(sizeMax) rows")
        }
    }
}
