import Foundation
import Testing
import PostgresTestSupport

/// Issue 15, missing today 1: a user lists what the ledger holds (accounts, rates and
/// prices, assets, liabilities, envelopes, challenges, pots, recurring items), at a past
/// date and as the ledger knew it, as a table, as CSV for a spreadsheet and as JSON.
@Suite struct ListCommandTests {
    /// A household's first quarter, every command dated.
    private func household() throws -> BudgetStore {
        let store = try BudgetStore()
        try store.run(["envelope", "account-open", "Assets:Checking", "--opening", "1000.00", "--date", "2026-01-05"])
        try store.run(["envelope", "account-open", "Liabilities:Card", "--opening", "300.00", "--date", "2026-02-01"])
        try store.run(["fx", "EUR", "USD", "1.10", "--date", "2026-01-10"])
        try store.run(["fx", "EUR", "USD", "1.20", "--date", "2026-03-01"])
        try store.run(["price", "VTI", "250.00", "--source", "manual", "--date", "2026-02-02"])
        try store.run(["asset", "add", "home", "--name", "Home", "--category", "property", "--type", "real_estate", "--currency", "USD", "--date", "2026-01-01"])
        try store.run(["asset", "value", "home", "400000.00", "--date", "2026-01-02"])
        try store.run(["asset", "add", "flat", "--name", "London flat", "--category", "property", "--type", "real_estate", "--currency", "GBP", "--date", "2026-01-01"])
        try store.run(["asset", "value", "flat", "200000.00", "--date", "2026-01-02"])
        try store.run(["asset", "add", "villa", "--name", "Villa", "--category", "property", "--type", "real_estate", "--currency", "EUR", "--date", "2026-01-01"])
        try store.run(["asset", "value", "villa", "100000.00", "--date", "2026-01-02"])
        try store.run(["liability", "add", "loan", "--name", "Car loan", "--category", "loan", "--currency", "USD", "--date", "2026-01-01"])
        try store.run(["liability", "value", "loan", "5000.00", "--date", "2026-01-03"])
        return store
    }

    @Test func accountsListTheirKindCurrencyDaysAndBalanceAtTheDateAsked() throws {
        let store = try household()
        let january = try store.run(["account", "list", "--as-of", "2026-01-31", "--format", "csv"])
        let lines = january.split(separator: "\n").map(String.init)
        #expect(lines.first == "account,kind,currency,opened,closed,balance,balance_currency,owed")
        #expect(lines.contains("Assets:Checking,asset,USD,2026-01-05,,1000.00,USD,"))
        #expect(!january.contains("Liabilities:Card"), "the card opens in February: \(january)")

        let march = try store.run(["account", "list", "--as-of", "2026-03-31", "--format", "csv"])
        // What is entered for a liability is what is owed: 300.00 owed is a -300.00 balance.
        #expect(march.contains("Liabilities:Card,liability,USD,2026-02-01,,-300.00,USD,300.00"))

        let json = try store.run(["account", "list", "--as-of", "2026-03-31", "--json"])
        #expect(json.contains(#"{"account":"Liabilities:Card","kind":"liability","currency":"USD","opened":"2026-02-01","closed":null,"balance":{"amount":"-300.00","currency":"USD"},"balance_currency":"USD","owed":{"amount":"300.00","currency":"USD"}}"#))
        let table = try store.run(["account", "list", "--as-of", "2026-03-31"])
        #expect(table.hasPrefix("ACCOUNT") && table.contains("BALANCE CURRENCY"))
        #expect(try store.run(["account", "list", "--as-of", "2025-12-31"]) == "no accounts\n")
    }

    @Test(arguments: LogBackend.allCases) func aClosedAccountIsListedWithItsClosingDay(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["envelope", "account-open", "Assets:Old", "--date", "2026-01-05"])
        try store.run(["envelope", "account-close", "Assets:Old", "--date", "2026-02-01"])
        #expect(try store.run(["account", "list", "--as-of", "2026-01-31", "--format", "csv"]).contains("Assets:Old,asset,USD,2026-01-05,,,,"))
        #expect(try store.run(["account", "list", "--as-of", "2026-02-28", "--format", "csv"]).contains("Assets:Old,asset,USD,2026-01-05,2026-02-01,,,"))
    }

    @Test func ratesListTheLatestOfEachPairByThenAndEveryOneWithHistory() throws {
        let store = try household()
        let february = try store.run(["rates", "--as-of", "2026-02-15", "--format", "csv"])
        #expect(february.hasPrefix("kind,pair,base,quote,rate,date,effective_at,source,seq\n"))
        #expect(february.contains("fx,EUR/USD,EUR,USD,1.10,2026-01-10,"))
        #expect(february.contains("price,VTI/USD,VTI,USD,250.00,2026-02-02,") && february.contains(",manual,"))
        let march = try store.run(["rates", "--as-of", "2026-03-31", "--kind", "fx", "--format", "csv"])
        #expect(march.contains("fx,EUR/USD,EUR,USD,1.20,2026-03-01,") && !march.contains("1.10") && !march.contains("VTI"))
        let history = try store.run(["rates", "--as-of", "2026-03-31", "--kind", "fx", "--history", "--format", "csv"])
        let rows = history.split(separator: "\n").dropFirst()
        #expect(rows.count == 2 && rows.first?.contains("1.20") == true && rows.last?.contains("1.10") == true, "\(history)")
        // As the ledger knew it before the March rate was recorded: the January one.
        let known = try store.run(["rates", "--as-of", "2026-03-31", "--kind", "fx", "--known-at", "2000-01-01T00:00:00Z", "--format", "csv"])
        #expect(known == "kind,pair,base,quote,rate,date,effective_at,source,seq\n")
        #expect(try store.run(["rates", "--as-of", "2026-01-01"]) == "no rates or prices\n")
    }

    @Test func assetsListTheirActiveValueAndSourceAndWhatCouldNotBeConverted() throws {
        let store = try household()
        let result = try TallyProcess.run(["asset", "list", "--as-of", "2026-03-31", "--format", "csv"] + store.storeArguments)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "asset,name,category,type,currency,value,source,valued_on,priced_symbol,in_base,base_currency")
        #expect(lines.contains("home,Home,property,real_estate,USD,400000.00,manual,2026-01-02,,400000.00,USD"))
        #expect(lines.contains("villa,Villa,property,real_estate,EUR,100000.00,manual,2026-01-02,,120000.00,USD"))
        // No GBP rate: listed, with an empty value in base, and named as not converted.
        #expect(lines.contains("flat,London flat,property,real_estate,GBP,200000.00,manual,2026-01-02,,,USD"))
        #expect(result.standardError.contains("not converted (no rate into USD): flat (GBP)"))
        let json = try store.run(["asset", "list", "--as-of", "2026-03-31", "--json"])
        #expect(json.contains(#""asset":"flat""#) && json.contains(#""in_base":null"#))

        let liabilities = try store.run(["liability", "list", "--as-of", "2026-03-31", "--format", "csv"])
        #expect(liabilities.contains("loan,Car loan,loan,,USD,5000.00,manual,2026-01-03,,5000.00,USD"))
        // Before its valuation the loan is held with no value yet.
        #expect(try store.run(["liability", "list", "--as-of", "2026-01-01", "--format", "csv"]).contains("loan,Car loan,loan,,USD,,,,,,USD"))
    }

    @Test(arguments: LogBackend.allCases) func envelopesChallengesPotsAndRecurringItemsTakeTheSameFlags(on backend: LogBackend) throws {
        let store = try BudgetStore(on: backend)
        try store.run(["envelope", "account-open", "Assets:Checking", "--opening", "500.00", "--date", "2026-01-01"])
        try store.run(["envelope", "create", "food", "--name", "Food", "--budget", "300.00", "--start", "2026-01-01"])
        try store.run(["envelope", "record", "t1", "--account", "Assets:Checking", "--amount", "-40.00", "--envelope", "food", "--date", "2026-01-10"])
        let envelopes = try store.run(["envelope", "list", "--as-of", "2026-01-31", "--format", "csv"])
        #expect(envelopes == """
            envelope,name,interval,budgeted,currency,rollover,first_day,last_day,spent,remaining,over_budget
            food,Food,monthly,300.00,USD,carry_forward,2026-01-01,2026-01-31,40.00,260.00,false

            """)
        #expect(try store.run(["envelope", "list", "--as-of", "2026-01-31", "--json"]).contains(#""remaining":{"amount":"260.00","currency":"USD"}"#))

        try store.run(["envelope", "account-open", "Assets:Savings", "--date", "2026-01-01"])
        try store.run(["challenge", "start", "c1", "--unit", "1.00", "--account", "Assets:Savings", "--date", "2026-01-01"])
        try store.run(["challenge", "step", "c1", "--from", "Assets:Checking", "--date", "2026-01-07"])
        let challenges = try store.run(["challenge", "list", "--as-of", "2026-01-31", "--format", "csv"])
        #expect(challenges.hasPrefix("challenge,name,template,unit,currency,account,steps_done,steps,saved,target,complete\n"))
        #expect(challenges.contains("c1,") && challenges.contains(",1.00,USD,Assets:Savings,1,52,1.00,1378.00,false"))
        #expect(try store.run(["challenge", "list", "--as-of", "2025-12-31", "--format", "csv"]).split(separator: "\n").count == 1)

        try store.run(["reference", "set", "1000.00"])
        try store.run(["pot", "create", "trip", "--name", "Trip", "--target", "400.00"])
        try store.run(["pot", "add", "trip", "100.00"])
        #expect(try store.run(["pot", "list", "--format", "csv"]) == "pot,name,total,target,currency,progress_basis_points,base_currency,total_in_base,target_in_base\ntrip,Trip,100.00,400.00,USD,2500,USD,100.00,400.00\n")

        try store.run(["recurring", "define", "rent", "--payee", "Landlord", "--category", "Bills", "--amount", "-900.00", "--day", "1", "--start", "2026-01"])
        #expect(try store.run(["recurring", "list", "--format", "csv"]) == """
            id,payee,category,amount,currency,frequency,day_of_month,start_month,end_month
            rent,Landlord,Bills,-900.00,USD,monthly,1,2026-01,

            """)
        let both = try TallyProcess.run(["pot", "list", "--json", "--format", "csv"] + store.storeArguments)
        #expect(both.status != 0 && both.standardError.contains("give --json or --format csv, not both"))
    }

    @Test func remindersAndBanksListAsCSVToo() throws {
        let store = try household()
        try store.run(["reminder", "set", "revalue", "--asset", "home", "--due", "2000-01-01", "--note", "Check sales"])
        // Set today, so due already; before today it was not set yet.
        #expect(try store.run(["reminder", "list", "--format", "csv"]) == "reminder,asset,due_date,is_due,note\nrevalue,home,2000-01-01,true,Check sales\n")
        #expect(try store.run(["reminder", "list", "--as-of", "2026-05-01", "--format", "csv"]) == "reminder,asset,due_date,is_due,note\n")
        try store.run(["bank", "connect", "chase", "--name", "Chase"])
        #expect(try store.run(["bank", "list", "--format", "csv"]) == "bank,name,connected,consent_expires\nchase,Chase,true,\n")
        #expect(try store.run(["bank", "list", "--json"]).contains(#""connected":true,"consent_expires":null"#))
    }
}
