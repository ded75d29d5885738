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
        do {
            return try Money(parsing: text, commodity: commodity)
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
}
