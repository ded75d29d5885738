/// A store-level failure: no store at the path, a store that already exists, a store an
/// interrupted `init` left incomplete, a path a store cannot be created at. Log damage surfaces
/// as `LogError`, payload problems as ``EventCodingError``.
///
/// ```swift
/// do { _ = try EventStore.create(at: path, ledger: created, effectiveAt: now) }
/// catch let error as StoreError where error.code == .alreadyExists { print(error) }
/// ```
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of a store-level failure; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case notFound, alreadyExists, notAStore, readModelsAhead, readModelsDisagree, readModelsUnreadable, readOnly
            case incomplete, invalidPath, io
            case keyRequired, wrongKey, badKey, notEncrypted, keyFileDamaged
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// No store exists at the path.
        public static let notFound = Code(.notFound)
        /// A store already exists where one was to be created.
        public static let alreadyExists = Code(.alreadyExists)
        /// The directory exists but is not a Tally store.
        public static let notAStore = Code(.notAStore)
        /// The read models have folded events the log does not hold (the log was cut, or an
        /// older copy restored): the store refuses to open until the newer log is restored
        /// or the read models are rebuilt from the log as it is.
        public static let readModelsAhead = Code(.readModelsAhead)
        /// The read models folded a different event than the log holds at some sequence
        /// number (the log was replaced or rewritten).
        public static let readModelsDisagree = Code(.readModelsDisagree)
        /// The read-model database cannot be opened or read (damaged or not a database):
        /// ``Ledger/rebuild(at:options:progress:)`` makes it again from the log.
        public static let readModelsUnreadable = Code(.readModelsUnreadable)
        /// A write on a ledger opened for reading.
        public static let readOnly = Code(.readOnly)
        /// The directory is marked as a store but lacks a part every store has (its log, or the
        /// `ledger_created` event): an `init` of an older version was interrupted, or a repair cut every event.
        public static let incomplete = Code(.incomplete)
        /// A store cannot be created at the path as given (the current directory, `.`, a mount point).
        public static let invalidPath = Code(.invalidPath)
        /// A system call on the store's directory failed; the message names the call, the path and the reason.
        public static let io = Code(.io)
        /// The store is encrypted at rest and no key was given (`--key-file`, `TALLY_KEY_FILE`,
        /// ``Ledger/Options/key``): nothing is opened.
        public static let keyRequired = Code(.keyRequired)
        /// The key given does not open the store's data keys: nothing is opened or changed.
        public static let wrongKey = Code(.wrongKey)
        /// A key file, or the store's own key file, is empty, truncated or not in its format.
        public static let badKey = Code(.badKey)
        /// A key was given for a store that is not encrypted.
        public static let notEncrypted = Code(.notEncrypted)
        /// The store's own key material fails its checksum (one changed character of a subject's
        /// key): damage, never an erasure or a wrong key. Restore the file from a backup.
        public static let keyFileDamaged = Code(.keyFileDamaged)

        public var description: String {
            switch value {
            case .notFound: "store not found"
            case .alreadyExists: "store exists"
            case .notAStore: "not a store"
            case .readModelsAhead: "read models ahead of the log"
            case .readModelsDisagree: "read models disagree with the log"
            case .readModelsUnreadable: "read models unreadable"
            case .readOnly: "opened for reading"
            case .incomplete: "incomplete store"
            case .invalidPath: "invalid path"
            case .io: "io"
            case .keyRequired: "key required"
            case .wrongKey: "wrong key"
            case .badKey: "bad key file"
            case .notEncrypted: "store not encrypted"
            case .keyFileDamaged: "key file damaged"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong and how to fix it.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
