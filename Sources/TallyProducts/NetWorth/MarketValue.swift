public import TallyEngine
import GRDB

/// One step of a conversion: from one commodity to another through a recorded quote,
/// multiplying by it, or dividing when the quote is the other way round.
public struct ConversionStep: Hashable, Sendable {
    /// The commodity converted from.
    public let from: Commodity
    /// The commodity converted into.
    public let to: Commodity
    /// The price or rate used.
    public let quote: MarketQuote

    /// Whether the quote is the other way round (1 `to` = value `from`), so the step divides.
    public var isInverted: Bool { quote.base != from }
}

/// How a commodity was converted into the value currency: one step (a price or a rate,
/// either way round) or two through a third commodity.
public struct MarketConversion: Hashable, Sendable {
    /// The steps, in order: one, or two through ``via``.
    public let steps: [ConversionStep]

    /// How, in one word: `price` (the commodity's price in the value currency), `rate`
    /// (a rate from it), `inverse_price` / `inverse_rate` (quoted the other way round,
    /// divided), or `via` (two steps through a third commodity, ``via``).
    public var method: String {
        guard steps.count == 1, let step = steps.first else { return "via" }
        return (step.isInverted ? "inverse_" : "") + step.quote.kind.rawValue
    }

    /// The commodity a two-step conversion goes through.
    public var via: Commodity? { steps.count == 2 ? steps[0].to : nil }
}

/// One account's balance in one commodity and what it was worth in the value currency.
public struct ValuedHolding: Hashable, Sendable {
    /// The balance, in its own commodity.
    public let units: Money
    /// Its value in the value currency, rounded once (half-even); nil when not converted.
    public let value: Money?
    /// How it was converted; nil when it already was in the value currency, or when it was
    /// not converted.
    public let conversion: MarketConversion?
}

/// One account's market value: the sum of its converted holdings, and what could not be
/// converted, left in its own units.
public struct AccountValue: Hashable, Sendable {
    /// The account's name.
    public let account: String
    /// What kind of account it is.
    public let kind: AccountKind
    /// The sum of the account's converted holdings' values; nil when none was converted.
    public let value: Money?
    /// Every non-zero balance of the account, by commodity.
    public let holdings: [ValuedHolding]

    /// The balances without a price or rate, in their own units.
    public var unconverted: [Money] { holdings.filter { $0.value == nil }.map(\.units) }
}

/// Every account's balances valued in one currency at a point in time
/// (``Ledger/marketValues(in:asOf:knownAt:)``).
public struct MarketValueReport: Hashable, Sendable {
    /// The value currency.
    public let currency: Commodity
    /// Every account with a non-zero balance, by name.
    public let accounts: [AccountValue]
    /// Every commodity some balance is held in that had no price or rate into ``currency``
    /// at the point, by code: those balances stay in their own units.
    public let notConverted: [Commodity]

    /// The report as balance rows, the shape `balances --format csv` prints: per account,
    /// its value in ``currency`` when anything was converted and the sum is not zero, then
    /// each unconverted balance in its own commodity; by account, then commodity code.
    public var rows: [AccountBalance] {
        accounts.flatMap { account in
            var rows = account.unconverted.map { AccountBalance(account: account.account, kind: account.kind, amount: $0) }
            if let value = account.value, !value.isZero { rows.append(AccountBalance(account: account.account, kind: account.kind, amount: value)) }
            return rows.sorted { $0.amount.commodity.code.utf8.lexicographicallyPrecedes($1.amount.commodity.code.utf8) }
        }
    }
}

/// The one conversion rule (``ConversionRule``) over the prices and FX rates the ledger
/// recorded (the net worth read model), at one point in time and into one currency:
/// `balances --value`, net worth, the X-ray and the budget all convert through it.
///
/// Each amount converts at the latest quote effective at or before the point and recorded
/// by it: a direct quote between its commodity and the currency (its price in the
/// currency, a rate from it, or, divided, the currency's price in it or a rate into it,
/// whichever took effect last); else one hop through a third commodity (VEA priced in USD,
/// valued in EUR through a USD/EUR rate); else it is not converted, stays in its own units
/// and is named by the caller (never a silent zero). Each amount's value is rounded once,
/// half-even; an account's value is the sum of those rounded values.
struct MarketValuation {
    let quotes: MarketQuotes
    let graph: MarketQuoteGraph
    let currency: Commodity
    private var conversions: [Commodity: MarketConversion?] = [:]

    init(_ db: Database, point: PointInTime, currency: Commodity) throws {
        quotes = MarketQuotes(db: db, point: point)
        graph = try quotes.graph()
        self.currency = currency
    }

    /// The conversion of `commodity` into the currency (looked up once per commodity).
    mutating func conversion(of commodity: Commodity) throws -> MarketConversion? {
        if let known = conversions[commodity] { return known }
        let found = try findConversion(of: commodity)
        conversions[commodity] = found
        return found
    }

    /// Values one balance.
    mutating func value(of units: Money) throws -> ValuedHolding {
        if units.commodity == currency { return ValuedHolding(units: units, value: units, conversion: nil) }
        guard let conversion = try conversion(of: units.commodity) else { return ValuedHolding(units: units, value: nil, conversion: nil) }
        let value = try ConversionRule.convert(units, to: currency, along: conversion.steps.map(\.quote))
        return ValuedHolding(units: units, value: value, conversion: conversion)
    }

    /// `money` in the currency by the rule.
    ///
    /// - Throws: ``MissingRate`` when it is not converted; ``MoneyError`` on overflow.
    mutating func converted(_ money: Money) throws -> Money {
        guard let value = try value(of: money).value else { throw MissingRate(from: money.commodity.code, to: currency.code) }
        return value
    }

    /// An item's active value in the currency: a position's from its quantity, through its
    /// unit price and on from the price's currency by the rule, rounded once; any other
    /// value as ``converted(_:)-(Money)``.
    ///
    /// - Throws: ``MissingRate`` when it is not converted; ``MoneyError`` on overflow.
    mutating func converted(_ value: ActiveValue) throws -> Money {
        guard let pricing = value.pricing, value.value.commodity != currency else { return try converted(value.value) }
        guard let conversion = try conversion(of: value.value.commodity) else {
            throw MissingRate(from: value.value.commodity.code, to: currency.code)
        }
        return try ConversionRule.convert(
            pricing.quantity, to: currency, through: [ConversionFactor(rate: pricing.unitPrice)], from: value.value.commodity,
            along: conversion.steps.map(\.quote))
    }

    private func findConversion(of commodity: Commodity) throws -> MarketConversion? {
        let neighbours = try (graph.neighbours[commodity.code] ?? []).map(Commodity.named)
        guard let route = try ConversionRule.route(from: commodity, to: currency, neighbours: neighbours, latest: latestQuote) else { return nil }
        var from = commodity
        return MarketConversion(steps: route.map { quote in
            let to = quote.base == from ? quote.quote : quote.base
            defer { from = to }
            return ConversionStep(from: from, to: to, quote: quote)
        })
    }

    /// The latest direct quote between two commodities, either way round.
    private func latestQuote(between source: Commodity, and target: Commodity) throws -> MarketQuote? {
        var candidates: [MarketQuote] = []
        if graph.has(.price, base: source, quote: target), let quote = try quotes.latestPrice(of: source, in: target) { candidates.append(quote) }
        if graph.has(.rate, base: source, quote: target), let quote = try quotes.latestRate(base: source, quote: target) { candidates.append(quote) }
        if graph.has(.price, base: target, quote: source), let quote = try quotes.latestPrice(of: target, in: source) { candidates.append(quote) }
        if graph.has(.rate, base: target, quote: source), let quote = try quotes.latestRate(base: target, quote: source) { candidates.append(quote) }
        return candidates.max { $1.isLater(than: $0) }
    }
}

extension Ledger {
    /// Every account's balances valued in `currency` at a point in time, as `ledger bal -X`,
    /// `hledger bal -V` and bean-query's `convert` do (the rule: ``MarketValuation``).
    ///
    /// ```swift
    /// let end = ledger.calendar.endOfDay(try LocalDate(parsing: "2026-03-31"))
    /// let report = try ledger.marketValues(in: .eur, asOf: end)
    /// for row in report.rows { print(row.account, row.amount) }
    /// print(report.notConverted)   // commodities without a price or rate then
    /// ```
    ///
    /// - Parameters:
    ///   - currency: the value currency.
    ///   - asOf: balances and quotes effective at or before this instant (all when nil).
    ///   - knownAt: only what the ledger had recorded at this instant (everything when nil).
    /// - Throws: ``MoneyError`` when a value does not fit in 64-bit minor units.
    public func marketValues(in currency: Commodity, asOf: Instant? = nil, knownAt: Instant? = nil) throws -> MarketValueReport {
        try read { db in
            let balances = try BalanceQueries.balances(db, asOf: asOf, knownAt: knownAt).filter { !$0.amount.isZero }
            let point = PointInTime(asOf: asOf ?? Instant(microsecondsSinceEpoch: Int64.max), knownAt: knownAt)
            var valuation = try MarketValuation(db, point: point, currency: currency)
            var accounts: [AccountValue] = []
            var notConverted: Set<Commodity> = []
            var index = balances.startIndex
            while index < balances.endIndex {
                let account = balances[index]
                var holdings: [ValuedHolding] = []
                var total: Money?
                while index < balances.endIndex, balances[index].account == account.account {
                    let holding = try valuation.value(of: balances[index].amount)
                    if let value = holding.value {
                        total = try total.map { try $0.adding(value) } ?? value
                    } else {
                        notConverted.insert(holding.units.commodity)
                    }
                    holdings.append(holding)
                    index += 1
                }
                accounts.append(AccountValue(account: account.account, kind: account.kind, value: total, holdings: holdings))
            }
            return MarketValueReport(
                currency: currency, accounts: accounts,
                notConverted: notConverted.sorted { $0.code.utf8.lexicographicallyPrecedes($1.code.utf8) })
        }
    }
}
