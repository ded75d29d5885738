/// The one formatter for money shown to a person (issue 32, rule 7): a table, a line of
/// text, a notification. Thousands are grouped with commas, the decimals are the
/// commodity's scale, and a change carries its sign and an arrow, as the apps show them.
/// Machine formats (CSV, JSON, the log) keep ``Money/decimalString``: plain, ungrouped.
///
/// ```swift
/// let amount = Money(minorUnits: 320_000, commodity: .gbp)
/// MoneyDisplay.amount(amount)                         // "3,200.00"
/// MoneyDisplay.money(amount)                          // "3,200.00 GBP"
/// MoneyDisplay.change(amount, over: "30 days")        // "+3,200.00 GBP ↑ over 30 days"
/// ```
public enum MoneyDisplay {
    /// The amount with its thousands grouped, without the code: `"-1,234,567.89"`.
    public static func amount(_ money: Money) -> String {
        let plain = money.decimalString
        let negative = plain.hasPrefix("-")
        let unsigned = negative ? String(plain.dropFirst()) : plain
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = Array(parts[0])
        var grouped = ""
        for (index, digit) in whole.enumerated() {
            if index > 0 && (whole.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        let fraction = parts.count > 1 ? "." + parts[1] : ""
        return (negative ? "-" : "") + grouped + fraction
    }

    /// The grouped amount and the code: `"3,200.00 GBP"`.
    public static func money(_ money: Money) -> String {
        amount(money) + " " + money.commodity.code
    }

    /// A change: signed (`+` for a rise, `-` for a fall), grouped, with its code and arrow
    /// (`↑` up, `↓` down, `→` none), and the period when given:
    /// `"+3,200.00 GBP ↑ over 30 days"`, `"-12.50 USD ↓"`, `"0.00 EUR →"`.
    ///
    /// - Parameters:
    ///   - change: the signed change.
    ///   - period: what it is over (`"30 days"`), or nil.
    public static func change(_ change: Money, over period: String? = nil) -> String {
        let sign = change.isPositive ? "+" : ""
        let arrow = change.isPositive ? "↑" : change.isNegative ? "↓" : "→"
        return sign + money(change) + " " + arrow + (period.map { " over \($0)" } ?? "")
    }
}
