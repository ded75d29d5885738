import Foundation
import OpenAPIRuntime
import Tally
import TallyTestSupport
import Testing
import TallyLog

/// The wealth app's flow through the generated client: a household's ledger and keys,
/// deposits split between Spend and Invest by the rule in force, purchases from Spend with
/// round-ups into Invest, and the retry of a deposit that appends nothing.
@Suite struct WealthFlowTests {
    @Test func aHouseholdsDepositsSplitAndItsPurchasesRoundUp() async throws {
        let seed = TestSeed.value(default: 0x36_0001)
        var random = SplitMix64(seed: seed)
        let harness = try await APIHarness.start()
        let app = try await harness.ledger("smiths", baseCurrency: "GBP", timeZone: "Europe/London")
        let path = Operations.DepositWealth.Input.Path(ledger: "smiths", account: "main")

        // A read-only key reads but cannot deposit; a key of another ledger cannot read.
        let reader = harness.client(key: try await harness.client().createKey(path: .init(ledger: "smiths"), body: .json(.init(scopes: [.read]))).created.body.json.key)
        let refused = try await reader.depositWealth(path: path, headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(amount: "1.00")))
        #expect(try refused.forbidden.body.applicationProblemJson.code == "missing_scope", "seed \(seed)")

        // 80/20 from now on; deposits of random amounts split by it, each in exact minor units.
        let rule = try await app.setWealthSplitRule(
            path: .init(ledger: "smiths", account: "main"), headers: .init(idempotencyKey: idempotencyKey()),
            body: .json(.init(spendWeight: 80, investWeight: 20)))
        #expect(try rule.created.body.json.account?.splitRule == "80/20")
        var spend = 0, invest = 0
        for index in 0..<5 {
            // Multiples of 5 pence: 80/20 splits them exactly, whatever the rounding rule.
            let pence = 5 * Int.random(in: 1...400_000, using: &random)
            let deposit = try await app.depositWealth(
                path: path, headers: .init(idempotencyKey: "deposit-\(index)"), body: .json(.init(amount: Self.decimal(pence), externalId: "bank-\(index)")))
            let answer = try deposit.created.body.json
            let investShare = pence / 5
            spend += pence - investShare
            invest += investShare
            let balance = try #require(answer.account?.balances.first { $0.currency == "GBP" }, "seed \(seed)")
            #expect(balance.spend == Self.decimal(spend), "seed \(seed): deposit \(index) of \(Self.decimal(pence))")
            #expect(balance.invest == Self.decimal(invest), "seed \(seed): deposit \(index)")
            #expect(answer.events.count == 2, "deposit_received and deposit_split")
        }

        // A retry of a deposit appends nothing and answers as the first time.
        let first = try await app.depositWealth(path: path, headers: .init(idempotencyKey: "deposit-first"), body: .json(.init(amount: "10.00")))
        let again = try await app.depositWealth(path: path, headers: .init(idempotencyKey: "deposit-first"), body: .json(.init(amount: "10.00")))
        #expect(try again.created.headers.idempotentReplayed == ._true)
        #expect(try again.created.body.json.events.count == first.created.body.json.events.count)
        spend += 800
        invest += 200
        let retry = try await app.depositWealth(path: path, headers: .init(idempotencyKey: "deposit-0"), body: .json(.init(amount: Self.decimal(1), externalId: "bank-0")))
        #expect(try retry.conflict.body.applicationProblemJson.code == "idempotency_conflict", "the same key with another body")

        // Round-ups: a purchase of 3.40 rounds up to 4.00, 0.60 moves from Spend to Invest.
        let roundUps = try await app.setWealthRoundUps(path: .init(ledger: "smiths", account: "main"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(enabled: true)))
        #expect(try roundUps.created.body.json.account?.roundUpsEnabled == true)
        let purchase = try await app.purchaseWealth(
            path: .init(ledger: "smiths", account: "main"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(amount: "3.40", merchant: "Cafe")))
        let bought = try #require(try purchase.created.body.json.account?.balances.first { $0.currency == "GBP" })
        spend -= 340 + 60
        invest += 60
        #expect(bought.spend == Self.decimal(spend), "seed \(seed)")
        #expect(bought.invest == Self.decimal(invest), "seed \(seed)")

        // The summary as the app's wallet screen reads it.
        let summary = try await app.getWealthSummary(path: .init(ledger: "smiths", account: "main")).ok.body.json
        #expect(summary.splitRule == "80/20")
        #expect(summary.roundUpsEnabled)
        let gbp = try #require(summary.balances.first { $0.currency == "GBP" })
        #expect(gbp.spend == Self.decimal(spend))
        #expect(gbp.invest == Self.decimal(invest))
        #expect(gbp.total == Self.decimal(spend + invest))
        try await harness.stop()
    }

    /// `pence` as the API writes an amount of a 2-decimal currency.
    static func decimal(_ minorUnits: Int) -> String {
        let sign = minorUnits < 0 ? "-" : ""
        let magnitude = minorUnits.magnitude
        let cents = magnitude % 100
        return "\(sign)\(magnitude / 100).\(cents < 10 ? "0" : "")\(cents)"
    }
}
