extension Money {
    /// Converts into another commodity at an exact rate, rounding once to the
    /// target's scale.
    ///
    /// `rate` is how many target units one whole unit of this commodity is
    /// worth (1 EUR = 1.0825 USD → rate `1.0825` converting EUR to USD). The
    /// exact product is computed in `Int128` and rounded once by `rounding`.
    ///
    /// ```swift
    /// let eur = try Money(parsing: "10.00", commodity: .eur)
    /// let usd = try eur.converted(to: .usd, rate: ExactDecimal(parsing: "1.0825"))   // 10.82 USD
    /// let yen = try usd.converted(to: .jpy, rate: ExactDecimal(parsing: "151.37"))   // 1638 JPY
    /// ```
    ///
    /// - Parameters:
    ///   - target: the commodity to convert into; may equal this one (a rate
    ///     of ``ExactDecimal/one`` then returns the same amount).
    ///   - rate: target units per one unit of this commodity; may be zero or
    ///     negative, the arithmetic is the same.
    ///   - rounding: how to round to the target's scale; half-even by default.
    /// - Throws: ``MoneyError/Code/overflow`` if the result does not fit in
    ///   64-bit minor units of `target`.
    public func converted(
        to target: Commodity,
        rate: ExactDecimal,
        rounding: RoundingRule = .halfEven
    ) throws -> Money {
        // target minor = minorUnits * significand * 10^(target.scale - scale - rate.scale)
        let product = Int128(minorUnits) * Int128(rate.significand)   // |product| <= 2^126
        let exponent = target.scale - commodity.scale - rate.scale   // -36...18
        let operation = "a conversion to \(target.code)"
        let rounded: Int128
        if exponent >= 0 {
            let (scaled, overflow) = product.multipliedReportingOverflow(by: PowerOfTen.int128(exponent))
            // An exact integer past Int128 is far past Int64.
            guard !overflow else { throw Self.overflowError(commodity: target, operation: operation) }
            rounded = scaled
        } else {
            rounded = RationalRounding.rounded(product, dividedBy: PowerOfTen.int128(-exponent), rule: rounding)
        }
        let result = try Self.checkedMinorUnits(rounded, commodity: target, operation: operation)
        return Money(minorUnits: result, commodity: target)
    }

    /// Converts at a rate quoted the other way round: 1 `target` = `rate` units of this
    /// money's commodity (a GBP/USD rate of 1.25 turns 125.00 USD into 100.00 GBP), dividing
    /// exactly and rounding once.
    ///
    /// ```swift
    /// let pounds = try usd.converted(to: .gbp, inverseOf: try ExactDecimal(parsing: "1.25"))
    /// ```
    /// - Throws: ``MoneyError`` `.divisionByZero` for a rate that is not positive,
    ///   `.overflow` when the result does not fit.
    public func converted(
        to target: Commodity,
        inverseOf rate: ExactDecimal,
        rounding: RoundingRule = .halfEven
    ) throws -> Money {
        guard rate.significand > 0 else {
            throw MoneyError(.divisionByZero, "a conversion to \(target.code) needs a positive rate")
        }
        // target minor = minorUnits * 10^(target.scale + rate.scale - scale) / significand
        let operation = "a conversion to \(target.code)"
        let exponent = target.scale + rate.scale - commodity.scale   // -18...36
        var numerator = Int128(minorUnits)
        var denominator = Int128(rate.significand)
        if exponent >= 0 {
            let (scaled, overflow) = numerator.multipliedReportingOverflow(by: PowerOfTen.int128(exponent))
            guard !overflow else { throw Self.overflowError(commodity: target, operation: operation) }
            numerator = scaled
        } else {
            denominator *= PowerOfTen.int128(-exponent)   // ≤ 2^63 · 10^18 < 2^127
        }
        let rounded = RationalRounding.rounded(numerator, dividedBy: denominator, rule: rounding)
        return Money(minorUnits: try Self.checkedMinorUnits(rounded, commodity: target, operation: operation), commodity: target)
    }

    /// The value of a quantity at a unit price, in the price's commodity,
    /// rounded once to its scale.
    ///
    /// `quantity` counts the held commodity (1.5 shares of VEA at scale 8);
    /// `unitPrice` is the price of one whole unit of it (102.37 USD). The
    /// exact product is computed in `Int128` and rounded once.
    ///
    /// ```swift
    /// let vea = try Commodity.named("VEA")
    /// let shares = try Money(parsing: "1.5", commodity: vea)
    /// let price = try Money(parsing: "102.37", commodity: .usd)
    /// let value = try Money.value(ofQuantity: shares, atUnitPrice: price)   // 153.56 USD (153.555, half-even)
    /// ```
    ///
    /// - Parameters:
    ///   - quantity: how much is held; negative for a short position.
    ///   - unitPrice: the price of one whole unit of `quantity`'s commodity.
    ///   - rounding: how to round to the price's scale; half-even by default.
    /// - Throws: ``MoneyError/Code/overflow`` if the value does not fit in
    ///   64-bit minor units of the price's commodity.
    public static func value(
        ofQuantity quantity: Money,
        atUnitPrice unitPrice: Money,
        rounding: RoundingRule = .halfEven
    ) throws -> Money {
        // price minor = quantity minor * price minor / 10^quantity.scale
        let product = Int128(quantity.minorUnits) * Int128(unitPrice.minorUnits)   // |product| <= 2^126
        let rounded = RationalRounding.rounded(
            product,
            dividedBy: PowerOfTen.int128(quantity.commodity.scale),
            rule: rounding
        )
        let result = try checkedMinorUnits(rounded, commodity: unitPrice.commodity, operation: "a valuation")
        return Money(minorUnits: result, commodity: unitPrice.commodity)
    }
}

/// One step of a conversion chain: multiply by ``rate``, or divide by it when
/// ``isInverted`` (a rate quoted the other way round).
///
/// A price of 50.10 USD for one VEA is the factor `50.10` from VEA to USD; a rate
/// 1 EUR = 1.08 USD used to turn USD into EUR is the factor `1.08`, inverted.
///
/// ```swift
/// let price = ConversionFactor(rate: try ExactDecimal(parsing: "50.10"))
/// let usdToEur = ConversionFactor(rate: try ExactDecimal(parsing: "1.08"), isInverted: true)
/// ```
public struct ConversionFactor: Hashable, Sendable {
    /// The rate as quoted.
    public let rate: ExactDecimal
    /// Whether the step divides by ``rate`` instead of multiplying.
    public let isInverted: Bool

    /// A step of a conversion chain.
    public init(rate: ExactDecimal, isInverted: Bool = false) {
        self.rate = rate
        self.isInverted = isInverted
    }
}

extension Money {
    /// Converts through a chain of factors (a price, then a rate), computing the exact
    /// product and rounding once to the target's scale: no intermediate amount is rounded.
    ///
    /// ```swift
    /// let shares = try Money(parsing: "3", commodity: try Commodity.named("VEA"))
    /// let euros = try shares.converted(to: .eur, through: [
    ///     ConversionFactor(rate: try ExactDecimal(parsing: "50.10")),                    // 1 VEA = 50.10 USD
    ///     ConversionFactor(rate: try ExactDecimal(parsing: "1.08"), isInverted: true),  // 1 EUR = 1.08 USD
    /// ])   // 150.30 / 1.08 = 139.1666… → 139.17 EUR
    /// ```
    ///
    /// - Parameters:
    ///   - target: the commodity of the result.
    ///   - factors: the steps, in order; none means the same value at the target's scale.
    ///   - rounding: how the exact result is rounded; half-even by default.
    /// - Throws: ``MoneyError`` `.divisionByZero` for an inverted factor that is not
    ///   positive; `.overflow` when the result does not fit in 64-bit minor units, or when
    ///   the exact product (after cancelling common factors) exceeds 128 bits.
    public func converted(to target: Commodity, through factors: [ConversionFactor], rounding: RoundingRule = .halfEven) throws -> Money {
        let operation = "a conversion to \(target.code)"
        var numerators: [Int128] = [Int128(minorUnits)]
        var denominators: [Int128] = []
        // target minor = minor * 10^(target.scale - scale) * Π direct(sig / 10^s) * Π inverse(10^s / sig)
        var exponent = target.scale - commodity.scale
        for factor in factors {
            if factor.isInverted {
                guard factor.rate.significand > 0 else {
                    throw MoneyError(.divisionByZero, "\(operation) needs a positive rate")
                }
                denominators.append(Int128(factor.rate.significand))
                exponent += factor.rate.scale
            } else {
                numerators.append(Int128(factor.rate.significand))
                exponent -= factor.rate.scale
            }
        }
        if numerators.contains(0) { return Money(minorUnits: 0, commodity: target) }
        // Cancel common factors first so that realistic chains never come near 128 bits.
        for index in numerators.indices {
            for other in denominators.indices {
                let divisor = Self.greatestCommonDivisor(numerators[index].magnitude, denominators[other].magnitude)
                if divisor > 1 {
                    numerators[index] /= Int128(divisor)
                    denominators[other] /= Int128(divisor)
                }
            }
        }
        while exponent < 0, let index = numerators.firstIndex(where: { $0 % 10 == 0 }) {
            numerators[index] /= 10
            exponent += 1
        }
        while exponent > 0, let index = denominators.firstIndex(where: { $0 % 10 == 0 }) {
            denominators[index] /= 10
            exponent -= 1
        }
        func product(_ values: [Int128]) throws -> Int128 {
            try values.reduce(Int128(1)) { partial, value in
                let (result, overflow) = partial.multipliedReportingOverflow(by: value)
                guard !overflow else { throw Self.overflowError(commodity: target, operation: operation) }
                return result
            }
        }
        var numerator = try product(numerators)
        var denominator = try product(denominators)
        if exponent != 0 {
            guard abs(exponent) <= PowerOfTen.int128ExponentMax else { throw Self.overflowError(commodity: target, operation: operation) }
            let power = PowerOfTen.int128(abs(exponent))
            if exponent > 0 { numerator = try product([numerator, power]) } else { denominator = try product([denominator, power]) }
        }
        let rounded = RationalRounding.rounded(numerator, dividedBy: denominator, rule: rounding)
        return Money(minorUnits: try Self.checkedMinorUnits(rounded, commodity: target, operation: operation), commodity: target)
    }

    private static func greatestCommonDivisor(_ first: UInt128, _ second: UInt128) -> UInt128 {
        var (a, b) = (first, second)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
