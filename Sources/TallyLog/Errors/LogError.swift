/// An operational error of the log: what went wrong, and where.
///
/// Match on ``code``; read ``message`` for a sentence a user can act on. When the
/// error concerns a file, ``path`` names it and ``offset`` gives the byte offset
/// of the damaged structure inside it (a segment header, or the start of a frame).
///
/// ```swift
/// do { _ = try LogWriter.open(directory: path) }
/// catch let error as LogError where error.code == .corrupt {
///     print(error)   // corrupt: frame checksum mismatch … (…/00000000000000000001.tlog at byte 4096)
/// }
/// ```
public struct LogError: Error, Sendable, CustomStringConvertible {
    /// The kind of an error. A struct over a private enum, so new codes break no `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case io, locked, corrupt, tornFrame, limitExceeded, invalidRecord, notFound
            case alreadyExists, chainMismatch, unsupportedVersion, closed, invalidArgument, keyRequired
            case headMoved, truncated
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// A system call failed (the message carries the call and `errno`).
        public static let io = Code(.io)
        /// Another writer holds the directory's lock.
        public static let locked = Code(.locked)
        /// Bytes on disk are damaged: a checksum, a header field, a sequence gap.
        public static let corrupt = Code(.corrupt)
        /// A frame runs past the end of its file (a crash mid-write); recovery cuts it.
        public static let tornFrame = Code(.tornFrame)
        /// A record, batch, frame or segment exceeds a limit; the message names the limit.
        public static let limitExceeded = Code(.limitExceeded)
        /// A record is malformed (an empty key, a cause that names no earlier event …).
        public static let invalidRecord = Code(.invalidRecord)
        /// No log exists where one was expected, or a sequence number is past the head.
        public static let notFound = Code(.notFound)
        /// `create` found a log already in the directory.
        public static let alreadyExists = Code(.alreadyExists)
        /// A recomputed hash differs from a stored or expected one: history was rewritten.
        public static let chainMismatch = Code(.chainMismatch)
        /// A header carries a format version this code does not read.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// The writer was closed, or stopped after an unrecoverable I/O failure.
        public static let closed = Code(.closed)
        /// An argument is out of range (options, a digest string).
        public static let invalidArgument = Code(.invalidArgument)
        /// The log is sealed (encrypted at rest) and was opened without its keys (``LogKeys``).
        public static let keyRequired = Code(.keyRequired)
        /// Another writer committed first, or took the log over (a newer fencing epoch): nothing
        /// was appended; learn the head again (``LogWriting/reloadHead()``) and plan again.
        public static let headMoved = Code(.headMoved)
        /// The log ends before events it acknowledged (its published head): bytes or segments were cut off
        /// its end after the fact. Never a crash artefact; the message names the missing events.
        public static let truncated = Code(.truncated)

        public var description: String {
            switch wrapped {
            case .io: "io"
            case .locked: "locked"
            case .corrupt: "corrupt"
            case .tornFrame: "tornFrame"
            case .limitExceeded: "limitExceeded"
            case .invalidRecord: "invalidRecord"
            case .notFound: "notFound"
            case .alreadyExists: "alreadyExists"
            case .chainMismatch: "chainMismatch"
            case .unsupportedVersion: "unsupportedVersion"
            case .closed: "closed"
            case .invalidArgument: "invalidArgument"
            case .keyRequired: "keyRequired"
            case .headMoved: "headMoved"
            case .truncated: "truncated"
            }
        }
    }

    /// The kind of error.
    public let code: Code
    /// What went wrong and, where possible, how to fix it. Never contains payload bytes.
    public let message: String
    /// The file concerned, if any.
    public let path: String?
    /// The byte offset in ``path`` of the damaged structure, if any.
    public let offset: Int64?

    /// Creates an error.
    public init(_ code: Code, _ message: String, path: String? = nil, offset: Int64? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.offset = offset
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let path {
            text += " (\(path)"
            if let offset { text += " at byte \(offset)" }
            text += ")"
        } else if let offset {
            text += " (at byte \(offset))"
        }
        return text
    }
}
