import Foundation
import Testing
@testable import TallyService

/// Issue 32 over HTTP: an app draws the budget overview screen and the envelope screen's
/// totals from one answer each, the library queries `tally overview` and `tally envelope
/// status` print (`Ledger.budgetScreen`, `Ledger.envelopeBoard`).
@Suite struct BudgetScreenRoutesTests {
    @Test func theOverviewScreenAndTheEnvelopeTotalsComeInOneAnswerEach() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("home")
        func created(_ path: String, _ body: String) async throws {
            let reply = try await service.command("/ledgers/home\(path)", body)
            #expect(reply.status == 201, "\(path): \(reply.text)")
        }
        try await created("/transactions", #"{"payee":"Employer","category":"general","amount":"3000.00","date":"2026-01-02"}"#)
        try await created("/transactions", #"{"payee":"Market","category":"groceries","amount":"-450.00","date":"2026-01-05","id":"market-1"}"#)
        try await created("/budgets", #"{"category":"groceries","month":"2026-01","maximum":"400.00"}"#)
        try await created("/recurring", #"{"id":"rent","payee":"Landlord","category":"bills","amount":"-900.00","day_of_month":28,"start_month":"2026-01"}"#)

        let screen = try await service.send(.GET, "/ledgers/home/budgets/overview?month=2026-01&as_of=2026-01-20")
        #expect(screen.status == 200, "\(screen.text)")
        #expect(screen.json["income"] as? String == "3000.00" && screen.json["expenses"] as? String == "450.00" && screen.json["net"] as? String == "2550.00")
        #expect(screen.json["in_base"] is NSNull && screen.json["base_currency"] as? String == "USD", "\(screen.text)")
        let latest = try #require(screen.json["latest_transactions"] as? [String: Any])
        #expect((latest["items"] as? [[String: Any]])?.map { $0["id"] as? String }.first == "market-1" && latest["limit"] as? Int == 5, "\(screen.text)")
        let budgets = try #require(screen.json["budgets"] as? [String: Any])
        #expect(budgets["spent"] as? String == "450.00" && budgets["remaining"] as? String == "-50.00", "over by 50.00: \(screen.text)")
        let recurring = try #require(screen.json["recurring"] as? [String: Any])
        #expect(recurring["today"] as? String == "2026-01-20")
        #expect((recurring["upcoming"] as? [String: Any])?["bills"] as? String == "900.00", "rent on the 28th, past the 5-day window: \(screen.text)")
        #expect((recurring["items"] as? [[String: Any]])?.first?["state"] as? String == "upcoming", "\(screen.text)")

        // The envelopes: two, their totals beside them.
        try await created("/envelope-accounts", #"{"account":"Assets:Bank","currency":"USD","opening_balance":"2000.00","effective_at":"2026-01-01"}"#)
        try await created("/envelopes", #"{"id":"food","name":"Food","interval":"monthly","budgeted":"300.00","start_date":"2026-01-01"}"#)
        try await created("/envelopes", #"{"id":"fun","name":"Fun","interval":"monthly","budgeted":"100.00","start_date":"2026-01-01"}"#)
        try await created("/envelope-transactions", #"{"id":"t1","account":"Assets:Bank","amount":"-120.00","envelope":"food","effective_at":"2026-01-03"}"#)
        let envelopes = try await service.send(.GET, "/ledgers/home/envelopes?as_of=2026-01-20")
        #expect(envelopes.status == 200, "\(envelopes.text)")
        #expect(envelopes.json.objects("envelopes").count == 2)
        #expect(envelopes.json["budgeted"] as? String == "400.00" && envelopes.json["spent"] as? String == "120.00"
                && envelopes.json["remaining"] as? String == "280.00", "\(envelopes.text)")
        #expect(envelopes.json.objects("recent").map { $0["envelope"] as? String } == ["food"], "\(envelopes.text)")
    }
}
