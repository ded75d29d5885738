extension Money {
    /// The most ratios one allocation accepts.
    static let allocationRatiosLimit = 10_000

    /// Splits the amount into parts proportional to `ratios` that always add
    /// up exactly to the whole.
    ///
    /// Uses the largest-remainder method: each part first gets its exact
    /// share rounded toward zero; the minor units left over go, one each, to
    /// the parts with the largest remainders; equal remainders go to the
    /// earlier index first. So every part is within one minor unit of its
    /// exact share, a ratio of 0 always gets zero, and the result is
    /// deterministic. Negative amounts split like their magnitude, with
    /// every part negated (sign symmetric).
    ///
    /// ```swift
    /// let deposit = try Money(parsing: "100.01", commodity: .usd)
    /// try deposit.allocated(byRatios: [70, 30])   // [70.01 USD, 30.00 USD]
    /// try Money(parsing: "0.01", commodity: .usd)
    ///     .allocated(byRatios: [70, 30])          // [0.01 USD, 0.00 USD]
    /// try Money(parsing: "1.00", commodity: .usd)
    ///     .allocated(byRatios: [1, 1, 1])         // [0.34, 0.33, 0.33] USD
    /// ```
    ///
    /// - Parameter ratios: 1 to 10,000 non-negative weights, at least one
    ///   positive; they need not sum to 100.
    /// - Returns: one part per ratio, in order, all in this commodity.
    /// - Throws: ``MoneyError/Code/invalidRatios`` for no ratios, more than
    ///   10,000, a negative ratio or all zeros.
    public func allocated(byRatios ratios: [Int64]) throws -> [Money] {
        guard !ratios.isEmpty else {
            throw MoneyError(.invalidRatios, "cannot allocate by an empty list of ratios; give at least one, e.g. [70, 30]")
        }
        guard ratios.count <= Self.allocationRatiosLimit else {
            throw MoneyError(
                .invalidRatios,
                "cannot allocate by \(ratios.count) ratios; at most \(Self.allocationRatiosLimit) are allowed"
            )
        }
        if let index = ratios.firstIndex(where: { $0 < 0 }) {
            throw MoneyError(
                .invalidRatios,
                "allocation ratio \(ratios[index]) at index \(index) is negative; ratios must be zero or positive"
            )
        }
        // <= 10,000 * Int64.max < 2^77: no overflow.
        let total = ratios.reduce(Int128(0)) { $0 + Int128($1) }
        guard total > 0 else {
            throw MoneyError(.invalidRatios, "allocation ratios are all zero; at least one must be positive")
        }

        let magnitude = Int128(minorUnits.magnitude)   // <= 2^63
        var parts: [Int128] = []
        var remainders: [Int128] = []
        parts.reserveCapacity(ratios.count)
        remainders.reserveCapacity(ratios.count)
        var allocated: Int128 = 0
        for ratio in ratios {
            // magnitude * ratio <= 2^126; the floor share goes through the
            // one rounding helper.
            let exact = magnitude * Int128(ratio)
            let part = RationalRounding.rounded(exact, dividedBy: total, rule: .towardZero)
            parts.append(part)
            remainders.append(exact - part * total)
            allocated += part
        }
        let leftover = Int(magnitude - allocated)   // < ratios.count
        assert(leftover >= 0 && leftover < ratios.count, "allocation: leftover out of range")
        if leftover > 0 {
            let order = remainders.indices.sorted { lhs, rhs in
                remainders[lhs] != remainders[rhs] ? remainders[lhs] > remainders[rhs] : lhs < rhs
            }
            for index in order.prefix(leftover) {
                assert(remainders[index] > 0, "allocation: a leftover unit went to an exact share")
                parts[index] += 1
            }
        }
        let isNegative = minorUnits < 0
        // Each part's magnitude <= |minorUnits|, so the negated value fits Int64.
        let result = parts.map { part in
            Money(minorUnits: Int64(isNegative ? -part : part), commodity: commodity)
        }
        assert(result.reduce(Int128(0)) { $0 + Int128($1.minorUnits) } == Int128(minorUnits), "allocation: parts do not sum to the whole")
        return result
    }
}
