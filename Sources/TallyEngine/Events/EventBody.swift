/// The payload of one event, of any registered type: the engine's, a product's or an
/// embedder's.
///
/// The set of event types is open: each is registered in an ``EventCatalog``, which maps
/// log codes and names to payload types. A fold asks for the types it knows, and passes
/// over the rest:
///
/// ```swift
/// switch event.body.payload {
/// case let deposit as DepositReceived: total += deposit.amount.minorUnits
/// case let purchase as PurchaseMade: total -= purchase.amount.minorUnits
/// default: break // an event this read model does not read
/// }
/// if let tagged = event.body.as(MerchantTagged.self) { … }
/// ```
public struct EventBody: Hashable, Sendable {
    /// The payload.
    public let payload: any EventPayload
    /// The payload's type: kept beside the payload, as folds ask for it on every event.
    public let type: EventType

    /// Wraps a payload.
    public init<Payload: EventPayload>(_ payload: Payload) {
        self.payload = payload
        self.type = Payload.eventType
    }

    /// The payload as `Payload`, or nil when it is of another type.
    @inlinable
    public func `as`<Payload: EventPayload>(_ type: Payload.Type) -> Payload? {
        // The type code first: most events a fold asks about are of another type, and a code
        // compare is cheaper than a failed dynamic cast.
        guard self.type.code == Payload.eventType.code else { return nil }
        return payload as? Payload
    }

    /// Whether the payload is a `Payload`.
    @inlinable
    public func `is`<Payload: EventPayload>(_ type: Payload.Type) -> Bool {
        self.type.code == Payload.eventType.code && payload is Payload
    }

    public static func == (lhs: EventBody, rhs: EventBody) -> Bool {
        lhs.type == rhs.type && lhs.payload.isEqual(to: rhs.payload)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type.code)
        payload.hash(into: &hasher)
    }
}

extension EventPayload {
    /// The payload wrapped as an event body.
    public var body: EventBody { EventBody(self) }

    /// Whether `other` is a payload of this type, equal to this one.
    func isEqual(to other: any EventPayload) -> Bool {
        // One cast, then the type's own `==` (comparing two optionals costs the runtime an
        // optional's and a tuple's metadata on every call: the record check's read-back).
        guard let other = other as? Self else { return false }
        return other == self
    }
}
