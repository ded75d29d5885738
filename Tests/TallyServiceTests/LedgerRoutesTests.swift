import Foundation
import Testing
@testable import TallyService

/// Every ledger route over real HTTP, as a household's app would call them: create the
/// ledger, record through each product's commands, read back through each query, with
/// amounts as decimal strings and errors as problem documents.
@Suite struct LedgerRoutesTests {
    @Test func aHouseholdRecordsAndReadsThroughEveryCommandAndQuery() async throws {
        let service = try await ServiceHarness.start()
        let created = try await service.createLedger("smiths")
        #expect(created.status == 201, "\(created.text)")
        #expect((created.json["head"] as? [String: Any])?["sequence"] as? Int == 1)

        // Wealth: a deposit splits 70/30, a purchase rounds up, a withdrawal leaves Spend.
        let deposit = try await service.command("/ledgers/smiths/wealth/main/deposits", #"{"amount":"100.00","external_id":"bank-1"}"#)
        #expect(deposit.status == 201, "\(deposit.text)")
        #expect(deposit.json.objects("events").map { $0["type"] as? String } == ["deposit_received", "deposit_split"])
        #expect(try await service.command("/ledgers/smiths/wealth/main/purchases", #"{"amount":"3.40","merchant":"Cafe"}"#).status == 201)
        #expect(try await service.command("/ledgers/smiths/wealth/main/withdrawals", #"{"amount":"10.00","destination":"checking"}"#).status == 201)
        let wealth = try await service.send(.GET, "/ledgers/smiths/wealth/main")
        #expect(wealth.status == 200, "\(wealth.text)")
        let usd = wealth.json.objects("balances").first
        #expect(usd?["currency"] as? String == "USD")
        #expect(usd?["total"] is String, "amounts are strings")
        #expect(usd?["total"] as? String == "86.60", "100.00 − 3.40 − 10.00: \(wealth.text)")

        // Budgeting: income, a budget, a pot filled and partly emptied.
        #expect(try await service.command("/ledgers/smiths/transactions", #"{"payee":"Employer","category":"general","amount":"2000.00","date":"2026-01-15"}"#).status == 201)
        #expect(try await service.command("/ledgers/smiths/budgets", #"{"category":"groceries","month":"2026-01","maximum":"400.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/smiths/pots", #"{"id":"holiday","name":"Holiday","target":"1500.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/smiths/pots/holiday/additions", #"{"amount":"300.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/smiths/pots/holiday/withdrawals", #"{"amount":"50.00"}"#).status == 201)
        let pots = try await service.send(.GET, "/ledgers/smiths/pots")
        #expect(pots.json.objects("pots").first?["total"] as? String == "250.00", "\(pots.text)")
        let overview = try await service.send(.GET, "/ledgers/smiths/budgets/overview?month=2026-01&as_of=2026-01-31")
        #expect(overview.status == 200, "\(overview.text)")
        #expect(overview.json["income"] as? String == "2000.00")

        // Net worth: an asset and its valuation.
        #expect(try await service.command("/ledgers/smiths/assets", #"{"id":"flat","name":"Flat","category":"property","type":"real_estate","currency":"USD"}"#).status == 201)
        #expect(try await service.command("/ledgers/smiths/assets/flat/valuations", #"{"value":"250000.00"}"#).status == 201)
        let netWorth = try await service.send(.GET, "/ledgers/smiths/net-worth")
        #expect(netWorth.status == 200, "\(netWorth.text)")
        // The household's: the flat, and the wealth account's 86.60 (Spend and Invest), each with its origin.
        #expect(netWorth.json["assets"] as? String == "250086.60", "\(netWorth.text)")
        #expect(netWorth.json.objects("lines").map { "\($0["id"] as? String ?? "") \($0["origin"] as? String ?? "")" }
                == ["flat item", "Wealth:main:Invest wealth_account", "Wealth:main:Spend wealth_account"], "\(netWorth.text)")
        #expect(netWorth.json["complete"] as? Bool == true)
        #expect(netWorth.json.objects("excluded").isEmpty)
        // A car valued in GBP with no GBP/USD rate: left out, and named.
        #expect(try await service.command("/ledgers/smiths/assets", #"{"id":"car","name":"Family car","category":"other","type":"custom","currency":"GBP"}"#).status == 201)
        #expect(try await service.command("/ledgers/smiths/assets/car/valuations", #"{"value":"9000.00","currency":"GBP"}"#).status == 201)
        let partial = try await service.send(.GET, "/ledgers/smiths/net-worth")
        #expect(partial.json["complete"] as? Bool == false)
        #expect(partial.json["assets"] as? String == "250086.60", "the car is not counted")
        let excluded = partial.json.objects("excluded")
        #expect(excluded.map { $0["id"] as? String } == ["car"], "\(partial.text)")
        #expect(excluded.first?["name"] as? String == "Family car")
        #expect(excluded.first?["value"] as? String == "9000.00")
        #expect(excluded.first?["currency"] as? String == "GBP")
        #expect((excluded.first?["reason"] as? String)?.contains("GBP") == true)

        let ledger = try await service.send(.GET, "/ledgers/smiths")
        #expect(ledger.json["base_currency"] as? String == "USD")
        let balances = try await service.send(.GET, "/ledgers/smiths/balances")
        #expect(balances.status == 200)
        #expect(!balances.json.objects("balances").isEmpty)
        #expect(balances.json.objects("balances").allSatisfy { $0["balance"] is String })
        try await service.stopAndRemove()
    }

    @Test func categoriesAreReadByTheCLIsOneSpellingRule() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("cats")
        let budget = try await service.command("/ledgers/cats/budgets", #"{"category":"Groceries","month":"2026-01","maximum":"400.00"}"#)
        #expect(budget.status == 201, "the README's spelling: \(budget.text)")
        #expect(budget.text.contains(#""category":"groceries""#), "stored by its one name")
        for spelling in ["Dining Out", "dining-out", "DINING_OUT"] {
            let reply = try await service.command("/ledgers/cats/transactions", #"{"payee":"Cafe","category":"\#(spelling)","amount":"-12.00","date":"2026-01-05"}"#)
            #expect(reply.status == 201, "\(spelling): \(reply.text)")
            #expect(reply.text.contains(#""category":"dining_out""#))
        }
        let unknown = try await service.command("/ledgers/cats/transactions", #"{"payee":"Cafe","category":"Snacks","amount":"-1.00","date":"2026-01-05"}"#)
        #expect(unknown.status == 422)
        #expect(unknown.json["field"] as? String == "category")
        #expect((unknown.json["detail"] as? String)?.contains("Dining Out") == true, "names the categories: \(unknown.text)")
        try await service.stopAndRemove()
    }

    @Test func transactionsAreListedSearchedSortedAndPagedAsTheCLIListsThem() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("list")
        let rows: [(String, String, String, String)] = [
            ("Netflix", "entertainment", "-15.99", "2026-05-02"), ("Green Grocer", "groceries", "-40.00", "2026-05-03"),
            ("Netflix", "entertainment", "-15.99", "2026-06-02"), ("Salary", "general", "2500.00", "2026-05-28"),
            ("Market", "Groceries", "-22.50", "2026-05-20"),
        ]
        for (payee, category, amount, date) in rows {
            let reply = try await service.command("/ledgers/list/transactions", #"{"payee":"\#(payee)","category":"\#(category)","amount":"\#(amount)","date":"\#(date)"}"#)
            #expect(reply.status == 201, "\(reply.text)")
        }
        let all = try await service.send(.GET, "/ledgers/list/transactions?as_of=2026-12-31")
        #expect(all.status == 200, "\(all.text)")
        #expect(all.json["total_count"] as? Int == 5)
        #expect(all.json.objects("transactions").map { $0["date"] as? String } == ["2026-06-02", "2026-05-28", "2026-05-20", "2026-05-03", "2026-05-02"], "newest first")
        let may = try await service.send(.GET, "/ledgers/list/transactions?month=2026-05&category=groceries&sort=amount&order=asc&as_of=2026-12-31")
        #expect(may.json.objects("transactions").map { $0["amount"] as? String } == ["-40.00", "-22.50"], "\(may.text)")
        let search = try await service.send(.GET, "/ledgers/list/transactions?search=netFLIX&page_size=1&page=2&as_of=2026-12-31")
        #expect(search.json["total_count"] as? Int == 2)
        #expect(search.json["page_count"] as? Int == 2)
        let second = try #require(search.json.objects("transactions").first)
        #expect(second["date"] as? String == "2026-05-02")
        let id = try #require(second["id"] as? String)
        let one = try await service.send(.GET, "/ledgers/list/transactions/\(id)?as_of=2026-12-31")
        #expect(one.json["payee"] as? String == "Netflix")
        #expect(one.json["bank_id"] is NSNull, "nullable fields are present")
        #expect(try await service.send(.GET, "/ledgers/list/transactions/nope").status == 404)
        #expect(try await service.send(.GET, "/ledgers/list/transactions?sort=size").status == 400)
        #expect(try await service.send(.GET, "/ledgers/list/transactions?month=2026-05&from=2026-05-01").status == 400)
        #expect(try await service.send(.GET, "/ledgers/list/transactions?page_size=501").status == 400)
        try await service.stopAndRemove()
    }

    @Test func netWorthChangeAndSeriesAreServed() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("worth")
        #expect(try await service.command("/ledgers/worth/assets", #"{"id":"flat","name":"Flat","category":"property","type":"real_estate","currency":"USD"}"#).status == 201)
        #expect(try await service.command("/ledgers/worth/assets/flat/valuations", #"{"value":"250000.00"}"#).status == 201)
        let change = try await service.send(.GET, "/ledgers/worth/net-worth/change?days=7")
        #expect(change.status == 200, "\(change.text)")
        #expect(change.json["start"] as? String == "0.00")
        #expect(change.json["end"] as? String == "250000.00")
        #expect(change.json["change"] as? String == "250000.00")
        let today = try #require((try await service.send(.GET, "/ledgers/worth/balances").json["as_of"] as? String)?.prefix(7))
        let series = try await service.send(.GET, "/ledgers/worth/net-worth/series?from=2025-12&through=\(today)")
        #expect(series.status == 200, "\(series.text)")
        let months = series.json.objects("months")
        #expect(months.first?["month"] as? String == "2025-12")
        #expect(months.first?["net_worth"] as? String == "0.00")
        #expect(months.last?["net_worth"] as? String == "250000.00")
        #expect(try await service.send(.GET, "/ledgers/worth/net-worth/series?from=2026-05&through=2026-01").status == 400)
        #expect(try await service.send(.GET, "/ledgers/worth/net-worth/series?from=2026-05").status == 400)
        try await service.stopAndRemove()
    }

    @Test func accountsAssetsAndLiabilitiesAreListedAsTheCLIListsThem() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("lists")
        #expect(try await service.command("/ledgers/lists/wealth/main/deposits", #"{"amount":"100.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/lists/assets", #"{"id":"flat","name":"Flat","category":"property","type":"real_estate","currency":"USD"}"#).status == 201)
        #expect(try await service.command("/ledgers/lists/assets/flat/valuations", #"{"value":"250000.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/lists/assets", #"{"id":"car","name":"Car","category":"other","type":"custom","currency":"GBP"}"#).status == 201)
        #expect(try await service.command("/ledgers/lists/assets/car/valuations", #"{"value":"9000.00","currency":"GBP"}"#).status == 201)
        #expect(try await service.command("/ledgers/lists/liabilities", #"{"id":"loan","name":"Loan","category":"loan","currency":"USD"}"#).status == 201)
        #expect(try await service.command("/ledgers/lists/liabilities/loan/valuations", #"{"value":"1200.00"}"#).status == 201)

        let accounts = try await service.send(.GET, "/ledgers/lists/accounts")
        #expect(accounts.status == 200, "\(accounts.text)")
        let spend = accounts.json.objects("accounts").first { $0["account"] as? String == "Wealth:main:Spend" }
        #expect(spend?["kind"] as? String == "spend")
        #expect((spend?["balances"] as? [[String: Any]])?.first?["balance"] as? String == "70.00")
        let assets = try await service.send(.GET, "/ledgers/lists/assets")
        #expect(assets.status == 200, "\(assets.text)")
        let byId = Dictionary(uniqueKeysWithValues: assets.json.objects("assets").map { ($0["id"] as? String ?? "", $0) })
        #expect(byId["flat"]?["value"] as? String == "250000.00")
        #expect(byId["flat"]?["in_base"] as? String == "250000.00")
        #expect(byId["car"]?["in_base"] is NSNull, "no GBP/USD rate: not converted")
        let liabilities = try await service.send(.GET, "/ledgers/lists/liabilities")
        #expect(liabilities.json.objects("liabilities").map { $0["value"] as? String } == ["1200.00"], "\(liabilities.text)")
        try await service.stopAndRemove()
    }

    @Test func creationsSayWhereDeletionsAreDeleteAndANoOpIs200() async throws {
        let service = try await ServiceHarness.start()
        let created = try await service.createLedger("rest")
        #expect(created.status == 201)
        #expect(created.headers.first(name: "Location") == "/ledgers/rest")
        #expect(try await service.command("/ledgers/rest/reference-balance", #"{"amount":"500.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/rest/pots", #"{"id":"holiday","target":"900.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/rest/pots/holiday/additions", #"{"amount":"100.00"}"#).status == 201)
        let deleted = try await service.send(.DELETE, "/ledgers/rest/pots/holiday", headers: [("Idempotency-Key", "del-holiday")])
        #expect(deleted.status == 201, "\(deleted.text)")
        #expect(deleted.text.contains("pot_deleted"), "\(deleted.text)")
        #expect(try await service.send(.GET, "/ledgers/rest/pots").json.objects("pots").isEmpty)
        let again = try await service.send(.DELETE, "/ledgers/rest/pots/holiday", headers: [("Idempotency-Key", "del-holiday")])
        #expect(again.text == deleted.text, "a retry is the first answer")
        #expect(again.headers.first(name: "Idempotent-Replayed") == "true")
        #expect(try await service.send(.DELETE, "/ledgers/rest/pots/holiday").status == 400, "a deletion is a command: it needs its key")

        let recorded = try await service.command("/ledgers/rest/transactions", #"{"payee":"Cafe","category":"dining_out","amount":"-4.00","date":"2026-01-05","id":"cafe-1"}"#)
        #expect(recorded.status == 201)
        let same = try await service.command("/ledgers/rest/transactions/cafe-1/category", #"{"category":"Dining Out"}"#)
        #expect(same.status == 200, "nothing to change: \(same.text)")
        #expect(same.json["events"] as? [Any] != nil && (same.json["events"] as? [Any])?.isEmpty == true)
        let removed = try await service.send(.DELETE, "/ledgers/rest/transactions/cafe-1", headers: [("Idempotency-Key", "del-cafe")])
        #expect(removed.status == 201, "\(removed.text)")
        #expect(try await service.send(.GET, "/ledgers/rest/transactions/cafe-1").status == 404)
        try await service.stopAndRemove()
    }

    @Test func envelopesAreOpenedCreatedAndRead() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("envelopes")
        let account = try await service.command("/ledgers/envelopes/envelope-accounts", #"{"account":"Assets:Checking","currency":"USD","opening_balance":"1000.00"}"#)
        #expect(account.status == 201, "\(account.text)")
        let envelope = try await service.command("/ledgers/envelopes/envelopes", #"{"id":"food","name":"Food","interval":"monthly","budgeted":"400.00"}"#)
        #expect(envelope.status == 201, "\(envelope.text)")
        let statuses = try await service.send(.GET, "/ledgers/envelopes/envelopes")
        #expect(statuses.status == 200, "\(statuses.text)")
        #expect(statuses.json.objects("envelopes").map { $0["id"] as? String } == ["food"])
        #expect(statuses.json.objects("envelopes").first?["budgeted"] as? String == "400.00")
        let total = try await service.send(.GET, "/ledgers/envelopes/envelope-accounts/total")
        #expect(total.json["total"] as? String == "1000.00", "\(total.text)")
        let interval = try await service.command("/ledgers/envelopes/envelopes", #"{"id":"x","name":"X","interval":"daily","budgeted":"1.00"}"#)
        #expect(interval.json["field"] as? String == "interval")
        try await service.stopAndRemove()
    }

    /// Posts a command twice under one key: the first is recorded, the retry replays it.
    @discardableResult
    func postedOnce(_ service: ServiceHarness, _ path: String, _ body: String, key: String) async throws -> ServiceHarness.Reply {
        let first = try await service.command(path, body, idempotencyKey: key)
        let retry = try await service.command(path, body, idempotencyKey: key)
        #expect(first.status == 201, "\(path): \(first.text)")
        #expect(first.headers.first(name: "Idempotent-Replayed") == nil, "\(path)")
        #expect(retry.status == 201, "\(path): \(retry.text)")
        #expect(retry.headers.first(name: "Idempotent-Replayed") == "true", "\(path): \(first.text)")
        #expect(retry.text == first.text, "\(path): the retry returns the first response")
        return first
    }

    @Test func aWealthAccountIsSteeredAndCorrectedThroughItsCommands() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("steer")
        #expect(try await service.command("/ledgers/steer/wealth/main/deposits", #"{"amount":"100.00"}"#).status == 201)
        let withdrawal = try await service.command("/ledgers/steer/wealth/main/withdrawals", #"{"amount":"10.00"}"#)
        let withdrawalSeq = try #require(withdrawal.json.objects("events").first?["seq"] as? Int, "\(withdrawal.text)")
        let purchase = try await service.command("/ledgers/steer/wealth/main/purchases", #"{"amount":"3.40","merchant":"Cafe"}"#)
        let purchaseSeq = try #require(purchase.json.objects("events").first?["seq"] as? Int, "\(purchase.text)")
        func summary() async throws -> [String: Any] { try await service.send(.GET, "/ledgers/steer/wealth/main").json }

        // The steering switches, each retried once under its key.
        try await postedOnce(service, "/ledgers/steer/wealth/main/split-rule", #"{"spend_weight":50,"invest_weight":50}"#, key: "split")
        #expect(try await summary()["split_rule"] as? String == "50/50")
        try await postedOnce(service, "/ledgers/steer/wealth/main/round-ups", #"{"enabled":true}"#, key: "round-ups-on")
        #expect(try await summary()["round_ups_enabled"] as? Bool == true, "round-ups start off")
        try await postedOnce(service, "/ledgers/steer/wealth/main/card/freeze", "{}", key: "freeze")
        #expect(try await summary()["card_frozen"] as? Bool == true)
        try await postedOnce(service, "/ledgers/steer/wealth/main/card/unfreeze", "{}", key: "unfreeze")
        #expect(try await summary()["card_frozen"] as? Bool == false)
        try await postedOnce(service, "/ledgers/steer/wealth/main/automation/pause", "{}", key: "pause")
        #expect(try await summary()["status"] as? String == "paused")
        try await postedOnce(service, "/ledgers/steer/wealth/main/automation/resume", "{}", key: "resume")
        #expect(try await summary()["status"] as? String == "active")

        // Corrections: the withdrawal was 16.60, the purchase never happened.
        try await postedOnce(service, "/ledgers/steer/wealth/main/entries/\(withdrawalSeq)/amendments", #"{"amount":"16.60"}"#, key: "amend")
        try await postedOnce(service, "/ledgers/steer/wealth/main/entries/\(purchaseSeq)/reversals", "{}", key: "reverse")
        let total = try await summary()
        #expect(total.objects("balances").first?["total"] as? String == "83.40", "100.00 − 16.60: \(total)")

        // Bad input names its field and records nothing.
        let weights = try await service.command("/ledgers/steer/wealth/main/split-rule", #"{"spend_weight":"50","invest_weight":50}"#)
        #expect(weights.status == 422)
        #expect(weights.json["field"] as? String == "spend_weight")
        let entry = try await service.command("/ledgers/steer/wealth/main/entries/first/reversals", "{}")
        #expect(entry.status == 400)
        #expect(entry.json["field"] as? String == "entry")
        try await service.stopAndRemove()
    }

    @Test func aPotIsDeletedOnce() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("potdel")
        #expect(try await service.command("/ledgers/potdel/transactions", #"{"payee":"Employer","category":"general","amount":"500.00","date":"2026-01-15"}"#).status == 201)
        #expect(try await service.command("/ledgers/potdel/pots", #"{"id":"car","target":"500.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/potdel/pots/car/additions", #"{"amount":"40.00"}"#).status == 201)
        try await postedOnce(service, "/ledgers/potdel/pots/car/deletion", "{}", key: "delete-car")
        let pots = try await service.send(.GET, "/ledgers/potdel/pots")
        #expect(pots.json.objects("pots").isEmpty, "\(pots.text)")
        try await service.stopAndRemove()
    }

    @Test func transactionsAreCorrectedImportedAndGeneratedThroughTheirCommands() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("books")
        func expenses() async throws -> String? {
            try await service.send(.GET, "/ledgers/books/budgets/overview?month=2026-01&as_of=2026-01-31").json["expenses"] as? String
        }
        let rent = try await service.command("/ledgers/books/transactions", #"{"id":"rent-jan","payee":"Landlord","category":"bills","amount":"-800.00","date":"2026-01-03"}"#)
        #expect(rent.status == 201, "\(rent.text)")

        // The rent was 750.00, and is filed under general.
        try await postedOnce(service, "/ledgers/books/transactions/rent-jan/amendments", #"{"amount":"-750.00"}"#, key: "amend-rent")
        try await postedOnce(service, "/ledgers/books/transactions/rent-jan/category", #"{"category":"general"}"#, key: "recategorise-rent")
        #expect(try await expenses() == "750.00")

        // A bank's transaction imported, a recurring gym fee generated for January.
        try await postedOnce(service, "/ledgers/books/banks", #"{"id":"acme","name":"Acme Bank"}"#, key: "connect-acme")
        try await postedOnce(service, "/ledgers/books/banks/acme/transactions", #"{"external_id":"tx-1","payee":"Grocer","category":"groceries","amount":"-50.00","date":"2026-01-10"}"#, key: "import-tx-1")
        #expect(try await expenses() == "800.00")
        try await postedOnce(service, "/ledgers/books/recurring", #"{"id":"gym","payee":"Gym","category":"lifestyle","amount":"-30.00","day_of_month":5,"start_month":"2026-01"}"#, key: "define-gym")
        try await postedOnce(service, "/ledgers/books/recurring-generations", #"{"month":"2026-01"}"#, key: "generate-jan")
        #expect(try await expenses() == "830.00")

        // The rent deleted; the gym and the bank let go; a reference balance set.
        try await postedOnce(service, "/ledgers/books/transactions/rent-jan/deletion", "{}", key: "delete-rent")
        #expect(try await expenses() == "80.00")
        try await postedOnce(service, "/ledgers/books/recurring/gym/removal", "{}", key: "remove-gym")
        try await postedOnce(service, "/ledgers/books/banks/acme/disconnection", "{}", key: "disconnect-acme")
        try await postedOnce(service, "/ledgers/books/budgets", #"{"category":"groceries","month":"2026-01","maximum":"400.00"}"#, key: "budget")
        try await postedOnce(service, "/ledgers/books/budgets/deletion", #"{"category":"groceries","month":"2026-01"}"#, key: "unbudget")
        try await postedOnce(service, "/ledgers/books/reference-balance", #"{"amount":"1000.00"}"#, key: "reference")

        let day = try await service.command("/ledgers/books/recurring", #"{"id":"x","payee":"X","category":"bills","amount":"-1.00","day_of_month":"5","start_month":"2026-01"}"#)
        #expect(day.status == 422)
        #expect(day.json["field"] as? String == "day_of_month")
        try await service.stopAndRemove()
    }

    @Test func envelopesAreSteeredSpentCorrectedAndClosedThroughTheirCommands() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("jars")
        #expect(try await service.command("/ledgers/jars/envelope-accounts", #"{"account":"Assets:Checking","currency":"USD","opening_balance":"1000.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/jars/envelope-accounts", #"{"account":"Assets:Savings","currency":"USD"}"#).status == 201)
        #expect(try await service.command("/ledgers/jars/envelope-accounts", #"{"account":"Assets:Spare","currency":"USD"}"#).status == 201)
        #expect(try await service.command("/ledgers/jars/envelopes", #"{"id":"food","name":"Food","interval":"monthly","budgeted":"400.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/jars/envelopes", #"{"id":"fun","name":"Fun","interval":"monthly","budgeted":"50.00"}"#).status == 201)
        func food() async throws -> [String: Any]? {
            try await service.send(.GET, "/ledgers/jars/envelopes").json.objects("envelopes").first { $0["id"] as? String == "food" }
        }

        try await postedOnce(service, "/ledgers/jars/envelopes/food/budget", #"{"budgeted":"450.00"}"#, key: "food-450")
        try await postedOnce(service, "/ledgers/jars/envelopes/food/rollover", #"{"policy":"reset"}"#, key: "food-reset")
        let steered = try await food()
        #expect(steered?["budgeted"] as? String == "450.00", "\(String(describing: steered))")
        #expect(steered?["rollover"] as? String == "reset", "carry_forward is the default")

        try await postedOnce(service, "/ledgers/jars/envelope-transactions", #"{"id":"shop-1","account":"Assets:Checking","amount":"-30.00","envelope":"food","payee":"Grocer"}"#, key: "shop-1")
        #expect(try await food()?["spent"] as? String == "30.00")
        try await postedOnce(service, "/ledgers/jars/envelope-transactions/shop-1/amendments", #"{"amount":"-35.00"}"#, key: "shop-1-fix")
        #expect(try await food()?["spent"] as? String == "35.00")
        try await postedOnce(service, "/ledgers/jars/envelope-transactions/shop-1/reversals", "{}", key: "shop-1-undo")
        #expect(try await food()?["spent"] as? String == "0.00")

        try await postedOnce(service, "/ledgers/jars/envelope-transfers", #"{"id":"save-1","from":"Assets:Checking","to":"Assets:Savings","amount":"100.00"}"#, key: "save-1")
        let total = try await service.send(.GET, "/ledgers/jars/envelope-accounts/total")
        #expect(total.json["total"] as? String == "1000.00", "a transfer between own accounts keeps the total: \(total.text)")
        try await postedOnce(service, "/ledgers/jars/envelopes/fun/fundings", #"{"amount":"20.00"}"#, key: "fund-fun")
        let fun = try await service.send(.GET, "/ledgers/jars/envelopes").json.objects("envelopes").first { $0["id"] as? String == "fun" }
        #expect(fun?["funded"] as? String == "20.00", "\(String(describing: fun))")
        try await postedOnce(service, "/ledgers/jars/envelopes/fun/deletion", "{}", key: "drop-fun")
        #expect(try await service.send(.GET, "/ledgers/jars/envelopes").json.objects("envelopes").map { $0["id"] as? String } == ["food"])
        try await postedOnce(service, "/ledgers/jars/envelope-accounts/Assets:Spare/closure", "{}", key: "close-spare")

        let unknown = try await service.command("/ledgers/jars/envelope-transactions", #"{"id":"x","account":"Assets:Nowhere","amount":"-1.00"}"#)
        #expect(unknown.status == 404, "\(unknown.text)")
        try await service.stopAndRemove()
    }

    @Test func aChallengeIsStartedAndStepped() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("dare")
        #expect(try await service.command("/ledgers/dare/transactions", #"{"payee":"Employer","category":"general","amount":"500.00","date":"2026-01-15"}"#).status == 201)
        let started = try await postedOnce(service, "/ledgers/dare/challenges", #"{"id":"year","template":"52_week","unit":"1.00"}"#, key: "start-year")
        #expect(started.json.objects("events").first?["type"] as? String == "challenge_started", "\(started.text)")
        let step = try await postedOnce(service, "/ledgers/dare/challenges/year/steps", #"{"step":1}"#, key: "year-1")
        #expect(step.json.objects("events").first?["type"] as? String == "challenge_step_completed", "\(step.text)")
        let again = try await service.command("/ledgers/dare/challenges/year/steps", #"{"step":1}"#)
        #expect(again.status == 422 || again.status == 409, "a step is completed once: \(again.text)")
        try await service.stopAndRemove()
    }

    @Test func netWorthIsKeptThroughItsCommands() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("worth")
        #expect(try await service.command("/ledgers/worth/assets", #"{"id":"flat","name":"Flat","category":"property","type":"real_estate","currency":"USD"}"#).status == 201)
        #expect(try await service.command("/ledgers/worth/assets/flat/valuations", #"{"value":"250000.00"}"#).status == 201)
        func netWorth() async throws -> [String: Any] { try await service.send(.GET, "/ledgers/worth/net-worth").json }

        // A mortgage against the flat, valued; the flat renamed and tagged; a reminder kept.
        try await postedOnce(service, "/ledgers/worth/liabilities", #"{"id":"mortgage","name":"Mortgage","category":"mortgage","currency":"USD","linked_asset":"flat"}"#, key: "add-mortgage")
        try await postedOnce(service, "/ledgers/worth/liabilities/mortgage/valuations", #"{"value":"180000.00"}"#, key: "value-mortgage")
        let owed = try await netWorth()
        #expect(owed["liabilities"] as? String == "180000.00", "\(owed)")
        #expect(owed["net_worth"] as? String == "70000.00")
        try await postedOnce(service, "/ledgers/worth/assets/flat/name", #"{"name":"Home"}"#, key: "rename-flat")
        #expect(try await netWorth().objects("lines").contains { $0["name"] as? String == "Home" })
        try await postedOnce(service, "/ledgers/worth/assets/flat/tags", #"{"country":"US"}"#, key: "tag-flat")
        try await postedOnce(service, "/ledgers/worth/reminders", #"{"id":"revalue","asset":"flat","due_date":"2026-12-31","note":"ask an agent"}"#, key: "remind")
        try await postedOnce(service, "/ledgers/worth/reminders/revalue/completion", "{}", key: "reminded")

        // Shares held at a quoted price.
        #expect(try await service.command("/ledgers/worth/assets", #"{"id":"etf","name":"World ETF","category":"investments","type":"stock_etf","currency":"USD"}"#).status == 201)
        try await postedOnce(service, "/ledgers/worth/prices", #"{"symbol":"VEA","price":"50.00"}"#, key: "quote-vea")
        try await postedOnce(service, "/ledgers/worth/assets/etf/position", #"{"quantity":"10.5","symbol":"VEA"}"#, key: "hold-vea")
        let held = try await netWorth()
        #expect(held["assets"] as? String == "250525.00", "250000.00 + 10.5 × 50.00: \(held)")

        // The mortgage repaid and gone, the ETF sold; then the answers in euros.
        try await postedOnce(service, "/ledgers/worth/liabilities/mortgage/removal", "{}", key: "drop-mortgage")
        try await postedOnce(service, "/ledgers/worth/assets/etf/removal", "{}", key: "drop-etf")
        let after = try await netWorth()
        #expect(after["liabilities"] as? String == "0.00", "\(after)")
        #expect(after["net_worth"] as? String == "250000.00")
        try await postedOnce(service, "/ledgers/worth/fx-rates", #"{"base":"EUR","quote":"USD","rate":"1.25"}"#, key: "eur-usd")
        try await postedOnce(service, "/ledgers/worth/base-currency", #"{"currency":"EUR"}"#, key: "to-eur")
        let euros = try await netWorth()
        #expect(euros["base_currency"] as? String == "EUR", "\(euros)")
        #expect(euros["net_worth"] as? String == "200000.00", "250000.00 USD at 1 EUR = 1.25 USD")

        let rate = try await service.command("/ledgers/worth/fx-rates", #"{"base":"EUR","quote":"USD","rate":1.25}"#)
        #expect(rate.status == 422)
        #expect(rate.json["field"] as? String == "rate")
        try await service.stopAndRemove()
    }

    @Test func settingsAreChangedThroughTheirCommands() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("tune")
        try await postedOnce(service, "/ledgers/tune/settings/due-soon-days", #"{"days":9}"#, key: "due-9")
        try await postedOnce(service, "/ledgers/tune/settings/page-size", #"{"rows":37}"#, key: "page-37")
        try await postedOnce(service, "/ledgers/tune/settings/price-staleness", #"{"seconds":4000}"#, key: "stale-4000")
        try await postedOnce(service, "/ledgers/tune/commodities", #"{"code":"GBX","scale":0}"#, key: "pence")
        let jar = try await service.command("/ledgers/tune/assets", #"{"id":"jar","name":"Coin jar","category":"cash","type":"cash","currency":"GBX"}"#)
        #expect(jar.status == 201, "a declared unit is a currency: \(jar.text)")
        let ledger = try await service.send(.GET, "/ledgers/tune").json
        #expect(ledger["due_soon_days"] as? Int == 9, "\(ledger)")
        #expect(ledger["page_size"] as? Int == 37)
        #expect(ledger["price_staleness_seconds"] as? Int == 4000)
        let rows = try await service.command("/ledgers/tune/settings/page-size", #"{"rows":2.5}"#)
        #expect(rows.status == 422)
        #expect(rows.json["field"] as? String == "rows")
        try await service.stopAndRemove()
    }

    @Test func queriesTravelInTimeWithAsOfAndKnownAt() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("jones")
        let first = try await service.command("/ledgers/jones/wealth/main/deposits", #"{"amount":"10.00","effective_at":"2026-01-10"}"#)
        #expect(first.status == 201, "\(first.text)")
        let recordedAt = try #require(first.json.objects("events").last?["recorded_at"] as? String)
        #expect(try await service.command("/ledgers/jones/wealth/main/deposits", #"{"amount":"5.00","effective_at":"2026-03-10"}"#).status == 201)

        func total(_ query: String) async throws -> String? {
            let reply = try await service.send(.GET, "/ledgers/jones/wealth/main\(query)")
            return reply.json.objects("balances").first?["total"] as? String
        }
        #expect(try await total("") == "15.00")
        #expect(try await total("?as_of=2026-02-01") == "10.00", "only what was effective by then")
        #expect(try await total("?known_at=\(recordedAt)") == "10.00", "only what had been recorded by then")
        let bad = try await service.send(.GET, "/ledgers/jones/balances?as_of=yesterday")
        #expect(bad.status == 400)
        #expect(bad.code == "invalid_parameter")
        #expect(bad.json["field"] as? String == "as_of")
        try await service.stopAndRemove()
    }

    @Test func badInputIsAProblemNamingTheFieldAndAppendsNothing() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("lee")
        let head = { try await service.send(.GET, "/ledgers/lee").json["head"] as? [String: Any] }

        let number = try await service.command("/ledgers/lee/wealth/main/deposits", #"{"amount":100.5}"#)
        #expect(number.status == 422)
        #expect(number.headers.first(name: "Content-Type") == "application/problem+json")
        #expect(number.code == "invalid_field")
        #expect(number.json["field"] as? String == "amount", "a JSON number is never read as money")

        let precision = try await service.command("/ledgers/lee/wealth/main/deposits", #"{"amount":"1.234"}"#)
        #expect(precision.status == 422)
        #expect(precision.code == "invalid_amount")
        #expect(precision.json["field"] as? String == "amount")

        let unknown = try await service.command("/ledgers/lee/wealth/main/deposits", #"{"amount":"1.00","amuont":"2"}"#)
        #expect(unknown.code == "unknown_field")
        #expect(unknown.json["field"] as? String == "amuont")

        // No deposit was accepted, so there is no wealth account 'main': not found, not short
        // of funds (issue 35); the problem's code is LedgerError.Code.name.
        let refused = try await service.command("/ledgers/lee/wealth/main/withdrawals", #"{"amount":"5.00"}"#)
        #expect(refused.status == 404)
        #expect(refused.code == "not_found", "\(refused.text)")
        #expect(refused.json["status"] as? Int == 404)

        let malformed = try await service.command("/ledgers/lee/wealth/main/deposits", "{not json")
        #expect(malformed.status == 400)
        #expect(malformed.code == "invalid_json")

        // Issue 34, item 14: a key twice reads as 1.00 to one parser and 900.00 to another.
        let doubled = try await service.command("/ledgers/lee/wealth/main/deposits", #"{"amount":"1.00","amount":"900.00"}"#)
        #expect(doubled.status == 400 && doubled.code == "invalid_json", "\(doubled.text)")
        #expect(doubled.json["field"] as? String == "amount", "\(doubled.text)")

        let missing = try await service.send(.GET, "/ledgers/nobody", key: ServiceHarness.adminKey)
        #expect(missing.status == 404)
        #expect(missing.code == "ledger_not_found")
        let noRoute = try await service.send(.GET, "/nowhere")
        #expect(noRoute.status == 404)
        #expect(noRoute.code == "route_not_found")

        #expect(try await head()?["sequence"] as? Int == 1, "nothing was appended")
        try await service.stopAndRemove()
    }

    @Test func aCommandBodyPastTheLimitIsRefused() async throws {
        let service = try await ServiceHarness.start { $0.commandBodyBytesLimit = 1024 }
        try await service.createLedger("big")
        let padding = String(repeating: "x", count: 4096)
        let reply = try await service.command("/ledgers/big/wealth/main/deposits", #"{"amount":"1.00","external_id":"\#(padding)"}"#)
        #expect(reply.status == 413)
        #expect(reply.code == "body_too_large")
        try await service.stopAndRemove()
    }

    @Test func aLedgerIsCreatedOnceWithAValidIdCurrencyAndZone() async throws {
        let service = try await ServiceHarness.start()
        #expect(try await service.createLedger("once").status == 201)
        #expect(try await service.createLedger("once").code == "ledger_exists")
        #expect(try await service.createLedger("Bad_Id").code == "invalid_ledger_id")
        #expect(try await service.createLedger("coins", currency: "BTC").code == "invalid_currency")
        let zone = try await service.send(.POST, "/ledgers", body: #"{"id":"zoned","time_zone":"Mars/Olympus"}"#)
        #expect(zone.code == "invalid_time_zone")
        #expect(zone.json["field"] as? String == "time_zone")
        try await service.stopAndRemove()
    }
}
