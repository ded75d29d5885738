public import TallyEngine
import GRDB

/// Commands of the net worth tracker and the X-ray: each checks the ledger's state and
/// appends one event, or throws ``LedgerError`` and appends nothing.
///
/// Idempotency: each takes an optional key; a repeat with the same input (and the same
/// effective time, when the caller gave one) returns the first result and appends nothing;
/// with other input it throws ``LedgerError`` `idempotencyConflict`. The event is built
/// from the input once, compared on a repeat, and returned by the plan.
extension Ledger {
    /// The currency of an item held now (added and not removed), nil when there is none.
    private func item(_ kind: ItemKind, _ id: String, _ db: Database) throws -> Commodity? {
        try NetWorthRecords.heldItemCurrency(kind: kind, id: id, db)
    }

    /// The currency of an item held now, or ``LedgerError`` (`notFound`).
    private func requireItem(_ kind: ItemKind, _ id: String, _ db: Database) throws -> Commodity {
        guard let currency = try item(kind, id, db) else {
            throw LedgerError(.notFound, "no \(kind.rawValue) '\(id)'; add it first")
        }
        return currency
    }

    private static func requireIdentifier(_ id: String, _ what: String) throws {
        guard !id.isEmpty, id.utf8.count <= 200, !id.contains(where: \.isWhitespace) else {
            throw LedgerError(.invalidArgument, "\(what) must be 1 to 200 bytes without spaces")
        }
    }

    private static func requirePositive(_ money: Money, _ what: String) throws {
        guard money.isPositive else { throw LedgerError(.invalidArgument, "\(what) must be positive") }
    }

    /// Adds an asset in its own currency, with optional tags.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func addAsset(
        assetId: String, name: String, category: AssetCategory, type: AssetType, currency: Commodity, country: String? = nil, sector: String? = nil, symbol: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        let asset = AssetAdded(assetId: assetId, name: name, category: category, type: type, currency: currency, country: country, sector: sector, symbol: symbol)
        try Self.requireIdentifier(asset.assetId, "an asset id")
        let added = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(asset))
        return try perform(idempotencyKey: idempotencyKey, request: added, dated: effectiveAt != nil) { db in
            if try item(.asset, asset.assetId, db) != nil || item(.liability, asset.assetId, db) != nil {
                throw LedgerError(.alreadyExists, "an asset or liability '\(asset.assetId)' exists already")
            }
            return [added]
        }
    }

    /// Replaces an asset's tags (country, sector, symbol).
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func tagAsset(
        assetId: String, country: String? = nil, sector: String? = nil, symbol: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        let tags = AssetTagged(assetId: assetId, country: country, sector: sector, symbol: symbol)
        let tagged = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(tags))
        return try perform(idempotencyKey: idempotencyKey, request: tagged, dated: effectiveAt != nil) { db in
            _ = try requireItem(.asset, tags.assetId, db)
            return [tagged]
        }
    }

    /// Removes an asset from the effective date on; its history stays.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func removeAsset(_ assetId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        let removed = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(AssetRemoved(assetId: assetId)))
        return try perform(idempotencyKey: idempotencyKey, request: removed, dated: effectiveAt != nil) { db in
            _ = try requireItem(.asset, assetId, db)
            return [removed]
        }
    }

    /// Adds a liability, optionally linked to the asset it finances.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func addLiability(
        liabilityId: String, name: String, category: LiabilityCategory, currency: Commodity, linkedAssetId: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        let liability = LiabilityAdded(liabilityId: liabilityId, name: name, category: category, currency: currency, linkedAssetId: linkedAssetId)
        try Self.requireIdentifier(liability.liabilityId, "a liability id")
        let added = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(liability))
        return try perform(idempotencyKey: idempotencyKey, request: added, dated: effectiveAt != nil) { db in
            if try item(.asset, liability.liabilityId, db) != nil || item(.liability, liability.liabilityId, db) != nil {
                throw LedgerError(.alreadyExists, "an asset or liability '\(liability.liabilityId)' exists already")
            }
            if let linked = liability.linkedAssetId { _ = try requireItem(.asset, linked, db) }
            return [added]
        }
    }

    /// Removes a liability (paid off or closed) from the effective date on.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func removeLiability(_ liabilityId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        let removed = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(LiabilityRemoved(liabilityId: liabilityId)))
        return try perform(idempotencyKey: idempotencyKey, request: removed, dated: effectiveAt != nil) { db in
            _ = try requireItem(.liability, liabilityId, db)
            return [removed]
        }
    }

    /// Records an asset's value or a liability's amount, positive, in the item's currency.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func recordValuation(
        itemKind: ItemKind, itemId: String, value: Money, source: ValuationSource,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        let valuation = ValuationRecorded(itemKind: itemKind, itemId: itemId, value: value, source: source)
        try Self.requirePositive(valuation.value, "a valuation")
        let recorded = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(valuation))
        return try perform(idempotencyKey: idempotencyKey, request: recorded, dated: effectiveAt != nil) { db in
            let currency = try requireItem(valuation.itemKind, valuation.itemId, db)
            guard valuation.value.commodity == currency else {
                throw LedgerError(.currencyMismatch, "\(valuation.itemKind.rawValue) '\(valuation.itemId)' is valued in \(currency.code), not \(valuation.value.commodity.code)")
            }
            if valuation.itemKind == .liability && valuation.source == .override {
                throw LedgerError(.invalidArgument, "overrides apply to assets only")
            }
            return [recorded]
        }
    }

    /// Clears an asset's manual override: its live or manual value applies again.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func clearValuationOverride(_ assetId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        let cleared = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(ValuationOverrideCleared(assetId: assetId)))
        return try perform(idempotencyKey: idempotencyKey, request: cleared, dated: effectiveAt != nil) { db in
            _ = try requireItem(.asset, assetId, db)
            return [cleared]
        }
    }

    /// Sets an asset's position: a quantity of a symbol (fractional allowed), valued at that
    /// symbol's quoted price.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func setPosition(
        assetId: String, quantity: Money, costBasis: Money? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        let position = PositionSet(assetId: assetId, quantity: quantity, costBasis: costBasis)
        guard !position.quantity.isNegative else { throw LedgerError(.invalidArgument, "a position's quantity cannot be negative") }
        let set = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(position))
        return try perform(idempotencyKey: idempotencyKey, request: set, dated: effectiveAt != nil) { db in
            _ = try requireItem(.asset, position.assetId, db)
            return [set]
        }
    }

    /// Records a price for one whole unit of a symbol at the effective time.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func quotePrice(
        symbol: Commodity, price: Money, source: PriceSource,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        let quote = PriceQuoted(symbol: symbol, price: price, source: source)
        try Self.requirePositive(quote.price, "a price")
        guard quote.symbol != quote.price.commodity else { throw LedgerError(.invalidArgument, "a symbol cannot be priced in itself") }
        let quoted = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(quote))
        return try perform(idempotencyKey: idempotencyKey, request: quoted, dated: effectiveAt != nil) { _ in [quoted] }
    }

    /// Records an exchange rate in force from the effective time: 1 `base` = `rate` `quote`.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func setFXRate(
        base: Commodity, quote: Commodity, rate: ExactDecimal,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        let fxRate = FXRateSet(base: base, quote: quote, rate: rate)
        guard rate.significand > 0 else { throw LedgerError(.invalidArgument, "an FX rate must be positive") }
        guard base != quote else { throw LedgerError(.invalidArgument, "an FX rate needs two different currencies") }
        let set = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(fxRate))
        return try perform(idempotencyKey: idempotencyKey, request: set, dated: effectiveAt != nil) { _ in [set] }
    }

    /// Changes the base currency answers are given in; original amounts stay as recorded.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func setBaseCurrency(_ currency: Commodity, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        guard currency.isISOCurrency else { throw LedgerError(.invalidArgument, "the base currency must be an ISO 4217 currency, not \(currency.code)") }
        let set = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(BaseCurrencySet(currency: currency)))
        return try perform(idempotencyKey: idempotencyKey, request: set, dated: effectiveAt != nil) { _ in [set] }
    }

    /// Sets how old a price may be before answers flag it stale.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same threshold returns
    ///   the first result and appends nothing, another threshold is refused.
    @discardableResult
    public func setPriceStaleness(seconds: Int64, idempotencyKey: String? = nil) throws -> CommandResult {
        guard seconds > 0 else { throw LedgerError(.invalidArgument, "the staleness threshold must be positive") }
        let set = NewEvent(effectiveAt: now, body: EventBody(PriceStalenessSet(thresholdSeconds: seconds)))
        return try perform(idempotencyKey: idempotencyKey, request: set) { _ in [set] }
    }

    /// Sets a reminder to update an asset's value.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func setReminder(
        reminderId: String, assetId: String, dueDate: LocalDate, note: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        let reminder = ReminderSet(reminderId: reminderId, assetId: assetId, dueDate: dueDate, note: note)
        try Self.requireIdentifier(reminder.reminderId, "a reminder id")
        let set = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(reminder))
        return try perform(idempotencyKey: idempotencyKey, request: set, dated: effectiveAt != nil) { db in
            _ = try requireItem(.asset, reminder.assetId, db)
            return [set]
        }
    }

    /// Marks a reminder done.
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    @discardableResult
    public func completeReminder(_ reminderId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        let completed = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(ReminderCompleted(reminderId: reminderId)))
        return try perform(idempotencyKey: idempotencyKey, request: completed, dated: effectiveAt != nil) { db in
            guard try NetWorthRecords.isReminderOpen(reminderId, db) else {
                throw LedgerError(.notFound, "no open reminder '\(reminderId)'")
            }
            return [completed]
        }
    }
}

extension Ledger {
    /// The currency an asset or liability is valued in, if it exists.
    public func currency(of kind: ItemKind, _ id: String) throws -> Commodity? {
        try read { db in
            try NetWorthHistory.item(kind: kind, id: id, db)?.currency
        }
    }
}
