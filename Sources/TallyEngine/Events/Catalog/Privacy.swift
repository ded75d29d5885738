// Events about the privacy of the ledger's personal data.

/// A subject's personal data was erased: its key is destroyed right after this event is
/// recorded, so every field sealed under it reads as erased from then on. Amounts and dates
/// stay; the log's bytes, and so its hash chain, do not change.
public struct ErasureRecorded: EventPayload, MovesNoMoney {
    public static let eventType = EventType("erasure_recorded", code: 133)
    /// The erased subject's opaque identifier (32 hex digits); it does not reveal the subject's name.
    public var subject: String

    /// An erasure of the subject with this identifier.
    public init(subject: String) { self.subject = subject }

    public var entity: String { "subject:\(subject)" }
}

extension ErasureRecorded: ExampleProviding {
    public static var example: ErasureRecorded {
        ErasureRecorded(subject: "b9a30aa0c0be1606f68b4d8607e7a37b")
    }
}
