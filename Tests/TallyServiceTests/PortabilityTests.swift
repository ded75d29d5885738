import Foundation
import Testing
@testable import TallyService

/// Imports (NDJSON events, journal CSV) through the library's all-or-nothing path, and export.
@Suite struct PortabilityTests {
    @Test func anExportImportsIntoAnotherLedgerWithTheSameBalances() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("source")
        try await service.createLedger("copy")
        for amount in ["100.00", "25.50"] {
            #expect(try await service.command("/ledgers/source/wealth/main/deposits", #"{"amount":"\#(amount)"}"#).status == 201)
        }
        #expect(try await service.command("/ledgers/source/wealth/main/purchases", #"{"amount":"3.40","merchant":"Cafe"}"#).status == 201)
        let export = try await service.send(.GET, "/ledgers/source/export")
        #expect(export.status == 200)
        #expect(export.headers.first(name: "Content-Type") == "application/x-ndjson")
        let lines = export.text.split(separator: "\n")
        #expect(lines.first?.contains("ledger_created") == true)
        // Everything after ledger_created: the copy has its own first event.
        let imported = try await service.send(.POST, "/ledgers/copy/imports/events", body: lines.dropFirst().joined(separator: "\n") + "\n")
        #expect(imported.status == 200, "\(imported.text)")
        #expect(imported.json["events_appended"] as? Int == lines.count - 1)
        let source = try await service.send(.GET, "/ledgers/source/balances").json.objects("balances")
        let copy = try await service.send(.GET, "/ledgers/copy/balances").json.objects("balances")
        #expect(source.map { "\($0["account"]!) \($0["balance"]!)" } == copy.map { "\($0["account"]!) \($0["balance"]!)" })
        try await service.stopAndRemove()
    }

    @Test func anExportRestoresOverHTTPAsANewLedgerWithTheSameHead() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("original", currency: "EUR")
        #expect(try await service.command("/ledgers/original/wealth/main/deposits", #"{"amount":"120.00"}"#).status == 201)
        #expect(try await service.command("/ledgers/original/transactions", #"{"payee":"Market","category":"Groceries","amount":"-30.00","date":"2026-01-05"}"#).status == 201)
        let export = try await service.send(.GET, "/ledgers/original/export")
        let head = try #require((try await service.send(.GET, "/ledgers/original").json["head"] as? [String: Any])?["sequence"] as? Int)

        let restored = try await service.send(.POST, "/ledgers/copy/restore", body: export.text)
        #expect(restored.status == 201, "\(restored.text)")
        #expect(restored.headers.first(name: "Location") == "/ledgers/copy")
        #expect(restored.json["events"] as? Int == head, "every event")
        #expect((try await service.send(.GET, "/ledgers/copy").json["head"] as? [String: Any])?["sequence"] as? Int == head)
        let copy = try await service.send(.GET, "/ledgers/copy")
        #expect(copy.json["base_currency"] as? String == "EUR")
        let original = try await service.send(.GET, "/ledgers/original/balances").json.objects("balances")
        let balances = try await service.send(.GET, "/ledgers/copy/balances").json.objects("balances")
        #expect(original.map { "\($0["account"]!) \($0["balance"]!)" } == balances.map { "\($0["account"]!) \($0["balance"]!)" })

        let again = try await service.send(.POST, "/ledgers/copy/restore", body: export.text)
        #expect(again.status == 409, "a restore makes a new ledger")
        let damaged = try await service.send(.POST, "/ledgers/damaged/restore", body: export.text.replacingOccurrences(of: "\"seq\":2", with: "\"seq\":7"))
        #expect(damaged.status == 422, "\(damaged.text)")
        #expect(damaged.headers.first(name: "Tally-Import-Line") != nil)
        #expect(try await service.send(.GET, "/ledgers/damaged").status == 404, "a refused restore leaves nothing")
        let ledgerKey = try await service.createKey("original", scopes: ["read", "write", "admin"])
        #expect(try await service.send(.POST, "/ledgers/other/restore", key: ledgerKey, body: export.text).status == 403, "the admin key's")
        try await service.stopAndRemove()
    }

    @Test func aWholeExportImportedIntoALedgerOfAnotherBaseCurrencyIsRefusedNamingBoth() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("euros", currency: "EUR")
        try await service.createLedger("dollars", currency: "USD")
        #expect(try await service.command("/ledgers/euros/transactions", #"{"payee":"Market","category":"groceries","amount":"-30.00","date":"2026-01-05"}"#).status == 201)
        let export = try await service.send(.GET, "/ledgers/euros/export")
        let reply = try await service.send(.POST, "/ledgers/dollars/imports/events", body: export.text)
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.headers.first(name: "Tally-Import-Line") == "1")
        let detail = reply.json["detail"] as? String ?? ""
        #expect(detail.contains("EUR") && detail.contains("USD") && detail.contains("restore"), "\(detail)")
        let sameCurrency = try await service.send(.POST, "/ledgers/euros/imports/events", body: export.text)
        #expect(sameCurrency.status == 422)
        #expect((sameCurrency.json["detail"] as? String)?.contains("export") == true, "\(sameCurrency.text)")
        let head = try await service.send(.GET, "/ledgers/dollars").json["head"] as? [String: Any]
        #expect(head?["sequence"] as? Int == 1, "nothing imported")
        try await service.stopAndRemove()
    }

    @Test func aFileWithOneBadLineAppendsNothing() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("strict")
        let good = #"{"effective_at":"2026-01-05T00:00:00Z","type":"deposit_received","version":1,"entity":"wealth:main","data":{"account":"main","amount":{"amount":"10.00","currency":"USD"}}}"#
        let bad = #"{"effective_at":"2026-01-06T00:00:00Z","type":"deposit_received","version":1,"entity":"wealth:main","data":{"account":"main","amount":{"amount":"ten","currency":"USD"}}}"#
        let reply = try await service.send(.POST, "/ledgers/strict/imports/events", body: good + "\n" + good + "\n" + bad + "\n")
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.code == "invalid_input")
        #expect(reply.text.contains(":3:"), "the problem names the line: \(reply.text)")
        let head = try await service.send(.GET, "/ledgers/strict").json["head"] as? [String: Any]
        #expect(head?["sequence"] as? Int == 1, "nothing appended")
        try await service.stopAndRemove()
    }

    @Test func aJournalCSVImportsAndARepeatAppendsNothing() async throws {
        let service = try await ServiceHarness.start()
        try await service.createLedger("journal")
        let csv = """
            date,account,counter_account,amount,currency,payee,category,external_id
            2026-05-01,Assets:Checking,Income:Salary,2500.00,USD,"ACME, Inc.",Salary,bank-001
            2026-05-02,Expenses:Dining,Assets:Checking,42.10,USD,Diner,Dining,bank-002

            """
        let first = try await service.send(.POST, "/ledgers/journal/imports/journal", body: csv)
        #expect(first.status == 200, "\(first.text)")
        #expect(first.json["imported"] as? Int == 2)
        let again = try await service.send(.POST, "/ledgers/journal/imports/journal", body: csv)
        #expect(again.json["duplicates_skipped"] as? Int == 2, "\(again.text)")
        #expect(again.json["events_appended"] as? Int == 0)
        let balances = try await service.send(.GET, "/ledgers/journal/balances?as_of=2026-05-31").json.objects("balances")
        #expect(balances.contains { $0["account"] as? String == "Assets:Checking" && $0["balance"] as? String == "2457.90" }, "\(balances)")
        try await service.stopAndRemove()
    }

    @Test func anImportPastTheLimitIsRefusedWhole() async throws {
        let service = try await ServiceHarness.start { $0.importBodyBytesLimit = 2048 }
        try await service.createLedger("limited")
        let reply = try await service.send(.POST, "/ledgers/limited/imports/events", body: String(repeating: "{}\n", count: 2000))
        #expect(reply.status == 413)
        #expect(reply.code == "body_too_large")
        try await service.stopAndRemove()
    }
}
