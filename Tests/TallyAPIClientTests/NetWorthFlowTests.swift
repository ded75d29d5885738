import Foundation
import OpenAPIRuntime
import Tally
import Testing

/// The net-worth app's flow through the generated client: a flat in one currency, savings in
/// another converted at the rate in force, a mortgage owed, and an item with no rate named
/// among what the total leaves out.
@Suite struct NetWorthFlowTests {
    @Test func netWorthInTwoCurrenciesWithALiability() async throws {
        let harness = try await APIHarness.start()
        let app = try await harness.ledger("mullers", baseCurrency: "EUR", timeZone: "Europe/Berlin")
        let ledger = Operations.AddAsset.Input.Path(ledger: "mullers")
        func key() -> Operations.AddAsset.Input.Headers { .init(idempotencyKey: idempotencyKey()) }

        let flat = try await app.addAsset(path: ledger, headers: key(), body: .json(.init(id: "flat", name: "Flat", category: .property, _type: .realEstate, currency: "EUR", effectiveAt: "2026-01-01")))
        #expect(try flat.created.headers.location == "/ledgers/mullers/assets/flat")
        _ = try await app.recordValuation(path: .init(ledger: "mullers", asset: "flat"), headers: .init(idempotencyKey: idempotencyKey()),
                                          body: .json(.init(value: "320000.00", effectiveAt: "2026-01-10"))).created
        _ = try await app.addAsset(path: ledger, headers: key(), body: .json(.init(id: "isa", name: "Savings", category: .cash, _type: .cash, currency: "GBP", effectiveAt: "2026-01-01"))).created
        _ = try await app.recordValuation(path: .init(ledger: "mullers", asset: "isa"), headers: .init(idempotencyKey: idempotencyKey()),
                                          body: .json(.init(value: "10000.00", currency: "GBP", effectiveAt: "2026-01-10"))).created
        _ = try await app.addLiability(path: .init(ledger: "mullers"), headers: .init(idempotencyKey: idempotencyKey()),
                                       body: .json(.init(id: "mortgage", name: "Mortgage", category: "mortgage", currency: "EUR", linkedAsset: "flat", effectiveAt: "2026-01-01"))).created
        _ = try await app.recordLiabilityValuation(path: .init(ledger: "mullers", liability: "mortgage"), headers: .init(idempotencyKey: idempotencyKey()),
                                                   body: .json(.init(value: "210000.00", effectiveAt: "2026-01-10"))).created

        // Before any GBP rate the savings are left out, by name and with the reason.
        let unconverted = try await app.getNetWorth(path: .init(ledger: "mullers"), query: .init(asOf: "2026-01-31")).ok.body.json
        #expect(unconverted.complete == false)
        #expect(unconverted.excluded.map(\.id) == ["isa"])
        #expect(unconverted.excluded.first?.value == "10000.00")
        #expect(unconverted.netWorth == "110000.00", "320,000.00 − 210,000.00")

        // 1 GBP = 1.1725 EUR from 1 February.
        _ = try await app.setFXRate(path: .init(ledger: "mullers"), headers: .init(idempotencyKey: idempotencyKey()),
                                    body: .json(.init(base: "GBP", quote: "EUR", rate: "1.1725", effectiveAt: "2026-02-01"))).created
        let converted = try await app.getNetWorth(path: .init(ledger: "mullers"), query: .init(asOf: "2026-02-28")).ok.body.json
        #expect(converted.complete)
        #expect(converted.excluded.isEmpty)
        #expect(converted.baseCurrency == "EUR")
        #expect(converted.assets == "331725.00", "320,000.00 + 10,000.00 × 1.1725")
        #expect(converted.liabilities == "210000.00")
        #expect(converted.netWorth == "121725.00")
        #expect(Set(converted.lines.map(\.id)) == ["flat", "isa", "mortgage"])
        #expect(converted.lines.first { $0.id == "mortgage" }?.kind == .liability)

        // January is still answered as it was: the rate came later.
        let january = try await app.getNetWorth(path: .init(ledger: "mullers"), query: .init(asOf: "2026-01-31")).ok.body.json
        #expect(january.netWorth == unconverted.netWorth)
        #expect(january.complete == false)
        try await harness.stop()
    }
}
