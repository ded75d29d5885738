public import TallyEngine
// Tally's products, each declared in its own folder (`Wealth/WealthFeature.swift`,
// `Budgeting/BudgetingFeature.swift`, ...): the list of them, and the catalog and options
// they make together.

/// Tally's five products, in the order their read models fold, and the notifications read
/// model over them.
public let standardFeatures: [any LedgerFeature] = [
    BudgetingFeature(), NetWorthFeature(), EnvelopesFeature(), ChallengesFeature(), WealthFeature(), NotificationsFeature(),
]

extension EventCatalog {
    /// The engine's and every product's event types.
    // swiftlint:disable:next force_try
    public static let standard = try! EventCatalog(engineTypes + standardFeatures.flatMap(\.eventTypes))
}

extension Ledger.Options {
    /// Options with every product registered (``standardFeatures``), as the `tally` command
    /// opens a store.
    ///
    /// ```swift
    /// let ledger = try Ledger.open(at: "books", options: .standard)
    /// ```
    public static var standard: Ledger.Options { Ledger.Options(features: standardFeatures) }
}
