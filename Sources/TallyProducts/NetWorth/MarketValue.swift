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

    var factor: ConversionFactor { ConversionFactor(rate: quote.value, isInverted: isInverted) }
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

/// The market-value rule, in one place.
///
/// Each (account, commodity) balance converts into the value currency at the latest quote
/// effective at or before the point and recorded by it:
/// 1. a direct quote between the commodity and the currency: its price in the currency, a
///    rate from it, or (divided) the currency's price in it or a rate into it, whichever
///    took effect last (the later event on a tie), as net worth's rates do
///    (``FXQuote/convert(_:to:direct:inverse:)``);
/// 2. else one hop through a third commodity that has a direct quote (as in 1) with both:
///    VEA priced in USD, valued in EUR through a USD/EUR rate. Of several such commodities,
///    the one whose first step took effect last, then the one whose second step did, then
///    the first by code;
/// 3. else the balance is not converted: it stays in its own units and its commodity is
///    listed (never a silent zero).
///
/// Rounding: each balance's value is computed exactly through its steps and rounded once,
/// half-even, to the currency's scale (``Money/converted(to:through:rounding:)``); an
/// account's value is the sum of those rounded values.
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
        let value = try units.converted(to: currency, through: conversion.steps.map(\.factor))
        return ValuedHolding(units: units, value: value, conversion: conversion)
    }

    private func findConversion(of commodity: Commodity) throws -> MarketConversion? {
        if let step = try latestStep(from: commodity, to: currency) { return MarketConversion(steps: [step]) }
        var best: (first: ConversionStep, second: ConversionStep)?
        for code in (graph.neighbours[commodity.code] ?? []).sorted() where code != currency.code {
            let middle = try Commodity.named(code)
            guard let first = try latestStep(from: commodity, to: middle), let second = try latestStep(from: middle, to: currency) else { continue }
            if let current = best {
                let better = first.quote.isLater(than: current.first.quote)
                    || (!current.first.quote.isLater(than: first.quote) && second.quote.isLater(than: current.second.quote))
                if !better { continue }
            }
            best = (first, second)
        }
        return best.map { MarketConversion(steps: [$0.first, $0.second]) }
    }

    /// The latest direct quote between two commodities, either way round.
    private func latestStep(from source: Commodity, to target: Commodity) throws -> ConversionStep? {
        var candidates: [MarketQuote] = []
        if graph.has(.price, base: source, quote: target), let quote = try quotes.latestPrice(of: source, in: target) { candidates.append(quote) }
        if graph.has(.rate, base: source, quote: target), let quote = try quotes.latestRate(base: source, quote: target) { candidates.append(quote) }
        if graph.has(.price, base: target, quote: source), let quote = try quotes.latestPrice(of: target, in: source) { candidates.append(quote) }
        if graph.has(.rate, base: target, quote: source), let quote = try quotes.latestRate(base: target, quote: source) { candidates.append(quote) }
        guard let latest = candidates.max(by: { $1.isLater(than: $0) }) else { return nil }
        return ConversionStep(from: source, to: target, quote: latest)
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
