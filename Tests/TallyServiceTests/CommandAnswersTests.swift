import Foundation
import Testing
@testable import TallyService

/// A command answers with the resource it created or changed (as its `GET` gives it) beside
/// its events: 201 with `Location` for a creation, 201 for a change, 200 for a command that
/// changed nothing, the first answer again for a retry of its key.
@Suite struct CommandAnswersTests {
    @Test func creationsAndChangesAnswerWithTheirResource() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("answers")
        func object(_ reply: ServiceHarness.Reply, _ field: String) -> [String: Any]? { reply.json[field] as? [String: Any] }

        // A pot: created where Location says, then filled.
        let pot = try await service.command("/ledgers/answers/pots", #"{"id":"holiday","name":"Holiday","target":"1500.00"}"#, idempotencyKey: "pot")
        #expect(pot.status == 201, "\(pot.text)")
        let location = try #require(pot.headers.first(name: "Location"), "\(pot.text)")
        #expect(location == "/ledgers/answers/pots/holiday")
        #expect(object(pot, "pot")?["target"] as? String == "1500.00")
        #expect(!pot.json.objects("events").isEmpty)
        let shown = try await service.send(.GET, location)
        #expect(shown.status == 200, "\(shown.text)")
        #expect(shown.json["id"] as? String == "holiday")
        let retry = try await service.command("/ledgers/answers/pots", #"{"id":"holiday","name":"Holiday","target":"1500.00"}"#, idempotencyKey: "pot")
        #expect(retry.text == pot.text, "the first answer again")
        #expect(retry.headers.first(name: "Location") == location)
        #expect(try await service.command("/ledgers/answers/reference-balance", #"{"amount":"2000.00"}"#).status == 201)
        let added = try await service.command("/ledgers/answers/pots/holiday/additions", #"{"amount":"300.00"}"#, idempotencyKey: "add")
        #expect(added.status == 201)
        #expect(added.headers.first(name: "Location") == nil, "a change creates nothing")
        #expect(object(added, "pot")?["total"] as? String == "300.00", "\(added.text)")
        // Retried after another change: the same answer, the pot as it was right after.
        #expect(try await service.command("/ledgers/answers/pots/holiday/additions", #"{"amount":"50.00"}"#).status == 201)
        let addedAgain = try await service.command("/ledgers/answers/pots/holiday/additions", #"{"amount":"300.00"}"#, idempotencyKey: "add")
        #expect(addedAgain.text == added.text, "\(addedAgain.text)")
        let deleted = try await service.send(.DELETE, "/ledgers/answers/pots/holiday", headers: [("Idempotency-Key", "del")])
        #expect(deleted.status == 201, "\(deleted.text)")
        #expect(deleted.json["pot"] is NSNull, "gone: \(deleted.text)")
        #expect(try await service.send(.GET, location).status == 404)

        // A transaction whose id the ledger chose: Location names it, percent-encoded.
        let recorded = try await service.command("/ledgers/answers/transactions", #"{"payee":"Cafe","category":"dining_out","amount":"-4.00","date":"2026-01-05"}"#)
        #expect(recorded.status == 201, "\(recorded.text)")
        let transaction = try #require(object(recorded, "transaction"))
        let id = try #require(transaction["id"] as? String)
        let transactionLocation = try #require(recorded.headers.first(name: "Location"))
        #expect(transactionLocation.hasPrefix("/ledgers/answers/transactions/"))
        #expect(try await service.send(.GET, transactionLocation).json["id"] as? String == id, "\(transactionLocation)")
        let unchanged = try await service.command("/ledgers/answers/transactions/\(id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id)/category", #"{"category":"Dining Out"}"#)
        #expect(unchanged.status == 200, "nothing to change: \(unchanged.text)")
        #expect(object(unchanged, "transaction")?["category"] as? String == "dining_out")
        #expect(unchanged.json.objects("events").isEmpty)

        // Net worth, envelopes, challenges, recurring items, budgets, the wealth account, settings.
        let asset = try await service.command("/ledgers/answers/assets", #"{"id":"flat","name":"Flat","category":"property","type":"real_estate","currency":"USD"}"#)
        #expect(asset.headers.first(name: "Location") == "/ledgers/answers/assets/flat")
        #expect(object(asset, "asset")?["value"] is NSNull, "not valued yet: \(asset.text)")
        let valued = try await service.command("/ledgers/answers/assets/flat/valuations", #"{"value":"250000.00"}"#)
        #expect(object(valued, "asset")?["value"] as? String == "250000.00", "\(valued.text)")
        #expect(try await service.send(.GET, "/ledgers/answers/assets/flat").json["value"] as? String == "250000.00")
        let loan = try await service.command("/ledgers/answers/liabilities", #"{"id":"loan","name":"Loan","category":"loan","currency":"USD"}"#)
        #expect(loan.headers.first(name: "Location") == "/ledgers/answers/liabilities/loan", "\(loan.text)")
        #expect(try await service.command("/ledgers/answers/envelope-accounts", #"{"account":"Assets:Bank","currency":"USD","opening_balance":"1000.00"}"#).status == 201)
        let envelope = try await service.command("/ledgers/answers/envelopes", #"{"id":"food","name":"Food","interval":"monthly","budgeted":"400.00"}"#)
        #expect(envelope.status == 201, "\(envelope.text)")
        #expect(envelope.headers.first(name: "Location") == "/ledgers/answers/envelopes/food")
        #expect(object(envelope, "envelope")?["budgeted"] as? String == "400.00", "\(envelope.text)")
        let challenge = try await service.command("/ledgers/answers/challenges", #"{"id":"year","template":"52_week","unit":"1.00"}"#)
        #expect(challenge.headers.first(name: "Location") == "/ledgers/answers/challenges/year", "\(challenge.text)")
        #expect(object(challenge, "challenge")?["steps"] as? Int == 52)
        let rent = try await service.command("/ledgers/answers/recurring", #"{"id":"rent","payee":"Landlord","category":"bills","amount":"-900.00","day_of_month":1,"start_month":"2026-01"}"#)
        #expect(rent.headers.first(name: "Location") == "/ledgers/answers/recurring/rent", "\(rent.text)")
        #expect(try await service.send(.GET, "/ledgers/answers/recurring/rent").json["amount"] as? String == "-900.00")
        let budget = try await service.command("/ledgers/answers/budgets", #"{"category":"groceries","month":"2026-01","maximum":"400.00"}"#)
        #expect(object(budget, "budget")?["maximum"] as? String == "400.00", "\(budget.text)")
        let deposit = try await service.command("/ledgers/answers/wealth/main/deposits", #"{"amount":"100.00"}"#)
        #expect((object(deposit, "account")?["balances"] as? [[String: Any]])?.first?["total"] as? String == "100.00", "\(deposit.text)")
        let days = try await service.command("/ledgers/answers/settings/due-soon-days", #"{"days":9}"#)
        #expect(object(days, "ledger")?["due_soon_days"] as? Int == 9, "\(days.text)")
        #expect(try await service.command("/ledgers/answers/fx-rates", #"{"base":"EUR","quote":"USD","rate":"1.25"}"#).json.keys.sorted() == ["events"],
                "a rate has no resource of its own")
        for path in ["/pots/none", "/envelopes/none", "/challenges/none", "/assets/none", "/liabilities/none", "/recurring/none"] {
            let missing = try await service.send(.GET, "/ledgers/answers\(path)")
            #expect(missing.status == 404, "\(path): \(missing.text)")
        }
        try await service.stopAndRemove()
    }
}
