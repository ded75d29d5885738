/// Writes RFC 4180 CSV: the inverse of the import reader.
///
/// ```swift
/// CSVWriter.line(["Assets:Cash", "Joe's \"Diner\", NYC"])   // Assets:Cash,"Joe's ""Diner"", NYC"
/// ```
public enum CSVWriter {
    /// A field as it must be written: enclosed in double quotes (inner quotes doubled) when it
    /// holds a comma, a quote, CR or LF, or starts or ends with a space; as is otherwise.
    public static func field(_ text: String) -> String {
        let needsQuotes = text.utf8.contains { byte in
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
        } || text.first == " " || text.last == " "
        guard needsQuotes else { return text }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }

    /// One record, without its line ending.
    public static func line(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",")
    }
}

/// The balances as CSV: the header `account,currency,balance`, then one row per account
/// and commodity with a non-zero balance, sorted by account then commodity, each balance a
/// plain decimal at the commodity's scale (``Money/decimalString``).
///
/// ```swift
/// print(BalancesCSV.render(try ledger.balances()), terminator: "")
/// ```
public enum BalancesCSV {
    /// The header line, exactly.
    public static let header = "account,currency,balance"

    /// The whole document, every line ending with LF.
    public static func render(_ balances: [AccountBalance]) -> String {
        let rows = balances
            .filter { !$0.amount.isZero }
            .sorted { ($0.account, $0.amount.commodity.code) < ($1.account, $1.amount.commodity.code) }
            .map { CSVWriter.line([$0.account, $0.amount.commodity.code, $0.amount.decimalString]) }
        return ([header] + rows).map { $0 + "\n" }.joined()
    }
}
