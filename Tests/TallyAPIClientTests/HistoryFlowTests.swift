import Foundation
import OpenAPIRuntime
import Tally
import Testing

/// The history screens through the generated client: the audit of each kind of target the
/// CLI audits, a page at a time, and balances as of a day and as the ledger knew them at an
/// instant (a backdated deposit changes the past, but not what was known before it came).
@Suite struct HistoryFlowTests {
    /// Every entry of an audit, `limit` at a time, following `next_cursor`.
    static func allPages(_ app: Client, _ ledger: String, target: String, limit: Int) async throws -> [Components.Schemas.AuditPage.EntriesPayloadPayload] {
        var page = try await app.listAudit(path: .init(ledger: ledger), query: .init(target: target, limit: limit)).ok.body.json
        #expect(page.target == target)
        var entries = page.entries
        while let cursor = page.nextCursor {
            #expect(page.entries.count == limit, "a page before the last is full")
            page = try await app.listAudit(path: .init(ledger: ledger), query: .init(limit: limit, cursor: cursor)).ok.body.json
            entries += page.entries
        }
        return entries
    }

    @Test func theAuditOfEachKindAPageAtATime() async throws {
        let harness = try await APIHarness.start()
        let app = try await harness.ledger("kinds", baseCurrency: "USD")

        // Every deposit to Spend, so that Spend's audit is the deposits'.
        _ = try await app.setWealthSplitRule(path: .init(ledger: "kinds", account: "main"), headers: .init(idempotencyKey: idempotencyKey()),
                                             body: .json(.init(spendWeight: 100, investWeight: 0, effectiveAt: "2026-01-01"))).created
        for amount in ["100.00", "40.00", "15.00"] {
            _ = try await app.depositWealth(path: .init(ledger: "kinds", account: "main"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(amount: amount))).created
        }
        // The bank holds 5,000.00: what the pots are filled from.
        _ = try await app.setReferenceBalance(path: .init(ledger: "kinds"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(amount: "5000.00"))).created
        _ = try await app.createPot(path: .init(ledger: "kinds"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(id: "holiday", name: "Holiday", target: "1500.00"))).created
        for amount in ["300.00", "120.00"] {
            _ = try await app.addToPot(path: .init(ledger: "kinds", pot: "holiday"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(amount: amount))).created
        }
        _ = try await app.withdrawFromPot(path: .init(ledger: "kinds", pot: "holiday"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(amount: "50.00"))).created
        _ = try await app.openEnvelopeAccount(path: .init(ledger: "kinds"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(account: "Assets:Bank", currency: "USD", openingBalance: "900.00", effectiveAt: "2026-01-01"))).created
        _ = try await app.createEnvelope(path: .init(ledger: "kinds"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(id: "food", name: "Food", interval: .monthly, budgeted: "400.00", startDate: "2026-01-01"))).created
        for (index, amount) in ["-40.00", "-25.50"].enumerated() {
            _ = try await app.recordEnvelopeTransaction(path: .init(ledger: "kinds"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(
                id: "t\(index)", account: "Assets:Bank", amount: amount, envelope: "food", effectiveAt: "2026-01-0\(5 + index)"))).created
        }
        _ = try await app.addAsset(path: .init(ledger: "kinds"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(id: "flat", name: "Flat", category: .property, _type: .realEstate, currency: "USD"))).created
        for value in ["250000.00", "255000.00"] {
            _ = try await app.recordValuation(path: .init(ledger: "kinds", asset: "flat"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(value: value))).created
        }
        _ = try await app.addLiability(path: .init(ledger: "kinds"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(id: "loan", name: "Loan", category: "loan", currency: "USD"))).created
        _ = try await app.recordLiabilityValuation(path: .init(ledger: "kinds", liability: "loan"), headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(value: "9000.00"))).created

        let balances = try await app.getBalances(path: .init(ledger: "kinds")).ok.body.json.balances
        #expect(balances.first { $0.account == "Wealth:main:Spend" }?.balance == "155.00", "\(balances)")
        let expectations: [(target: String, count: Int, balance: String?)] = [
            ("Wealth:main:Spend", 3, "155.00"), ("pot:holiday", 3, "370.00"), ("envelope:food", 2, nil),
            ("asset:flat", 2, "255000.00"), ("liability:loan", 1, "9000.00"),
        ]
        for expected in expectations {
            let whole = try await app.listAudit(path: .init(ledger: "kinds"), query: .init(target: expected.target)).ok.body.json
            #expect(whole.nextCursor == nil)
            #expect(whole.entries.count >= expected.count, "\(expected.target): \(whole.entries)")
            if let balance = expected.balance { #expect(whole.entries.last?.balance == balance, "\(expected.target)") }
            let paged = try await Self.allPages(app, "kinds", target: expected.target, limit: 1)
            #expect(paged.map { "\($0.seq) \($0.amount) \($0.balance)" } == whole.entries.map { "\($0.seq) \($0.amount) \($0.balance)" },
                    "\(expected.target): every change once, in order, a page at a time")
        }
        let ghost = try await app.listAudit(path: .init(ledger: "kinds"), query: .init(target: "pot:ghost"))
        #expect(try ghost.notFound.body.applicationProblemJson.status == 404)
        try await harness.stop()
    }

    @Test func balancesAsOfADayAndAsKnownAtAnInstant() async throws {
        let harness = try await APIHarness.start()
        let app = try await harness.ledger("times", baseCurrency: "USD", timeZone: "America/New_York")
        let path = Operations.DepositWealth.Input.Path(ledger: "times", account: "main")
        _ = try await app.setWealthSplitRule(path: .init(ledger: "times", account: "main"), headers: .init(idempotencyKey: idempotencyKey()),
                                             body: .json(.init(spendWeight: 100, investWeight: 0, effectiveAt: "2026-01-01"))).created
        let spend = "Wealth:main:Spend"
        _ = try await app.depositWealth(path: path, headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(amount: "100.00", effectiveAt: "2026-03-10"))).created
        // What the ledger knew once the first deposit was recorded: the audit's recorded_at.
        let firstRecorded = try #require(try await app.listAudit(path: .init(ledger: "times"), query: .init(target: spend)).ok.body.json.entries.last?.recordedAt)
        // A deposit backdated to 1 March, recorded later.
        _ = try await app.depositWealth(path: path, headers: .init(idempotencyKey: idempotencyKey()), body: .json(.init(amount: "25.00", effectiveAt: "2026-03-01"))).created

        func spendBalance(asOf: String?, knownAt: String?) async throws -> String? {
            let answer = try await app.getBalances(path: .init(ledger: "times"), query: .init(asOf: asOf, knownAt: knownAt)).ok.body.json
            return answer.balances.first { $0.account == spend }?.balance
        }
        #expect(try await spendBalance(asOf: "2026-02-28", knownAt: nil) == nil, "nothing before March")
        #expect(try await spendBalance(asOf: "2026-03-05", knownAt: nil) == "25.00", "the backdated deposit")
        #expect(try await spendBalance(asOf: "2026-03-31", knownAt: nil) == "125.00")
        #expect(try await spendBalance(asOf: "2026-03-31", knownAt: firstRecorded) == "100.00", "as known before the backdated deposit came")
        #expect(try await spendBalance(asOf: "2026-03-05", knownAt: firstRecorded) == nil)
        // The day's end is New York's: 9 March 23:59 there is before the deposit of the 10th.
        #expect(try await spendBalance(asOf: "2026-03-10T03:59:59Z", knownAt: nil) == "25.00")
        #expect(try await spendBalance(asOf: "2026-03-10T04:00:00Z", knownAt: nil) == "125.00", "midnight in New York (UTC−4 since 8 March)")
        let bad = try await app.getBalances(path: .init(ledger: "times"), query: .init(asOf: "March"))
        #expect(try bad.badRequest.body.applicationProblemJson.field == "as_of")
        try await harness.stop()
    }
}
