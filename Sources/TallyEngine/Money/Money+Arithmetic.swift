extension Money {
    /// The sum of two amounts in the same commodity.
    ///
    /// ```swift
    /// let total = try price.adding(tip)
    /// ```
    ///
    /// - Parameter other: an amount in the same commodity.
    /// - Throws: ``MoneyError/Code/commodityMismatch`` for different
    ///   commodities, ``MoneyError/Code/overflow`` if the sum leaves `Int64`.
    public func adding(_ other: Money) throws -> Money {
        try requireSameCommodity(other, operation: "add")
        let (sum, overflow) = minorUnits.addingReportingOverflow(other.minorUnits)
        guard !overflow else { throw Self.overflowError(commodity: commodity, operation: "an addition") }
        return Money(minorUnits: sum, commodity: commodity)
    }

    /// This amount minus `other`, in the same commodity.
    ///
    /// ```swift
    /// let left = try balance.subtracting(purchase)
    /// ```
    ///
    /// - Parameter other: an amount in the same commodity.
    /// - Throws: ``MoneyError/Code/commodityMismatch`` for different
    ///   commodities, ``MoneyError/Code/overflow`` if the difference leaves `Int64`.
    public func subtracting(_ other: Money) throws -> Money {
        try requireSameCommodity(other, operation: "subtract")
        let (difference, overflow) = minorUnits.subtractingReportingOverflow(other.minorUnits)
        guard !overflow else { throw Self.overflowError(commodity: commodity, operation: "a subtraction") }
        return Money(minorUnits: difference, commodity: commodity)
    }

    /// The amount with the opposite sign.
    ///
    /// ```swift
    /// let refund = try charge.negated()
    /// ```
    ///
    /// - Throws: ``MoneyError/Code/overflow`` for `Int64.min` minor units,
    ///   whose opposite does not fit.
    public func negated() throws -> Money {
        let (negation, overflow) = Int64(0).subtractingReportingOverflow(minorUnits)
        guard !overflow else { throw Self.overflowError(commodity: commodity, operation: "a negation") }
        return Money(minorUnits: negation, commodity: commodity)
    }

    /// The amount times a whole number; exact, no rounding.
    ///
    /// ```swift
    /// let yearly = try monthly.multiplied(by: 12)
    /// ```
    ///
    /// - Parameter factor: any integer, negative allowed.
    /// - Throws: ``MoneyError/Code/overflow`` if the product leaves `Int64`.
    public func multiplied(by factor: Int64) throws -> Money {
        let (product, overflow) = minorUnits.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw Self.overflowError(commodity: commodity, operation: "a multiplication") }
        return Money(minorUnits: product, commodity: commodity)
    }

    /// The amount times an exact decimal, rounded once to the commodity's scale.
    ///
    /// The product is computed exactly in `Int128`, then rounded by `rounding`.
    ///
    /// ```swift
    /// let fee = try Money(parsing: "10.05", commodity: .usd)
    ///     .multiplied(by: ExactDecimal(parsing: "0.5"))   // 5.025 → 5.02 USD (half-even)
    /// ```
    ///
    /// - Parameters:
    ///   - factor: the multiplier, e.g. a percentage as `0.015`.
    ///   - rounding: how to round the exact product; half-even by default.
    /// - Throws: ``MoneyError/Code/overflow`` if the rounded product leaves `Int64`.
    public func multiplied(by factor: ExactDecimal, rounding: RoundingRule = .halfEven) throws -> Money {
        // |minorUnits * significand| <= 2^126 < Int128.max.
        let numerator = Int128(minorUnits) * Int128(factor.significand)
        let rounded = RationalRounding.rounded(numerator, dividedBy: PowerOfTen.int128(factor.scale), rule: rounding)
        let result = try Self.checkedMinorUnits(rounded, commodity: commodity, operation: "a multiplication")
        return Money(minorUnits: result, commodity: commodity)
    }

    /// What is missing to reach the next whole unit: the card round-up.
    ///
    /// `3.40 → 0.60`, `3.00 → 0.00`, `0.01 → 0.99`, `0.00 → 0.00`. For scale
    /// 0 (JPY) it is always zero. For negative amounts it uses the magnitude
    /// and the result is never negative: `-3.40 → 0.60` (a refund of 3.40
    /// reverses a round-up of 0.60). The result is in the same commodity.
    ///
    /// ```swift
    /// try Money(parsing: "3.40", commodity: .usd).remainderToNextWholeUnit()   // 0.60 USD
    /// ```
    ///
    /// - Throws: never today (every result fits); declared `throws` so the
    ///   contract can grow without breaking callers.
    public func remainderToNextWholeUnit() throws -> Money {
        let unit = UInt64(PowerOfTen.int64(commodity.scale))
        let excess = minorUnits.magnitude % unit
        // excess < unit <= 10^18 < Int64.max, so the subtraction fits.
        let missing = excess == 0 ? 0 : Int64(unit - excess)
        return Money(minorUnits: missing, commodity: commodity)
    }
}
