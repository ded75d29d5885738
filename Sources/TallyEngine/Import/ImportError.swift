/// An import refused: a file that cannot be read, a CSV syntax error, a wrong header, a row
/// or event that breaks a rule. Nothing of the file was appended, except for
/// ``Code-swift.struct/changedDuringImport`` and ``Code-swift.struct/stoppedPartway``, whose
/// message says how far the import got and how to finish it.
///
/// ``description`` reads `FILE:LINE:COLUMN: message` or `FILE:LINE: field 'amount': message`,
/// like a compiler's diagnostics. Amounts are kept out of the message.
///
/// ```swift
/// do { _ = try JournalImport.validate(csvAt: "bank.csv", calendar: .utc) }
/// catch let error as ImportError where error.code == .invalidRow { print(error.line ?? 0) }
/// ```
public struct ImportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable { case unreadable, syntax, header, invalidRow, conflict, changedDuringImport, stoppedPartway }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The file does not exist, cannot be read, or is not a supported format.
        public static let unreadable = Code(.unreadable)
        /// The bytes break RFC 4180 (a stray quote, an unterminated quoted field) or are not UTF-8.
        public static let syntax = Code(.syntax)
        /// The first line is not the expected header.
        public static let header = Code(.header)
        /// A row (or NDJSON line) holds a value outside its domain, or the wrong number of fields.
        public static let invalidRow = Code(.invalidRow)
        /// A row contradicts another row of the file or what the store already holds (a
        /// different price for a symbol and day).
        public static let conflict = Code(.conflict)
        /// The file changed between the validating pass and the appending pass.
        public static let changedDuringImport = Code(.changedDuringImport)
        /// The appending pass stopped after some of its commits (a full disk, another
        /// writer's conflicting key): the rows it committed
        /// stay, durable; ``ImportError/cause`` is what stopped it, and the message names the
        /// rows and sequence numbers committed and how to finish.
        public static let stoppedPartway = Code(.stoppedPartway)

        /// The code's name.
        public var description: String {
            switch value {
            case .unreadable: "unreadable"
            case .syntax: "syntax"
            case .header: "header"
            case .invalidRow: "invalid row"
            case .conflict: "conflict"
            case .changedDuringImport: "changed during import"
            case .stoppedPartway: "stopped partway"
            }
        }
    }

    /// What kind of problem.
    public let code: Code
    /// The file, as given.
    public let file: String
    /// The 1-based line where the problem is (for a row, the line its record starts on).
    public let line: Int?
    /// The 1-based column (in characters) of a syntax error.
    public let column: Int?
    /// The header name of the field at fault.
    public let field: String?
    /// What is wrong and how to fix it.
    public let message: String
    /// What stopped an import partway (``Code-swift.struct/stoppedPartway``), as the ledger
    /// reports it; nil for every other code.
    public let cause: LedgerError?

    /// An import error.
    public init(_ code: Code, file: String, line: Int? = nil, column: Int? = nil, field: String? = nil, _ message: String) {
        self.init(code, file: file, line: line, column: column, field: field, message, cause: nil)
    }

    private init(_ code: Code, file: String, line: Int?, column: Int?, field: String?, _ message: String, cause: LedgerError?) {
        self.cause = cause
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.message = message
    }

    /// `FILE:LINE:COLUMN: message`, `FILE:LINE: field 'name': message` or `FILE: message`.
    public var description: String {
        var location = file
        if let line { location += ":\(line)" }
        if let column { location += ":\(column)" }
        if let field { return "\(location): field '\(field)': \(message)" }
        return "\(location): \(message)"
    }
}

extension ImportError {
    /// What an appending pass throws when `error` stops it: `error` itself when the pass
    /// committed nothing (the store is as it was), when it already says how far the import
    /// got (``Code-swift.struct/changedDuringImport``), or when it is the caller's own (thrown
    /// by its progress callback: a caller that stops an import knows why); else a
    /// ``Code-swift.struct/stoppedPartway`` naming the rows and events committed, durable, and
    /// how to finish: run the same import again, which skips what is already in (each row
    /// has a key), or, when `unkeyedCommitted` events had no idempotency key, import only
    /// what follows the committed part.
    ///
    /// - Parameters:
    ///   - sequences: the sequence numbers the import's commits appended, nil for none.
    ///   - rowsCommitted: the file's rows (or events) whose batches were committed.
    ///   - unkeyedCommitted: events committed without an idempotency key, which a second
    ///     import of the whole file would record again.
    package static func stopped(
        _ error: any Error, file: String, committed sequences: ClosedRange<UInt64>?, rowsCommitted: Int, unkeyedCommitted: Int = 0
    ) -> any Error {
        guard let sequences, let cause = LedgerError.reporting(error) else { return error }
        if let error = error as? ImportError, error.code == .changedDuringImport || error.code == .stoppedPartway { return error }
        let rows = rowsCommitted == 1 ? "row was" : "rows were"
        let finish = unkeyedCommitted == 0
            ? "run the same import again to finish: the rows already imported are recognised and skipped"
            : "do not import the whole file again: \(unkeyedCommitted) of the events committed have no idempotency key and would be recorded twice; import the events after its first \(rowsCommitted)"
        return ImportError(.stoppedPartway, file: file, line: nil, column: nil, field: nil, """
            the import stopped after its first \(rowsCommitted) \(rows) committed (events \(sequences.lowerBound)-\(sequences.upperBound), durable): \
            \(cause.message). Those rows stay; \(finish)
            """, cause: cause)
    }
}
