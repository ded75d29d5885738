/// A store-level failure: no store at the path, a store that already exists, an event that
/// cannot be appended as given. Log damage surfaces as `LogError`, payload problems as
/// ``EventCodingError``.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable { case notFound, alreadyExists, notAStore }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// No store exists at the path.
        public static let notFound = Code(.notFound)
        /// A store already exists where one was to be created.
        public static let alreadyExists = Code(.alreadyExists)
        /// The directory exists but is not a Tally store.
        public static let notAStore = Code(.notAStore)

        public var description: String {
            switch value {
            case .notFound: "store not found"
            case .alreadyExists: "store exists"
            case .notAStore: "not a store"
            }
        }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
