/// How an exact result that falls between two minor units is rounded.
///
/// Every rounding in Tally names its rule; where a caller does not choose,
/// the default is ``halfEven`` (banker's rounding), which has no bias on
/// average.
///
/// ```swift
/// let price = try Money(parsing: "0.05", commodity: .usd)
/// let half = try ExactDecimal(parsing: "0.5")
/// try price.multiplied(by: half, rounding: .halfEven)  // 0.02 USD (2.5 cents → 2)
/// try price.multiplied(by: half, rounding: .halfUp)    // 0.03 USD
/// ```
///
/// | exact | halfEven | halfUp | towardZero | awayFromZero | floor | ceiling |
/// |------:|---------:|-------:|-----------:|-------------:|------:|--------:|
/// |   2.5 |        2 |      3 |          2 |            3 |     2 |       3 |
/// |  -2.5 |       -2 |     -3 |         -2 |           -3 |    -3 |      -2 |
/// |  1.49 |        1 |      1 |          1 |            2 |     1 |       2 |
public enum RoundingRule: Sendable, CaseIterable {
    /// To the nearest; a tie goes to the even neighbour (2.5 → 2, 3.5 → 4).
    case halfEven
    /// To the nearest; a tie goes away from zero (2.5 → 3, -2.5 → -3).
    case halfUp
    /// Drop the excess (truncate): 2.9 → 2, -2.9 → -2.
    case towardZero
    /// Any excess goes to the next unit away from zero: 2.1 → 3, -2.1 → -3.
    case awayFromZero
    /// Toward negative infinity: 2.9 → 2, -2.1 → -3.
    case floor
    /// Toward positive infinity: 2.1 → 3, -2.9 → -2.
    case ceiling
}

/// Rounds an exact rational to an integer. Every rounding path in the money
/// layer goes through here, so there is exactly one place that decides ties.
package enum RationalRounding {
    /// `numerator / denominator` rounded to an integer by `rule`.
    ///
    /// - Precondition: `denominator > 0`. Callers pass powers of ten or sums
    ///   of validated ratios; a non-positive denominator is a programmer error.
    package static func rounded(
        _ numerator: Int128,
        dividedBy denominator: Int128,
        rule: RoundingRule
    ) -> Int128 {
        precondition(denominator > 0, "RationalRounding: denominator must be positive")
        let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
        if remainder == 0 {
            return quotient
        }
        // Truncated division: quotient is rounded toward zero and remainder has
        // the sign of the numerator. |quotient| <= Int128.max / 2 because
        // denominator >= 2 here, so ±1 cannot overflow.
        let step: Int128 = numerator < 0 ? -1 : 1
        let awayFromZero = quotient + step
        let remainderMagnitude = remainder.magnitude
        let restMagnitude = denominator.magnitude - remainderMagnitude
        switch rule {
        case .towardZero:
            return quotient
        case .awayFromZero:
            return awayFromZero
        case .floor:
            return numerator < 0 ? awayFromZero : quotient
        case .ceiling:
            return numerator < 0 ? quotient : awayFromZero
        case .halfUp:
            return remainderMagnitude >= restMagnitude ? awayFromZero : quotient
        case .halfEven:
            if remainderMagnitude > restMagnitude {
                return awayFromZero
            }
            if remainderMagnitude < restMagnitude {
                return quotient
            }
            return quotient % 2 == 0 ? quotient : awayFromZero
        }
    }
}

/// Powers of ten as exact integers.
package enum PowerOfTen {
    /// The largest exponent whose power fits in `Int128` (10^38 < 2^127).
    package static let int128ExponentMax = 38

    private static let int128Table: [Int128] = {
        var table: [Int128] = [1]
        for _ in 0..<int128ExponentMax {
            table.append(table[table.count - 1] * 10)
        }
        return table
    }()

    /// 10^exponent.
    ///
    /// - Precondition: `0...38`.
    package static func int128(_ exponent: Int) -> Int128 {
        precondition((0...int128ExponentMax).contains(exponent), "PowerOfTen: exponent out of range")
        return int128Table[exponent]
    }

    /// 10^exponent for a scale.
    ///
    /// - Precondition: `0...18` (10^18 < 2^63).
    package static func int64(_ exponent: Int) -> Int64 {
        precondition((0...18).contains(exponent), "PowerOfTen: exponent out of range")
        return Int64(int128Table[exponent])
    }
}

/// Range checks shared by every path that produces 64-bit minor units.
extension Int128 {
    /// `self` as an `Int64`, or `nil` if it does not fit.
    package var exactInt64: Int64? {
        self >= Int128(Int64.min) && self <= Int128(Int64.max) ? Int64(self) : nil
    }
}
