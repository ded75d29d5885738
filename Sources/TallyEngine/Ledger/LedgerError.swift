import GRDB
import TallyLog

/// A command the ledger refused: it broke a rule of the domain. Nothing was appended.
///
/// ``message`` says what to do about it; amounts are named by role ("the Spend balance"),
/// not printed, so messages can be logged without personal data.
public struct LedgerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rule a refused command broke. A struct over a private enum, so new codes break no
    /// `switch`: match the ones you handle.
    ///
    /// ```swift
    /// catch let error as LedgerError where error.code == .idempotencyConflict { … }
    /// ```
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case insufficientFunds, notFound, alreadyExists, invalidArgument, notAllowed, cardFrozen, currencyMismatch, idempotencyConflict, inconsistentLog
            case overflow, invalidEvent, invalidInput, locked, store, readModels
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A balance cannot cover the amount (Spend, a pot, the current balance).
        public static let insufficientFunds = Code(.insufficientFunds)
        /// The command names something that does not exist (a pot, a transaction).
        public static let notFound = Code(.notFound)
        /// The command would create something that exists already.
        public static let alreadyExists = Code(.alreadyExists)
        /// An argument is outside its domain (a non-positive amount, an empty name).
        public static let invalidArgument = Code(.invalidArgument)
        /// The rule forbids it (amending a bank transaction).
        public static let notAllowed = Code(.notAllowed)
        /// The card is frozen.
        public static let cardFrozen = Code(.cardFrozen)
        /// Amounts in different currencies where one is required.
        public static let currencyMismatch = Code(.currencyMismatch)
        /// An idempotency key that an earlier command used with different input.
        public static let idempotencyConflict = Code(.idempotencyConflict)
        /// The log or the read models hold a state no command could have made (a label no
        /// feature knows): the store was written by another build or damaged; `tally verify`
        /// says where, `tally rebuild` rebuilds the read models from the log.
        public static let inconsistentLog = Code(.inconsistentLog)
        /// An amount or a sum beyond what an account can hold (``underlying`` is the `MoneyError`).
        public static let overflow = Code(.overflow)
        /// An event the log would refuse: a text or size limit, a control character, a time
        /// outside years 1–9999, a type no feature registers (``underlying`` is the
        /// ``EventCodingError`` naming the field).
        public static let invalidEvent = Code(.invalidEvent)
        /// A file to import is unreadable or wrong (``underlying`` is the ``ImportError`` naming
        /// the file, line and field).
        public static let invalidInput = Code(.invalidInput)
        /// Another process holds the store's writer lock: retry later, or read with
        /// ``Ledger/openForReading(at:options:)`` (``underlying`` is the `LogError`).
        public static let locked = Code(.locked)
        /// The store on disk cannot be used as it is: missing, damaged, read models ahead of
        /// or disagreeing with the log, an I/O failure (``underlying`` is the ``StoreError`` or
        /// `LogError` that says which and the way out).
        public static let store = Code(.store)
        /// The read-model database failed (``underlying`` is GRDB's `DatabaseError`).
        public static let readModels = Code(.readModels)

        /// The code's stable name in snake_case: `insufficient_funds`, `not_found`,
        /// `idempotency_conflict` … The HTTP service's problem documents carry the same string
        /// as their `code`, so a log line, a metric label or a client can switch on it. A name
        /// never changes once released; new codes get new names.
        ///
        /// ```swift
        /// catch let error as LedgerError {
        ///     logger.error("refused", metadata: ["code": "\(error.code.name)"])
        /// }
        /// ```
        public var name: String {
            switch value {
            case .insufficientFunds: "insufficient_funds"
            case .notFound: "not_found"
            case .alreadyExists: "already_exists"
            case .invalidArgument: "invalid_argument"
            case .notAllowed: "not_allowed"
            case .cardFrozen: "card_frozen"
            case .currencyMismatch: "currency_mismatch"
            case .idempotencyConflict: "idempotency_conflict"
            case .inconsistentLog: "inconsistent_log"
            case .overflow: "overflow"
            case .invalidEvent: "invalid_event"
            case .invalidInput: "invalid_input"
            case .locked: "locked"
            case .store: "store"
            case .readModels: "read_models"
            }
        }

        /// Every code, in the order declared: what ``name`` is tested against.
        public static let all: [Code] = [
            .insufficientFunds, .notFound, .alreadyExists, .invalidArgument, .notAllowed, .cardFrozen, .currencyMismatch,
            .idempotencyConflict, .inconsistentLog, .overflow, .invalidEvent, .invalidInput, .locked, .store, .readModels,
        ]

        public var description: String {
            switch value {
            case .insufficientFunds: "insufficient funds"
            case .notFound: "not found"
            case .alreadyExists: "already exists"
            case .invalidArgument: "invalid argument"
            case .notAllowed: "not allowed"
            case .cardFrozen: "card frozen"
            case .currencyMismatch: "currency mismatch"
            case .idempotencyConflict: "idempotency conflict"
            case .inconsistentLog: "inconsistent log"
            case .overflow: "overflow"
            case .invalidEvent: "invalid event"
            case .invalidInput: "invalid input"
            case .locked: "locked"
            case .store: "store"
            case .readModels: "read models"
            }
        }
    }

    /// The rule broken.
    public let code: Code
    /// What was refused and what to do about it, without amounts or personal data.
    public let message: String
    /// The error another layer raised, when this one reports it at the ledger's boundary: a
    /// `MoneyError`, ``EventCodingError``, ``ImportError``, ``StoreError``, `LogError` or
    /// GRDB's `DatabaseError`; nil for a rule the ledger itself refused. An import that
    /// stopped after some of its commits is reported with its cause's code and this
    /// ``ImportError`` (`stoppedPartway`), whose ``ImportError/cause`` is that cause.
    ///
    /// ```swift
    /// catch let error as LedgerError where error.code == .store {
    ///     if (error.underlying as? StoreError)?.code == .readModelsAhead { try Ledger.rebuild(at: path, options: options) }
    /// }
    /// ```
    public let underlying: (any Error)?

    /// Refuses a command: thrown from a command's plan or an admission check.
    ///
    /// ```swift
    /// throw LedgerError(.notFound, "no account '\(account)' to tag")
    /// ```
    public init(_ code: Code, _ message: String) {
        self.init(code, message, underlying: nil)
    }

    /// An error reporting another layer's, with that error attached.
    public init(_ code: Code, _ message: String, underlying: (any Error)?) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// Another layer's error as the ledger's boundary reports it: with the code that says what
    /// kind of failure it is and the error attached; a ``LedgerError`` as it is; nil for an
    /// error the ledger does not know (the caller's own, thrown from a progress callback or a
    /// plan), which passes through unchanged.
    public static func reporting(_ error: any Error) -> LedgerError? {
        switch error {
        case let error as LedgerError: error
        case let error as MoneyError: LedgerError(error.code == .overflow ? .overflow : .invalidArgument, error.description, underlying: error)
        case let error as EventCodingError: LedgerError(.invalidEvent, error.description, underlying: error)
        case let error as ImportError: LedgerError(error.cause?.code ?? .invalidInput, error.description, underlying: error)
        case let error as LogError: LedgerError(error.code == .locked ? .locked : .store, error.description, underlying: error)
        case let error as StoreError: LedgerError(.store, error.description, underlying: error)
        case let error as DatabaseError: LedgerError(.readModels, error.description, underlying: error)
        default: nil
        }
    }

    /// Runs `body`, reporting what it throws as a ``LedgerError`` (``reporting(_:)``; the
    /// caller's own errors pass through): how every public method of ``Ledger`` keeps to one
    /// error type, and how a feature's own can.
    ///
    /// ```swift
    /// public func importTags(csvAt path: String) throws -> ImportSummary {
    ///     try LedgerError.boundary { try TagImport.run(path, on: self) }
    /// }
    /// ```
    public static func boundary<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw reporting(error) ?? error }
    }

    public static func == (lhs: LedgerError, rhs: LedgerError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    public var description: String { message }
}
