/// An exact decimal number for rates, prices and ratios:
/// `significand / 10^scale`, never binary floating point.
///
/// ```swift
/// let rate = try ExactDecimal(parsing: "1.0825")   // significand 10825, scale 4
/// rate.decimalString                                // "1.0825"
/// try ExactDecimal(parsing: "1.50") == ExactDecimal(parsing: "1.5")   // true
/// ```
///
/// The scale is kept as written ("1.50" prints as "1.50"), but equality,
/// hashing and ordering compare values, so `1.50 == 1.5`.
public struct ExactDecimal: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The digits as an integer: the value is `significand / 10^scale`.
    public let significand: Int64
    /// How many digits of ``significand`` follow the decimal point, `0...18`.
    public let scale: Int

    /// A decimal from its parts.
    ///
    /// ```swift
    /// let rate = try ExactDecimal(significand: 15, scale: 1)   // 1.5
    /// ```
    ///
    /// - Parameters:
    ///   - significand: the digits as an integer.
    ///   - scale: digits after the decimal point, `0...18`.
    /// - Throws: ``MoneyError/Code/invalidScale`` for a scale outside `0...18`.
    public init(significand: Int64, scale: Int) throws {
        guard (0...Commodity.scaleMax).contains(scale) else {
            throw MoneyError(
                .invalidScale,
                "a decimal's scale must be between 0 and \(Commodity.scaleMax) decimal places, got \(scale)"
            )
        }
        self.significand = significand
        self.scale = scale
    }

    init(uncheckedSignificand significand: Int64, scale: Int) {
        assert((0...Commodity.scaleMax).contains(scale))
        self.significand = significand
        self.scale = scale
    }

    /// Parses strict decimal text: `"12"`, `"1.2345"`, `"-0.5"`, `"0.000001"`.
    ///
    /// Accepted: an optional leading `-`, ASCII digits, optionally a `.` with
    /// digits on both sides. Rejected: `""`, `"-"`, `".5"`, `"5."`, `"+5"`,
    /// `"1e3"`, `"1,000"`, any whitespace, non-ASCII digits.
    ///
    /// The scale is the number of fractional digits written, so `"1.50"`
    /// keeps scale 2. Fractional zeros past the 18th digit are dropped, and
    /// so are trailing fractional zeros when that is what it takes for the
    /// significand to fit in `Int64` (the value is unchanged either way).
    ///
    /// ```swift
    /// let price = try ExactDecimal(parsing: "102.37")
    /// ```
    ///
    /// - Parameter text: the number, at most 64 characters.
    /// - Throws: ``MoneyError/Code/invalidNumber`` for text that is not a
    ///   number in this syntax, ``MoneyError/Code/tooManyDecimals`` for a
    ///   non-zero digit past the 18th decimal place,
    ///   ``MoneyError/Code/overflow`` if the value needs more than 19
    ///   significant digits (beyond `Int64`).
    public init(parsing text: String) throws {
        let parsed = try DecimalText(text, what: "the decimal number")
        var fraction = parsed.fractionDigits
        if fraction.count > Commodity.scaleMax {
            guard fraction[Commodity.scaleMax...].allSatisfy({ $0 == 0 }) else {
                throw MoneyError(
                    .tooManyDecimals,
                    "the decimal number \(MoneyError.quoted(text)) has \(fraction.count) decimal places, but at most \(Commodity.scaleMax) are supported; round it first"
                )
            }
            fraction.removeLast(fraction.count - Commodity.scaleMax)
        }
        let limit = parsed.isNegative ? DecimalText.negativeMagnitudeLimit : Int128(Int64.max)
        var magnitude = DecimalText.magnitude(of: parsed.integerDigits + fraction, limit: limit)
        if magnitude == nil {
            while fraction.last == 0 {
                fraction.removeLast()
            }
            magnitude = DecimalText.magnitude(of: parsed.integerDigits + fraction, limit: limit)
        }
        guard let magnitude else {
            throw MoneyError(
                .overflow,
                "the decimal number \(MoneyError.quoted(text)) has too many significant digits; at most 19 are supported (a 64-bit significand)"
            )
        }
        // magnitude <= 2^63 for negatives, so the negated value fits Int64.
        self.init(uncheckedSignificand: Int64(parsed.isNegative ? -magnitude : magnitude), scale: fraction.count)
    }

    /// One, exactly (significand 1, scale 0).
    ///
    /// ```swift
    /// try amount.converted(to: .usd, rate: .one)   // same digits, new scale
    /// ```
    public static let one = ExactDecimal(uncheckedSignificand: 1, scale: 0)

    /// The number written with exactly ``scale`` fractional digits:
    /// `"1.50"`, `"-0.5"`, `"12"`, `"0.000001"`. Parsing it gives back the
    /// same significand and scale.
    ///
    /// ```swift
    /// try ExactDecimal(significand: -5, scale: 3).decimalString   // "-0.005"
    /// ```
    public var decimalString: String {
        DecimalFormatting.string(significand, scale: scale)
    }

    /// The ``decimalString``.
    public var description: String { decimalString }

    /// The significand scaled to `targetScale` (>= scale); always fits:
    /// |significand| <= 2^63 and 10^18 < 2^60, so the product < 2^123.
    private func significand(atScale targetScale: Int) -> Int128 {
        Int128(significand) * PowerOfTen.int128(targetScale - scale)
    }

    /// Whether two decimals have the same value, whatever their scales.
    ///
    /// ```swift
    /// try ExactDecimal(parsing: "1.50") == ExactDecimal(parsing: "1.5")   // true
    /// ```
    public static func == (lhs: ExactDecimal, rhs: ExactDecimal) -> Bool {
        let common = max(lhs.scale, rhs.scale)
        return lhs.significand(atScale: common) == rhs.significand(atScale: common)
    }

    /// Whether `lhs` is smaller in value than `rhs`.
    ///
    /// ```swift
    /// try ExactDecimal(parsing: "0.99") < ExactDecimal(parsing: "1")   // true
    /// ```
    public static func < (lhs: ExactDecimal, rhs: ExactDecimal) -> Bool {
        let common = max(lhs.scale, rhs.scale)
        return lhs.significand(atScale: common) < rhs.significand(atScale: common)
    }

    /// Hashes the value (trailing fractional zeros removed), consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        var normalisedSignificand = significand
        var normalisedScale = scale
        while normalisedScale > 0 && normalisedSignificand % 10 == 0 {
            normalisedSignificand /= 10
            normalisedScale -= 1
        }
        hasher.combine(normalisedSignificand)
        hasher.combine(normalisedScale)
    }
}
