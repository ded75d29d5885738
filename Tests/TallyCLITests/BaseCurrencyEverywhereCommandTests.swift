import Foundation
import Testing

/// Issue 15, wrong today 9: `base-currency EUR` switched wealth and envelopes but not the
/// budget product, and `envelope total` showed every USD account as "no rate". Now one base
/// currency per ledger is honoured by every product: converted where a rate exists, and
/// what has no rate is listed as not converted.
@Suite struct BaseCurrencyEverywhereCommandTests {
    @Test func aUserWhoMovesToEuropeSeesEveryProductInEuros() throws {
        let store = try BudgetStore()
        try store.run(["tx", "add", "--payee", "Employer", "--category", "General", "--amount", "1000.00", "--date", "2026-03-10"])
        try store.run(["envelope", "account-open", "Assets:Checking", "--opening", "100.00", "--date", "2026-01-05"])
        try store.run(["asset", "add", "cash", "--name", "Cash", "--category", "cash", "--type", "cash", "--currency", "USD", "--date", "2026-01-01"])
        try store.run(["asset", "value", "cash", "200.00", "--date", "2026-01-02"])

        // She switches to EUR before entering any rate: nothing is converted, and each
        // product says so instead of showing zero.
        // From the first of January: every answer about a day since is in EUR.
        try store.run(["base-currency", "EUR", "--date", "2026-01-01"])
        let overviewWithoutRate = try store.run(["overview", "--month", "2026-03", "--json"])
        #expect(overviewWithoutRate.contains(#""base_currency":"EUR","in_base":null,"not_converted":["USD"]"#), "\(overviewWithoutRate)")
        #expect(try store.run(["overview", "--month", "2026-03"]).contains("not converted (no rate into EUR): USD"))
        // The envelope total of today (after the switch) names the USD account it cannot convert.
        let totalWithoutRate = try store.run(["envelope", "total", "--json"])
        #expect(totalWithoutRate.contains(#""total":{"amount":"0.00","currency":"EUR"}"#) && totalWithoutRate.contains(#""not_converted":[{"account":"Assets:Checking""#),
                "\(totalWithoutRate)")

        // With a rate, every product answers in EUR.
        try store.run(["fx", "EUR", "USD", "1.25", "--date", "2026-02-01"])
        let overview = try store.run(["overview", "--month", "2026-03", "--json"])
        #expect(overview.contains(#""currency":"USD","current_balance":{"amount":"1000.00","currency":"USD"},"held_in_pots":{"amount":"0.00","currency":"USD"},"income":{"amount":"1000.00","currency":"USD"}"#), "the books stay in USD: \(overview)")
        #expect(overview.contains(#""base_currency":"EUR","in_base":{"current_balance":{"amount":"800.00","currency":"EUR"},"held_in_pots":{"amount":"0.00","currency":"EUR"},"income":{"amount":"800.00","currency":"EUR"}"#), "\(overview)")
        #expect(overview.contains(#""not_converted":[]"#))
        let table = try store.run(["overview", "--month", "2026-03"])
        #expect(table.contains("USD") && table.contains("EUR") && table.contains("800.00"))
        #expect(try store.run(["envelope", "total"]).contains("80.00 EUR"))
        #expect(try store.run(["networth", "show", "--as-of", "2026-03-31", "--json"]).contains("160.00"))
        #expect(try store.run(["asset", "list", "--as-of", "2026-03-31", "--format", "csv"]).contains("cash,Cash,cash,cash,USD,200.00,manual,2026-01-02,,160.00,EUR"))
        try store.run(["budget", "set", "--category", "Groceries", "--month", "2026-03", "--maximum", "400.00"])
        let budgets = try store.run(["budget", "show", "--month", "2026-03", "--json"])
        #expect(budgets.contains(#""in_base":{"maximum":{"amount":"320.00","currency":"EUR"},"spent":{"amount":"0.00","currency":"EUR"},"remaining":{"amount":"320.00","currency":"EUR"}}"#), "\(budgets)")
        try store.run(["budget", "set", "--category", "Groceries", "--month", "2026-01", "--maximum", "400.00"])
        #expect(try store.run(["budget", "show", "--month", "2026-01"]).contains("not converted (no rate into EUR): USD"))
        try store.run(["recurring", "define", "rent", "--payee", "Landlord", "--category", "Bills", "--amount", "-900.00", "--day", "1", "--start", "2026-03"])
        let recurring = try store.run(["recurring", "status", "--today", "2026-03-20", "--json"])
        // Due on the 1st, unpaid on the 20th: overdue (issue 32, rule 6).
        #expect(recurring.contains(#""base_currency":"EUR","in_base":{"paid":{"income":{"amount":"0.00","currency":"EUR"},"bills":{"amount":"0.00","currency":"EUR"}},"due_soon":{"income":{"amount":"0.00","currency":"EUR"},"bills":{"amount":"0.00","currency":"EUR"}},"upcoming":{"income":{"amount":"0.00","currency":"EUR"},"bills":{"amount":"0.00","currency":"EUR"}},"overdue":{"income":{"amount":"0.00","currency":"EUR"},"bills":{"amount":"720.00","currency":"EUR"}}"#), "\(recurring)")
        try store.run(["reference", "set", "1000.00"])
        try store.run(["pot", "create", "trip", "--target", "400.00"])
        try store.run(["pot", "add", "trip", "100.00"])
        #expect(try store.run(["pot", "list", "--json"]).contains(#""base_currency":"EUR","in_base":{"total":{"amount":"80.00","currency":"EUR"},"target":{"amount":"320.00","currency":"EUR"}}"#))
        // Before the rate took effect, January is still not converted.
        #expect(try store.run(["overview", "--month", "2026-01", "--json"]).contains(#""not_converted":["USD"]"#))
    }
}
