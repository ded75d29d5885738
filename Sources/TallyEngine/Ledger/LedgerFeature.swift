/// A feature of a ledger: the event types it records and the read models it keeps.
///
/// The engine knows the ledger, its accounts, journal entries, transfers, prices and FX
/// rates. Everything else is a feature, registered when a ledger is created or opened:
/// Tally's own products (`TallyProducts.standardFeatures`) and an embedder's alike, through
/// this one protocol. Give the same features every time a store is opened: an event of a
/// type no feature registers cannot be read, and a feature's read models left out are not
/// folded (their checkpoints wait until the feature is registered again).
///
/// ```swift
/// struct MerchantTags: LedgerFeature {
///     var name: String { "merchant-tags" }
///     var eventTypes: [any EventPayload.Type] { [MerchantTagged.self] }
///     var projectors: [any Projector] { [MerchantTagsProjector()] }
/// }
/// let options = Ledger.Options(features: [MerchantTags()])
/// let ledger = try Ledger.open(at: "books", options: options)
/// ```
public protocol LedgerFeature: Sendable {
    /// A short name for messages (`wealth`, `merchant-tags`).
    var name: String { get }
    /// The event types the feature records. Each declares its postings (``MovesMoney`` or
    /// ``MovesNoMoney``), and may declare admission checks (``AdmissionChecked``).
    var eventTypes: [any EventPayload.Type] { get }
    /// The read models the feature keeps, folded after the engine's own in the order given.
    var projectors: [any Projector] { get }
}

extension LedgerFeature {
    /// No read model of its own.
    public var projectors: [any Projector] { [] }
}
