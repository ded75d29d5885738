import Testing
@testable import Tally
import TallyLog
import TallyTestSupport
@testable import TallyEngine
@testable import TallyProducts

/// Issue 32, "Deposit split preview": before a deposit (or a purchase) the user sees the
/// split and the round-up that would happen; the preview records nothing and is the real
/// command's own plan, so it says exactly what the command then records.
@Suite struct WealthPreviewTests {
    @Test func aPreviewShowsTheSplitAndRecordsNothing() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-03-01T12:00:00Z"))
            try ledger.deposit(account: "main", amount: usd("100.00"))
            try ledger.setSplitRule(account: "main", spendWeight: 60, investWeight: 40)
            let head = ledger.head
            let models = try ledger.readModels.dump()
            let preview = try ledger.previewDeposit(account: "main", amount: usd("10.01"))
            #expect(preview.deposit?.amount == usd("10.01"))
            // 60/40 of 10.01: 6.006 and 4.004; the odd cent to the larger remainder, Spend on a tie.
            #expect(preview.split.map { [$0.spend, $0.invest] } == [usd("6.01"), usd("4.00")])
            #expect(preview.events.map(\.sequence) == [head.sequence + 1, head.sequence + 2])
            #expect(ledger.head == head)
            #expect(try ledger.readModels.dump() == models)
            #expect(try ledger.wealthSummary(account: "main").balance(in: .usd).spend == usd("70.00"))
        }
    }

    @Test func aPurchasePreviewShowsItsRoundUpOrItsSkip() throws {
        try withTemporaryStore { root in
            let ledger = try Ledger.forTesting(at: root, clock: ManualClock("2026-03-01T12:00:00Z"))
            try ledger.deposit(account: "main", amount: usd("10.01"))  // Spend 7.01 (7.007), Invest 3.00
            try ledger.setRoundUps(account: "main", enabled: true)
            let coffee = try ledger.previewPurchase(account: "main", amount: usd("3.40"), merchant: "Blue Bottle")
            #expect(coffee.purchase?.amount == usd("3.40") && coffee.roundUp?.amount == usd("0.60") && coffee.roundUpSkipped == nil)
            // 7.01 empties Spend: its 0.99 round-up cannot be covered whole, so it is skipped.
            let everything = try ledger.previewPurchase(account: "main", amount: usd("7.01"), merchant: "Books")
            #expect(everything.roundUp == nil && everything.roundUpSkipped?.amount == usd("0.99"))
            // A refusal is the command's own: Spend cannot cover 7.02, and nothing is recorded.
            #expect(throws: LedgerError.self) { try ledger.previewPurchase(account: "main", amount: usd("7.02"), merchant: "Shop") }
            try ledger.pauseAutomation(account: "main")
            let waiting = try ledger.previewDeposit(account: "main", amount: usd("5.00"))
            #expect(waiting.deposit != nil && waiting.split == nil)
        }
    }

    /// Randomised: split rules, round-ups, pauses and backdated commands at random. Before
    /// each deposit or purchase its preview is taken; the log head and every read-model table
    /// are unchanged by it, and the command run right after records exactly the previewed
    /// events, or both refuse with the same message.
    @Test func aPreviewIsExactlyWhatTheCommandThenRecords() throws {
        try withRandomLedgers(3, master: 0x32_b3, clockAt: "2026-01-05T12:00:00Z") { ledger, clock, random, seed in
            for step in 0..<40 {
                clock.advance(seconds: Int64.random(in: 60...86_400, using: &random))
                let at = Instant(microsecondsSinceEpoch: clock.now.microsecondsSinceEpoch - Int64.random(in: 0...(5 * 86_400), using: &random) * 1_000_000)
                let context = "seed \(seed), step \(step)"
                switch Int.random(in: 0..<8, using: &random) {
                case 0: _ = try? ledger.setSplitRule(account: "main", spendWeight: Int64.random(in: 0...10, using: &random), investWeight: Int64.random(in: 1...10, using: &random), effectiveAt: at)
                case 1: _ = try? ledger.setRoundUps(account: "main", enabled: Bool.random(using: &random), effectiveAt: at)
                case 2: _ = try? (Bool.random(using: &random) ? ledger.pauseAutomation(account: "main", effectiveAt: at) : ledger.resumeAutomation(account: "main", effectiveAt: at))
                default:
                    let currency: Commodity = Bool.random(using: &random) ? .usd : .gbp
                    let amount = Money(minorUnits: Int64.random(in: 1...20_000, using: &random), commodity: currency)
                    let isDeposit = Int.random(in: 0..<5, using: &random) < 2
                    let effectiveAt: Instant? = Bool.random(using: &random) ? at : nil
                    try expectPreviewIsRecorded(ledger, context: context) {
                        isDeposit ? try ledger.previewDeposit(account: "main", amount: amount, effectiveAt: effectiveAt).result
                                  : try ledger.previewPurchase(account: "main", amount: amount, merchant: "Shop", effectiveAt: effectiveAt).result
                    } run: {
                        isDeposit ? try ledger.deposit(account: "main", amount: amount, effectiveAt: effectiveAt)
                                  : try ledger.purchase(account: "main", amount: amount, merchant: "Shop", effectiveAt: effectiveAt)
                    }
                }
            }
            try ledger.expectConsistent()
        }
    }

    private func expectPreviewIsRecorded(
        _ ledger: Ledger, context: String, preview: () throws -> Ledger.CommandResult, run: () throws -> Ledger.CommandResult
    ) throws {
        let head = ledger.head
        let models = try ledger.readModels.dump()
        let previewed: Result<Ledger.CommandResult, LedgerError>
        do { previewed = .success(try preview()) } catch let error as LedgerError { previewed = .failure(error) }
        #expect(ledger.head == head, "the preview appended nothing, \(context)")
        #expect(try ledger.readModels.dump() == models, "the preview changed no read model, \(context)")
        switch previewed {
        case .success(let previewed):
            let recorded = try run()
            #expect(recorded.events == previewed.events && recorded.wasAlreadyApplied == previewed.wasAlreadyApplied, "\(context)")
        case .failure(let refusal):
            #expect(throws: LedgerError.self, "\(context)") { try run() }
            do { _ = try run() } catch let error as LedgerError { #expect(error.message == refusal.message, "\(context)") }
            #expect(ledger.head == head, "\(context)")
        }
    }
}
