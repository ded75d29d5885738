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
