extension EventCatalog {
    /// The engine's own event types: the ledger, its accounts and their movements, prices,
    /// FX rates, the ledger's settings and its declared commodities, erasures, and the end of a
    /// keyed command (``CommandCompleted``).
    public static let engineTypes: [any EventPayload.Type] = [
        LedgerCreated.self, BaseCurrencySet.self, AccountOpened.self, AccountClosed.self,
        JournalEntryPosted.self, TransferMade.self, BalanceAsserted.self,
        PriceQuoted.self, FXRateSet.self, PriceStalenessSet.self,
        DueSoonWindowSet.self, PageSizeSet.self, CommodityDeclared.self, ErasureRecorded.self,
        CommandCompleted.self,
    ]

    /// A catalog of the engine's own event types only.
    // swiftlint:disable:next force_try
    public static let engine = try! EventCatalog(engineTypes)
}
