/// The field rules the CSV imports share (journal, prices), with the same words in their
/// errors: a date, a commodity, an amount.
package enum CSVFields {
    /// Builds the error for a field (nil: the row as a whole) of the row being read.
    package typealias Fail = (_ field: String?, _ message: String) -> ImportError

    /// A `YYYY-MM-DD` date.
    package static func date(_ text: String, fail: Fail) throws -> LocalDate {
        do {
            return try LocalDate(parsing: text)
        } catch {
            throw fail("date", text.isEmpty ? "is empty; write the date as YYYY-MM-DD" : "is not a calendar date in the form YYYY-MM-DD")
        }
    }

    /// An ISO currency or a commodity symbol.
    package static func commodity(_ text: String, field: String, fail: Fail) throws -> Commodity {
        do {
            return try Commodity.named(text)
        } catch {
            throw fail(field, text.isEmpty
                ? "is empty; name an ISO currency (USD) or a commodity symbol (VEA)"
                : "is not a currency or commodity symbol: use 1 to 16 characters, an uppercase letter A-Z first, then A-Z, 0-9, '.', '_' or '-'")
        }
    }

    /// A plain decimal in `commodity`, signed (a journal's amount) or not (a price).
    package static func money(_ text: String, _ commodity: Commodity, field: String, signed: Bool, fail: Fail) throws -> Money {
        if let simple = simpleMoney(text, commodity) { return simple }
        do {
            return try Money(exactly: text, commodity: commodity)
        } catch let error as MoneyError {
            switch error.code {
            case .tooManyDecimals:
                throw fail(field, "has more decimal places than \(commodity.code) allows (\(commodity.scale)); round it first")
            case .overflow:
                throw fail(field, "is too large for \(commodity.code) amounts (64-bit minor units)")
            default:
                if text.isEmpty {
                    throw fail(field, signed ? "is empty; write a signed decimal such as -12.50" : "is empty; write a decimal such as 50.10")
                }
                throw fail(field, signed
                    ? "is not a decimal number; write an optional '-', digits, and an optional '.' with digits (no grouping, no '+', no spaces)"
                    : "is not a decimal number; write digits and an optional '.' with digits (no grouping, no '+', no spaces)")
            }
        }
    }

    /// An exact decimal with its own decimals, up to 18 (a price: 80.123 in GBP).
    package static func decimal(_ text: String, field: String, fail: Fail) throws -> ExactDecimal {
        do {
            return try ExactDecimal(parsing: text)
        } catch {
            if text.isEmpty { throw fail(field, "is empty; write a decimal such as 50.10") }
            throw fail(field, "is not a decimal number of up to 18 decimal places; write digits and an optional '.' with digits (no grouping, no '+', no spaces)")
        }
    }

    /// The common amount without the general parser: an optional `-`, 1 to 18 digits in all,
    /// and when there is a point, 1 to `commodity.scale` digits after it (`42.10`, `-7`).
    /// Such text means exactly the value `Money(parsing:commodity:)` gives it, and cannot
    /// overflow (at most 18 digits); anything else (nil) takes the general parser and its errors.
    package static func simpleMoney(_ text: String, _ commodity: Commodity) -> Money? {
        var magnitude: Int64 = 0
        var digits = 0
        var isNegative = false
        var fractionDigits = -1  // no point yet
        var index = 0
        for byte in text.utf8 {
            defer { index += 1 }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                guard digits <= 18 else { return nil }
                magnitude = magnitude * 10 + Int64(byte - UInt8(ascii: "0"))
                if fractionDigits >= 0 { fractionDigits += 1 }
            case UInt8(ascii: "-") where index == 0:
                isNegative = true
            case UInt8(ascii: ".") where fractionDigits < 0 && digits > 0:
                fractionDigits = 0
            default:
                return nil
            }
        }
        let decimals = max(fractionDigits, 0)
        guard digits > 0, fractionDigits != 0, decimals <= commodity.scale, digits + commodity.scale - decimals <= 18 else {
            return nil
        }
        for _ in decimals..<commodity.scale { magnitude *= 10 }
        return Money(minorUnits: isNegative ? -magnitude : magnitude, commodity: commodity)
    }
}
