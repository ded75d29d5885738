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
            }
        }
    }

    /// The rule broken.
    public let code: Code
    /// What was refused and what to do about it, without amounts or personal data.
    public let message: String

    /// Refuses a command: thrown from a command's plan or an admission check.
    ///
    /// ```swift
    /// throw LedgerError(.notFound, "no account '\(account)' to tag")
    /// ```
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
