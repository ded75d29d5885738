import Foundation
import Testing

/// Issue 32, rule 2: one conversion rule everywhere. A household keeps yen and francs and
/// answers in euros; the ledger knows JPY/USD and EUR/USD rates only. Net worth, the
/// envelope total and what-if value the yen exactly as `balances --value EUR` does, through
/// dollars (100,000 JPY × 0.0067 = 670.00 USD ÷ 1.25 = 536.00 EUR, rounded once), and the
/// francs, which nothing converts, are named in text and JSON by every one of them.
@Suite struct OneConversionRuleCommandTests {
    @Test func yenAreValuedThroughDollarsByEveryProductAndFrancsAreNamed() throws {
        let store = try BudgetStore()
        let opened = "2026-02-01"
        try store.run(["envelope", "account-open", "Assets:Yen", "--currency", "JPY", "--opening", "100000", "--date", opened])
        try store.run(["envelope", "account-open", "Assets:Francs", "--currency", "CHF", "--opening", "50.00", "--date", opened])
        try store.run(["asset", "add", "yen", "--name", "Yen", "--category", "cash", "--type", "cash", "--currency", "JPY", "--date", opened])
        try store.run(["asset", "value", "yen", "100000", "--date", opened])
        try store.run(["asset", "add", "francs", "--name", "Francs", "--category", "cash", "--type", "cash", "--currency", "CHF", "--date", opened])
        try store.run(["asset", "value", "francs", "50.00", "--date", opened])
        try store.run(["fx", "JPY", "USD", "0.0067", "--date", opened])
        try store.run(["fx", "EUR", "USD", "1.25", "--date", opened])
        try store.run(["base-currency", "EUR", "--date", opened])
        let day = "2026-03-15"

        let balances = try store.run(["balances", "--value", "EUR", "--as-of", day, "--format", "json"])
        #expect(balances.contains(#""balance":{"amount":"536.00","currency":"EUR"}"#), "\(balances)")
        let netWorth = try store.run(["networth", "show", "--as-of", day, "--json"])
        #expect(netWorth.contains(#""converted":{"amount":"536.00","currency":"EUR"}"#), "\(netWorth)")
        #expect(netWorth.contains(#"{"kind":"asset","id":"francs","origin":"item","value":{"amount":"50.00","currency":"CHF"},"reason":"no CHF/EUR rate by then"}"#), "\(netWorth)")
        // The envelope account holding the same francs is the household's too, and named alike.
        #expect(netWorth.contains(#"{"kind":"asset","id":"Assets:Francs","origin":"account","value":{"amount":"50.00","currency":"CHF"},"reason":"no CHF/EUR rate by then"}"#), "\(netWorth)")
        #expect(try store.run(["networth", "show", "--as-of", day]).contains("excluded: asset francs: no CHF/EUR rate by then"))
        let total = try store.run(["envelope", "total", "--as-of", day, "--json"])
        #expect(total.contains(#""total":{"amount":"536.00","currency":"EUR"}"#), "\(total)")
        #expect(total.contains(#""not_converted":[{"account":"Assets:Francs""#), "\(total)")
        let whatIf = try store.run(["what-if", "--goal", "1000.00", "--monthly", "10.00", "--as-of", day, "--json"])
        #expect(whatIf.contains(#""start_balance":{"amount":"536.00","currency":"EUR"}"#), "\(whatIf)")
        #expect(whatIf.contains(#""not_converted":[{"account":"Assets:Francs""#), "\(whatIf)")
        // The budget's books are in dollars: its amounts read in euros by the same rule.
        try store.run(["tx", "add", "--payee", "Employer", "--category", "General", "--amount", "1000.00", "--date", "2026-03-10"])
        let overview = try store.run(["overview", "--as-of", day, "--json"])
        #expect(overview.contains(#""base_currency":"EUR","in_base":{"current_balance":{"amount":"800.00","currency":"EUR"}"#), "\(overview)")
    }
}
