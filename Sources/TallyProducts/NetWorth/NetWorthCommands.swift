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

    /// The currency of an item held now, for a record of it dated `at`: nothing happens
    /// before it exists, so a record dated before the day the item was added is refused,
    /// naming both days (net worth, the X-ray, the item list and the export then never
    /// disagree about it).
    private func requireItem(_ kind: ItemKind, _ id: String, at: Instant, _ db: Database) throws -> Commodity {
        let currency = try requireItem(kind, id, db)
        if let added = try NetWorthRecords.addedAt(kind: kind, id: id, db), calendar.date(of: at) < calendar.date(of: added) {
            throw LedgerError(.notAllowed, "\(kind.rawValue) '\(id)' was added on \(calendar.date(of: added)); a record dated \(calendar.date(of: at)) comes before it")
        }
        return currency
    }

    private static func requireIdentifier(_ id: String, _ what: String) throws {
        guard !id.isEmpty, id.utf8.count <= 200, !id.contains(where: \.isWhitespace) else {
            throw LedgerError(.invalidArgument, "\(what) must be 1 to 200 bytes without spaces")
        }
    }

    /// The one rule for a value: an asset's is positive; a liability's amount owed is zero
    /// (paid off) or positive; neither is negative.
    private static func requireValuation(_ valuation: ValuationRecorded) throws {
        switch valuation.itemKind {
        case .asset:
            try requirePositive(valuation.value, "an asset's value")
        case .liability:
            guard !valuation.value.isNegative else {
                throw LedgerError(.invalidArgument, "liability '\(valuation.itemId)': the amount owed cannot be negative (\(valuation.value)); give 0 when it is paid off")
            }
        }
    }

    private static func requirePositive(_ money: Money, _ what: String) throws {
        guard money.isPositive else { throw LedgerError(.invalidArgument, "\(what) must be positive") }
    }

    /// Adds an asset in its own currency, with optional tags.
    ///
    /// ```swift
    /// try ledger.addAsset(assetId: "brokerage", name: "Brokerage", category: .investments, type: .stockOrETF,
    ///                     currency: .usd, country: "US", sector: "Technology")
    /// ```
    ///
    /// - Parameters:
    ///   - assetId: 1 to 200 bytes without spaces, not used by an asset or liability held.
    ///   - currency: the currency its valuations are recorded in.
    ///   - country: ISO 3166-1 alpha-2 country of exposure (not checked); nil when unknown.
    ///   - effectiveAt: when it is held from (default: now).
    ///   - idempotencyKey: an optional key; a repeat with the same input (and effective
    ///     time, when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `invalidArgument` (a bad id), `alreadyExists`, `idempotencyConflict`.
    @discardableResult
    public func addAsset(
        assetId: String, name: String, category: AssetCategory, type: AssetType, currency: Commodity, country: String? = nil, sector: String? = nil, symbol: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(addAssetCommand(assetId: assetId, name: name, category: category, type: type, currency: currency, country: country, sector: sector, symbol: symbol, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``addAsset(assetId:name:category:type:currency:country:sector:symbol:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func addAssetCommand(
        assetId: String, name: String, category: AssetCategory, type: AssetType, currency: Commodity, country: String? = nil, sector: String? = nil, symbol: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let asset = AssetAdded(assetId: assetId, name: try NameRule.name(name, "the asset name"), category: category, type: type, currency: currency,
                               country: country, sector: sector, symbol: try symbol.map { try TickerRule.normalised($0) })
        try Self.requireIdentifier(asset.assetId, "an asset id")
        let added = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(asset))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: added, requestHasEffectiveTime: effectiveAt != nil) { [self] db in
            try CurrencyRule.require(asset.currency, db)
            if try item(.asset, asset.assetId, db) != nil || item(.liability, asset.assetId, db) != nil {
                throw LedgerError(.alreadyExists, "an asset or liability '\(asset.assetId)' exists already")
            }
            return [added]
        }
    }

    /// Replaces an asset's tags (country, sector, symbol): a tag left nil becomes unknown.
    /// Records nothing when those tags are already in force at the effective time.
    ///
    /// ```swift
    /// try ledger.tagAsset(assetId: "brokerage", country: "US", sector: "Technology", symbol: "VTI")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    ///   A command that records nothing does not use up its key.
    /// - Throws: ``LedgerError`` `notFound` (no such asset held), `idempotencyConflict`.
    @discardableResult
    public func tagAsset(
        assetId: String, country: String? = nil, sector: String? = nil, symbol: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(tagAssetCommand(assetId: assetId, country: country, sector: sector, symbol: symbol, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``tagAsset(assetId:country:sector:symbol:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func tagAssetCommand(
        assetId: String, country: String? = nil, sector: String? = nil, symbol: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let tags = AssetTagged(assetId: assetId, country: country, sector: sector, symbol: try symbol.map { try TickerRule.normalised($0) })
        let tagged = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(tags))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: tagged, requestHasEffectiveTime: effectiveAt != nil) { [self] db in
            _ = try requireItem(.asset, tags.assetId, db)
            // The same tags in force then: nothing to do.
            let inForce = try NetWorthLookups(db: db, point: PointInTime(asOf: tagged.effectiveAt)).tags(of: tags.assetId)
            return inForce == (tags.country, tags.sector, tags.symbol) ? [] : [tagged]
        }
    }

    /// Removes an asset from the effective date on; its history stays.
    ///
    /// ```swift
    /// try ledger.removeAsset("old-car")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `notFound` (no such asset held), `idempotencyConflict`.
    @discardableResult
    public func removeAsset(_ assetId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(removeAssetCommand(assetId, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``removeAsset(_:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func removeAssetCommand(_ assetId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let removed = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(AssetRemoved(assetId: assetId)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: removed, requestHasEffectiveTime: effectiveAt != nil) { [self] db in
            _ = try requireItem(.asset, assetId, db)
            return [removed]
        }
    }

    /// Adds a liability, optionally linked to the asset it finances.
    ///
    /// ```swift
    /// try ledger.addLiability(liabilityId: "mortgage", name: "Mortgage", category: .mortgage, currency: .usd, linkedAssetId: "home")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `invalidArgument` (a bad id), `alreadyExists`, `notFound` (the
    ///   linked asset is not held), `idempotencyConflict`.
    @discardableResult
    public func addLiability(
        liabilityId: String, name: String, category: LiabilityCategory, currency: Commodity, linkedAssetId: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(addLiabilityCommand(liabilityId: liabilityId, name: name, category: category, currency: currency, linkedAssetId: linkedAssetId, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``addLiability(liabilityId:name:category:currency:linkedAssetId:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func addLiabilityCommand(
        liabilityId: String, name: String, category: LiabilityCategory, currency: Commodity, linkedAssetId: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let liability = LiabilityAdded(liabilityId: liabilityId, name: try NameRule.name(name, "the liability name"), category: category, currency: currency, linkedAssetId: linkedAssetId)
        try Self.requireIdentifier(liability.liabilityId, "a liability id")
        let added = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(liability))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: added, requestHasEffectiveTime: effectiveAt != nil) { [self] db in
            try CurrencyRule.require(liability.currency, db)
            if try item(.asset, liability.liabilityId, db) != nil || item(.liability, liability.liabilityId, db) != nil {
                throw LedgerError(.alreadyExists, "an asset or liability '\(liability.liabilityId)' exists already")
            }
            if let linked = liability.linkedAssetId { _ = try requireItem(.asset, linked, db) }
            return [added]
        }
    }

    /// Removes a liability (paid off or closed) from the effective date on.
    ///
    /// ```swift
    /// try ledger.removeLiability("car-loan")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `notFound` (no such liability held), `idempotencyConflict`.
    @discardableResult
    public func removeLiability(_ liabilityId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(removeLiabilityCommand(liabilityId, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``removeLiability(_:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func removeLiabilityCommand(_ liabilityId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let removed = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(LiabilityRemoved(liabilityId: liabilityId)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: removed, requestHasEffectiveTime: effectiveAt != nil) { [self] db in
            _ = try requireItem(.liability, liabilityId, db)
            return [removed]
        }
    }

    /// Records an asset's value or a liability's amount, positive, in the item's currency.
    ///
    /// ```swift
    /// try ledger.recordValuation(itemKind: .asset, itemId: "home", value: usd("420000.00"), source: .manual)
    /// try ledger.recordValuation(itemKind: .liability, itemId: "mortgage", value: usd("250000.00"), source: .bankRefresh)
    /// ```
    ///
    /// - Parameters:
    ///   - value: positive (a liability's amount owed is positive too), in the item's currency.
    ///   - source: where the value came from; `override` applies to assets only.
    ///   - effectiveAt: when the value holds from (default: now).
    ///   - idempotencyKey: an optional key; a repeat with the same input (and effective
    ///     time, when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `invalidArgument` (not positive, or an override of a
    ///   liability), `notFound` (no such item held), `currencyMismatch`, `idempotencyConflict`.
    @discardableResult
    public func recordValuation(
        itemKind: ItemKind, itemId: String, value: Money, source: ValuationSource,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(recordValuationCommand(itemKind: itemKind, itemId: itemId, value: value, source: source, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``recordValuation(itemKind:itemId:value:source:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func recordValuationCommand(
        itemKind: ItemKind, itemId: String, value: Money, source: ValuationSource,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let valuation = ValuationRecorded(itemKind: itemKind, itemId: itemId, value: value, source: source)
        try Self.requireValuation(valuation)
        let recorded = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(valuation))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: recorded, requestHasEffectiveTime: effectiveAt != nil) { [self] db in
            try CurrencyRule.require(valuation.value, "the valuation", db)
            let currency = try requireItem(valuation.itemKind, valuation.itemId, at: recorded.effectiveAt, db)
            guard valuation.value.commodity == currency else {
                throw LedgerError(.currencyMismatch, "\(valuation.itemKind.rawValue) '\(valuation.itemId)' is valued in \(currency.code), not \(valuation.value.commodity.code)")
            }
            if valuation.itemKind == .liability && valuation.source == .override {
                throw LedgerError(.invalidArgument, "overrides apply to assets only")
            }
            return [recorded]
        }
    }

    /// Clears an asset's manual override: its live or manual value applies again. Records
    /// nothing when no override is in force at the effective time (nothing to clear).
    ///
    /// ```swift
    /// try ledger.clearValuationOverride("home")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    ///   A command that records nothing does not use up its key.
    /// - Throws: ``LedgerError`` `notFound` (no such asset held), `idempotencyConflict`.
    @discardableResult
    public func clearValuationOverride(_ assetId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(clearValuationOverrideCommand(assetId, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``clearValuationOverride(_:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func clearValuationOverrideCommand(_ assetId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let cleared = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(ValuationOverrideCleared(assetId: assetId)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: cleared, requestHasEffectiveTime: effectiveAt != nil) { [self] db in
            _ = try requireItem(.asset, assetId, db)
            let active = try Valuations(db: db, point: PointInTime(asOf: cleared.effectiveAt)).activeValue(kind: .asset, id: assetId)
            return active?.source == .override ? [cleared] : []
        }
    }

    /// Sets an asset's position: a quantity of a symbol (fractional allowed), valued at that
    /// symbol's quoted price. Records nothing when the same quantity and cost basis are in
    /// force at the effective time.
    ///
    /// ```swift
    /// let vea = try Commodity.named("VEA")
    /// try ledger.setPosition(assetId: "brokerage", quantity: try Money(parsing: "12.5", commodity: vea), costBasis: usd("612.40"))
    /// ```
    ///
    /// - Parameters:
    ///   - quantity: zero or more, in the symbol as a commodity; it replaces the earlier position.
    ///   - costBasis: what the whole position cost; nil when unknown.
    ///   - effectiveAt: when the position holds from (default: now).
    ///   - idempotencyKey: an optional key; a repeat with the same input (and effective
    ///     time, when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `invalidArgument` (a negative quantity), `notFound` (no such
    ///   asset held), `idempotencyConflict`.
    @discardableResult
    public func setPosition(
        assetId: String, quantity: Money, costBasis: Money? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(setPositionCommand(assetId: assetId, quantity: quantity, costBasis: costBasis, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``setPosition(assetId:quantity:costBasis:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func setPositionCommand(
        assetId: String, quantity: Money, costBasis: Money? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let position = PositionSet(assetId: assetId, quantity: quantity, costBasis: costBasis)
        guard !position.quantity.isNegative else { throw LedgerError(.invalidArgument, "a position's quantity cannot be negative") }
        let set = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(position))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: set, requestHasEffectiveTime: effectiveAt != nil) { [self] db in
            if let cost = position.costBasis { try CurrencyRule.require(cost, "the cost basis", db) }
            _ = try requireItem(.asset, position.assetId, at: set.effectiveAt, db)
            if let inForce = try NetWorthRecords.position(of: position.assetId, inForceAt: set.effectiveAt, db),
               inForce.quantity == position.quantity, inForce.costBasis == position.costBasis {
                return []
            }
            return [set]
        }
    }

    /// Records a price for one whole unit of a symbol at the effective time.
    ///
    /// ```swift
    /// try ledger.quotePrice(symbol: try Commodity.named("VEA"), price: usd("49.10"), source: .live)
    /// ```
    ///
    /// - Parameters:
    ///   - symbol: what is priced: a ticker, a crypto asset, a commodity.
    ///   - price: positive, in another commodity than `symbol`.
    ///   - source: `live` (a feed) or `manual`; an asset valued by a live price ranks as live.
    ///   - effectiveAt: when the price was quoted (default: now); it is stale once older than
    ///     the staleness threshold.
    ///   - idempotencyKey: an optional key; a repeat with the same input (and effective
    ///     time, when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `invalidArgument` (not positive, or priced in itself), `idempotencyConflict`.
    @discardableResult
    public func quotePrice(
        symbol: Commodity, price: Money, source: PriceSource,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(quotePriceCommand(symbol: symbol, price: price, source: source, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``quotePrice(symbol:price:source:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func quotePriceCommand(
        symbol: Commodity, price: Money, source: PriceSource,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        try quotePriceCommand(symbol: symbol, price: price.exactDecimal, currency: price.commodity, source: source,
                              effectiveAt: effectiveAt, idempotencyKey: idempotencyKey)
    }

    /// Records a price for one whole unit of a symbol with the decimals it was quoted with,
    /// which may be more than its currency has (issue 32, rule 8): a fund at 80.123 GBP.
    /// Values computed from it (a position's, a conversion through it) are exact and rounded
    /// once, by the one conversion rule, to the currency's scale.
    ///
    /// ```swift
    /// try ledger.quotePrice(symbol: try Commodity.named("VWRL"), price: try ExactDecimal(parsing: "80.123"), currency: .gbp, source: .live)
    /// ```
    ///
    /// - Parameters:
    ///   - symbol: what is priced: a ticker, a crypto asset, a commodity.
    ///   - price: positive, up to 18 decimals.
    ///   - currency: a currency the ledger accepts (``CurrencyRule``), not `symbol`.
    ///   - source: `live` (a feed) or `manual`.
    ///   - effectiveAt: when the price was quoted (default: now).
    ///   - idempotencyKey: an optional key; a repeat with the same input (and effective
    ///     time, when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `invalidArgument` (not positive, priced in itself, an unknown
    ///   currency), `idempotencyConflict`.
    @discardableResult
    public func quotePrice(
        symbol: Commodity, price: ExactDecimal, currency: Commodity, source: PriceSource,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(quotePriceCommand(symbol: symbol, price: price, currency: currency, source: source, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``quotePrice(symbol:price:currency:source:effectiveAt:idempotencyKey:)`` runs, as a value.
    public func quotePriceCommand(
        symbol: Commodity, price: ExactDecimal, currency: Commodity, source: PriceSource,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let quote = PriceQuoted(symbol: symbol, price: price, currency: currency, source: source)
        guard quote.price.significand > 0 else { throw LedgerError(.invalidArgument, "a price must be positive, not \(price)") }
        guard quote.symbol != quote.currency else { throw LedgerError(.invalidArgument, "a symbol cannot be priced in itself") }
        let quoted = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(quote))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: quoted, requestHasEffectiveTime: effectiveAt != nil) { db in
            try CurrencyRule.require(quote.currency, db)
            return [quoted]
        }
    }

    /// Records an exchange rate in force from the effective time: 1 `base` = `rate` `quote`.
    ///
    /// ```swift
    /// try ledger.setFXRate(base: .gbp, quote: .usd, rate: try ExactDecimal(parsing: "1.27"))   // 1 GBP = 1.27 USD
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `invalidArgument` (a rate not above zero, or one currency
    ///   twice), `idempotencyConflict`.
    @discardableResult
    public func setFXRate(
        base: Commodity, quote: Commodity, rate: ExactDecimal,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(setFXRateCommand(base: base, quote: quote, rate: rate, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``setFXRate(base:quote:rate:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func setFXRateCommand(
        base: Commodity, quote: Commodity, rate: ExactDecimal,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let fxRate = FXRateSet(base: base, quote: quote, rate: rate)
        guard rate.significand > 0 else { throw LedgerError(.invalidArgument, "an FX rate must be positive") }
        guard base != quote else { throw LedgerError(.invalidArgument, "an FX rate needs two different currencies") }
        let set = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(fxRate))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: set, requestHasEffectiveTime: effectiveAt != nil) { db in
            try CurrencyRule.require(fxRate.base, db)
            try CurrencyRule.require(fxRate.quote, db)
            return [set]
        }
    }

    /// Changes the base currency answers are given in, from `effectiveAt` (now by default)
    /// until the next change by date; original amounts stay as recorded. A date in the future
    /// changes nothing before it. Records nothing when that currency is already in force at
    /// the effective time (``Ledger/baseCurrency(asOf:knownAt:)``).
    ///
    /// ```swift
    /// try ledger.setBaseCurrency(.gbp)
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    ///   A command that records nothing does not use up its key.
    /// - Throws: ``LedgerError`` `invalidArgument` (not an ISO 4217 currency), `idempotencyConflict`.
    @discardableResult
    public func setBaseCurrency(_ currency: Commodity, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(setBaseCurrencyCommand(currency, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``setBaseCurrency(_:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func setBaseCurrencyCommand(_ currency: Commodity, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        guard currency.isISOCurrency else { throw LedgerError(.invalidArgument, "the base currency must be an ISO 4217 currency, not \(currency.code)") }
        let set = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(BaseCurrencySet(currency: currency)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: set, requestHasEffectiveTime: effectiveAt != nil) { db in
            // A change applies from its date until the next one by date: the same currency
            // already in force on that date changes nothing.
            let unchanged = try LedgerSettings.baseCurrency(at: PointInTime(asOf: set.effectiveAt), db) == currency
            return unchanged ? [] : [set]
        }
    }

    /// Sets how long a price may go without a newer one, while its market is open, before
    /// answers flag it stale; in force from `effectiveAt` (now by default) until the next
    /// change by effective time, so answers about a date use the threshold in force then.
    /// Records nothing when it is the threshold in force then.
    ///
    /// ```swift
    /// try ledger.setPriceStaleness(seconds: 15 * 60)   // 15 minutes
    /// ```
    ///
    /// - Parameters:
    ///   - seconds: the threshold, above zero.
    ///   - effectiveAt: from when (default: now); an earlier date applies from that date.
    ///   - idempotencyKey: an optional key; a repeat with the same threshold returns
    ///     the first result and appends nothing, another threshold is refused. A command that
    ///     records nothing does not use up its key.
    /// - Throws: ``LedgerError`` `invalidArgument` (not above zero), `idempotencyConflict`.
    @discardableResult
    public func setPriceStaleness(seconds: Int64, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(setPriceStalenessCommand(seconds: seconds, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``setPriceStaleness(seconds:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func setPriceStalenessCommand(seconds: Int64, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        guard seconds > 0 else { throw LedgerError(.invalidArgument, "the staleness threshold must be positive") }
        return settingCommand(.priceStalenessSeconds, String(seconds), EventBody(PriceStalenessSet(thresholdSeconds: seconds)), effectiveAt, idempotencyKey)
    }

    /// Sets a reminder to update an asset's value; setting an id again makes a new version.
    /// Records nothing when the reminder is open with the same asset, due date and note from
    /// the effective time or earlier.
    ///
    /// ```swift
    /// try ledger.setReminder(reminderId: "home-value", assetId: "home", dueDate: try LocalDate(parsing: "2026-07-01"),
    ///                        note: "Check recent sales")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `invalidArgument` (a bad id), `notFound` (no such asset held),
    ///   `idempotencyConflict`.
    @discardableResult
    public func setReminder(
        reminderId: String, assetId: String, dueDate: LocalDate, note: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> CommandResult {
        try run(setReminderCommand(reminderId: reminderId, assetId: assetId, dueDate: dueDate, note: note, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``setReminder(reminderId:assetId:dueDate:note:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func setReminderCommand(
        reminderId: String, assetId: String, dueDate: LocalDate, note: String? = nil,
        effectiveAt: Instant? = nil, idempotencyKey: String? = nil
    ) throws -> LedgerCommand {
        let reminder = ReminderSet(reminderId: reminderId, assetId: assetId, dueDate: dueDate, note: note)
        try Self.requireIdentifier(reminder.reminderId, "a reminder id")
        let set = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(reminder))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: set, requestHasEffectiveTime: effectiveAt != nil) { [self] db in
            _ = try requireItem(.asset, reminder.assetId, db)
            if let latest = try NetWorthRecords.latestReminder(reminder.reminderId, db), !latest.isDone, latest.setAt <= set.effectiveAt,
               latest.assetId == reminder.assetId, latest.dueDate == reminder.dueDate, latest.note == reminder.note {
                return []
            }
            return [set]
        }
    }

    /// Marks a reminder done. Records nothing when it is done already.
    ///
    /// ```swift
    /// try ledger.completeReminder("home-value")
    /// ```
    ///
    /// - Parameter idempotencyKey: an optional key; a repeat with the same input (and effective
    ///   time, when given) returns the first result and appends nothing, other input is refused.
    /// - Throws: ``LedgerError`` `notFound` (no reminder with that id), `idempotencyConflict`.
    @discardableResult
    public func completeReminder(_ reminderId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(completeReminderCommand(reminderId, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``completeReminder(_:effectiveAt:idempotencyKey:)`` runs, as a value: for `run(batch:)`
    /// (many commands, one commit) or the async `run(_:)`. It checks its input at once and is
    /// planned when the pipeline reaches it.
    public func completeReminderCommand(_ reminderId: String, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let completed = NewEvent(effectiveAt: effectiveAt ?? now, body: EventBody(ReminderCompleted(reminderId: reminderId)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: completed, requestHasEffectiveTime: effectiveAt != nil) { db in
            guard let latest = try NetWorthRecords.latestReminder(reminderId, db) else {
                throw LedgerError(.notFound, "no reminder '\(reminderId)'; set it first (tally reminder set)")
            }
            return latest.isDone ? [] : [completed]
        }
    }
}

extension Ledger {
    /// The currency an asset or liability is valued in, if it was ever added (removed ones
    /// included); nil otherwise.
    ///
    /// ```swift
    /// let currency = try ledger.currency(of: .asset, "home")   // .usd
    /// ```
    public func currency(of kind: ItemKind, _ id: String) throws -> Commodity? {
        try read { db in
            try NetWorthHistory.item(kind: kind, id: id, db)?.currency
        }
    }
}
