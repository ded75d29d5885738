import Foundation
import OpenAPIRuntime
import Tally
import Testing

/// Export and restore through the generated client: a household's ledger exported as NDJSON
/// and restored as a new ledger that answers every read as the original does.
@Suite struct PortabilityFlowTests {
    @Test func anExportRestoresAsANewLedgerThatAnswersAsTheOriginal() async throws {
        let harness = try await APIHarness.start()
        let app = try await harness.ledger("original", baseCurrency: "GBP", timeZone: "Europe/London")
        for (index, amount) in ["120.00", "80.50", "33.30"].enumerated() {
            _ = try await app.depositWealth(path: .init(ledger: "original", account: "main"), headers: .init(idempotencyKey: idempotencyKey()),
                                            body: .json(.init(amount: amount, effectiveAt: "2026-04-0\(index + 1)"))).created
        }
        _ = try await app.recordTransaction(path: .init(ledger: "original"), headers: .init(idempotencyKey: idempotencyKey()),
                                            body: .json(.init(payee: "Market", category: .groceries, amount: "-30.00", date: "2026-04-05", id: "m-1"))).created
        _ = try await app.createPot(path: .init(ledger: "original"), headers: .init(idempotencyKey: idempotencyKey()),
                                    body: .json(.init(id: "car", name: "Car", target: "5000.00"))).created

        let exported = try await app.exportLedger(path: .init(ledger: "original")).ok.body.applicationXNdjson
        let text = try await String(collecting: exported, upTo: 16 * 1024 * 1024)
        let head = try await app.getLedger(path: .init(ledger: "original")).ok.body.json.head
        #expect(text.split(separator: "\n").count == head.sequence, "one line per event")

        // Restoring takes the server's admin key; a ledger's key is refused.
        let refused = try await app.restoreLedger(path: .init(ledger: "copy"), body: .applicationXNdjson(HTTPBody(text)))
        #expect(try refused.forbidden.body.applicationProblemJson.status == 403)
        let restored = try await harness.client().restoreLedger(path: .init(ledger: "copy"), body: .applicationXNdjson(HTTPBody(text)))
        let created = try restored.created
        #expect(created.headers.location == "/ledgers/copy")
        #expect(try created.body.json.events == head.sequence)

        let admin = harness.client()
        let copy = try await admin.getLedger(path: .init(ledger: "copy")).ok.body.json
        #expect(copy.baseCurrency == "GBP")
        #expect(copy.timeZone == "Europe/London")
        #expect(copy.head.sequence == head.sequence)
        for asOf in ["2026-04-01", "2026-04-02", "2026-04-30"] {
            let original = try await admin.getBalances(path: .init(ledger: "original"), query: .init(asOf: asOf)).ok.body.json.balances
            let restoredBalances = try await admin.getBalances(path: .init(ledger: "copy"), query: .init(asOf: asOf)).ok.body.json.balances
            #expect(original.map { "\($0.account) \($0.currency) \($0.balance)" } == restoredBalances.map { "\($0.account) \($0.currency) \($0.balance)" }, "as of \(asOf)")
        }
        let transactions = try await admin.listTransactions(path: .init(ledger: "copy"), query: .init(month: "2026-04")).ok.body.json
        #expect(transactions.transactions.map(\.id) == ["m-1"])
        #expect(try await admin.listPots(path: .init(ledger: "copy")).ok.body.json.pots.map(\.id) == ["car"])

        // A second restore to the same id is refused: a restore makes a new ledger.
        let again = try await admin.restoreLedger(path: .init(ledger: "copy"), body: .applicationXNdjson(HTTPBody(text)))
        #expect(try again.conflict.body.applicationProblemJson.status == 409)
        try await harness.stop()
    }
}
