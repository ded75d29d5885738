/// The prices CSV format: one price per symbol and day, in one place.
///
/// ```text
/// date,symbol,price,currency
/// 2026-05-01,VEA,50.10,USD
/// 2026-05-01,BTC,61234.50,USD
/// ```
///
/// Each row records one `price_quoted` event (source `manual`): one unit of `symbol` was
/// worth `price` `currency`, effective at the start of `date` in the ledger's time zone.
/// The header must be exactly ``header``.
///
/// - `date`: `YYYY-MM-DD`.
/// - `symbol`, `currency`: a commodity symbol or ISO currency (`VEA`, `USD`), two different ones.
/// - `price`: a decimal more than zero, no more decimals than `currency` allows (extra zeros
///   aside), no grouping or exponent.
///
/// A row repeating a price already recorded for that symbol at the start of that day (by an
/// earlier import, or earlier in the file) is skipped; a *different* price for the same symbol
/// and day is a conflict that refuses the whole file, naming its line.
public enum PricesCSV {
    /// The header every prices CSV starts with, exactly.
    public static let header = "date,symbol,price,currency"
    /// The header's field names, in order.
    public static let fieldNames = header.split(separator: ",").map(String.init)

    /// One row, validated.
    package struct Row: Hashable {
        package let line: Int
        package let date: LocalDate
        package let quote: PriceQuoted

        /// What makes two rows the same price: symbol and day.
        package var slot: Slot { Slot(symbol: quote.symbol, date: date) }
    }

    /// One symbol on one day: at most one price.
    package struct Slot: Hashable {
        package let symbol: Commodity
        package let date: LocalDate
    }

    /// Whether a file's first record is this format's header.
    package static func isHeader(_ record: CSVRecord?) -> Bool { record?.fields == fieldNames }

    /// Validates one data record.
    /// - Throws: ``ImportError`` (`invalidRow`) naming the line and field.
    package static func row(_ record: CSVRecord, file: String) throws -> Row {
        let line = record.line
        func fail(_ field: String?, _ message: String) -> ImportError {
            ImportError(.invalidRow, file: file, line: line, field: field, message)
        }
        guard record.fields.count == fieldNames.count else {
            throw fail(nil, "the row has \(record.fields.count) field\(record.fields.count == 1 ? "" : "s"); a prices row has \(fieldNames.count) (\(header))")
        }
        let fields = record.fields
        let date = try CSVFields.date(fields[0], fail: fail)
        let symbol = try CSVFields.commodity(fields[1], field: "symbol", fail: fail)
        let currency = try CSVFields.commodity(fields[3], field: "currency", fail: fail)
        guard symbol != currency else { throw fail("currency", "is the symbol itself; a symbol is priced in another currency") }
        // A price keeps its own decimals (80.123 GBP), exact: never rounded to the currency's.
        let price = try CSVFields.decimal(fields[2], field: "price", fail: fail)
        guard price.significand > 0 else { throw fail("price", "must be more than zero") }
        return Row(line: line, date: date, quote: PriceQuoted(symbol: symbol, price: price, currency: currency, source: .manual))
    }
}

/// Which kind of CSV `tally import` was given, from its header.
public enum CSVImportKind: Hashable, Sendable {
    /// A journal CSV (``JournalCSV``).
    case journal
    /// A prices CSV (``PricesCSV``).
    case prices

    /// Reads the first record of a CSV file: ``prices`` when it is exactly the prices
    /// header, else ``journal`` (whose header check names what is wrong).
    ///
    /// - Throws: ``ImportError`` (`unreadable`, `syntax`).
    public static func of(csvAt path: String) throws -> CSVImportKind {
        PricesCSV.isHeader(try CSVReader(path: path).next()) ? .prices : .journal
    }
}
