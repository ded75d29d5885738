/// An event could not be encoded or decoded: a damaged payload, JSON that does not
/// match the event's schema, an unknown event type or version.
///
/// Matchable by ``code``; ``message`` says what is wrong and where (field, type, version).
/// Amounts are kept out of the message.
public struct EventCodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A broad classification of the failure. New codes may be added; match the ones you handle.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case truncated, invalidValue, unknownType, unsupportedVersion
            case invalidJSON, unknownField, missingField, trailingBytes, limitExceeded
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The binary payload ended before a field was complete.
        public static let truncated = Code(.truncated)
        /// A field holds a value outside its domain (bad enum case, invalid UTF-8, bad date).
        public static let invalidValue = Code(.invalidValue)
        /// The event type name or code is not in the catalog.
        public static let unknownType = Code(.unknownType)
        /// The event type exists but not in this version.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// The text is not valid JSON, or not a JSON object where one is required.
        public static let invalidJSON = Code(.invalidJSON)
        /// The JSON object holds a field that the event's schema does not define.
        public static let unknownField = Code(.unknownField)
        /// A required field is missing.
        public static let missingField = Code(.missingField)
        /// Bytes remain after the last field of a binary payload.
        public static let trailingBytes = Code(.trailingBytes)
        /// A string, list or number exceeds the limit the catalog sets for it.
        public static let limitExceeded = Code(.limitExceeded)

        public var description: String {
            switch value {
            case .truncated: "truncated"
            case .invalidValue: "invalid value"
            case .unknownType: "unknown type"
            case .unsupportedVersion: "unsupported version"
            case .invalidJSON: "invalid JSON"
            case .unknownField: "unknown field"
            case .missingField: "missing field"
            case .trailingBytes: "trailing bytes"
            case .limitExceeded: "limit exceeded"
            }
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong, naming the field, event type and version where known.
    public let message: String
    /// The field at fault as its path in the event's JSON form (`data.payee`,
    /// `data.amount.currency`, `idempotency_key`, `effective_at`), when one is known.
    ///
    /// The record check (``EventCatalog/record(for:)``) always sets it, so that an import can
    /// name the field its own way (a CSV column) and a command's caller can tell which
    /// argument to fix.
    public let field: String?
    /// What is wrong with ``field``, without naming it (`holds 1025 bytes; the limit is 1024`);
    /// nil when ``field`` is. ``message`` says the same with the type and the field named.
    public let reason: String?

    /// An error without a known field.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
        self.field = nil
        self.reason = nil
    }

    /// An error about one field: the message reads `CONTEXT: field 'FIELD' REASON`.
    ///
    /// ```swift
    /// EventCodingError(.limitExceeded, field: "data.payee", reason: "holds 1025 bytes; the limit is 1024",
    ///                  context: "journal_entry_posted")
    /// ```
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - field: the field's path in the event's JSON form.
    ///   - reason: what is wrong with it and how to fix it; no personal data.
    ///   - context: what was being encoded or decoded, e.g. the event type's name.
    public init(_ code: Code, field: String, reason: String, context: String) {
        self.code = code
        self.field = field
        self.reason = reason
        self.message = "\(context): field '\(field)' \(reason)"
    }

    public var description: String { "\(code): \(message)" }
}
