import Foundation
import Testing
@testable import TallyService

/// Issue 32 over HTTP: the budget app's recurring screen (one entry per vendor, searched and
/// sorted in its six orders) and the round-up increment setting, on the library queries and
/// command the CLI uses; bad parameters refused by name.
@Suite struct RecurringScreenRoutesTests {
    @Test func anAppSearchesAndSortsTheRecurringScreenAsTheCLIDoes() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("home")
        func created(_ path: String, _ body: String) async throws {
            let reply = try await service.command("/ledgers/home\(path)", body)
            #expect(reply.status == 201, "\(path): \(reply.text)")
        }
        try await created("/recurring", #"{"id":"rent","payee":"Landlord","category":"bills","amount":"-900.00","day_of_month":1,"start_month":"2027-04"}"#)
        try await created("/recurring", #"{"id":"phone","payee":"Phone Co","category":"bills","amount":"-35.00","day_of_month":20,"start_month":"2027-04"}"#)
        try await created("/transactions", #"{"payee":"Netflix","category":"entertainment","amount":"-15.99","date":"2027-03-12","recurring":true}"#)

        // The bills list: Netflix, flagged, a month after its latest payment and unpaid: overdue.
        let bills = try await service.send(.GET, "/ledgers/home/recurring-bills?as_of=2027-04-18&sort=name-az")
        #expect(bills.status == 200, "\(bills.text)")
        #expect(bills.json["today"] as? String == "2027-04-18")
        #expect(bills.json.objects("items").map { $0["vendor"] as? String } == ["Landlord", "Netflix", "Phone Co"], "\(bills.text)")
        let netflix = try #require(bills.json.objects("items").first { $0["vendor"] as? String == "Netflix" })
        #expect(netflix["state"] as? String == "overdue" && netflix["next_due"] as? String == "2027-04-12" && netflix["source"] as? String == "flagged")
        #expect(netflix["amount"] as? String == "-15.99" && netflix["recurring_id"] is NSNull)
        let searched = try await service.send(.GET, "/ledgers/home/recurring-bills?as_of=2027-04-18&search=%20FLIX")
        #expect(searched.json.objects("items").map { $0["vendor"] as? String } == ["Netflix"], "\(searched.text)")

        // The status and the list take the same search and orders.
        let status = try await service.send(.GET, "/ledgers/home/recurring-status?month=2027-04&as_of=2027-04-18&sort=amount-low")
        #expect(status.status == 200, "\(status.text)")
        #expect(status.json.objects("items").map { $0["id"] as? String } == ["phone", "rent"], "\(status.text)")
        let list = try await service.send(.GET, "/ledgers/home/recurring?as_of=2027-04-18&sort=due-soonest")
        #expect(list.json.objects("items").map { $0["id"] as? String } == ["phone", "rent"], "phone on the 20th, rent next on 1 May: \(list.text)")
        let phone = try await service.send(.GET, "/ledgers/home/recurring?as_of=2027-04-18&search=phone")
        #expect(phone.json.objects("items").map { $0["id"] as? String } == ["phone"], "\(phone.text)")
        for path in ["/recurring-bills?sort=cheapest", "/recurring?sort=cheapest", "/recurring-status?sort=cheapest"] {
            let refused = try await service.send(.GET, "/ledgers/home" + path)
            #expect(refused.status == 400 && refused.text.contains("sort"), "\(path): \(refused.text)")
        }
    }

    @Test func theRoundUpIncrementIsASettingOverHTTP() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("home")
        let set = try await service.command("/ledgers/home/settings/round-up-increment", #"{"currency":"JPY","increment":"100"}"#)
        #expect(set.status == 201 && set.text.contains("round_up_increment_set"), "\(set.text)")
        let again = try await service.command("/ledgers/home/settings/round-up-increment", #"{"currency":"JPY","increment":"100"}"#)
        #expect(again.status == 200, "nothing to change: \(again.text)")
        let none = try await service.command("/ledgers/home/settings/round-up-increment", #"{"currency":"GBP","increment":"none"}"#)
        #expect(none.status == 201, "\(none.text)")
        for (body, field) in [(#"{"currency":"JPY","increment":"0.5"}"#, "increment"), (#"{"currency":"JPY"}"#, "increment"),
                              (#"{"currency":"JPY","increment":"0"}"#, "increment"), (#"{"currency":"??","increment":"1"}"#, "currency")] {
            let refused = try await service.command("/ledgers/home/settings/round-up-increment", body)
            #expect([400, 422].contains(refused.status) && refused.text.contains(field), "\(body): \(refused.text)")
        }
    }
}
