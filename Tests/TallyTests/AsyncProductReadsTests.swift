import Foundation
import Testing
import TallyTestSupport
@testable import Tally

/// The products' async reads (`ledger.async.wealthSummary`, `netWorth`, …) answer what the
/// blocking reads answer, at the same (as-of, known-at) points, with the same errors.
@Suite struct AsyncProductReadsTests {
    @Test func theProductsAsyncReadsAnswerAsTheBlockingOnes() async throws {
        try await withTemporaryStore(on: .files) { store in
            let clock = ManualClock("2026-03-02T10:00:00Z")
            let ledger = try Ledger.forTesting(at: store, clock: clock, timeZone: "UTC")
            defer { try? ledger.close() }
            try ledger.deposit(account: "alice", amount: usd("100.00"))
            try ledger.createPot(id: "trip", target: usd("500.00"))
            try ledger.recordTransaction(payee: "Employer", category: .general, amount: usd("900.00"), date: day("2026-03-01"))
            try ledger.addToPot(id: "trip", amount: usd("40.00"))
            try ledger.openEnvelopeAccount("Assets:Checking", commodity: .usd, openingBalance: usd("300.00"))
            try ledger.createEnvelope("food", name: "Food", interval: .monthly, budgeted: usd("120.00"), startDate: day("2026-03-01"))
            try ledger.addAsset(assetId: "car", name: "Car", category: .other, type: .custom, currency: .usd)
            try ledger.recordValuation(itemKind: .asset, itemId: "car", value: usd("8000.00"), source: .manual)
            let recorded = clock.now
            clock.advance(seconds: 86_400)
            try ledger.deposit(account: "alice", amount: usd("50.00"))
            let march = try Month(year: 2026, month: 3)

            for knownAt in [nil, recorded] {
                #expect(try await ledger.async.wealthSummary(account: "alice", knownAt: knownAt) == ledger.wealthSummary(account: "alice", knownAt: knownAt))
                #expect(try await ledger.async.pots(knownAt: knownAt) == ledger.pots(knownAt: knownAt))
                #expect(try await ledger.async.budgetOverview(month: march, knownAt: knownAt) == ledger.budgetOverview(month: march, knownAt: knownAt))
                #expect(try await ledger.async.envelopeStatus("food", knownAt: knownAt) == ledger.envelopeStatus("food", knownAt: knownAt))
                #expect(try await ledger.async.envelopeStatuses(knownAt: knownAt) == ledger.envelopeStatuses(knownAt: knownAt))
                #expect(try await ledger.async.netWorth(knownAt: knownAt) == ledger.netWorth(knownAt: knownAt))
                #expect(try await ledger.async.xray(knownAt: knownAt) == ledger.xray(knownAt: knownAt))
            }
            #expect(try await ledger.async.wealthSummary(account: "alice").balance(in: .usd).total == usd("150.00"))
            await #expect { try await ledger.async.wealthSummary(account: "nobody") } throws: { ($0 as? LedgerError)?.code == .notFound }
            await #expect { try await ledger.async.envelopeStatus("none") } throws: { ($0 as? LedgerError)?.code == .notFound }
        }
    }
}
