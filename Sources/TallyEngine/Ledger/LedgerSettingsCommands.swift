package import GRDB

// Commands that set the ledger's settings and declare commodities, and the one rule for
// which codes a command accepts as a currency.

/// The one rule for currency codes, the same in every command and import that takes one:
/// an ISO 4217 currency, a code on Tally's built-in list (USDC, USDT, EURC, PYUSD, BTC,
/// ETH), or a code the ledger declared (`commodity_declared`). Anything else is refused
/// with the same message, naming the code and how to declare it.
///
/// A position's symbol (a ticker such as `VEA`) is not a currency: it is what a price
/// prices, not what amounts are counted in, and any well-formed code is accepted there.
public enum CurrencyRule {
    /// The built-in non-ISO codes, by code.
    public static var builtInCodes: [String] { Commodity.cryptoScales.keys.sorted() }

    /// The message every refusal of `code` carries.
    public static func unknownMessage(_ code: String) -> String {
        "'\(code)' is not a currency this ledger knows: not an ISO 4217 code, not one of "
            + "\(builtInCodes.joined(separator: ", ")), and not declared; declare it first, e.g. "
            + "`tally commodity declare \(code) --scale 2` (Ledger.declareCommodity)"
    }

    /// `code` as a currency of this ledger.
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` for a malformed code, or one the rule refuses.
    package static func currency(_ code: String, _ db: Database) throws -> Commodity {
        let commodity: Commodity
        do { commodity = try Commodity.named(code) } catch { throw LedgerError(.invalidArgument, "\(error)") }
        try require(commodity, db)
        return commodity
    }

    /// Refuses a commodity the rule does not accept as a currency.
    package static func require(_ commodity: Commodity, _ db: Database) throws {
        if commodity.isISOCurrency || Commodity.cryptoScales[commodity.code] != nil { return }
        guard try LedgerSettings.declaredScale(of: commodity.code, db) != nil else {
            throw LedgerError(.invalidArgument, unknownMessage(commodity.code))
        }
    }

    /// Refuses an amount in a currency the rule does not accept, or one finer than its
    /// declared scale (declared commodities are kept at scale 8 in the log, as every code
    /// outside ISO 4217 and the built-in list; the declared scale limits what they carry).
    package static func require(_ amount: Money, _ what: String, _ db: Database) throws {
        try require(amount.commodity, db)
        guard let scale = try LedgerSettings.declaredScale(of: amount.commodity.code, db), Int(scale) < amount.commodity.scale else { return }
        var unit: Int64 = 1
        for _ in 0..<(amount.commodity.scale - Int(scale)) { unit *= 10 }
        guard amount.minorUnits % unit == 0 else {
            throw LedgerError(.invalidArgument, "\(what) \(amount.decimalString) \(amount.commodity.code) has more than the \(scale) decimal places \(amount.commodity.code) was declared with")
        }
    }
}

extension Ledger {
    /// `code` as a currency of this ledger: ISO 4217, built in (USDC …) or declared
    /// (``CurrencyRule``).
    ///
    /// ```swift
    /// let pence = try ledger.currency("GBX")   // refused until `declareCommodity(code: "GBX", scale: 2)`
    /// ```
    ///
    /// - Throws: ``LedgerError`` `invalidArgument`, naming the code and how to declare it.
    public func currency(_ code: String) throws -> Commodity {
        try read { try CurrencyRule.currency(code, $0) }
    }

    /// Declares a commodity code that is neither ISO 4217 nor built in, with the decimal
    /// places its amounts may carry, so every command accepts it as a currency. Records
    /// nothing when it is declared already with that scale.
    ///
    /// ```swift
    /// try ledger.declareCommodity(code: "GBX", scale: 2)
    /// ```
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` (a malformed code, an ISO or built-in
    ///   code, a scale outside 0...8, or another scale than it was declared with),
    ///   `idempotencyConflict`.
    @discardableResult
    public func declareCommodity(code: String, scale: Int64, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(declareCommodityCommand(code: code, scale: scale, idempotencyKey: idempotencyKey))
    }

    /// The command ``declareCommodity(code:scale:idempotencyKey:)`` runs, as a value.
    public func declareCommodityCommand(code: String, scale: Int64, idempotencyKey: String? = nil) throws -> LedgerCommand {
        let commodity: Commodity
        do { commodity = try Commodity.named(code) } catch { throw LedgerError(.invalidArgument, "\(error)") }
        guard !commodity.isISOCurrency, Commodity.cryptoScales[code] == nil else {
            throw LedgerError(.invalidArgument, "\(code) is \(commodity.isISOCurrency ? "an ISO 4217 currency" : "built in") with scale \(commodity.scale); it needs no declaration")
        }
        guard (0...Int64(commodity.scale)).contains(scale) else {
            throw LedgerError(.invalidArgument, "the scale of \(code) must be 0 to \(commodity.scale) decimal places, not \(scale)")
        }
        let declared = NewEvent(effectiveAt: now, body: EventBody(CommodityDeclared(code: code, scale: scale)))
        return LedgerCommand(idempotencyKey: idempotencyKey, request: declared) { db in
            guard let existing = try LedgerSettings.declaredScale(of: code, db) else { return [declared] }
            guard existing == scale else {
                throw LedgerError(.invalidArgument, "\(code) was declared with scale \(existing); a declared scale never changes")
            }
            return []
        }
    }

    /// Sets how many days ahead a bill counts as due soon, from `effectiveAt` (now by
    /// default) until the next change by effective time. Records nothing when that window
    /// is in force then.
    ///
    /// ```swift
    /// try ledger.setDueSoonDays(7)
    /// ```
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` (below 0 or above 366), `idempotencyConflict`.
    @discardableResult
    public func setDueSoonDays(_ days: Int64, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(setDueSoonDaysCommand(days, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The command ``setDueSoonDays(_:effectiveAt:idempotencyKey:)`` runs, as a value.
    public func setDueSoonDaysCommand(_ days: Int64, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        guard (0...366).contains(days) else { throw LedgerError(.invalidArgument, "the due-soon window must be 0 to 366 days, not \(days)") }
        return settingCommand(.dueSoonDays, String(days), EventBody(DueSoonWindowSet(days: days)), effectiveAt, idempotencyKey)
    }

    /// Sets how many rows a page of a list holds when none is given, from `effectiveAt`
    /// (now by default) until the next change by effective time. Records nothing when that
    /// page size is in force then.
    ///
    /// ```swift
    /// try ledger.setPageSize(25)
    /// ```
    ///
    /// - Throws: ``LedgerError`` `invalidArgument` (below 1 or above 500), `idempotencyConflict`.
    @discardableResult
    public func setPageSize(_ rows: Int64, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> CommandResult {
        try run(setPageSizeCommand(rows, effectiveAt: effectiveAt, idempotencyKey: idempotencyKey))
    }

    /// The largest page size a setting may hold.
    public static let pageSizeSettingLimit = Int64(ListPage.pageSizeLimit)

    /// The command ``setPageSize(_:effectiveAt:idempotencyKey:)`` runs, as a value.
    public func setPageSizeCommand(_ rows: Int64, effectiveAt: Instant? = nil, idempotencyKey: String? = nil) throws -> LedgerCommand {
        guard (1...Self.pageSizeSettingLimit).contains(rows) else {
            throw LedgerError(.invalidArgument, "the page size must be 1 to \(Self.pageSizeSettingLimit) rows, not \(rows)")
        }
        return settingCommand(.pageSize, String(rows), EventBody(PageSizeSet(rows: rows)), effectiveAt, idempotencyKey)
    }

    /// A command recording `body` at `effectiveAt` (now when nil) unless `setting` already
    /// has `value` in force then.
    package func settingCommand(
        _ setting: LedgerSetting, _ value: String, _ body: EventBody, _ effectiveAt: Instant?, _ idempotencyKey: String?
    ) -> LedgerCommand {
        let set = NewEvent(effectiveAt: effectiveAt ?? now, body: body)
        return LedgerCommand(idempotencyKey: idempotencyKey, request: set, requestHasEffectiveTime: effectiveAt != nil) { db in
            let inForce = try LedgerSettings.read(db, point: PointInTime(asOf: set.effectiveAt))
            return inForce.values.first { $0.setting == setting }?.value == value ? [] : [set]
        }
    }
}

extension Ledger {
    /// Every commodity the ledger declared (`commodity_declared`), by code, with its scale.
    public func declaredCommodities() throws -> [(code: String, scale: Int64)] {
        try read { try LedgerSettings.declaredCommodities($0) }
    }
}

extension Ledger {
    /// Refuses an amount in a currency the ledger does not know (``CurrencyRule``), or finer
    /// than the scale its commodity was declared with.
    ///
    /// - Throws: ``LedgerError`` `invalidArgument`.
    public func requireCurrency(_ amount: Money, _ what: String = "the amount") throws {
        try read { try CurrencyRule.require(amount, what, $0) }
    }
}
