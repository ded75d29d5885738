import Foundation
import Testing

/// Issue 32, rule 1: one base currency per day, for every product. A household that
/// chooses pounds from a day next year keeps answering in dollars until then; one that
/// moved to euros some months ago sees every product (settings, net worth, envelopes, the
/// budget overview, what-if) answer in dollars for a day before the move and in euros for a
/// day after it; and its envelopes, created in dollars, keep taking fundings and budgets.
@Suite struct BaseCurrencyPerDayCommandTests {
    /// The day `offset` days from today in the stores' time zone (New York), YYYY-MM-DD.
    private static func day(_ offset: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/New_York")!
        let date = calendar.date(byAdding: .day, value: offset, to: Date())!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    private func baseCurrencyShown(_ store: BudgetStore, _ arguments: [String]) throws -> String? {
        let output = try store.run(arguments)
        return ["USD", "EUR", "GBP"].first { output.contains(#""base_currency":"\#($0)""#) || output.contains(#""value":"\#($0)""#) }
    }

    @Test func aBaseCurrencyChosenFromNextYearChangesNothingBeforeThen() throws {
        let store = try BudgetStore()
        try store.run(["asset", "add", "cash", "--name", "Cash", "--category", "cash", "--type", "cash", "--currency", "USD", "--date", Self.day(-30)])
        try store.run(["asset", "value", "cash", "200.00", "--date", Self.day(-30)])
        let nextYear = Self.day(200)
        try store.run(["settings", "set", "base-currency", "GBP", "--date", nextYear])
        // Today: still dollars, in every product.
        #expect(try baseCurrencyShown(store, ["settings", "--json"]) == "USD")
        #expect(try baseCurrencyShown(store, ["networth", "show", "--json"]) == "USD")
        #expect(try store.run(["networth", "show"]).contains("200.00 USD"))
        #expect(try store.run(["what-if", "--goal", "1000.00", "--monthly", "100.00", "--json"]).contains(#""currency":"USD""#))
        // From that day: pounds.
        #expect(try baseCurrencyShown(store, ["settings", "--as-of", nextYear, "--json"]) == "GBP")
        #expect(try baseCurrencyShown(store, ["networth", "show", "--as-of", nextYear, "--json"]) == "GBP")
        // Choosing it again for that day records nothing.
        #expect(try store.run(["base-currency", "GBP", "--date", nextYear]).contains("already"))
    }

    @Test func everyProductAnswersInTheBaseCurrencyOfTheDayAskedAbout() throws {
        let store = try BudgetStore()
        let before = Self.day(-120)
        let move = Self.day(-90)
        let after = Self.day(-60)
        try store.run(["envelope", "account-open", "Assets:Checking", "--opening", "500.00", "--date", Self.day(-150)])
        try store.run(["envelope", "create", "food", "--budget", "300.00", "--start", Self.day(-150)])
        try store.run(["fx", "EUR", "USD", "1.25", "--date", Self.day(-150)])
        try store.run(["tx", "add", "--payee", "Employer", "--category", "General", "--amount", "1000.00", "--date", Self.day(-140)])
        try store.run(["base-currency", "EUR", "--date", move])

        for (day, currency) in [(before, "USD"), (after, "EUR")] {
            #expect(try baseCurrencyShown(store, ["settings", "--as-of", day, "--json"]) == currency, "settings on \(day)")
            #expect(try baseCurrencyShown(store, ["networth", "show", "--as-of", day, "--json"]) == currency, "net worth on \(day)")
            #expect(try baseCurrencyShown(store, ["overview", "--as-of", day, "--json"]) == currency, "overview on \(day)")
            // 500.00 USD, or 400.00 EUR at 1 EUR = 1.25 USD.
            let balance = #"{"amount":"\#(currency == "USD" ? "500.00" : "400.00")","currency":"\#(currency)"}"#
            let total = try store.run(["envelope", "total", "--as-of", day, "--json"])
            #expect(total.contains(#""total":\#(balance)"#), "envelope total on \(day): \(total)")
            let whatIf = try store.run(["what-if", "--goal", "10000.00", "--monthly", "100.00", "--as-of", day, "--json"])
            #expect(whatIf.contains(#""start_balance":\#(balance)"#), "what-if on \(day): \(whatIf)")
        }

        // The envelope created in dollars keeps its currency: funding and a new budget are
        // taken in it after the move, and a new envelope starts in euros.
        try store.run(["envelope", "fund", "food", "--amount", "50.00", "--date", after])
        try store.run(["envelope", "budget", "food", "--budget", "350.00", "--from", after])
        #expect(try store.run(["envelope", "status", "food", "--json"]).contains("USD"))
        try store.run(["envelope", "create", "trips", "--budget", "200.00", "--start", after])
        #expect(try store.run(["envelope", "status", "trips", "--json"]).contains("EUR"))
    }
}
