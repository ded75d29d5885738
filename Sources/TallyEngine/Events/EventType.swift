/// The name, stable log code and current schema version of one kind of event.
///
/// The code is what the log stores; the name is what JSON, schemas and the CLI show.
/// Neither ever changes meaning once released: a new shape is a new version of the same
/// type, and old versions stay decodable (see ``EventCatalog``).
public struct EventType: Hashable, Sendable, CustomStringConvertible {
    /// `snake_case` name, e.g. `deposit_received`.
    public let name: String
    /// The number stored in the log for this type.
    public let code: UInt32
    /// The version written by this build; older versions are upcast on read.
    public let version: UInt16

    /// Creates a type. Choose a code no other registered type uses (``EventCatalog`` refuses
    /// a clash); engine and products use codes below 10,000, so an embedder's types are safe
    /// from 10,000 on.
    ///
    /// ```swift
    /// static let eventType = EventType("merchant_tagged", code: 10_001)
    /// ```
    public init(_ name: String, code: UInt32, version: UInt16 = 1) {
        self.name = name
        self.code = code
        self.version = version
    }

    public var description: String { "\(name) v\(version)" }
}

/// The payload of one event type: its fields, the entity it is about, its binary and JSON forms.
public protocol EventPayload: BinaryCodable, Codable, Hashable, Sendable {
    /// The type this payload belongs to.
    static var eventType: EventType { get }
    /// Older versions of this payload, decodable and upcast to this one.
    static var legacyVersions: [any LegacyEventPayload.Type] { get }
    /// The entity the event is about, e.g. `pot:holiday` or `account:Assets:Bank`.
    var entity: String { get }
    /// What the type says it does to balances: conforming to ``MovesMoney`` or
    /// ``MovesNoMoney`` sets it; do not implement it yourself.
    static var postingDeclaration: PostingDeclaration { get }
    /// The legs this event posts, asked of the payload itself: a ``MovesMoney`` type's
    /// ``MovesMoney/postings(at:context:)``, none for every other type. Conforming sets it;
    /// do not implement it yourself. (A fold calls it on the payload it holds; a cast to
    /// `any MovesMoney` would copy the payload, retaining every string in it, per event.)
    func declaredPostings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting]
    /// How this event changes a transaction's current version, asked of the payload itself:
    /// a ``ChangesTransactionVersion`` type's answer, nil for every other type. Conforming
    /// sets it; do not implement it yourself.
    func declaredVersionChange(at effectiveAt: Instant, context: some PostingContext) throws -> TransactionVersionChange?
}

extension EventPayload {
    public static var legacyVersions: [any LegacyEventPayload.Type] { [] }
    /// Neither ``MovesMoney`` nor ``MovesNoMoney``: ``EventCatalog`` refuses the type.
    public static var postingDeclaration: PostingDeclaration { .undeclared }
    /// No legs: the type does not move money.
    public func declaredPostings(at effectiveAt: Instant, context: some PostingContext) throws -> [Posting] { [] }
    /// No change: the type starts, moves or ends no transaction version.
    public func declaredVersionChange(at effectiveAt: Instant, context: some PostingContext) throws -> TransactionVersionChange? { nil }
}

/// What an event type says it does to balances, as a value the catalog reads without a
/// runtime conformance lookup (which costs a scan of every conformance in the process, per
/// type, on every open).
public enum PostingDeclaration: Sendable, Equatable {
    /// The type conforms to ``MovesMoney``: its events post.
    case movesMoney
    /// The type conforms to ``MovesNoMoney``: its events never post.
    case movesNoMoney
    /// The type says neither; the catalog refuses it.
    case undeclared
}

/// An old version of a payload, still readable from logs and JSON written back then.
/// Reading it yields the current version through ``upcastBody()``, in every read path alike.
public protocol LegacyEventPayload: BinaryCodable, Codable, Sendable {
    /// The schema version this type decodes.
    static var version: UInt16 { get }
    /// The equivalent current payload.
    func upcastBody() -> EventBody
}
