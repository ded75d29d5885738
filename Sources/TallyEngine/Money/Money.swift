/// An exact amount of a commodity: a whole number of minor units (cents for
/// USD, yen for JPY, satoshis for BTC) and the commodity they count.
///
/// ```swift
/// let coffee = try Money(parsing: "3.40", commodity: .usd)
/// coffee.minorUnits                        // 340
/// coffee.description                       // "3.40 USD"
/// try coffee.remainderToNextWholeUnit()    // 0.60 USD, the round-up
/// let parts = try Money(parsing: "100.00", commodity: .usd).allocated(byRatios: [70, 30])
/// ```
///
/// There is no binary floating point anywhere: arithmetic is on `Int64`
/// minor units with `Int128` intermediates, every result that leaves the
/// range of `Int64` throws ``MoneyError/Code/overflow`` instead of wrapping,
/// and every rounding names its ``RoundingRule``.
///
/// `Money` is deliberately not `Comparable` or `AdditiveArithmetic`: amounts
/// of different commodities have no order and no sum, so those operations
/// throw (``adding(_:)``, ``isLess(than:)``). `==` is total: amounts in
/// different commodities are simply unequal.
public struct Money: Hashable, Sendable, CustomStringConvertible {
    /// The amount as a whole number of the commodity's smallest unit:
    /// `1234` for 12.34 USD, `1000` for 1000 JPY.
    public let minorUnits: Int64
    /// What the amount counts; its scale fixes the meaning of ``minorUnits``.
    public let commodity: Commodity

    /// An amount from minor units.
    ///
    /// ```swift
    /// let price = Money(minorUnits: 1234, commodity: .usd)   // 12.34 USD
    /// ```
    ///
    /// - Parameters:
    ///   - minorUnits: the amount in the commodity's smallest unit.
    ///   - commodity: what the amount counts.
    public init(minorUnits: Int64, commodity: Commodity) {
        self.minorUnits = minorUnits
        self.commodity = commodity
    }

    /// Parses an exact amount written in the commodity's major unit.
    ///
    /// Accepted: an optional leading `-`, ASCII digits, optionally a `.` with
    /// digits on both sides: `"12.34"`, `"-0.5"` (= -0.50 USD), `"1000"`,
    /// `"0.10"`. Fewer fractional digits than the scale are padded. More are
    /// accepted only if the extra digits are zeros (`"1.230"` for USD).
    ///
    /// Rejected: `""`, `"-"`, `"+1"`, `"--1"`, `".5"`, `"1."`, `"1e3"`,
    /// `"1,000.00"`, any whitespace (`" 1"`), non-ASCII digits, text longer
    /// than 64 characters, and values outside `Int64` minor units (never
    /// wraps).
    ///
    /// ```swift
    /// let fee = try Money(parsing: "1.005", commodity: .bhd)   // 1005 minor units
    /// ```
    ///
    /// - Parameters:
    ///   - text: the amount, e.g. user input or a CSV field.
    ///   - commodity: the commodity, which fixes how many decimals are allowed.
    /// - Throws: ``LedgerError``, the engine's one error type, as every public
    ///   entry point does: `invalidArgument` for text that is not a number in
    ///   this syntax or has non-zero digits past the commodity's scale,
    ///   `overflow` for values too large for 64-bit minor units. Its
    ///   ``LedgerError/underlying`` is the ``MoneyError`` with the finer code
    ///   (``MoneyError/Code/invalidNumber``, ``MoneyError/Code/tooManyDecimals``,
    ///   ``MoneyError/Code/overflow``); the message quotes the text.
    ///
    /// ```swift
    /// do {
    ///     _ = try Money(parsing: input, commodity: .usd)
    /// } catch let error as LedgerError where error.code == .invalidArgument {
    ///     print(error.message)   // the USD amount "12.345" has 3 decimal places …
    /// }
    /// ```
    public init(parsing text: String, commodity: Commodity) throws {
        do {
            try self.init(exactly: text, commodity: commodity)
        } catch {
            throw LedgerError.reporting(error) ?? error
        }
    }

    /// ``init(parsing:commodity:)`` throwing the ``MoneyError`` itself, for the engine's own
    /// readers (a CSV field names its own reason).
    package init(exactly text: String, commodity: Commodity) throws {
        let parsed = try DecimalText(text, what: "the \(commodity.code) amount")
        let scale = commodity.scale
        let fraction = parsed.fractionDigits
        if fraction.count > scale, fraction[scale...].contains(where: { $0 != 0 }) {
            let places = (fraction.lastIndex(where: { $0 != 0 }) ?? 0) + 1
            let allowed = scale == 0 ? "no decimal places" : "at most \(scale) decimal place\(scale == 1 ? "" : "s")"
            throw MoneyError(
                .tooManyDecimals,
                "the \(commodity.code) amount \(MoneyError.quoted(text)) has \(places) decimal places, but \(commodity.code) allows \(allowed); round it to \(scale) places first"
            )
        }
        let limit = parsed.isNegative ? DecimalText.negativeMagnitudeLimit : Int128(Int64.max)
        let padded = fraction.prefix(scale) + Array(repeating: 0, count: max(0, scale - fraction.count))
        guard let magnitude = DecimalText.magnitude(of: parsed.integerDigits + padded, limit: limit) else {
            throw MoneyError(
                .overflow,
                "the \(commodity.code) amount \(MoneyError.quoted(text)) is too large; amounts must fit in 64-bit minor units"
            )
        }
        self.init(minorUnits: Int64(parsed.isNegative ? -magnitude : magnitude), commodity: commodity)
    }

    /// Zero in `commodity`.
    ///
    /// ```swift
    /// var total = Money.zero(.usd)
    /// ```
    ///
    /// - Parameter commodity: the commodity.
    public static func zero(_ commodity: Commodity) -> Money {
        Money(minorUnits: 0, commodity: commodity)
    }

    /// The amount in the major unit with exactly the commodity's scale of
    /// fractional digits; no grouping, no currency: `"-0.50"`, `"1000.00"`,
    /// JPY `"1000"`, BHD `"1.005"`, scale 8 `"0.00000001"`.
    /// ``init(parsing:commodity:)`` reads it back to the same amount.
    ///
    /// ```swift
    /// Money(minorUnits: -50, commodity: .usd).decimalString   // "-0.50"
    /// ```
    public var decimalString: String {
        DecimalFormatting.string(minorUnits, scale: commodity.scale)
    }

    /// The amount as an exact decimal at the commodity's scale: 12.34 USD is `12.34`.
    ///
    /// ```swift
    /// Money(minorUnits: 1234, commodity: .usd).exactDecimal   // 12.34
    /// ```
    public var exactDecimal: ExactDecimal {
        ExactDecimal(uncheckedSignificand: minorUnits, scale: commodity.scale)
    }

    /// The ``decimalString`` and the commodity code: `"12.34 USD"`.
    public var description: String {
        decimalString + " " + commodity.code
    }

    /// Whether the amount is zero.
    ///
    /// ```swift
    /// Money.zero(.usd).isZero   // true
    /// ```
    public var isZero: Bool { minorUnits == 0 }
    /// Whether the amount is below zero.
    ///
    /// ```swift
    /// Money(minorUnits: -1, commodity: .usd).isNegative   // true
    /// ```
    public var isNegative: Bool { minorUnits < 0 }
    /// Whether the amount is above zero.
    ///
    /// ```swift
    /// Money(minorUnits: 1, commodity: .usd).isPositive   // true
    /// ```
    public var isPositive: Bool { minorUnits > 0 }

    /// Whether this amount is smaller than `other`, in the same commodity.
    ///
    /// The one ordering API on `Money`: the other comparisons follow from it
    /// (`a > b` is `try b.isLess(than: a)`, `a >= b` is
    /// `try !a.isLess(than: b)`).
    ///
    /// ```swift
    /// if try spend.isLess(than: purchase) { /* refuse: not enough in Spend */ }
    /// ```
    ///
    /// - Parameter other: an amount in the same commodity.
    /// - Throws: ``MoneyError/Code/commodityMismatch`` if the commodities
    ///   differ (including the same code at another scale).
    public func isLess(than other: Money) throws -> Bool {
        try requireSameCommodity(other, operation: "compare")
        return minorUnits < other.minorUnits
    }

    func requireSameCommodity(_ other: Money, operation: String) throws {
        guard commodity == other.commodity else {
            let lhs = "\(commodity.code) (scale \(commodity.scale))"
            let rhs = "\(other.commodity.code) (scale \(other.commodity.scale))"
            throw MoneyError(
                .commodityMismatch,
                "cannot \(operation) amounts in \(lhs) and \(rhs); convert one with converted(to:rate:) first"
            )
        }
    }

    /// `value` as minor units of `commodity`, or an overflow error that names
    /// the operation (not the amounts).
    package static func checkedMinorUnits(_ value: Int128, commodity: Commodity, operation: String) throws -> Int64 {
        guard let minorUnits = value.exactInt64 else {
            throw overflowError(commodity: commodity, operation: operation)
        }
        return minorUnits
    }

    package static func overflowError(commodity: Commodity, operation: String) -> MoneyError {
        MoneyError(
            .overflow,
            "the result of \(operation) in \(commodity.code) does not fit in 64-bit minor units; work with smaller amounts"
        )
    }
}
