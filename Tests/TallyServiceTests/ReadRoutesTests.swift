import Foundation
import Testing
@testable import TallyService

/// The reads an app's screens make beyond the first queries, over real HTTP: a month's
/// budgets, the recurring items and their status, a wealth account's history and round-ups,
/// the rates and prices, the challenges; each with the CLI's field names, and bad parameters
/// refused by name.
@Suite struct ReadRoutesTests {
    @Test func aHouseholdsScreensReadWhatTheCLIReads() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("home")
        func created(_ path: String, _ body: String) async throws {
            let reply = try await service.command("/ledgers/home\(path)", body)
            #expect(reply.status == 201, "\(path): \(reply.text)")
        }

        // January's budget: income, groceries against a 400.00 budget.
        try await created("/transactions", #"{"payee":"Employer","category":"general","amount":"3000.00","date":"2026-01-15"}"#)
        try await created("/transactions", #"{"payee":"Market","category":"Groceries","amount":"-120.00","date":"2026-01-20","id":"market-1"}"#)
        try await created("/budgets", #"{"category":"groceries","month":"2026-01","maximum":"400.00"}"#)
        let budgets = try await service.send(.GET, "/ledgers/home/budgets?month=2026-01")
        #expect(budgets.status == 200, "\(budgets.text)")
        let groceries = try #require(budgets.json.objects("budgets").first, "\(budgets.text)")
        #expect(groceries["category"] as? String == "groceries")
        #expect(groceries["maximum"] as? String == "400.00")
        #expect(groceries["spent"] as? String == "120.00")
        #expect(groceries["remaining"] as? String == "280.00", "400.00 − 120.00")
        #expect(groceries["over_budget"] as? Bool == false)
        #expect((groceries["latest"] as? [[String: Any]])?.map { $0["id"] as? String } == ["market-1"])
        #expect(groceries["in_base"] is NSNull, "the base currency is the budget's")

        // Rent, a recurring bill on the 1st, unpaid at the end of January: overdue.
        try await created("/recurring", #"{"id":"rent","payee":"Landlord","category":"bills","amount":"-900.00","day_of_month":1,"start_month":"2026-01"}"#)
        let recurring = try await service.send(.GET, "/ledgers/home/recurring")
        #expect(recurring.status == 200, "\(recurring.text)")
        let rent = try #require(recurring.json.objects("items").first)
        #expect(rent["id"] as? String == "rent")
        #expect(rent["amount"] as? String == "-900.00")
        #expect(rent["frequency"] as? String == "monthly")
        #expect(rent["day_of_month"] as? Int == 1)
        #expect(rent["end_month"] is NSNull)
        let status = try await service.send(.GET, "/ledgers/home/recurring-status?month=2026-01&as_of=2026-01-31")
        #expect(status.status == 200, "\(status.text)")
        #expect(status.json["today"] as? String == "2026-01-31")
        #expect(status.json.objects("items").map { $0["state"] as? String } == ["overdue"], "\(status.text)")
        #expect((status.json["due_soon"] as? [String: Any])?["bills"] as? String == "0.00")
        #expect((status.json["overdue"] as? [String: Any])?["bills"] as? String == "900.00")
        #expect((status.json["paid"] as? [String: Any])?["bills"] as? String == "0.00")

        // Wealth: a deposit split 70/30, a purchase rounded up to the next whole unit.
        try await created("/wealth/main/deposits", #"{"amount":"100.00"}"#)
        try await created("/wealth/main/round-ups", #"{"enabled":true}"#)
        try await created("/wealth/main/purchases", #"{"amount":"3.40","merchant":"Cafe"}"#)
        let history = try await service.send(.GET, "/ledgers/home/wealth/main/history?page_size=2")
        #expect(history.status == 200, "\(history.text)")
        let total = try #require(history.json["total_count"] as? Int)
        #expect(total >= 4, "deposit, split, purchase, round-up: \(history.text)")
        #expect(history.json.objects("entries").count == 2, "a page of 2")
        #expect(history.json["page_count"] as? Int == (total + 1) / 2, "\(history.text)")
        // Without page_size, the page_size setting in force (issue 32, rule 7), not a size of the route's own.
        let byDefault = try await service.send(.GET, "/ledgers/home/wealth/main/history")
        #expect(byDefault.json["page_size"] as? Int == 10 && byDefault.json["page_count"] as? Int == (total + 9) / 10, "\(byDefault.text)")
        try await created("/settings/page-size", #"{"rows":3}"#)
        let bySetting = try await service.send(.GET, "/ledgers/home/wealth/main/history")
        #expect(bySetting.json["page_size"] as? Int == 3 && bySetting.json.objects("entries").count == 3, "\(bySetting.text)")
        let deposits = try await service.send(.GET, "/ledgers/home/wealth/main/history?filter=deposits")
        #expect(deposits.json.objects("entries").map { $0["amount"] as? String } == ["100.00"], "\(deposits.text)")
        let roundUps = try await service.send(.GET, "/ledgers/home/wealth/main/round-ups")
        #expect(roundUps.status == 200, "\(roundUps.text)")
        #expect(roundUps.json.objects("totals").map { $0["amount"] as? String } == ["0.60"], "4.00 − 3.40: \(roundUps.text)")

        // Rates and a challenge.
        try await created("/fx-rates", #"{"base":"EUR","quote":"USD","rate":"1.25"}"#)
        let rates = try await service.send(.GET, "/ledgers/home/rates?kind=fx")
        #expect(rates.status == 200, "\(rates.text)")
        let rate = try #require(rates.json.objects("rates").first)
        #expect(rate["pair"] as? String == "EUR/USD")
        #expect(rate["rate"] as? String == "1.25")
        #expect(rate["source"] as? String == "manual")
        #expect(try await service.send(.GET, "/ledgers/home/rates?kind=price").json.objects("rates").isEmpty)
        try await created("/challenges", #"{"id":"year","template":"52_week","unit":"1.00"}"#)
        try await created("/challenges/year/steps", #"{"step":1}"#)
        let challenges = try await service.send(.GET, "/ledgers/home/challenges")
        #expect(challenges.status == 200, "\(challenges.text)")
        let year = try #require(challenges.json.objects("challenges").first)
        #expect(year["steps_done"] as? Int == 1)
        #expect(year["steps"] as? Int == 52)
        #expect(year["saved"] as? String == "1.00")
        #expect(year["complete"] as? Bool == false)

        // Bad parameters are named.
        for (path, field) in [
            ("/wealth/main/history?filter=everything", "filter"), ("/wealth/main/history?page_size=0", "page_size"),
            ("/rates?kind=stocks", "kind"), ("/rates?history=maybe", "history"), ("/budgets?month=2026-13", "month"),
            ("/recurring-status?due_soon_days=-1", "due_soon_days"), ("/wealth/main/round-ups?month=May", "month"),
        ] {
            let refused = try await service.send(.GET, "/ledgers/home\(path)")
            #expect(refused.status == 400, "\(path): \(refused.text)")
            #expect(refused.json["field"] as? String == field, "\(path): \(refused.text)")
        }
        #expect(try await service.send(.GET, "/ledgers/home/wealth/nobody/history").status == 404)
        try await service.stopAndRemove()
    }

    @Test func anXRayAndAWhatIfAreServedAsTheCLIComputesThem() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("folio")
        #expect(try await service.command("/ledgers/folio/assets", #"{"id":"flat","name":"Flat","category":"property","type":"real_estate","currency":"USD"}"#).status == 201)
        #expect(try await service.command("/ledgers/folio/assets/flat/valuations", #"{"value":"250000.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/folio/assets/flat/tags", #"{"country":"US"}"#).status == 201)
        let xray = try await service.send(.GET, "/ledgers/folio/xray")
        #expect(xray.status == 200, "\(xray.text)")
        #expect(xray.json["total"] as? String == "250000.00")
        #expect(xray.json["base_currency"] as? String == "USD")
        let flat = try #require(xray.json.objects("holdings").first)
        #expect(flat["id"] as? String == "flat")
        #expect(flat["country"] as? String == "US")
        #expect(flat["weight_basis_points"] as? Int == 10_000, "the only holding is all of it")
        #expect(xray.json.objects("by_type").map { $0["group"] as? String } == ["real_estate"])
        #expect((xray.json["concentration_hundredths"] as? [String: Any])?["severity"] is String)

        // What-if from the balance today, saving 500.00 a month towards 2000.00 more than it.
        #expect(try await service.command("/ledgers/folio/wealth/main/deposits", #"{"amount":"1000.00"}"#).status == 201)
        let probe = try await service.send(.GET, "/ledgers/folio/what-if?goal=1.00&monthly=0.00&horizon=1")
        let start = try #require(probe.json["start_balance"] as? String, "\(probe.text)")
        let startCents = try #require(Int(start.replacingOccurrences(of: ".", with: "")))
        let goalCents = startCents + 200_000
        let goal = "\(goalCents / 100).\(String(format: "%02d", goalCents % 100))"
        let whatIf = try await service.send(.GET, "/ledgers/folio/what-if?goal=\(goal)&monthly=500.00&horizon=12")
        #expect(whatIf.status == 200, "\(whatIf.text)")
        #expect(whatIf.json["reached_month"] as? Int == 4, "2000.00 more at 500.00 a month: \(whatIf.text)")
        let series = whatIf.json.objects("series")
        #expect(series.first?["balance"] as? String == start)
        #expect(series.count >= 5)
        #expect(whatIf.json["complete"] as? Bool == true)
        let never = try await service.send(.GET, "/ledgers/folio/what-if?goal=\(goal)&monthly=1.00&horizon=2")
        #expect(never.json["reached_month"] is NSNull, "not within 2 months: \(never.text)")
        for (query, field) in [("monthly=1.00", "goal"), ("goal=lots", "goal"), ("goal=10.00&monthly=1,5", "monthly"), ("goal=10.00&horizon=0", "horizon")] {
            let refused = try await service.send(.GET, "/ledgers/folio/what-if?\(query)")
            #expect(refused.status == 400, "\(query): \(refused.text)")
            #expect(refused.json["field"] as? String == field, "\(query): \(refused.text)")
        }
        try await service.stopAndRemove()
    }
}
