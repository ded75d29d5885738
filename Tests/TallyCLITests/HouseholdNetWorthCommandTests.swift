import Foundation
import Testing

/// Issue 32, "Net worth of the whole household": a household gets paid into its wealth
/// account, keeps a bank account and a card in the envelope app, and adds its house by
/// hand. `networth` counts all of them, each once with where it comes from, instead of
/// 0.00 beside a wealth account that holds money; the export says the same.
@Suite struct HouseholdNetWorthCommandTests {
    @Test func networthCountsTheWealthAccountTheEnvelopeAccountsAndTheCard() throws {
        let store = try BudgetStore()
        try store.run(["wealth", "deposit", "1000.00", "--currency", "USD"])
        try store.run(["wealth", "round-ups", "on"])
        try store.run(["wealth", "purchase", "3.40", "--currency", "USD", "--merchant", "Blue Bottle"])
        var json = try store.run(["networth", "show", "--json"])
        // Before anything is added by hand, the wealth account alone: 696.00 + 300.60.
        #expect(json.contains(#""net_worth":{"amount":"996.60","currency":"USD"}"#), "\(json)")

        try store.run(["envelope", "account-open", "Assets:Bank", "--opening", "1500.00"])
        try store.run(["envelope", "account-open", "Liabilities:Card", "--opening", "300.00"])
        try store.run(["envelope", "account-open", "Assets:Francs", "--currency", "CHF", "--opening", "50.00"])
        try store.run(["asset", "add", "home", "--name", "Home", "--category", "property", "--type", "real_estate", "--currency", "USD"])
        try store.run(["asset", "value", "home", "200000.00"])
        json = try store.run(["networth", "show", "--json"])
        #expect(json.contains(#""assets":{"amount":"202496.60","currency":"USD"}"#), "\(json)")
        #expect(json.contains(#""liabilities":{"amount":"300.00","currency":"USD"}"#), "\(json)")
        #expect(json.contains(#""net_worth":{"amount":"202196.60","currency":"USD"}"#), "\(json)")
        #expect(json.contains(#"{"kind":"asset","id":"Wealth:main:Spend","origin":"wealth_account","category":"cash","value":{"amount":"696.00","currency":"USD"}"#), "\(json)")
        #expect(json.contains(#"{"kind":"liability","id":"Liabilities:Card","origin":"account","category":"other","value":{"amount":"300.00","currency":"USD"}"#), "\(json)")
        #expect(json.contains(#"{"kind":"asset","id":"home","origin":"item","#), "\(json)")
        #expect(json.contains(#""excluded":[{"kind":"asset","id":"Assets:Francs","origin":"account","value":{"amount":"50.00","currency":"CHF"},"reason":"no CHF/USD rate by then"}]"#), "\(json)")

        let text = try store.run(["networth", "show"])
        #expect(text.range(of: #"KIND +ITEM +FROM +CATEGORY +VALUE +CUR +USD +SOURCE +FRESHNESS"#, options: .regularExpression) != nil, "\(text)")
        #expect(text.range(of: #"asset +Wealth:main:Invest +wealth_account +investments +300\.60 +USD +300\.60 +balance"#, options: .regularExpression) != nil, "\(text)")
        #expect(text.contains("excluded: asset Assets:Francs: no CHF/USD rate by then"), "\(text)")

        // Export's net-worth items carry the same lines with their origin.
        let csv = try store.run(["export", "--csv", "net-worth-items"])
        #expect(csv.contains("asset,Wealth:main:Spend,Wealth:main:Spend,cash,696.00,USD,balance,"), "\(csv)")
        #expect(csv.split(separator: "\n").filter { $0.contains(",Liabilities:Card,") }.count == 1, "\(csv)")
        // `networth --format csv` is the same table at the date asked about.
        let shown = try store.run(["networth", "show", "--format", "csv"]).split(separator: "\n")
        #expect(shown.first == csv.split(separator: "\n").first && shown.count == csv.split(separator: "\n").count, "\(shown)")
        #expect(shown.contains { $0.hasPrefix("asset,Wealth:main:Spend,Wealth:main:Spend,cash,696.00,USD,balance,") })
    }
}
