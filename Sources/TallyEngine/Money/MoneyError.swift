/// An error thrown by Tally's exact-money layer: parsing amounts, building
/// commodities, arithmetic that would overflow or mix commodities.
///
/// Match on ``code`` to react to a kind of error; show ``message`` (also the
/// ``description``) to a person, as it says what is wrong and how to fix it.
///
/// Arithmetic on amounts you hold throws it directly; parsing
/// (``Money/init(parsing:commodity:)``) and everything the ledger does report it as the
/// ``LedgerError/underlying`` of a ``LedgerError`` (`invalidArgument` or `overflow`):
///
/// ```swift
/// do {
///     _ = try Money(parsing: "12.345", commodity: .usd)
/// } catch let error as LedgerError where (error.underlying as? MoneyError)?.code == .tooManyDecimals {
///     print(error)   // "12.345" has 3 decimal places, but USD allows at most 2 …
/// }
/// ```
///
/// Messages quote text the user typed (so they can find it), but never an
/// internal amount.
public struct MoneyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of a ``MoneyError``.
    ///
    /// A struct over a private enum, so that new codes can be added without
    /// breaking exhaustive `switch` statements in client code. Compare with
    /// `==` or use in `catch … where error.code == .overflow`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case invalidNumber
            case tooManyDecimals
            case overflow
            case commodityMismatch
            case invalidCommodity
            case invalidScale
            case divisionByZero
            case invalidRatios
        }

        private let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// Text that is not a decimal number in Tally's strict format,
        /// e.g. `"1,000.00"`, `"1e3"`, `" 1"` or `".5"`.
        public static let invalidNumber = Code(.invalidNumber)
        /// A number has more (non-zero) fractional digits than the scale
        /// allows, e.g. `"1.234"` for USD.
        public static let tooManyDecimals = Code(.tooManyDecimals)
        /// A result does not fit in 64-bit minor units (or a 64-bit significand).
        public static let overflow = Code(.overflow)
        /// Two amounts in different commodities were combined.
        public static let commodityMismatch = Code(.commodityMismatch)
        /// A commodity code is not 1–16 characters of `[A-Z][A-Z0-9._-]*`.
        public static let invalidCommodity = Code(.invalidCommodity)
        /// A scale is outside `0...18`.
        public static let invalidScale = Code(.invalidScale)
        /// A division by zero was asked for.
        public static let divisionByZero = Code(.divisionByZero)
        /// Allocation ratios are empty, negative, all zero or too many.
        public static let invalidRatios = Code(.invalidRatios)

        /// The code's name, e.g. `"tooManyDecimals"`.
        public var description: String {
            switch kind {
            case .invalidNumber: "invalidNumber"
            case .tooManyDecimals: "tooManyDecimals"
            case .overflow: "overflow"
            case .commodityMismatch: "commodityMismatch"
            case .invalidCommodity: "invalidCommodity"
            case .invalidScale: "invalidScale"
            case .divisionByZero: "divisionByZero"
            case .invalidRatios: "invalidRatios"
            }
        }
    }

    /// What kind of error this is.
    public let code: Code
    /// What is wrong and how to fix it, for a person to read.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }
}

extension MoneyError {
    /// The longest piece of user text quoted in a message, in characters.
    static let quotedTextLimit = 40

    /// `text` quoted and escaped for a message, cut to ``quotedTextLimit``.
    static func quoted(_ text: String) -> String {
        if text.count <= quotedTextLimit {
            return text.debugDescription
        }
        return String(text.prefix(quotedTextLimit)).debugDescription + "…"
    }
}
