/// An import refused: a file that cannot be read, a CSV syntax error, a wrong header, a row
/// or event that breaks a rule. Nothing of the file was appended (except for
/// ``Code-swift.struct/changedDuringImport``, whose message says how far the import got).
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
        private enum Value: Hashable, Sendable { case unreadable, syntax, header, invalidRow, conflict, changedDuringImport }
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

        /// The code's name.
        public var description: String {
            switch value {
            case .unreadable: "unreadable"
            case .syntax: "syntax"
            case .header: "header"
            case .invalidRow: "invalid row"
            case .conflict: "conflict"
            case .changedDuringImport: "changed during import"
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

    /// An import error.
    public init(_ code: Code, file: String, line: Int? = nil, column: Int? = nil, field: String? = nil, _ message: String) {
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
