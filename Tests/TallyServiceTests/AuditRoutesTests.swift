import Foundation
import Testing
@testable import TallyService

/// `GET /ledgers/{id}/audit`: the CLI's targets (an account, `pot:`, `envelope:`, `asset:`,
/// `liability:`), paged with cursors that give every change once.
@Suite struct AuditRoutesTests {
    /// Every entry of an audit, a page of `limit` at a time, following `next_cursor`.
    private func allPages(_ service: ServiceHarness, _ ledger: String, _ query: String, limit: Int) async throws -> [[String: Any]] {
        var entries: [[String: Any]] = []
        var reply = try await service.send(.GET, "/ledgers/\(ledger)/audit?\(query)&limit=\(limit)")
        #expect(reply.status == 200, "\(query): \(reply.text)")
        entries += reply.json.objects("entries")
        while let cursor = reply.json["next_cursor"] as? String {
            reply = try await service.send(.GET, "/ledgers/\(ledger)/audit?cursor=\(cursor)&limit=\(limit)")
            #expect(reply.status == 200, "\(reply.text)")
            entries += reply.json.objects("entries")
        }
        return entries
    }

    @Test func everyKindOfTargetTheCLIAuditsIsServedAndPaged() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("kinds")
        let commands: [(String, String)] = [
            ("/ledgers/kinds/reference-balance", #"{"amount":"5000.00"}"#),
            ("/ledgers/kinds/pots", #"{"id":"holiday","name":"Holiday","target":"1500.00"}"#),
            ("/ledgers/kinds/pots/holiday/additions", #"{"amount":"300.00"}"#),
            ("/ledgers/kinds/pots/holiday/additions", #"{"amount":"120.00"}"#),
            ("/ledgers/kinds/pots/holiday/withdrawals", #"{"amount":"50.00"}"#),
            ("/ledgers/kinds/envelope-accounts", #"{"account":"Assets:Bank","currency":"USD","opening_balance":"900.00","effective_at":"2026-01-01"}"#),
            ("/ledgers/kinds/envelopes", #"{"id":"food","name":"Food","interval":"monthly","budgeted":"400.00","start_date":"2026-01-01"}"#),
            ("/ledgers/kinds/envelope-transactions", #"{"id":"t1","account":"Assets:Bank","amount":"-40.00","envelope":"food","effective_at":"2026-01-05"}"#),
            ("/ledgers/kinds/assets", #"{"id":"flat","name":"Flat","category":"property","type":"real_estate","currency":"USD"}"#),
            ("/ledgers/kinds/assets/flat/valuations", #"{"value":"250000.00"}"#),
            ("/ledgers/kinds/assets/flat/valuations", #"{"value":"255000.00"}"#),
            ("/ledgers/kinds/liabilities", #"{"id":"loan","name":"Loan","category":"loan","currency":"USD"}"#),
            ("/ledgers/kinds/liabilities/loan/valuations", #"{"value":"9000.00"}"#),
        ]
        for (path, body) in commands {
            let reply = try await service.command(path, body)
            #expect(reply.status == 201, "\(path): \(reply.text)")
        }
        for (target, balance) in [("pot:holiday", "370.00"), ("envelope:food", nil), ("asset:flat", "255000.00"), ("liability:loan", "9000.00")] {
            let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let whole = try await service.send(.GET, "/ledgers/kinds/audit?target=\(encoded)")
            #expect(whole.status == 200, "\(target): \(whole.text)")
            #expect(whole.json["target"] as? String == target)
            let entries = whole.json.objects("entries")
            #expect(!entries.isEmpty, "\(target)")
            if let balance { #expect(entries.last?["balance"] as? String == balance, "\(target): \(whole.text)") }
            let paged = try await allPages(service, "kinds", "target=\(encoded)", limit: 1)
            #expect(paged.map { "\($0["seq"]!) \($0["amount"]!) \($0["balance"]!)" } == entries.map { "\($0["seq"]!) \($0["amount"]!) \($0["balance"]!)" }, "\(target)")
        }
        let older = try await service.send(.GET, "/ledgers/kinds/audit?account=Budget:Pots:holiday")
        #expect(older.json.objects("entries").last?["balance"] as? String == "370.00", "'account' still reads: \(older.text)")
        let both = try await service.send(.GET, "/ledgers/kinds/audit?account=x&target=y")
        #expect(both.status == 400)
        #expect(try await service.send(.GET, "/ledgers/kinds/audit?target=pot:ghost").status == 404)
        #expect(try await service.send(.GET, "/ledgers/kinds/audit?target=asset:").status == 400)
        try await service.stopAndRemove()
    }
}
