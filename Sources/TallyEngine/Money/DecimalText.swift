/// Tally's one strict decimal-number syntax, shared by ``Money`` and
/// ``ExactDecimal``:
///
///     number   = ["-"] digits ["." digits]
///     digits   = one or more of "0"..."9" (ASCII only)
///
/// No plus sign, no grouping separators, no exponent, no whitespace, no
/// leading or trailing point (".5", "5."). Leading zeros are accepted
/// ("007.50"). At most ``lengthLimit`` characters.
struct DecimalText {
    /// The longest accepted text, in characters. Longer than any value that
    /// fits (Int64 has 19 digits, scales go to 18) plus generous trailing zeros.
    static let lengthLimit = 64

    /// `true` for a leading minus sign (also on "-0").
    let isNegative: Bool
    /// The digits before the point, as values 0...9, at least one.
    let integerDigits: [UInt8]
    /// The digits after the point, as values 0...9, possibly none.
    let fractionDigits: [UInt8]

    /// Splits `text` into sign and digits.
    ///
    /// - Parameter what: a noun for messages, e.g. "an amount".
    /// - Throws: ``MoneyError/Code/invalidNumber`` naming the problem and its
    ///   position (counted in characters from 1).
    init(_ text: String, what: String) throws {
        let quoted = MoneyError.quoted(text)
        let example = "write it like \"1234.56\" or \"-0.5\""
        if text.isEmpty {
            throw MoneyError(.invalidNumber, "\(what) is empty; \(example)")
        }
        let scalars = Array(text.unicodeScalars)
        if scalars.count > Self.lengthLimit {
            throw MoneyError(
                .invalidNumber,
                "\(what) \(quoted) is longer than \(Self.lengthLimit) characters; \(example)"
            )
        }
        var index = 0
        var isNegative = false
        if scalars[0] == "-" {
            isNegative = true
            index = 1
        }
        var integerDigits: [UInt8] = []
        var fractionDigits: [UInt8] = []
        var sawPoint = false
        while index < scalars.count {
            let scalar = scalars[index]
            let position = index + 1
            if let digit = Self.asciiDigit(scalar) {
                if sawPoint {
                    fractionDigits.append(digit)
                } else {
                    integerDigits.append(digit)
                }
            } else if scalar == "." {
                if sawPoint {
                    throw MoneyError(.invalidNumber, "\(what) \(quoted) has a second decimal point at position \(position); \(example)")
                }
                if integerDigits.isEmpty {
                    throw MoneyError(.invalidNumber, "\(what) \(quoted) needs a digit before the decimal point at position \(position); write \"0.5\", not \".5\"")
                }
                sawPoint = true
            } else {
                throw MoneyError(.invalidNumber, Self.unexpectedMessage(scalar, position: position, quoted: quoted, what: what, example: example))
            }
            index += 1
        }
        if integerDigits.isEmpty {
            throw MoneyError(.invalidNumber, "\(what) \(quoted) has no digits; \(example)")
        }
        if sawPoint && fractionDigits.isEmpty {
            throw MoneyError(.invalidNumber, "\(what) \(quoted) ends with a decimal point; write \"5\" or \"5.0\", not \"5.\"")
        }
        self.isNegative = isNegative
        self.integerDigits = integerDigits
        self.fractionDigits = fractionDigits
    }

    private static func asciiDigit(_ scalar: Unicode.Scalar) -> UInt8? {
        let value = scalar.value
        return value >= 0x30 && value <= 0x39 ? UInt8(value - 0x30) : nil
    }

    private static func unexpectedMessage(
        _ scalar: Unicode.Scalar,
        position: Int,
        quoted: String,
        what: String,
        example: String
    ) -> String {
        let shown = String(scalar).debugDescription
        let hint: String
        switch scalar {
        case ",", "_", "'":
            hint = "remove grouping separators"
        case "e", "E":
            hint = "exponents are not accepted; write the digits out"
        case "+":
            hint = "leave out the plus sign"
        case "-":
            hint = "only one leading minus sign is allowed"
        case " ", "\t", "\n", "\r", "\u{A0}":
            hint = "remove the whitespace"
        default:
            hint = scalar.isASCII ? "only the digits 0-9, one leading \"-\" and one \".\" are allowed" : "only ASCII digits 0-9 are allowed"
        }
        return "\(what) \(quoted) has an unexpected character \(shown) at position \(position): \(hint); \(example)"
    }

    /// The magnitude of `digits` read as one integer, or `nil` if it exceeds
    /// `limit`.
    static func magnitude<S: Sequence<UInt8>>(of digits: S, limit: Int128) -> Int128? {
        var value: Int128 = 0
        for digit in digits {
            // value <= limit <= 2^63 before this step, so no Int128 overflow.
            value = value * 10 + Int128(digit)
            if value > limit {
                return nil
            }
        }
        return value
    }

    /// The largest magnitude of a negative Int64, 2^63.
    static let negativeMagnitudeLimit = Int128(Int64.max) + 1
}

/// Formatting of a scaled integer as plain decimal text.
enum DecimalFormatting {
    /// The most bytes ``withBytes(_:scale:_:)`` writes: a sign, 19 digits of an `Int64`'s
    /// magnitude and a point, or a sign, `0.` and 18 fractional digits.
    static let bytesMax = 22

    /// `value / 10^scale` with exactly `scale` fractional digits: no grouping,
    /// `-` for negatives, `"0.05"` rather than `".05"`.
    static func string(_ value: Int64, scale: Int) -> String {
        withBytes(value, scale: scale) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with ``string(_:scale:)``'s UTF-8 bytes, written into a stack buffer (no
    /// string made: an import's content key hashes them as they are).
    static func withBytes<Result>(_ value: Int64, scale: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        precondition((0...18).contains(scale), "DecimalFormatting: scale out of range")
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytesMax) { buffer in
            // Right to left: the fraction's digits (zeros included), the point, the whole
            // part's (at least one), the sign.
            var magnitude = value.magnitude
            var start = bytesMax
            func put(_ byte: UInt8) {
                start -= 1
                buffer[start] = byte
            }
            if scale > 0 {
                for _ in 0..<scale {
                    put(UInt8(ascii: "0") + UInt8(magnitude % 10))
                    magnitude /= 10
                }
                put(UInt8(ascii: "."))
            }
            repeat {
                put(UInt8(ascii: "0") + UInt8(magnitude % 10))
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { put(UInt8(ascii: "-")) }
            return try body(UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }
}
