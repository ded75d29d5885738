import Foundation
import Testing
@testable import TallyService

/// An operator lists and deletes ledgers with the admin key; a household's admin erases one
/// person's data (close, erase, reopen), as `tally erase` does.
@Suite struct LedgerAdminTests {
    @Test func theAdminListsAndDeletesLedgersAndAnIdStartsAfresh() async throws {
        let service = try await ServiceHarness.start()
        for id in ["alpha", "beta"] { #expect(try await service.createLedger(id).status == 201) }
        let key = try await service.createKey("alpha", scopes: ["read", "write", "admin"])
        #expect(try await service.command("/ledgers/alpha/wealth/main/deposits", #"{"amount":"10.00"}"#, idempotencyKey: "once").status == 201)
        let listed = try await service.send(.GET, "/ledgers")
        #expect(listed.status == 200, "\(listed.text)")
        #expect(listed.json.objects("ledgers").compactMap { $0["id"] as? String } == ["alpha", "beta"])
        #expect(try await service.send(.GET, "/ledgers", key: key).status == 403, "a ledger's key does not list the server's ledgers")
        #expect(try await service.send(.DELETE, "/ledgers/alpha", key: key).status == 403, "nor delete its own ledger")

        let deleted = try await service.send(.DELETE, "/ledgers/alpha")
        #expect(deleted.status == 204, "\(deleted.text)")
        #expect(try await service.send(.GET, "/ledgers").json.objects("ledgers").compactMap { $0["id"] as? String } == ["beta"])
        #expect(try await service.send(.GET, "/ledgers/alpha").status == 404)
        #expect(try await service.send(.GET, "/ledgers/alpha/balances", key: key).status == 401, "its keys went with it")
        #expect(!FileManager.default.fileExists(atPath: service.directory + "/ledgers/alpha"))
        #expect(try await service.send(.DELETE, "/ledgers/alpha").status == 404, "deleted once")

        // The id starts afresh: a new ledger, and the old idempotency key is a new request.
        let again = try await service.createLedger("alpha")
        #expect(again.status == 201, "\(again.text)")
        #expect((again.json["head"] as? [String: Any])?["sequence"] as? Int == 1)
        let deposit = try await service.command("/ledgers/alpha/wealth/main/deposits", #"{"amount":"99.00"}"#, idempotencyKey: "once")
        #expect(deposit.status == 201, "\(deposit.text)")
        #expect(deposit.headers.first(name: "Idempotent-Replayed") == nil)
        #expect(try await service.send(.GET, "/ledgers/beta").status == 200, "the other ledger is untouched")
        try await service.stopAndRemove()
    }

    @Test func aSubjectIsErasedWhileItsAmountsStay() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("privacy")
        #expect(try await service.command("/ledgers/privacy/transactions", #"{"payee":"Acme Corp","category":"general","amount":"-42.00","date":"2026-01-05","id":"acme-1"}"#).status == 201)
        #expect(try await service.command("/ledgers/privacy/transactions", #"{"payee":"Bakery","category":"groceries","amount":"-3.00","date":"2026-01-06","id":"bread-1"}"#).status == 201)
        let subjects = try await service.send(.GET, "/ledgers/privacy/subjects")
        #expect(subjects.status == 200, "\(subjects.text)")
        #expect((subjects.json["subjects"] as? [String])?.contains("payee:Acme Corp") == true, "\(subjects.text)")

        let erased = try await service.send(.POST, "/ledgers/privacy/erasures", body: #"{"subject":"payee:Acme Corp"}"#)
        #expect(erased.status == 201, "\(erased.text)")
        #expect(erased.json["seq"] is Int)
        // Reopened on the next request: the payee reads as erased, the amount and the other payee stay.
        let acme = try await service.send(.GET, "/ledgers/privacy/transactions/acme-1")
        #expect(acme.status == 200, "\(acme.text)")
        #expect((acme.json["payee"] as? String)?.hasPrefix("[erased") == true, "\(acme.text)")
        #expect(acme.json["amount"] as? String == "-42.00")
        #expect(try await service.send(.GET, "/ledgers/privacy/transactions/bread-1").json["payee"] as? String == "Bakery")
        #expect(!((try await service.send(.GET, "/ledgers/privacy/subjects").json["subjects"] as? [String]) ?? []).contains("payee:Acme Corp"))

        let twice = try await service.send(.POST, "/ledgers/privacy/erasures", body: #"{"subject":"payee:Acme Corp"}"#)
        #expect(twice.status == 404, "erased already: nothing changes: \(twice.text)")
        #expect(twice.json["field"] as? String == "subject")
        let nobody = try await service.send(.POST, "/ledgers/privacy/erasures", body: #"{"subject":"neighbour"}"#)
        #expect(nobody.status == 422 || nobody.status == 400, "not a subject: \(nobody.text)")
        #expect(nobody.json["field"] as? String == "subject")
        let reader = try await service.createKey("privacy", scopes: ["read", "write"])
        #expect(try await service.send(.POST, "/ledgers/privacy/erasures", key: reader, body: #"{"subject":"payee:Bakery"}"#).status == 403, "an erasure needs the admin scope")
        try await service.stopAndRemove()
    }
}
